//! Loaded latency: the traffic the other cores made against the chase's
//! latency, and that latency over the idle one.

use crate::output::tables::cells::{distinct, figure, placement_note, ratio};
use crate::output::tables::{generic, CacheLadder, TableModel};
use crate::output::Record;
use crate::units::format_value;
use numabench_schema::params::{LoadedLatencyParams, TailParams};

/// A point of the curve: its record and params.
struct Point<'a> {
    record: &'a Record,
    params: LoadedLatencyParams,
}

impl Point<'_> {
    /// What the memory controllers counted, GB/s.
    fn controller(&self) -> Option<f64> {
        self.params.memory_controller.as_ref()?.total_gbs
    }

    /// The tail's percentile that `figure` picks, ns.
    fn tail(&self, figure: fn(&TailParams) -> f64) -> Option<f64> {
        self.params.tail.as_ref().map(figure)
    }
}

/// The latency-against-bandwidth table, then any other metric.
pub fn tables(records: &[&Record], _caches: &CacheLadder) -> Vec<TableModel> {
    let (measured, others): (Vec<&Record>, Vec<&Record>) = records
        .iter()
        .partition(|record| record.metric == "loaded_latency");
    let points: Vec<Point> = measured
        .iter()
        .map(|record| Point {
            record,
            params: record.params_or_default(),
        })
        .collect();
    let mixes = distinct(points.iter().map(|point| point.params.mix.clone()));
    let several_mixes = mixes.len() > 1;
    let counted = points.iter().any(|point| point.controller().is_some());
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
    let tails = points.iter().any(|point| point.params.tail.is_some());
    if tails {
        header.extend(["p99 ns", "p99.9 ns"]);
    }
    if several_mixes {
        header.insert(0, "mix");
    }
    let mut table = TableModel::new("Loaded latency: latency against memory traffic", &header);
    for point in &points {
        let mix = point.params.mix.clone();
        let idle = points
            .iter()
            .find(|other| other.params.mix == mix && other.params.generators == Some(0))
            .map(|other| other.record.value);
        let text = |value: Option<String>| value.unwrap_or_else(|| "-".into());
        let mut row = vec![
            text(point.params.generators.map(|count| count.to_string())),
            text(point.params.delay.map(|delay| delay.to_string())),
            point.params.traffic_gbs.map_or("-".into(), format_value),
            figure(point.record),
            match idle {
                Some(idle) if idle > 0.0 => ratio(point.record.value / idle),
                _ => "-".into(),
            },
        ];
        if counted {
            row.insert(3, point.controller().map_or("-".into(), format_value));
        }
        if tails {
            let figures: [fn(&TailParams) -> f64; 2] = [|t| t.p99, |t| t.p999];
            for figure in figures {
                row.push(point.tail(figure).map_or("-".into(), format_value));
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
    } else if let Some(reason) = points
        .iter()
        .find_map(|point| point.params.memory_controller.as_ref()?.unavailable.clone())
    {
        table.note(format!(
            "traffic: the generators' own count; memory-controller counters: {reason}"
        ));
    }
    table.notes.extend(placement_note(&measured));
    generic::followed_by_others((!points.is_empty()).then_some(table), &others)
}
