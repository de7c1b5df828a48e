//! `characterize` under a budget too small for its node matrix, in a
//! symmetric four-node guest: the matrix is measured by symmetry class
//! (every node's own cell, the other class at its representative and
//! ceil(sqrt(12)) = 4 drawn members), every cell's
//! record says whether it was measured or inferred and from which cell,
//! and the run prints its estimate against the time it took.

use super::{harness, numabench, topologies};
use serde_json::Value;
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
    let records: Vec<Value> = run
        .stdout_ok(1)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    let cells: Vec<&Value> = records
        .iter()
        .filter(|r| r["benchmark"] == "matrix-latency" && r["metric"] == "latency")
        .collect();
    let key = |r: &Value| {
        (
            r["params"]["cpu_node"].as_u64().unwrap(),
            r["params"]["mem_node"].as_u64().unwrap(),
        )
    };
    let mut by_cell: BTreeMap<(u64, u64), &Value> = BTreeMap::new();
    for cell in &cells {
        assert!(
            by_cell.insert(key(cell), cell).is_none(),
            "one record a cell"
        );
    }
    assert_eq!(by_cell.len(), 16, "every cell has its record");
    let asymmetric: Vec<u64> = records
        .iter()
        .filter(|r| r["metric"] == "class_asymmetry")
        .filter_map(|r| r["params"]["cell_class"].as_u64())
        .collect();
    let mut measured_by_class: BTreeMap<u64, usize> = BTreeMap::new();
    let mut inferred = 0;
    for (&(cpu_node, mem_node), cell) in &by_cell {
        let params = &cell["params"];
        let class = params["cell_class"].as_u64().expect("cell_class");
        // SLIT 10 on the diagonal, 20 elsewhere: two classes.
        assert_eq!(
            params["class_cells"],
            if cpu_node == mem_node { 4 } else { 12 }
        );
        match params["cell"].as_str() {
            Some("measured") => *measured_by_class.entry(class).or_default() += 1,
            Some("inferred") => {
                inferred += 1;
                let from = &params["inferred_from"];
                let source = (
                    from["cpu_node"].as_u64().unwrap(),
                    from["mem_node"].as_u64().unwrap(),
                );
                let origin = by_cell[&source];
                assert_eq!(origin["params"]["cell"], "measured", "{cell}");
                assert_eq!(origin["params"]["cell_class"], class, "{cell}");
                assert_eq!(origin["value"], cell["value"], "{cell}");
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
            .any(|c| c["params"]["cell_class"] == *class && c["params"]["class_cells"] == 4);
        if local {
            assert_eq!(*measured, 4, "class {class}: every node's own cell");
        } else {
            assert_eq!(*measured, 5, "class {class}: representative and 4 members");
        }
    }
    // A class whose members disagreed says how many of its cells it left
    // inferred: none for the local class (measured in full), 12 - 5 = 7
    // for the remote one.
    for record in records.iter().filter(|r| r["metric"] == "class_asymmetry") {
        let params = &record["params"];
        let cells = params["class_cells"].as_u64().expect("class_cells");
        let measured = params["measured_cells"].as_u64().expect("measured_cells");
        let expected = if cells == 4 { 0 } else { 7 };
        assert_eq!(params["unfinished"], expected, "{record}");
        assert_eq!(measured + expected, cells, "{record}");
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
