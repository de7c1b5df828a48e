//! `characterize` under a budget too small for its node matrix, in a
//! symmetric four-node guest: the matrix is measured by symmetry class
//! (every node's own cell, the other class at its representative and
//! ceil(sqrt(12)) = 4 drawn members), every cell's
//! record says whether it was measured or inferred and from which cell,
//! and the run prints its estimate against the time it took.

use super::placement_checks::all_records;
use super::records::params_of;
use super::{harness, numabench, topologies};
use numabench_schema::params::{MatrixAsymmetryParams, MatrixCellParams};
use numabench_schema::Record;
use std::collections::BTreeMap;

const CHARACTERIZE: &str = "numabench characterize --only matrix-latency --budget 1s \
     --class-seed 7 --repeat 3 --jsonl /tmp/m.jsonl";

#[test]
fn four_symmetric_nodes_matrix_by_class_marks_measured_and_inferred_cells() {
    let topo = topologies::four_symmetric_nodes();
    let commands = [CHARACTERIZE, "cat /tmp/m.jsonl"];
    let run =
        harness::run_in_vm(&topo, &[numabench()], &commands).unwrap_or_else(|e| panic!("{e}"));
    let stderr = &run.commands[0].stderr;
    assert_eq!(run.commands[0].status, 0, "{}", run.transcript());
    assert!(
        stderr.contains("budget cut (matrix-classes)"),
        "{}",
        run.transcript()
    );
    // The estimate, then the elapsed time against it.
    let took = stderr
        .lines()
        .find(|line| line.starts_with("characterize: estimated ") && line.contains(", took "))
        .unwrap_or_else(|| panic!("no estimate against elapsed time:\n{stderr}"));
    eprintln!("[{}] {took}", topo.name);
    let records = all_records(&run, 1);
    let cells: Vec<(&Record, MatrixCellParams)> = records
        .iter()
        .filter(|r| r.benchmark == "matrix-latency" && r.metric == "latency")
        .map(|r| (r, params_of(r)))
        .collect();
    let mut by_cell: BTreeMap<(u32, u32), &(&Record, MatrixCellParams)> = BTreeMap::new();
    for cell in &cells {
        let key = (
            cell.1.cpu_node.expect("cpu_node"),
            cell.1.mem_node.expect("mem_node"),
        );
        assert!(by_cell.insert(key, cell).is_none(), "one record a cell");
    }
    assert_eq!(by_cell.len(), 16, "every cell has its record");
    let asymmetries: Vec<(&Record, MatrixAsymmetryParams)> = records
        .iter()
        .filter(|r| r.metric == "class_asymmetry")
        .map(|r| (r, params_of(r)))
        .collect();
    let asymmetric: Vec<u64> = asymmetries
        .iter()
        .filter_map(|(_, params)| params.cell_class)
        .collect();
    let mut measured_by_class: BTreeMap<u64, usize> = BTreeMap::new();
    let mut inferred = 0;
    for (&(cpu_node, mem_node), (cell, params)) in &by_cell {
        let class = params.cell_class.expect("cell_class");
        // SLIT 10 on the diagonal, 20 elsewhere: two classes.
        assert_eq!(
            params.class_cells,
            Some(if cpu_node == mem_node { 4 } else { 12 })
        );
        match params.cell.as_deref() {
            Some("measured") => *measured_by_class.entry(class).or_default() += 1,
            Some("inferred") => {
                inferred += 1;
                let from = &params
                    .inferred
                    .as_ref()
                    .unwrap_or_else(|| panic!("an inferred cell names no source: {cell:?}"))
                    .inferred_from;
                let source = (from.cpu_node, from.mem_node);
                let (origin, origin_params) = by_cell[&source];
                assert_eq!(origin_params.cell.as_deref(), Some("measured"), "{cell:?}");
                assert_eq!(origin_params.cell_class, Some(class), "{cell:?}");
                assert_eq!(origin.value, cell.value, "{cell:?}");
                assert_eq!((cpu_node == mem_node), (source.0 == source.1));
            }
            other => panic!("cell ({cpu_node}, {mem_node}): {other:?}"),
        }
    }
    // Every node's own cell measured; the remote class at its
    // representative and 4 drawn members. A 1 s budget leaves no allowance
    // for further members, so a class whose members disagreed stays at 5
    // and its class_asymmetry record says how many cells it left inferred.
    for (class, measured) in &measured_by_class {
        let local = by_cell
            .values()
            .any(|(_, p)| p.cell_class == Some(*class) && p.class_cells == Some(4));
        if local {
            assert_eq!(*measured, 4, "class {class}: every node's own cell");
        } else {
            assert_eq!(*measured, 5, "class {class}: representative and 4 members");
        }
    }
    // A class whose members disagreed says how many of its cells it left
    // inferred: none for the local class (measured in full), 12 - 5 = 7
    // for the remote one.
    for (record, params) in &asymmetries {
        let cells = params.class_cells.expect("class_cells");
        let measured = params.measured_cells.expect("measured_cells");
        let expected = if cells == 4 { 0 } else { 7 };
        assert_eq!(params.unfinished, Some(expected), "{record:?}");
        assert_eq!(measured + expected, cells, "{record:?}");
    }
    assert_eq!(
        inferred,
        16 - measured_by_class.values().sum::<usize>(),
        "the rest inferred"
    );
    eprintln!(
        "[{}] measured {:?} by class, {inferred} inferred, asymmetric classes {asymmetric:?}",
        topo.name, measured_by_class
    );
}
