//! Memory-level parallelism against the number of chains.

use super::{curves, curves_table, section, Section};
use crate::report::html::{self, figure};
use crate::report::load::Dataset;
use crate::report::plot::{lines, Series};

/// `mlp` (ratio) against chains, one curve per size and CPU.
pub fn mlp_curves(data: &Dataset, metric: &str) -> Vec<Series> {
    curves(
        data.of("mlp").filter(|r| r.metric == metric),
        "chains",
        |r| {
            format!(
                "{} on CPU {}",
                r.num("size_bytes").map(html::bytes).unwrap_or_default(),
                r.text("cpu").unwrap_or_else(|| "?".into())
            )
        },
    )
}

pub fn build(data: &Dataset) -> Option<Section> {
    let mlp = mlp_curves(data, "mlp");
    let per_load = mlp_curves(data, "ns_per_load");
    if mlp.is_empty() && per_load.is_empty() {
        return None;
    }
    let mut body = String::new();
    if !mlp.is_empty() {
        body.push_str(&figure(
            &lines(
                &mlp,
                "independent chains (k)",
                "memory-level parallelism (ratio)",
                false,
                &[],
            ),
            "MLP: ns per load with one chain over ns per load with k chains (at most k).",
            &curves_table(&mlp, "chains", "mlp (ratio)"),
        ));
    }
    if !per_load.is_empty() {
        body.push_str(&figure(
            &lines(
                &per_load,
                "independent chains (k)",
                "time per load (ns)",
                false,
                &[],
            ),
            "Median ns per load with k chains in one thread.",
            &curves_table(&per_load, "chains", "ns per load"),
        ));
    }
    Some(section("mlp", "Memory-level parallelism", body))
}
