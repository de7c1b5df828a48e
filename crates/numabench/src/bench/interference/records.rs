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
use serde_json::{json, Map, Value};

/// The two records of one measurement: `victim_latency` and `victim_bandwidth`.
pub fn measurement_records(
    config: &InterferenceConfig,
    victim: &Victim,
    load: Option<(&Aggressor, TrafficMix)>,
    round: usize,
    found: &VictimFound,
) -> Vec<Record> {
    let mut params = Map::new();
    params.insert("victim_node".into(), json!(victim.node));
    params.insert("victim_cpu".into(), json!(victim.cpu));
    params.insert(
        "aggressor_node".into(),
        json!(load.map(|(aggressor, _)| aggressor.node)),
    );
    params.insert(
        "aggressor_threads".into(),
        json!(load.map_or(0, |(aggressor, _)| aggressor.cpus.len())),
    );
    params.insert(
        "load".into(),
        json!(load.map_or("none".to_string(), |(_, mix)| mix.name())),
    );
    params.insert("round".into(), json!(round));
    params.insert("traffic_gbs".into(), json!(found.traffic_gbs));
    params.insert("size_bytes".into(), json!(config.size));
    params.insert(
        "aggressor_bytes".into(),
        json!(load.map_or(0, |(aggressor, _)| aggressor_bytes(
            config.size,
            aggressor.cpus.len()
        ))),
    );
    let mut requested = Map::new();
    let mut cpus = vec![victim.cpu];
    if let Some((aggressor, _)) = load {
        cpus.extend(&aggressor.cpus);
    }
    requested.insert("cpus".into(), json!(cpus));
    requested.insert("policy".into(), json!("bind"));
    requested.insert("nodes".into(), json!([victim.node]));
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
        let mut params = Map::new();
        params.insert("victim_node".into(), json!(cell.victim_node));
        params.insert("aggressor_node".into(), json!(cell.aggressor_node));
        params.insert("load".into(), json!(cell.load));
        params.insert("traffic_gbs".into(), json!(cell.traffic_gbs));
        params.insert("rounds".into(), json!(config.rounds));
        params.insert("size_bytes".into(), json!(config.size));
        let latency = with(
            &params,
            &[
                ("alone_ns", cell.latency_alone_ns),
                ("loaded_ns", cell.latency_loaded_ns),
                ("increase_pct", cell.latency_increase_pct),
                ("p_value", cell.latency_p),
            ],
        );
        let bandwidth = with(
            &params,
            &[
                ("alone_gbs", cell.bandwidth_alone_gbs),
                ("loaded_gbs", cell.bandwidth_loaded_gbs),
                ("loss_pct", cell.bandwidth_loss_pct),
                ("p_value", cell.bandwidth_p),
            ],
        );
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

fn with(params: &Map<String, Value>, figures: &[(&str, f64)]) -> Map<String, Value> {
    let mut params = params.clone();
    for (key, value) in figures {
        params.insert((*key).into(), json!(value));
    }
    params
}

/// The finding of the matrix's records as a `summary` record.
pub fn finding_records(matrix: &[Record]) -> Vec<Record> {
    summary_records(&interference_sentences(matrix))
}
