//! `scan`: one row per node (its ranges measured, how much of the node
//! they cover, the median, slowest and fastest range), the slow ranges
//! named under it; then, for nodes of a few ranges, every range.

use super::cells::{bytes, distinct, figure, placement_note};
use super::TableModel;
use crate::output::Record;
use crate::units::format_value;
use numabench_schema::params::{ScanNodeRangesParams, ScanRangeParams};

/// A `node_ranges` record's params (what it lacks reads as `None`).
fn node_params(record: &Record) -> ScanNodeRangesParams {
    record.params_or_default()
}

/// A `range_bandwidth` record's params (what it lacks reads as `None`).
fn range_params(record: &Record) -> ScanRangeParams {
    record.params_or_default()
}

/// Ranges a node may have for its per-range table to be printed.
const MOST_RANGES_LISTED: usize = 48;

/// The nodes' table, then each small node's ranges.
pub fn tables(records: &[&Record]) -> Vec<TableModel> {
    let nodes: Vec<&Record> = records
        .iter()
        .copied()
        .filter(|record| record.metric == "node_ranges")
        .collect();
    let mut tables = Vec::new();
    if let Some(first) = nodes.first() {
        tables.push(nodes_table(first, &nodes));
    }
    for node in distinct(nodes.iter().filter_map(|r| node_params(r).node.node)) {
        let ranges: Vec<&Record> = records
            .iter()
            .copied()
            .filter(|r| r.metric == "range_bandwidth" && range_params(r).node.node == Some(node))
            .collect();
        if !ranges.is_empty() && ranges.len() <= MOST_RANGES_LISTED {
            tables.push(ranges_table(node, &ranges));
        }
    }
    tables
}

fn nodes_table(first: &Record, nodes: &[&Record]) -> TableModel {
    let first = node_params(first);
    let range_size = first.node.range_size_bytes.unwrap_or(0);
    let rounds = first.node.rounds.unwrap_or(0);
    let mut table = TableModel::new(
        format!(
            "Read bandwidth of each physical {} range (GB/s, median of {rounds} round(s))",
            bytes(range_size)
        ),
        &[
            "node", "threads", "ranges", "bytes", "of node", "median", "min", "max", "slow",
        ],
    );
    for record in nodes {
        let params = node_params(record);
        let ranges = params.ranges.unwrap_or(0);
        let below = params.ranges_below_minimum.unwrap_or(0);
        let spread = |stat: f64| match ranges {
            0 => "-".to_string(),
            _ => format_value(stat),
        };
        let slow_ranges = params.slow_ranges.unwrap_or_default();
        let count = |n: Option<u64>| n.map_or("-".into(), |n| n.to_string());
        table.push(vec![
            count(params.node.node.map(u64::from)),
            count(params.node.threads),
            match below {
                0 => ranges.to_string(),
                _ => format!("{ranges} (+{below} small)"),
            },
            bytes(params.bytes_measured.unwrap_or(0)),
            params
                .coverage
                .map_or("-".into(), |c| format!("{:.0}%", c * 100.0)),
            match ranges {
                0 => "-".into(),
                _ => figure(record),
            },
            spread(record.stats.min),
            spread(record.stats.max),
            slow_ranges.len().to_string(),
        ]);
        for range in &slow_ranges {
            table.note(format!(
                "node {}: slow range {range}",
                params.node.node.unwrap_or(0)
            ));
        }
    }
    let deficit = first.slow_deficit.unwrap_or(0.1);
    let min_range = first.min_range_bytes.unwrap_or(0);
    table.note(format!(
        "a range is measured when {} or more of it is in the buffer (+N small: ranges with less)",
        bytes(min_range)
    ));
    table.note(format!(
        "slow: median more than {:.0}% below the node's median of ranges, Mann-Whitney p < {} (Holm)",
        deficit * 100.0,
        first.significance.unwrap_or(0.05)
    ));
    if let Some(note) = placement_note(nodes) {
        table.note(note);
    }
    table
}

fn ranges_table(node: u32, ranges: &[&Record]) -> TableModel {
    let mut table = TableModel::new(
        format!("Node {node}: every range measured"),
        &[
            "physical range",
            "in buffer",
            "GB/s",
            "min",
            "max",
            "vs node",
            "p",
            "slow",
        ],
    );
    for record in ranges {
        let params = range_params(record);
        let deficit = params.deficit.unwrap_or(0.0);
        table.push(vec![
            params.range.unwrap_or_default(),
            bytes(params.bytes.unwrap_or(0)),
            figure(record),
            format_value(record.stats.min),
            format_value(record.stats.max),
            format!("{:+.1}%", -deficit * 100.0),
            params.p_value.map_or("-".into(), |p| match p < 0.001 {
                true => "<0.001".into(),
                false => format!("{p:.3}"),
            }),
            match params.slow {
                Some(true) => "SLOW".into(),
                _ => String::new(),
            },
        ]);
    }
    table.note("vs node: the range's median against the node's median of ranges; p: Mann-Whitney against the node's other ranges, Holm-adjusted");
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::{Placement, Unit};
    use numabench_schema::Summary;
    use serde_json::{json, Map, Value};

    fn record(metric: &str, value: f64, params: Value) -> Record {
        let params: Map<String, Value> = params.as_object().unwrap().clone();
        Record {
            benchmark: "scan".into(),
            metric: metric.into(),
            value,
            unit: Unit::GigabytesPerSecond,
            params,
            placement: Placement::default(),
            stats: Summary::single(value),
        }
    }

    #[test]
    fn a_node_row_its_slow_range_named_and_its_ranges_listed() {
        let records = [
            record(
                "range_bandwidth",
                20.0,
                json!({"node": 0, "range": "0x0-0x3fffffff", "bytes": 1u64 << 30, "deficit": 0.0, "p_value": 1.0, "slow": false}),
            ),
            record(
                "range_bandwidth",
                15.0,
                json!({"node": 0, "range": "0x40000000-0x7fffffff", "bytes": 1u64 << 29, "deficit": 0.25, "p_value": 0.01, "slow": true}),
            ),
            record(
                "node_ranges",
                20.0,
                json!({"node": 0, "threads": 2, "ranges": 2, "ranges_below_minimum": 1, "bytes_measured": 3u64 << 29, "coverage": 0.0625, "range_size_bytes": 1u64 << 30, "rounds": 5, "slow_ranges": ["0x40000000-0x7fffffff"], "slow_deficit": 0.1, "significance": 0.05, "min_range_bytes": 64u64 << 20}),
            ),
        ];
        let refs: Vec<&Record> = records.iter().collect();
        let tables = tables(&refs);
        assert_eq!(tables.len(), 2);
        let text = tables[0].plain();
        assert!(
            text.contains("0 | 2 | 2 (+1 small) | 1.5 GiB | 6% | 20"),
            "{text}"
        );
        assert!(
            text.contains("node 0: slow range 0x40000000-0x7fffffff"),
            "{text}"
        );
        let ranges = tables[1].plain();
        assert!(
            ranges.contains("0x40000000-0x7fffffff | 512 MiB | 15"),
            "{ranges}"
        );
        assert!(ranges.contains("-25.0% | 0.010 | SLOW"), "{ranges}");
    }
}
