//! Sentences from the placement checks records carry: how much of each
//! benchmark's buffers got huge pages (when they were asked for), and on
//! what share of the checked pages the requested placement was verified.

use super::{FindingKind, Sentence};
use crate::compare::key::identifies;
use crate::memory::HugePageCheck;
use crate::output::{Record, Unit};
use crate::units::format_percent;
use numabench_schema::benchmark;
use numabench_schema::params::findings::{HugePagesParams, PlacementVerifiedParams};
use numabench_schema::params::to_params;

/// One record per measurement: the metrics of one measurement (`latency`
/// and `latency_cycles`) share their identifying params (the `compare`
/// key's, which leave out per-metric details such as `tsc_ghz`) and their
/// placement check, which is counted once.
fn measurements(records: &[Record]) -> Vec<&Record> {
    let mut seen = std::collections::HashSet::new();
    records
        .iter()
        .filter(|record| {
            let params: Vec<_> = record
                .params
                .iter()
                .filter(|(name, value)| identifies(name, value))
                .collect();
            seen.insert(
                serde_json::to_string(&(&record.benchmark, params, &record.placement))
                    .unwrap_or_default(),
            )
        })
        .collect()
}

pub(super) fn sentences(records: &[Record]) -> Vec<Sentence> {
    let records = measurements(records);
    let mut benchmarks: Vec<&str> = Vec::new();
    for record in &records {
        if !benchmarks.contains(&record.benchmark.as_str()) {
            benchmarks.push(&record.benchmark);
        }
    }
    let mut sentences = Vec::new();
    for benchmark in benchmarks {
        let checks = || {
            records
                .iter()
                .filter(move |record| record.benchmark == benchmark)
                .filter_map(|record| record.placement.verified.as_ref())
        };
        let Some(huge) =
            HugePageCheck::combine(checks().filter_map(|check| check.huge_pages.as_ref()))
        else {
            continue;
        };
        let what = if benchmark == benchmark::LATENCY {
            "the latency chain".to_string()
        } else {
            format!("the {benchmark} buffers")
        };
        let params = to_params(&HugePagesParams {
            of_benchmark: Some(benchmark.to_string()),
            source: Some(huge.source.clone()),
            resident_bytes: Some(huge.resident_bytes),
        });
        sentences.push(Sentence {
            kind: FindingKind::HugePages,
            text: format!(
                "{what} hit huge pages ({}) on {} of the buffer",
                huge.source,
                format_percent(huge.fraction)
            ),
            value: huge.fraction,
            unit: Unit::Ratio,
            params,
        });
    }
    let checks: Vec<_> = records
        .iter()
        .filter_map(|record| record.placement.verified.as_ref())
        .filter(|check| check.pages > 0)
        .collect();
    let pages: u64 = checks.iter().map(|check| check.pages).sum();
    if pages > 0 {
        let placed: f64 = checks
            .iter()
            .map(|check| check.fraction_as_requested * check.pages as f64)
            .sum();
        let fraction = placed / pages as f64;
        let params = to_params(&PlacementVerifiedParams {
            pages: Some(pages),
            checked_records: Some(checks.len() as u64),
        });
        sentences.push(Sentence {
            kind: FindingKind::PlacementVerified,
            text: format!(
                "the requested placement was verified on {} of {pages} checked pages ({} measurements)",
                format_percent(fraction),
                checks.len()
            ),
            value: fraction,
            unit: Unit::Ratio,
            params,
        });
    }
    sentences
}
