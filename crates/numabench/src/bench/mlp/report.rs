//! Memory-level parallelism against the number of chains: one thread's
//! `mlp` and `ns_per_load`, and `mlp --threads`' aggregate loads and
//! latency per load, pinned against unpinned, with the p-values.

use crate::output::ReadRecord;
use crate::report::html::{self, figure, Table};
use crate::report::load::Dataset;
use crate::report::plot::{lines, Series};
use crate::report::sections::{curves, curves_table, section};
use crate::report::Section;
use numabench_schema::benchmark;
use numabench_schema::params::{key, MlpParams};

/// An `mlp` record's params (what it lacks reads as `None`).
fn params_of(r: &ReadRecord) -> MlpParams {
    r.params_or_default()
}

/// `mlp` (ratio) against chains, one curve per size and CPU.
pub fn mlp_curves(data: &Dataset, metric: &str) -> Vec<Series> {
    curves(
        data.of(benchmark::MLP).filter(|r| r.metric == metric),
        key::CHAINS,
        |r| {
            let params = params_of(r);
            let size = params.working_set.and_then(|set| set.size_bytes);
            format!(
                "{} on CPU {}",
                size.map(|bytes| html::bytes(bytes as f64))
                    .unwrap_or_default(),
                params.cpu.map_or_else(|| "?".into(), |cpu| cpu.to_string())
            )
        },
    )
}

/// The metrics of one thread's chase (`mlp`) and of `mlp --threads`.
const SINGLE: [&str; 2] = ["mlp", "ns_per_load"];
const THREADED: [&str; 2] = ["aggregate_loads", "load_latency"];
const RATIO: &str = "pinned_over_unpinned";

/// Whether this section draws or tables `r` (the others of benchmark
/// `mlp` go to "Other records").
pub fn shows(r: &ReadRecord) -> bool {
    let curve = SINGLE.contains(&r.metric.as_str()) || THREADED.contains(&r.metric.as_str());
    (curve && params_of(r).chains.is_some()) || r.metric == RATIO
}

/// `mlp --threads` records of `metric` against chains, one curve per
/// file, thread count and pinning.
pub fn threads_curves(data: &Dataset, metric: &str) -> Vec<Series> {
    curves(
        data.of(benchmark::MLP).filter(|r| r.metric == metric),
        key::CHAINS,
        |r| {
            let params = params_of(r);
            let pinned = match params.pinned {
                Some(true) => "pinned",
                Some(false) => "unpinned",
                None => "pinning ?",
            };
            format!(
                "{} threads, {pinned} ({})",
                params
                    .threads
                    .map(|count| html::number(count as f64))
                    .unwrap_or_default(),
                r.file
            )
        },
    )
}

/// `pinned_over_unpinned` per file, threads and chains, with its p-value.
fn ratio_table(data: &Dataset) -> Table {
    let mut table = Table::new(&[
        "file",
        "threads",
        "chains",
        "pinned / unpinned rate",
        "p (Mann-Whitney)",
        "significant (p < 0.05)",
    ]);
    for r in data.of(benchmark::MLP).filter(|r| r.metric == RATIO) {
        let params = params_of(r);
        let number = |value: Option<f64>| value.map(html::number).unwrap_or_default();
        table.push(vec![
            r.file.clone(),
            number(params.threads.map(|count| count as f64)),
            number(params.chains.map(|count| count as f64)),
            html::number(r.value),
            number(params.p_value),
            params
                .significant
                .map(|significant| significant.to_string())
                .unwrap_or_default(),
        ]);
    }
    table
}

pub fn build(data: &Dataset) -> Option<Section> {
    let mlp = mlp_curves(data, "mlp");
    let per_load = mlp_curves(data, "ns_per_load");
    let loads = threads_curves(data, "aggregate_loads");
    let latency = threads_curves(data, "load_latency");
    let ratios = ratio_table(data);
    if mlp.is_empty()
        && per_load.is_empty()
        && loads.is_empty()
        && latency.is_empty()
        && ratios.is_empty()
    {
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
    if !loads.is_empty() {
        body.push_str(&figure(
            &lines(
                &loads,
                "independent chains per thread (k)",
                "aggregate loads (Mop/s)",
                false,
                &[],
            ),
            "mlp --threads: million loads per second of all threads and chains, pinned and unpinned.",
            &curves_table(&loads, "chains", "aggregate loads (Mop/s)"),
        ));
    }
    if !latency.is_empty() {
        body.push_str(&figure(
            &lines(
                &latency,
                "independent chains per thread (k)",
                "latency per load (ns)",
                false,
                &[],
            ),
            "mlp --threads: a thread's time per load of one chain under that load, averaged over the threads.",
            &curves_table(&latency, "chains", "latency per load (ns)"),
        ));
    }
    if !ratios.is_empty() {
        body.push_str(&format!(
            "<h3>Pinned over unpinned</h3><p>Median pinned aggregate rate over median unpinned, \
             with the Mann-Whitney p over the repetitions.</p>{}",
            ratios.to_html()
        ));
    }
    Some(section("mlp", "Memory-level parallelism", body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sections::tests::fixture;

    #[test]
    fn mlp_curves_follow_chains() {
        let data = fixture(&["characterize.jsonl"]);
        let series = mlp_curves(&data, "mlp");
        let count = data.of("mlp").filter(|r| r.metric == "mlp").count();
        assert!(count > 1);
        assert_eq!(series.iter().map(|s| s.points.len()).sum::<usize>(), count);
        assert_eq!(series[0].points[0].0, 1.0, "k starts at 1");
    }
}
