//! interference's records: every measurement of a victim (its latency and
//! its read bandwidth, alone or under a load), then the matrix (the
//! loaded/alone ratio of each cell) and the finding naming the worst pair.

use super::config::{aggressor_bytes, Aggressor, InterferenceConfig, Victim};
use super::degradation::Degradation;
use super::measure::VictimFound;
use crate::findings::{interference_sentences, summary_records};
use crate::kernels::traffic::TrafficMix;
use crate::output::{Placement, Record, Unit};
use crate::stats::Sample;
use numabench_schema::benchmark;
use numabench_schema::params::{to_params, InterferenceCellParams, InterferenceParams};
use numabench_schema::RequestedPlacement;

/// The two records of one measurement: `victim_latency` and `victim_bandwidth`.
pub fn measurement_records(
    config: &InterferenceConfig,
    victim: &Victim,
    load: Option<(&Aggressor, TrafficMix)>,
    round: usize,
    found: &VictimFound,
) -> Vec<Record> {
    let params = to_params(&InterferenceParams {
        victim_node: Some(victim.node),
        victim_cpu: Some(victim.cpu),
        aggressor_node: load.map(|(aggressor, _)| aggressor.node),
        aggressor_threads: Some(load.map_or(0, |(aggressor, _)| aggressor.cpus.len()) as u64),
        load: Some(load.map_or("none".to_string(), |(_, mix)| mix.name())),
        round: Some(round as u64),
        traffic_gbs: Some(found.traffic_gbs),
        size_bytes: Some(config.size),
        aggressor_bytes: Some(load.map_or(0, |(aggressor, _)| {
            aggressor_bytes(config.size, aggressor.cpus.len())
        })),
    });
    let mut cpus = vec![victim.cpu];
    if let Some((aggressor, _)) = load {
        cpus.extend(&aggressor.cpus);
    }
    let requested = to_params(&RequestedPlacement {
        policy: Some("bind".into()),
        nodes: Some(vec![victim.node]),
        ..RequestedPlacement::on_cpus(&cpus)
    });
    let placement = Placement {
        requested,
        verified: Some(found.check.clone()),
    };
    let mut records = Vec::new();
    for (metric, unit, values) in [
        ("victim_latency", Unit::Nanoseconds, &found.latency_ns),
        (
            "victim_bandwidth",
            Unit::GigabytesPerSecond,
            &found.bandwidth_gbs,
        ),
    ] {
        if let Ok(sample) = Sample::new(values.iter().copied()) {
            records.push(Record::of_median(
                benchmark::INTERFERENCE,
                metric,
                unit,
                sample.summary(),
                params.clone(),
                placement.clone(),
            ));
        }
    }
    records
}

/// The matrix: per cell, `latency_ratio` (loaded/alone, above 1 is
/// slower) and `bandwidth_ratio` (loaded/alone, below 1 is lower).
pub fn matrix_records(config: &InterferenceConfig, cells: &[Degradation]) -> Vec<Record> {
    let mut records = Vec::new();
    for cell in cells {
        let pair = InterferenceCellParams {
            victim_node: Some(cell.victim_node),
            aggressor_node: Some(cell.aggressor_node),
            load: Some(cell.load.clone()),
            traffic_gbs: Some(cell.traffic_gbs),
            rounds: Some(config.rounds as u64),
            size_bytes: Some(config.size),
            ..InterferenceCellParams::default()
        };
        let latency = to_params(&InterferenceCellParams {
            alone_ns: Some(cell.latency_alone_ns),
            loaded_ns: Some(cell.latency_loaded_ns),
            increase_pct: Some(cell.latency_increase_pct),
            p_value: Some(cell.latency_p),
            ..pair.clone()
        });
        let bandwidth = to_params(&InterferenceCellParams {
            alone_gbs: Some(cell.bandwidth_alone_gbs),
            loaded_gbs: Some(cell.bandwidth_loaded_gbs),
            loss_pct: Some(cell.bandwidth_loss_pct),
            p_value: Some(cell.bandwidth_p),
            ..pair
        });
        for (metric, ratio, params) in [
            (
                "latency_ratio",
                cell.latency_loaded_ns / cell.latency_alone_ns,
                latency,
            ),
            (
                "bandwidth_ratio",
                cell.bandwidth_loaded_gbs / cell.bandwidth_alone_gbs,
                bandwidth,
            ),
        ] {
            if let Ok(sample) = Sample::new([ratio]) {
                records.push(Record::of_median(
                    benchmark::INTERFERENCE,
                    metric,
                    Unit::Ratio,
                    sample.summary(),
                    params,
                    Placement::default(),
                ));
            }
        }
    }
    records
}

/// The finding of the matrix's records as a `summary` record.
pub fn finding_records(matrix: &[Record]) -> Vec<Record> {
    summary_records(&interference_sentences(matrix))
}
