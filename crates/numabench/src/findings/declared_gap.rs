//! Measured against declared, by how much: from a CPU node, the HMAT
//! declares how much slower each memory node is than the row's best
//! declared one (its latency over the best's, or the best's bandwidth
//! over its own); where the measured gap differs from the declared one by
//! more than [`GAP_FACTOR`] (either way) and beyond the noise, the
//! firmware's figures are contradicted. The kernel's weighted-interleave
//! `auto` weights and memory tiers are drawn from these figures, so a
//! tier the HMAT overstates or understates is weighted wrong.
//!
//! Where the two disagree on order, [`super::declared`] names it; this
//! one takes the gaps whose order agrees, and every bandwidth gap.

use super::figures::{matrix_records, matrix_records_of_mode, param_f64};
use super::noise::median_error;
use super::{FindingKind, Sentence};
use crate::output::{Record, Unit};
use numabench_schema::benchmark;
use numabench_schema::params::findings::{DeclaredGapParams, DeclaredRowParams};
use numabench_schema::params::to_params;
use serde_json::json;

/// A declared gap this many times the measured one, or a measured gap
/// this many times the declared one, contradicts the firmware.
pub const GAP_FACTOR: f64 = 1.5;

/// One quantity compared: its matrix, its declared param, which way is
/// slower, and how a sentence names it.
struct Quantity {
    benchmark: &'static str,
    metric: &'static str,
    declared: &'static str,
    /// Whether a larger figure is slower (latency) or faster (bandwidth).
    larger_is_slower: bool,
    what: &'static str,
    unit: &'static str,
    /// The cells' `mode`, where the matrix has modes: bandwidth compares
    /// the `parallel` cells (every CPU of the row's node; the HMAT
    /// declares a node's peak, which one thread does not reach).
    mode: Option<&'static str>,
}

const QUANTITIES: [Quantity; 2] = [
    Quantity {
        benchmark: benchmark::MATRIX_LATENCY,
        metric: "latency",
        declared: "declared_latency_ns",
        larger_is_slower: true,
        what: "latency",
        unit: "ns",
        mode: None,
    },
    Quantity {
        benchmark: benchmark::MATRIX_BANDWIDTH,
        metric: "read_bandwidth",
        declared: "declared_bandwidth_mib_s",
        larger_is_slower: false,
        what: "read bandwidth",
        unit: "MiB/s",
        mode: Some("parallel"),
    },
];

/// A cell of a row: its memory node, declared and measured figures and
/// the measured figure's relative standard error.
#[derive(Debug, Clone, Copy)]
struct Cell {
    node: u64,
    declared: f64,
    measured: f64,
    error: f64,
}

/// How many times slower `cell` is than `best` by `pick` (≥ 1 when slower).
fn gap(quantity: &Quantity, best: &Cell, cell: &Cell, pick: fn(&Cell) -> f64) -> f64 {
    match quantity.larger_is_slower {
        true => pick(cell) / pick(best),
        false => pick(best) / pick(cell),
    }
}

/// The strongest contradiction of one row: (best, cell, declared gap,
/// measured gap), the cell whose two gaps differ most.
fn row_contradiction(quantity: &Quantity, cells: &[Cell]) -> Option<(Cell, Cell, f64, f64)> {
    let best = *cells.iter().min_by(|a, b| {
        let order = a.declared.total_cmp(&b.declared);
        match quantity.larger_is_slower {
            true => order,
            false => order.reverse(),
        }
    })?;
    let mut worst: Option<(Cell, Cell, f64, f64)> = None;
    for cell in cells.iter().filter(|cell| cell.node != best.node) {
        let declared = gap(quantity, &best, cell, |c| c.declared);
        let measured = gap(quantity, &best, cell, |c| c.measured);
        if !(declared.is_finite() && measured.is_finite() && declared > 0.0 && measured > 0.0) {
            continue;
        }
        // A latency measured no slower than the best's is an order
        // disagreement: `declared` names it.
        if quantity.larger_is_slower && measured <= 1.0 + super::declared::EQUAL {
            continue;
        }
        let factor = (declared / measured).max(measured / declared);
        // Beyond twice the two cells' combined 95% interval.
        let ci95 = 1.96 * (best.error.powi(2) + cell.error.powi(2)).sqrt();
        if factor <= GAP_FACTOR || (factor - 1.0) <= 2.0 * ci95 {
            continue;
        }
        let stronger = worst
            .as_ref()
            .is_none_or(|(_, _, d, m)| factor > (d / m).max(m / d));
        if stronger {
            worst = Some((best, *cell, declared, measured));
        }
    }
    worst
}

