//! A comparison as records of the results schema (benchmark `compare`,
//! documented in docs/results.md).

use super::by_role::MatchBy;
use super::matching::Comparison;
use crate::output::{Placement, Record, Unit};
use crate::stats::Sample;
use numabench_schema::benchmark;
use numabench_schema::params::{to_params, CompareRatioParams, CompareUnmatchedParams, UNMATCHED};
use serde_json::{Map, Value};

/// The `benchmark` of comparison records.
pub const BENCHMARK: &str = benchmark::COMPARE;

fn record(metric: &str, value: f64, unit: Unit, params: Map<String, Value>) -> Option<Record> {
    let stats = Sample::new([value]).ok()?.summary();
    Some(Record {
        benchmark: BENCHMARK.to_string(),
        metric: metric.to_string(),
        value,
        unit,
        params,
        placement: Placement::default(),
        stats,
    })
}

/// One record per matched measurement and set after the first (value:
/// the ratio to the first set), then one `unmatched` record per set (value:
/// how many of its records no other set matches). A measurement whose
/// first-set value is 0 has no ratio and gives no record.
pub fn comparison_records(comparison: &Comparison) -> Vec<Record> {
    let mut records = Vec::new();
    for matched in &comparison.matched {
        for index in 1..matched.figures.len() {
            let Some(ratio) = matched.ratio(index) else {
                continue;
            };
            let key = matched
                .key
                .params
                .iter()
                .filter(|(name, _)| !CompareRatioParams::NAMES.contains(&name.as_str()))
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect();
            let params = CompareRatioParams {
                benchmark: matched.key.benchmark.clone(),
                key,
                unit: matched.key.unit.clone(),
                set: index as u64 + 1,
                file: comparison.sets[index].clone(),
                baseline_file: comparison.sets[0].clone(),
                set_value: matched.figures[index].value,
                baseline_value: matched.figures[0].value,
                repetitions: [
                    matched.figures[0].values.len() as u64,
                    matched.figures[index].values.len() as u64,
                ],
                p_value: match comparison.by {
                    MatchBy::Exact => matched.p_value(index),
                    MatchBy::Role => None,
                },
                matched_by: comparison.by.name().to_string(),
            };
            records.extend(record(
                &matched.key.metric,
                ratio,
                Unit::Ratio,
                to_params(&params),
            ));
        }
    }
    for (index, unmatched) in comparison.unmatched.iter().enumerate() {
        let params = CompareUnmatchedParams {
            set: index as u64 + 1,
            file: comparison.sets[index].clone(),
            matched_by: comparison.by.name().to_string(),
        };
        records.extend(record(
            UNMATCHED,
            unmatched.records as f64,
            Unit::Count,
            to_params(&params),
        ));
    }
    records
}
