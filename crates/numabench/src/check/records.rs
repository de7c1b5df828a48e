//! A check's results as records (`check --json`, `--jsonl`): one per
//! metric, one for the node type.

use super::fingerprint::Difference;
use super::measure::Attempt;
use super::plan::{CheckItem, CheckQuantity};
use super::run::Outcome;
use crate::output::{Placement, Record, Unit};
use crate::stats::{Sample, Summary};
use numabench_schema::benchmark;
use numabench_schema::params::{
    to_params, CheckItemParams, CheckOutcomeParams, NodeTypeParams, NODE_TYPE_DIFFERENCES,
};
use numabench_schema::{RequestedMemory, RequestedPlacement};

/// The record of one measurement of `item`: its value (the fastest
/// repetition), what and where (`key`, `check`, `node`, `cpu_node`,
/// `threads`, `size_bytes`), the placement as requested and as found, the
/// repetitions' statistics. `check` and `cluster`'s check part both make
/// theirs with it.
pub fn item_record(item: &CheckItem, attempt: &Attempt) -> Record {
    record_with(item, attempt, &item_params(item))
}

/// What and where an item measures: the params every record of it
/// starts with.
pub fn item_params(item: &CheckItem) -> CheckItemParams {
    CheckItemParams {
        key: Some(item.key.clone()),
        check: Some(item.label()),
        node: Some(item.memory_node),
        cpu_node: Some(item.cpu_node),
        threads: Some(item.cpus.len() as u64),
        size_bytes: Some(item.size),
        ..CheckItemParams::default()
    }
}

/// The record of one measurement of `item` with `params`.
pub fn record_with(item: &CheckItem, attempt: &Attempt, params: &CheckItemParams) -> Record {
    let requested = to_params(&RequestedPlacement {
        memory: Some(RequestedMemory::Label(format!("bind:{}", item.memory_node))),
        ..RequestedPlacement::on_cpus(&item.cpus)
    });
    let stats = Sample::new(attempt.repetitions.iter().copied())
        .map(|sample| sample.summary())
        .unwrap_or_else(|_| Summary::single(attempt.value));
    Record {
        benchmark: benchmark::CHECK.into(),
        metric: metric(item.quantity).into(),
        value: attempt.value,
        unit: match item.quantity {
            CheckQuantity::Latency => Unit::Nanoseconds,
            _ => Unit::GigabytesPerSecond,
        },
        params: to_params(params),
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
    let params = CheckItemParams {
        outcome: Some(CheckOutcomeParams {
            reference: Some(reference.value),
            lower: reference.lower,
            upper: reference.upper,
            tolerance: Some(reference.tolerance_text()),
            verdict: outcome.verdict.name().to_string(),
            attempts: Some(outcome.attempts.iter().map(|a| a.value).collect()),
            ratio: Some(reported.value / reference.value),
        }),
        ..item_params(&outcome.item)
    };
    record_with(&outcome.item, reported, &params)
}

/// The record of the node type: how many ways this node differs from its
/// baseline's fingerprint, and each.
pub fn node_type_record(differences: &[Difference]) -> Record {
    let params = NodeTypeParams {
        differences: Some(differences.to_vec()),
    };
    let value = differences.len() as f64;
    Record {
        benchmark: benchmark::CHECK.into(),
        metric: NODE_TYPE_DIFFERENCES.into(),
        value,
        unit: Unit::Count,
        params: to_params(&params),
        placement: Placement::default(),
        stats: Summary::single(value),
    }
}

/// The metric name of a quantity's records (its name in params too).
pub fn metric(quantity: CheckQuantity) -> &'static str {
    match quantity {
        CheckQuantity::ReadBandwidth => "read_bandwidth",
        CheckQuantity::TriadBandwidth => "triad_bandwidth",
        CheckQuantity::Latency => "latency",
    }
}
