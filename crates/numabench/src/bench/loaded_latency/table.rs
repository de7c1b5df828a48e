//! Loaded latency: the traffic the other cores made against the chase's
//! latency, and that latency over the idle one.

use crate::output::tables::cells::{
    distinct, f64_param, figure, placement_note, ratio, text_param,
};
use crate::output::tables::{generic, CacheLadder, TableModel};
use crate::output::Record;
use crate::units::format_value;

/// The latency-against-bandwidth table, then any other metric.
pub fn tables(records: &[&Record], _caches: &CacheLadder) -> Vec<TableModel> {
    let (points, others): (Vec<&Record>, Vec<&Record>) = records
        .iter()
        .partition(|record| record.metric == "loaded_latency");
    let mixes = distinct(points.iter().map(|record| text_param(record, "mix")));
    let several_mixes = mixes.len() > 1;
    let controller = |point: &Record| {
        point
            .params
            .get("memory_controller")
            .and_then(|counted| counted.get("total_gbs")?.as_f64())
    };
    let counted = points.iter().any(|point| controller(point).is_some());
    let mut header = vec![
        "generators",
        "delay",
        "traffic GB/s",
        "latency ns",
        "vs idle",
    ];
    if counted {
        header.insert(3, "MC GB/s");
    }
    let tails = points.iter().any(|point| point.params.contains_key("tail"));
    if tails {
        header.extend(["p99 ns", "p99.9 ns"]);
    }
    if several_mixes {
        header.insert(0, "mix");
    }
    let mut table = TableModel::new("Loaded latency: latency against memory traffic", &header);
    for point in &points {
        let mix = text_param(point, "mix");
        let idle = points
            .iter()
            .find(|other| {
                text_param(other, "mix") == mix && f64_param(other, "generators") == Some(0.0)
            })
            .map(|other| other.value);
        let mut row = vec![
            text_param(point, "generators").unwrap_or_else(|| "-".into()),
            text_param(point, "delay").unwrap_or_else(|| "-".into()),
            f64_param(point, "traffic_gbs").map_or("-".into(), format_value),
            figure(point),
            match idle {
                Some(idle) if idle > 0.0 => ratio(point.value / idle),
                _ => "-".into(),
            },
        ];
        if counted {
            row.insert(3, controller(point).map_or("-".into(), format_value));
        }
        if tails {
            for name in ["p99", "p99_9"] {
                row.push(
                    point
                        .params
                        .get("tail")
                        .and_then(|tail| tail.get(name)?.as_f64())
                        .map_or("-".into(), format_value),
                );
            }
        }
        if several_mixes {
            row.insert(0, mix.unwrap_or_else(|| "-".into()));
        }
        table.push(row);
    }
    if !several_mixes {
        if let Some(Some(mix)) = mixes.first() {
            table.note(format!(
                "traffic: {mix}; vs idle: over the latency with no generator"
            ));
        }
    }
    if counted {
        table.note("traffic: the generators' own count; MC: the memory controllers' (every process, prefetches and write-backs included)");
    } else if let Some(reason) = points.iter().find_map(|point| {
        point
            .params
            .get("memory_controller")?
            .get("unavailable")?
            .as_str()
            .map(str::to_string)
    }) {
        table.note(format!(
            "traffic: the generators' own count; memory-controller counters: {reason}"
        ));
    }
    table.notes.extend(placement_note(&points));
    generic::followed_by_others((!points.is_empty()).then_some(table), &others)
}
