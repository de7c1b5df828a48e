//! `matrix-latency`'s and `matrix-bandwidth`'s parameters: a cell's labels
//! (its row, its sample class, its memory node, the firmware's figures),
//! then the cell's measurement, `bench/latency`'s or `bench/bandwidth`'s
//! params (whose `cpu_node` and `cpu` take the labels' places), or, for a
//! cell inferred from its class, where it was inferred from and its
//! working set. A class whose members disagreed adds a `class_asymmetry`
//! record of its own.

use super::{BenchmarkParams, Metrics, WorkingSetParams};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The metric of a class's asymmetry record.
pub const MATRIX_ASYMMETRY_SUFFIX: &str = "class_asymmetry";

/// A cell's labels, and an inferred cell's figures. Each field reads as
/// `None` where a record lacks it; the schema requires what numabench
/// always writes. A measured cell's own figures are read as
/// [`super::LatencyParams`] or [`super::BandwidthParams`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MatrixCellParams {
    /// A per-CPU row's cell (`matrix ... --per-cpu`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_cpu: Option<bool>,
    /// A per-CPU row's CPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<u32>,
    /// The row's node; null for a CPU the topology places on none.
    pub cpu_node: Option<u32>,
    /// `measured` or `inferred` (a matrix sampled by symmetry class).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell: Option<String>,
    /// The cell's symmetry class.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell_class: Option<u64>,
    /// The cells of that class.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_cells: Option<u64>,
    /// The memory's node (the column).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub mem_node: Option<u32>,
    /// The order the row's CPUs are taken in.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpu_order: Option<String>,
    /// The firmware's (SLIT) distance, when the row's CPUs sit on one node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slit_distance: Option<u64>,
    /// `serial` or `parallel` (the bandwidth matrix).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(flatten)]
    pub declared: DeclaredParams,
    /// Where an inferred cell's figure came from, and its working set.
    #[serde(flatten)]
    pub inferred: Option<InferredCellParams>,
}

impl BenchmarkParams for MatrixCellParams {
    const BENCHMARKS: &'static [&'static str] =
        &[benchmark::MATRIX_LATENCY, benchmark::MATRIX_BANDWIDTH];
}

/// The firmware's (ACPI HMAT) figure for a cell's initiator and target,
/// where it declares one: a latency for the latency matrix, a bandwidth
/// for the bandwidth matrix, with the attribute it came from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DeclaredParams {
    /// The declared latency, ns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_latency_ns: Option<u64>,
    /// Its attribute (`read_latency`, else `latency`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_latency_attribute: Option<String>,
    /// The declared bandwidth, MiB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_bandwidth_mib_s: Option<u64>,
    /// Its attribute (`read_bandwidth`, else `bandwidth`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_bandwidth_attribute: Option<String>,
}

/// An inferred cell: the measured cell of its class it takes its figure
/// from, and its own working set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct InferredCellParams {
    /// The cell measured.
    pub inferred_from: CellRef,
    #[serde(flatten)]
    pub working_set: WorkingSetParams,
}

/// A cell by its row and column.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CellRef {
    pub cpu_node: u32,
    pub mem_node: u32,
}

/// A cell with its figure.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CellFigure {
    pub cpu_node: u32,
    pub mem_node: u32,
    pub value: f64,
}

/// The params of a `class_asymmetry` record: a class whose members
/// differ beyond the tolerance.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MatrixAsymmetryParams {
    /// The class.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cell_class: Option<u64>,
    /// Its cells.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub class_cells: Option<u64>,
    /// Those measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub measured_cells: Option<u64>,
    /// Cells left inferred when the allowance ran out.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub unfinished: Option<u64>,
    /// The class's representative and its figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub representative: Option<CellFigure>,
    /// The measured cells that differ from it beyond the floor.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub differing_cells: Option<Vec<CellFigure>>,
    /// The smallest difference that counts, as a ratio.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub tolerance_floor: Option<f64>,
}

impl BenchmarkParams for MatrixAsymmetryParams {
    const BENCHMARKS: &'static [&'static str] =
        &[benchmark::MATRIX_LATENCY, benchmark::MATRIX_BANDWIDTH];
    const METRICS: Metrics = Metrics::EndingWith(MATRIX_ASYMMETRY_SUFFIX);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::typed::assert_round_trips as round_trips;
    use crate::params::{to_labelled_params, to_params, LatencyParams};
    use serde_json::{json, Value};

    /// Each kind of cell's labels, an inferred cell and an asymmetry
    /// read back and written again are the same text.
    #[test]
    fn every_kind_round_trips() {
        round_trips::<MatrixCellParams>(json!({"cpu_node": 0, "mem_node": 1,
            "cpu_order": "compact", "slit_distance": 21, "declared_latency_ns": 290,
            "declared_latency_attribute": "latency"}));
        round_trips::<MatrixCellParams>(json!({"per_cpu": true, "cpu": 3, "cpu_node": null,
            "mem_node": 0, "cpu_order": "compact", "mode": "serial",
            "declared_bandwidth_mib_s": 65536, "declared_bandwidth_attribute": "bandwidth"}));
        round_trips::<MatrixCellParams>(json!({"cpu_node": 1, "cell": "inferred",
            "cell_class": 2, "class_cells": 4, "mem_node": 0, "cpu_order": "compact",
            "slit_distance": 21, "mode": "parallel",
            "inferred_from": {"cpu_node": 0, "mem_node": 1}, "size_bytes": 8388608,
            "cache_bytes_in_front": 1024, "cache_affected": false, "cache_level": "memory"}));
        round_trips::<MatrixAsymmetryParams>(json!({"cell_class": 2, "class_cells": 4,
            "measured_cells": 3, "unfinished": 0,
            "representative": {"cpu_node": 0, "mem_node": 1, "value": 120.5},
            "differing_cells": [{"cpu_node": 2, "mem_node": 3, "value": 150.0}],
            "tolerance_floor": 0.05}));
    }

    /// A measured cell: the labels, then the latency's params over them;
    /// the labels read back, no inferred part.
    #[test]
    fn a_measured_cell_reads_its_labels() {
        let labels = MatrixCellParams {
            cpu_node: Some(1),
            mem_node: Some(0),
            cpu_order: Some("compact".into()),
            ..MatrixCellParams::default()
        };
        let latency = LatencyParams {
            cpu: Some(4),
            cpu_node: Some(1),
            ..LatencyParams::default()
        };
        let params = to_labelled_params(&to_params(&labels), &latency);
        let read: MatrixCellParams = serde_json::from_value(Value::Object(params)).unwrap();
        assert_eq!(read.inferred, None);
        assert_eq!(
            (read.cpu_node, read.mem_node, read.cpu),
            (Some(1), Some(0), Some(4))
        );
    }
}