pub(super) fn sentences(records: &[Record]) -> Vec<Sentence> {
    let mut sentences = Vec::new();
    for quantity in &QUANTITIES {
        let cells = match quantity.mode {
            None => matrix_records(records, quantity.benchmark, quantity.metric),
            Some(mode) => matrix_records_of_mode(
                records,
                quantity.benchmark,
                quantity.metric,
                Some(&json!(mode)),
            ),
        };
        let mut rows: std::collections::BTreeMap<u64, Vec<Cell>> = Default::default();
        for (&(row, node), record) in &cells {
            if let Some(declared) = param_f64(record, quantity.declared).filter(|v| *v > 0.0) {
                rows.entry(row).or_default().push(Cell {
                    node,
                    declared,
                    measured: record.value,
                    error: median_error(record),
                });
            }
        }
        for (row, row_cells) in rows {
            let Some((best, cell, declared, measured)) = row_contradiction(quantity, &row_cells)
            else {
                continue;
            };
            let verdict = match declared > measured {
                true => "overstates",
                false => "understates",
            };
            let params = to_params(&DeclaredGapParams {
                row: DeclaredRowParams {
                    cpu_node: Some(row),
                    declared: Some(quantity.declared.to_string()),
                },
                best_node: Some(best.node),
                node: Some(cell.node),
                declared_best: Some(best.declared),
                declared_node: Some(cell.declared),
                declared_gap: Some(declared),
                measured_gap: Some(measured),
                gap_factor: Some(GAP_FACTOR),
            });
            sentences.push(Sentence {
                kind: FindingKind::DeclaredGap,
                text: format!(
                    "from node {row}, the HMAT declares node {}'s {} {declared:.2}x worse than node {}'s ({} against {} {}), but it measured {measured:.2}x: the firmware {verdict} the gap, and weights or tiers drawn from it are off",
                    cell.node,
                    quantity.what,
                    best.node,
                    cell.declared,
                    best.declared,
                    quantity.unit,
                ),
                value: measured / declared,
                unit: Unit::Ratio,
                params,
            });
        }
    }
    sentences
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Placement;
    use numabench_schema::params::key;
    use numabench_schema::Summary;
    use serde_json::Map;

    fn cell(
        benchmark: &str,
        metric: &str,
        row: u64,
        node: u64,
        value: f64,
        declared: (&str, f64),
    ) -> Record {
        let mut params = Map::new();
        params.insert(key::CPU_NODE.into(), json!(row));
        params.insert(key::MEM_NODE.into(), json!(node));
        params.insert(declared.0.into(), json!(declared.1));
        Record::of_median(
            benchmark,
            metric,
            Unit::Ratio,
            Summary::single(value),
            params,
            Placement::default(),
        )
    }

    fn bandwidth_of_mode(node: u64, measured: f64, declared: f64, mode: &str) -> Record {
        let mut record = cell(
            benchmark::MATRIX_BANDWIDTH,
            "read_bandwidth",
            0,
            node,
            measured,
            ("declared_bandwidth_mib_s", declared),
        );
        record.params.insert(key::MODE.into(), json!(mode));
        record
    }

    fn bandwidth(node: u64, measured: f64, declared: f64) -> Record {
        bandwidth_of_mode(node, measured, declared, "parallel")
    }

    fn latency(node: u64, measured: f64, declared: f64) -> Record {
        cell(
            benchmark::MATRIX_LATENCY,
            "latency",
            0,
            node,
            measured,
            ("declared_latency_ns", declared),
        )
    }

    #[test]
    fn a_declared_bandwidth_gap_that_measured_flat_is_named() {
        // The HMAT: DRAM 20480, CXL 8192 MiB/s (2.5x); both measured alike.
        let records = [bandwidth(0, 10.0, 20480.0), bandwidth(2, 9.8, 8192.0)];
        let found = sentences(&records);
        assert_eq!(found.len(), 1, "{found:#?}");
        crate::findings::assert_wire(&found, &[
            "declared_gap {\"cpu_node\":0,\"declared\":\"declared_bandwidth_mib_s\",\"best_node\":0,\"node\":2,\"declared_best\":20480.0,\"declared_node\":8192.0,\"declared_gap\":2.5,\"measured_gap\":1.0204081632653061,\"gap_factor\":1.5}",
        ]);
        let text = &found[0].text;
        assert!(
            text.starts_with("from node 0, the HMAT declares node 2's read bandwidth 2.50x worse than node 0's (8192 against 20480 MiB/s), but it measured 1.02x: the firmware overstates"),
            "{text}"
        );
        assert_eq!(found[0].params["node"], 2);
        // One thread per node measures its concurrency, not the declared
        // peak: serial cells are not compared.
        let serial = [
            bandwidth_of_mode(0, 10.0, 20480.0, "serial"),
            bandwidth_of_mode(2, 9.8, 8192.0, "serial"),
        ];
        assert!(sentences(&serial).is_empty());
    }

    #[test]
    fn gaps_that_agree_within_the_factor_are_not_named() {
        let records = [
            bandwidth(0, 10.0, 20480.0),
            bandwidth(2, 5.0, 8192.0),
            latency(0, 100.0, 90.0),
            latency(2, 220.0, 250.0),
        ];
        assert!(sentences(&records).is_empty());
    }

    #[test]
    fn an_understated_latency_gap_is_named_but_an_order_disagreement_is_left_to_declared() {
        // Declared 1.2x, measured 3x: understated.
        let under = [latency(0, 100.0, 100.0), latency(2, 300.0, 120.0)];
        let found = sentences(&under);
        assert_eq!(found.len(), 1, "{found:#?}");
        crate::findings::assert_wire(&found, &[
            "declared_gap {\"cpu_node\":0,\"declared\":\"declared_latency_ns\",\"best_node\":0,\"node\":2,\"declared_best\":100.0,\"declared_node\":120.0,\"declared_gap\":1.2,\"measured_gap\":3.0,\"gap_factor\":1.5}",
        ]);
        assert!(found[0].text.contains("understates"), "{}", found[0].text);
        // Declared 2.5x, measured equal: `declared` names the order.
        let flat = [latency(0, 100.0, 100.0), latency(2, 101.0, 250.0)];
        assert!(sentences(&flat).is_empty());
    }
}
