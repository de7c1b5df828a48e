//! What a characterization found, in a few sentences computed only from
//! the records of that run: remote against local memory (latency and
//! bandwidth matrices), CPU-less nodes, where bandwidth saturates
//! (scaling), huge-page coverage and verified placement. A sentence
//! appears only when the records it needs are there: nothing is said about
//! what was not measured (on one node, nothing about remote memory).

mod budget;
mod matrices;
mod pages;
mod scaling;

pub use budget::{budget_sentences, run_time_sentence};

use crate::output::{Placement, Record, Unit};
use crate::stats::Sample;
use serde_json::{json, Map, Value};

/// The `benchmark` of summary records.
pub const BENCHMARK: &str = "summary";

/// One finding: its text and its headline figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Sentence {
    /// What it is about: `remote_memory`, `cpuless_node`,
    /// `bandwidth_saturation`, `huge_pages`, `placement_verified`.
    pub kind: &'static str,
    pub text: String,
    /// The figure the sentence leads with (see docs/results.md).
    pub value: f64,
    pub unit: Unit,
    /// The facts behind it (nodes, peak, ...).
    pub params: Map<String, Value>,
}

/// Every sentence the records support, in a fixed order.
pub fn summarize(records: &[Record]) -> Vec<Sentence> {
    let mut sentences = matrices::sentences(records);
    sentences.extend(scaling::sentences(records));
    sentences.extend(pages::sentences(records));
    sentences
}

/// The sentences as records (benchmark `summary`, metric = kind,
/// `params.sentence` = the text).
pub fn summary_records(sentences: &[Sentence]) -> Vec<Record> {
    sentences
        .iter()
        .filter_map(|sentence| {
            let mut params = Map::new();
            params.insert("sentence".into(), json!(sentence.text));
            params.extend(sentence.params.clone());
            Some(Record {
                benchmark: BENCHMARK.to_string(),
                metric: sentence.kind.to_string(),
                value: sentence.value,
                unit: sentence.unit,
                params,
                placement: Placement::default(),
                stats: Sample::new([sentence.value]).ok()?.summary(),
            })
        })
        .collect()
}

/// `value` as a factor: `1.90x`.
fn factor(value: f64) -> String {
    format!("{value:.2}x")
}

/// The smallest and largest of some factors as `1.90x` or `1.40x-2.10x`.
fn factor_range(values: &[f64]) -> String {
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if (high - low).abs() < 0.005 {
        factor(low)
    } else {
        format!("{}-{}", factor(low), factor(high))
    }
}

/// A param as an unsigned integer.
fn param_u64(record: &Record, name: &str) -> Option<u64> {
    record.params.get(name).and_then(Value::as_u64)
}

#[cfg(test)]
mod tests;
