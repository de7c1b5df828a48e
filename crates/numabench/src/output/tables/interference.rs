//! `interference`: the degradation matrix as one row per victim,
//! aggressor and load (the victim's latency and read bandwidth alone and
//! loaded, the change, marked where significant, and the aggressors'
//! traffic), then the finding naming the worst pair. Without a matrix
//! (Ctrl-C before every cell was measured both ways), the measurements.

use super::cells::placement_note;
use super::{generic, TableModel};
use crate::output::Record;
use crate::study::SIGNIFICANCE;
use crate::units::format_value;
use numabench_schema::params::InterferenceCellParams;

/// A matrix cell's params (what it lacks reads as `None`).
fn cell_params(record: &Record) -> InterferenceCellParams {
    record.params_or_default()
}

pub fn tables(records: &[&Record]) -> Vec<TableModel> {
    let latency: Vec<&Record> = of(records, "latency_ratio");
    if latency.is_empty() {
        return generic::tables(records);
    }
    let bandwidth = of(records, "bandwidth_ratio");
    let mut table = TableModel::new(
        "interference: the victim's loads and reads, alone -> under the aggressor's load",
        &[
            "victim",
            "aggressor",
            "load",
            "latency ns",
            "change",
            "read GB/s",
            "change",
            "traffic GB/s",
        ],
    );
    for record in &latency {
        let cell = cell_params(record);
        let pair = |other: &InterferenceCellParams| {
            (other.victim_node, other.aggressor_node, other.load.clone())
        };
        let read = bandwidth
            .iter()
            .find(|other| pair(&cell_params(other)) == pair(&cell));
        let figures = |params: &InterferenceCellParams,
                       alone: Option<f64>,
                       loaded: Option<f64>,
                       change: f64| {
            let span = match (alone, loaded) {
                (Some(alone), Some(loaded)) => {
                    format!("{} -> {}", format_value(alone), format_value(loaded))
                }
                _ => "-".into(),
            };
            let mark = match params.p_value {
                Some(p) if p < SIGNIFICANCE => " *",
                _ => "",
            };
            (span, format!("{change:+.0}%{mark}"))
        };
        let (latency_span, latency_change) = figures(
            &cell,
            cell.alone_ns,
            cell.loaded_ns,
            (record.value - 1.0) * 100.0,
        );
        let (read_span, read_change) = match read {
            Some(read) => {
                let params = cell_params(read);
                figures(
                    &params,
                    params.alone_gbs,
                    params.loaded_gbs,
                    (read.value - 1.0) * 100.0,
                )
            }
            None => ("-".into(), "-".into()),
        };
        let node = |node: Option<u32>| node.map_or("-".into(), |node| node.to_string());
        table.push(vec![
            node(cell.victim_node),
            node(cell.aggressor_node),
            cell.load.clone().unwrap_or_default(),
            latency_span,
            latency_change,
            read_span,
            read_change,
            cell.traffic_gbs.map_or("-".into(), format_value),
        ]);
    }
    table
        .notes
        .push("* significant: Mann-Whitney p < 0.05 over the rounds' repetitions, Holm-adjusted over the matrix".into());
    let measured: Vec<&Record> = records
        .iter()
        .copied()
        .filter(|record| record.metric.starts_with("victim_"))
        .collect();
    table.notes.extend(placement_note(&measured));
    let matrix: Vec<Record> = latency
        .iter()
        .chain(&bandwidth)
        .map(|r| (*r).clone())
        .collect();
    for sentence in crate::findings::interference_sentences(&matrix) {
        table.notes.push(sentence.text);
    }
    vec![table]
}

fn of<'a>(records: &[&'a Record], metric: &str) -> Vec<&'a Record> {
    records
        .iter()
        .copied()
        .filter(|record| record.metric == metric)
        .collect()
}
