//! What a serial initialisation costs (`contention` records): every thread
//! reading one node's memory, as data first touched by one thread is
//! placed, against each thread reading its own node's memory. Said only
//! when the run spans several nodes: on one node both are the same.

use super::figures::{figure, nodes_seen, of};
use super::{FindingKind, Sentence};
use crate::output::{Record, Unit};
use numabench_schema::benchmark;
use numabench_schema::params::findings::SerialInitParams;
use numabench_schema::params::to_params;

pub(super) fn sentences(records: &[Record]) -> Vec<Sentence> {
    if nodes_seen(records).len() < 2 {
        return Vec::new();
    }
    let value = |metric: &str| {
        of(records, benchmark::CONTENTION, metric)
            .next()
            .map(|r| r.value)
    };
    let (Some(gain), Some(contended), Some(local)) = (
        value("local_over_contended"),
        value("contended_bandwidth"),
        value("local_bandwidth"),
    ) else {
        return Vec::new();
    };
    // The 95% interval of the ratio, from the two figures' repetitions.
    let error = |metric: &str| {
        of(records, benchmark::CONTENTION, metric)
            .next()
            .map_or(0.0, super::noise::median_error)
    };
    let ci95 =
        1.96 * (error("contended_bandwidth").powi(2) + error("local_bandwidth").powi(2)).sqrt();
    let threads = of(records, benchmark::CONTENTION, "contended_bandwidth")
        .next()
        .and_then(|record| record.typed_params().threads())
        .unwrap_or(0);
    let params = to_params(&SerialInitParams {
        contended_gbs: Some(contended),
        local_gbs: Some(local),
        threads: Some(threads),
        ci95_rel: Some(ci95),
    });
    vec![Sentence {
        kind: FindingKind::SerialInit,
        text: format!(
            "serial initialisation: {threads} threads reading data all on one node get {}, against {} when each reads its own node's memory ({gain:.2}x)",
            figure(contended, "GB/s"),
            figure(local, "GB/s")
        ),
        value: gain,
        unit: Unit::Ratio,
        params,
    }]
}
