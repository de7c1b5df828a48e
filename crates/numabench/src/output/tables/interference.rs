//! `interference`: the degradation matrix as one row per victim,
//! aggressor and load (the victim's latency and read bandwidth alone and
//! loaded, the change, marked where significant, and the aggressors'
//! traffic), then the finding naming the worst pair. Without a matrix
//! (Ctrl-C before every cell was measured both ways), the measurements.

use super::cells::{f64_param, placement_note, text_param, u64_param};
use super::{generic, TableModel};
use crate::output::Record;
use crate::study::SIGNIFICANCE;
use crate::units::format_value;

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
    for cell in &latency {
        let same = |other: &&&Record| {
            u64_param(other, "victim_node") == u64_param(cell, "victim_node")
                && u64_param(other, "aggressor_node") == u64_param(cell, "aggressor_node")
                && text_param(other, "load") == text_param(cell, "load")
        };
        let read = bandwidth.iter().find(same);
        let figures = |record: &Record, alone: &str, loaded: &str, change: f64| {
            let span = match (f64_param(record, alone), f64_param(record, loaded)) {
                (Some(alone), Some(loaded)) => {
                    format!("{} -> {}", format_value(alone), format_value(loaded))
                }
                _ => "-".into(),
            };
            let mark = match f64_param(record, "p_value") {
                Some(p) if p < SIGNIFICANCE => " *",
                _ => "",
            };
            (span, format!("{change:+.0}%{mark}"))
        };
        let (latency_span, latency_change) =
            figures(cell, "alone_ns", "loaded_ns", (cell.value - 1.0) * 100.0);
        let (read_span, read_change) = match read {
            Some(read) => figures(read, "alone_gbs", "loaded_gbs", (read.value - 1.0) * 100.0),
            None => ("-".into(), "-".into()),
        };
        let node = |key: &str| u64_param(cell, key).map_or("-".into(), |node| node.to_string());
        table.push(vec![
            node("victim_node"),
            node("aggressor_node"),
            text_param(cell, "load").unwrap_or_default(),
            latency_span,
            latency_change,
            read_span,
            read_change,
            f64_param(cell, "traffic_gbs").map_or("-".into(), format_value),
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
