//! A comparison as records of the results schema (benchmark `compare`,
//! documented in docs/results.md).

use super::by_role::MatchBy;
use super::matching::Comparison;
use crate::output::{Placement, Record, Unit};
use crate::stats::Sample;
use numabench_schema::benchmark;
use serde_json::{json, Map, Value};

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
            let mut params = Map::new();
            params.insert("benchmark".into(), json!(matched.key.benchmark));
            for (name, value) in &matched.key.params {
                params.insert(name.clone(), value.clone());
            }
            params.insert("unit".into(), json!(matched.key.unit));
            params.insert("set".into(), json!(index + 1));
            params.insert("file".into(), json!(comparison.sets[index]));
            params.insert("baseline_file".into(), json!(comparison.sets[0]));
            params.insert("set_value".into(), json!(matched.figures[index].value));
            params.insert("baseline_value".into(), json!(matched.figures[0].value));
            params.insert(
                "repetitions".into(),
                json!([
                    matched.figures[0].values.len(),
                    matched.figures[index].values.len()
                ]),
            );
            let p_value = match comparison.by {
                MatchBy::Exact => matched.p_value(index),
                MatchBy::Role => None,
            };
            params.insert("p_value".into(), json!(p_value));
            params.insert("matched_by".into(), json!(comparison.by.name()));
            records.extend(record(&matched.key.metric, ratio, Unit::Ratio, params));
        }
    }
    for (index, unmatched) in comparison.unmatched.iter().enumerate() {
        let mut params = Map::new();
        params.insert("set".into(), json!(index + 1));
        params.insert("file".into(), json!(comparison.sets[index]));
        params.insert("matched_by".into(), json!(comparison.by.name()));
        records.extend(record(
            "unmatched",
            unmatched.records as f64,
            Unit::Count,
            params,
        ));
    }
    records
}
