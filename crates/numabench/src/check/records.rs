//! A check's results as records (`check --json`, `--jsonl`): one per
//! metric, one for the node type.

use super::fingerprint::Difference;
use super::measure::Attempt;
use super::plan::{CheckItem, Quantity};
use super::run::Outcome;
use crate::output::{Placement, Record, Unit};
use crate::stats::{Sample, Summary};
use numabench_schema::benchmark;
use serde_json::{json, Map};

/// The record of one measurement of `item`: its value (the fastest
/// repetition), what and where (`key`, `check`, `node`, `cpu_node`,
/// `threads`, `size_bytes`), the placement as requested and as found, the
/// repetitions' statistics. `check` and `cluster`'s check part both make
/// theirs with it.
pub fn item_record(item: &CheckItem, attempt: &Attempt) -> Record {
    let mut params = Map::new();
    params.insert("key".into(), json!(item.key));
    params.insert("check".into(), json!(item.label()));
    params.insert("node".into(), json!(item.memory_node));
    params.insert("cpu_node".into(), json!(item.cpu_node));
    params.insert("threads".into(), json!(item.cpus.len()));
    params.insert("size_bytes".into(), json!(item.size));
    let mut requested = Map::new();
    requested.insert("cpus".into(), json!(item.cpus));
    requested.insert("memory".into(), json!(format!("bind:{}", item.memory_node)));
    let stats = Sample::new(attempt.repetitions.iter().copied())
        .map(|sample| sample.summary())
        .unwrap_or_else(|_| Summary::single(attempt.value));
    Record {
        benchmark: benchmark::CHECK.into(),
        metric: metric(item.quantity).into(),
        value: attempt.value,
        unit: match item.quantity {
            Quantity::Latency => Unit::Nanoseconds,
            _ => Unit::GigabytesPerSecond,
        },
        params,
        placement: Placement {
            requested,
            verified: Some(attempt.placement.clone()),
        },
        stats,
    }
}

/// The record of one metric: the value compared (the reported attempt's
/// fastest repetition), its reference and bounds, every attempt, the
/// verdict; the placement as requested and as found.
pub fn outcome_record(outcome: &Outcome) -> Record {
    let reported = outcome.reported();
    let reference = &outcome.reference;
    let mut record = item_record(&outcome.item, reported);
    let params = &mut record.params;
    params.insert("reference".into(), json!(reference.value));
    params.insert("lower".into(), json!(reference.lower));
    params.insert("upper".into(), json!(reference.upper));
    params.insert("tolerance".into(), json!(reference.tolerance_text()));
    params.insert("verdict".into(), json!(outcome.verdict));
    let attempts: Vec<f64> = outcome.attempts.iter().map(|a| a.value).collect();
    params.insert("attempts".into(), json!(attempts));
    params.insert("ratio".into(), json!(reported.value / reference.value));
    record
}

/// The record of the node type: how many ways this node differs from its
/// baseline's fingerprint, and each.
pub fn node_type_record(differences: &[Difference]) -> Record {
    let mut params = Map::new();
    params.insert("differences".into(), json!(differences));
    let value = differences.len() as f64;
    Record {
        benchmark: benchmark::CHECK.into(),
        metric: "node_type_differences".into(),
        value,
        unit: Unit::Count,
        params,
        placement: Placement::default(),
        stats: Summary::single(value),
    }
}

/// The metric name of a quantity's records.
fn metric(quantity: Quantity) -> &'static str {
    match quantity {
        Quantity::ReadBandwidth => "read_bandwidth",
        Quantity::TriadBandwidth => "triad_bandwidth",
        Quantity::Latency => "latency",
    }
}
