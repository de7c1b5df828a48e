//! What this machine's NUMA costs: a characterization's findings, computed
//! only from the records of that run, each with its figure and the facts
//! behind it: idle latency per cache level and of memory, local against
//! remote latency and bandwidth, CPU-less nodes, where bandwidth saturates,
//! what a serial initialisation costs, the slowest CPU and node pair, the
//! firmware's tables against what was measured, memory-level parallelism,
//! core-to-core latency, huge pages and verified placement; then advice
//! resting on them. A finding appears only when the records it needs are
//! there: nothing is said about what was not measured (on one node,
//! nothing about remote memory).

mod advice;
mod bandwidth;
mod budget;
mod classes;
mod contention;
mod declared;
mod declared_gap;
mod doctor;
mod figures;
mod interference;
mod kind;
mod latency;
mod matrices;
mod nodes;
mod noise;
mod outliers;
mod pages;
mod parallelism;
mod scaling;

pub use budget::{budget_sentences, run_time_sentence};
pub use kind::FindingKind;

/// The finding of an `interference` matrix (its `latency_ratio` and
/// `bandwidth_ratio` records): the worst pair, or that none was measurable.
pub fn interference_sentences(records: &[Record]) -> Vec<Sentence> {
    interference::sentences(records)
}

use crate::output::{Placement, Record, Unit};
use crate::stats::Sample;
use numabench_schema::benchmark;
use numabench_schema::params::{key, BenchmarkParams};
use serde_json::{json, Map, Value};

/// The `benchmark` of summary records.
pub const BENCHMARK: &str = benchmark::SUMMARY;

/// One finding: its text and its headline figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Sentence {
    /// What it is about (the record's `metric`).
    pub kind: FindingKind,
    pub text: String,
    /// The figure the sentence leads with (see docs/results.md).
    pub value: f64,
    pub unit: Unit,
    /// The facts behind it (nodes, peak, ...).
    pub params: Map<String, Value>,
}

impl Sentence {
    /// `params` read as its kind's params type
    /// (`numabench_schema::params::findings`), as a summary record's
    /// [`Record::params_as`] reads them; `None` where they do not read as
    /// `T`.
    pub fn params_as<T: BenchmarkParams>(&self) -> Option<T> {
        serde_json::from_value(Value::Object(self.params.clone())).ok()
    }
}

/// Every finding the records support, in a fixed order, the advice last.
pub fn summarize(records: &[Record]) -> Vec<Sentence> {
    summarize_with_doctor(records, &[])
}

/// [`summarize`], with a sentence for each of the run's doctor warnings
/// that bears on a finding (which findings, and why), before the advice.
pub fn summarize_with_doctor(
    records: &[Record],
    doctor: &[crate::doctor::Finding],
) -> Vec<Sentence> {
    let mut sentences = latency::sentences(records);
    sentences.extend(bandwidth::sentences(records));
    sentences.extend(matrices::sentences(records));
    sentences.extend(scaling::sentences(records));
    sentences.extend(contention::sentences(records));
    sentences.extend(nodes::sentences(records));
    sentences.extend(classes::sentences(records));
    sentences.extend(outliers::sentences(records));
    sentences.extend(declared::sentences(records));
    sentences.extend(declared_gap::sentences(records));
    sentences.extend(parallelism::sentences(records));
    sentences.extend(pages::sentences(records));
    sentences.extend(interference::sentences(records));
    let warnings = doctor::sentences(doctor, &sentences);
    sentences.extend(warnings);
    let advice = advice::sentences(&sentences);
    sentences.extend(advice);
    sentences
}

/// The sentences as records (benchmark `summary`, metric = kind,
/// `params.sentence` = the text).
pub fn summary_records(sentences: &[Sentence]) -> Vec<Record> {
    sentences
        .iter()
        .filter_map(|sentence| {
            let mut params = Map::new();
            params.insert(key::SENTENCE.into(), json!(sentence.text));
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

/// Test helper: each sentence as `kind params`, its params as written
/// on the wire (key order, integers, nulls), against `expected`; a
/// mismatch prints the lines as Rust literals.
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_wire(sentences: &[Sentence], expected: &[&str]) {
    let lines: Vec<String> = sentences
        .iter()
        .map(|sentence| {
            format!(
                "{} {}",
                sentence.kind,
                Value::Object(sentence.params.clone())
            )
        })
        .collect();
    let printed: Vec<String> = lines.iter().map(|line| format!("{line:?},")).collect();
    assert!(
        lines == expected,
        "the params on the wire changed:\n{}",
        printed.join("\n")
    );
}

#[cfg(test)]
mod tests;
