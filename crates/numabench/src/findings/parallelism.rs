//! Memory-level parallelism (`mlp`: misses one core keeps in flight) and
//! core-to-core latency by relation (`c2c`: same core, same cache, same
//! node, across nodes or packages), min and max of each.

use super::figures::{figure_span, of, param_str, param_u64, span};
use super::{FindingKind, Sentence};
use crate::output::{Record, Unit};
use numabench_schema::benchmark;
use numabench_schema::params::findings::{C2cFindingParams, MlpFindingParams};
use numabench_schema::params::{key, to_params};
use serde_json::json;
use std::collections::BTreeMap;

/// Share of the highest ratio that counts as reached.
const REACHED: f64 = 0.9;

fn mlp(records: &[Record]) -> Option<Sentence> {
    // One core's curve: records without a thread count (mlp --threads
    // writes `threads`), of the first CPU seen.
    let curve: Vec<(u64, f64)> = of(records, benchmark::MLP, "mlp")
        .filter(|record| {
            record
                .typed_params()
                .threads()
                .is_none_or(|threads| threads == 1)
        })
        .filter_map(|record| Some((param_u64(record, key::CHAINS)?, record.value)))
        .collect();
    if curve.len() < 2 {
        return None;
    }
    let (best_chains, best) = curve
        .iter()
        .copied()
        .reduce(|a, b| if b.1 > a.1 { b } else { a })?;
    let reached = curve
        .iter()
        .filter(|point| point.1 >= REACHED * best)
        .map(|point| point.0)
        .min()?;
    let params = to_params(&MlpFindingParams {
        chains_at_best: Some(best_chains),
        chains_reaching_90_percent: Some(reached),
        chains_measured: Some(curve.len() as u64),
    });
    Some(Sentence {
        kind: FindingKind::Mlp,
        text: format!(
            "memory-level parallelism: one core keeps about {best:.1} misses in flight ({best_chains} chains; 90% of that from {reached})"
        ),
        value: best,
        unit: Unit::Ratio,
        params,
    })
}

fn c2c(records: &[Record]) -> Option<Sentence> {
    let mut by_relation: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for record in of(records, benchmark::C2C, "c2c_latency") {
        let relation = param_str(record, key::RELATION)
            .unwrap_or("pair")
            .to_string();
        if !order.contains(&relation) {
            order.push(relation.clone());
        }
        by_relation.entry(relation).or_default().push(record.value);
    }
    if order.is_empty() {
        return None;
    }
    // Nearest relations first.
    order.sort_by(|a, b| {
        let low =
            |relation: &String| span(by_relation[relation].iter().copied()).map_or(0.0, |s| s.0);
        low(a).total_cmp(&low(b))
    });
    let mut params = C2cFindingParams::default();
    let parts: Vec<String> = order
        .iter()
        .filter_map(|relation| {
            let values = span(by_relation[relation].iter().copied())?;
            params.relations.insert(
                format!("{}_ns", relation.replace('-', "_")),
                json!([values.0, values.1]),
            );
            Some(format!("{relation} {}", figure_span(values, "ns")))
        })
        .collect();
    let highest = by_relation
        .values()
        .flatten()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    Some(Sentence {
        kind: FindingKind::C2c,
        text: format!("core-to-core latency: {}", parts.join(", ")),
        value: highest,
        unit: Unit::Nanoseconds,
        params: to_params(&params),
    })
}

pub(super) fn sentences(records: &[Record]) -> Vec<Sentence> {
    mlp(records).into_iter().chain(c2c(records)).collect()
}
