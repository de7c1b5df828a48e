//! Every CPU measured on its own: `latency --each-cpu`, `bandwidth
//! --each-cpu`, `matrix ... --per-cpu` and characterize's `per-cpu`.

use super::{params_of, typed_records, typed_records_of, typed_stdout, verified};
use numabench_schema::params::{BandwidthParams, NodeMedianRatioParams};
use numabench_schema::{Record, Unit};

/// This machine's allowed CPUs and, for each, its node (from `topo --json`).
fn allowed_cpus_and_nodes() -> Vec<(u64, u64)> {
    let topology = super::machine();
    let node_of = |cpu: u32| {
        topology
            .nodes
            .iter()
            .find(|node| node.cpus.contains(&cpu))
            .map(|node| u64::from(node.index))
            .unwrap()
    };
    topology
        .allowed
        .cpus
        .iter()
        .map(|&cpu| (u64::from(cpu), node_of(cpu)))
        .collect()
}

/// The CPUs and nodes a list of records names, in order.
/// (Through the shared params view: latency, bandwidth, matrix and
/// per-cpu records all name them.)
fn cpus_and_nodes(records: &[Record]) -> Vec<(u64, u64)> {
    records
        .iter()
        .map(|record| {
            let params = record.typed_params();
            (params.cpu().unwrap(), params.cpu_node().unwrap())
        })
        .collect()
}

/// Whether a record says it measured one CPU of `--each-cpu` (a label
/// before its benchmark's params).
fn each_cpu(record: &Record) -> Option<bool> {
    record.typed_params().bool("each_cpu")
}

#[test]
fn latency_each_cpu_measures_every_allowed_cpu_once_from_that_cpu() {
    let expected = allowed_cpus_and_nodes();
    let arguments = ["latency", "--each-cpu", "--size", "64K", "--repeat", "1"];
    let latencies = typed_records_of(&arguments, "latency");
    assert_eq!(cpus_and_nodes(&latencies), expected);
    for record in &latencies {
        assert_eq!(each_cpu(record), Some(true));
        assert_eq!(
            super::requested(record).cpus,
            Some(vec![record.typed_params().cpu().map(|cpu| cpu as u32)])
        );
        assert!(verified(record).achieved, "{record:?}");
    }
    let ratios = typed_records_of(&arguments, "latency_vs_node_median");
    assert_eq!(cpus_and_nodes(&ratios), expected);
    assert!(ratios.iter().all(|record| record.unit == Unit::Ratio
        && params_of::<NodeMedianRatioParams>(record)
            .deviation
            .deviation_from_node_median
            .is_some()));
}

#[test]
fn latency_each_cpu_takes_a_list_and_a_memory_node() {
    let expected = allowed_cpus_and_nodes();
    let (last, node) = *expected.last().unwrap();
    let latencies = typed_records_of(
        &[
            "latency",
            "--each-cpu",
            &last.to_string(),
            "--mem-node",
            &node.to_string(),
            "--size",
            "64K",
            "--repeat",
            "1",
        ],
        "latency",
    );
    assert_eq!(cpus_and_nodes(&latencies), vec![(last, node)]);
    assert_eq!(latencies[0].typed_params().mem_node(), Some(node));
    assert_eq!(
        super::requested(&latencies[0]).memory_label(),
        Some(format!("bind:{node}").as_str())
    );
}

/// A short `bandwidth --each-cpu` of the read kernel (also run against
/// its plan in `plan.rs`).
pub const EACH_CPU_READ: &[&str] = &[
    "bandwidth",
    "--each-cpu",
    "--kernel",
    "read",
    "--size",
    "1M",
    "--repeat",
    "1",
];

/// A short per-CPU latency matrix (also run against its plan in `plan.rs`).
pub const PER_CPU_LATENCY_MATRIX: &[&str] = &[
    "matrix",
    "latency",
    "--per-cpu",
    "--size",
    "64K",
    "--repeat",
    "1",
];

#[test]
fn bandwidth_each_cpu_runs_one_thread_on_every_allowed_cpu() {
    let expected = allowed_cpus_and_nodes();
    let reads = typed_records_of(EACH_CPU_READ, "read_bandwidth");
    assert_eq!(cpus_and_nodes(&reads), expected);
    for record in &reads {
        assert_eq!(params_of::<BandwidthParams>(record).threads, Some(1));
        assert_eq!(each_cpu(record), Some(true));
        assert_eq!(
            super::requested(record).cpus,
            Some(vec![record.typed_params().cpu().map(|cpu| cpu as u32)])
        );
    }
}

#[test]
fn per_cpu_matrices_have_a_cell_per_cpu_and_memory_node() {
    let cpus = allowed_cpus_and_nodes();
    let memory_nodes: Vec<u64> = super::machine()
        .nodes
        .iter()
        .filter(|node| node.memory_total_bytes > 0)
        .map(|node| u64::from(node.index))
        .collect();
    let cells = typed_records_of(PER_CPU_LATENCY_MATRIX, "latency");
    let mut expected = Vec::new();
    for &(cpu, node) in &cpus {
        for &memory in &memory_nodes {
            expected.push((cpu, node, memory));
        }
    }
    let found: Vec<(u64, u64, u64)> = cells
        .iter()
        .map(|cell| {
            assert_eq!(cell.benchmark, "matrix-latency");
            // Matrix params are not typed yet: the shared view.
            let params = cell.typed_params();
            assert_eq!(params.bool("per_cpu"), Some(true));
            (
                params.cpu().unwrap(),
                params.cpu_node().unwrap(),
                params.mem_node().unwrap(),
            )
        })
        .collect();
    assert_eq!(found, expected);
    let reads = typed_records_of(
        &[
            "matrix",
            "bandwidth",
            "--per-cpu",
            "--size",
            "1M",
            "--repeat",
            "1",
        ],
        "read_bandwidth",
    );
    assert_eq!(reads.len(), expected.len());
    assert!(reads
        .iter()
        .all(|cell| cell.typed_params().threads() == Some(1)
            && cell.typed_params().bool("per_cpu") == Some(true)));
}

/// On this small machine the rule is every allowed CPU: one local latency
/// and one read-bandwidth record per CPU, each naming the rule.
#[test]
fn characterize_per_cpu_measures_each_cpu_by_its_rule() {
    let expected = allowed_cpus_and_nodes();
    // Every record but the closing summary's sentences.
    let records: Vec<Record> =
        typed_records(&["characterize", "--only", "per-cpu", "--repeat", "1"])
            .into_iter()
            .filter(|record| record.benchmark != "summary")
            .collect();
    // Per-cpu params are not typed yet: the shared view.
    assert!(records.iter().all(|record| record.benchmark == "per-cpu"
        && record.typed_params().str("sample_rule").is_some()
        && each_cpu(record) == Some(true)));
    for metric in ["latency", "read_bandwidth"] {
        let of_metric: Vec<Record> = records
            .iter()
            .filter(|record| record.metric == metric)
            .cloned()
            .collect();
        assert_eq!(cpus_and_nodes(&of_metric), expected, "{metric}");
    }
}

/// Under a CPU affinity of one CPU (taskset), `--each-cpu` alone measures
/// just that CPU, and naming another CPU is refused with one line, exit 2.
#[test]
fn each_cpu_keeps_to_the_cpus_this_process_may_use() {
    let cpus = allowed_cpus_and_nodes();
    if cpus.len() < 2 {
        eprintln!("skipped: needs two allowed CPUs");
        return;
    }
    let (first, other) = (cpus[0].0.to_string(), cpus[1].0.to_string());
    let restricted = |arguments: &[&str]| {
        std::process::Command::new("taskset")
            .args(["-c", &first, env!("CARGO_BIN_EXE_numabench")])
            .args(arguments)
            .output()
            .unwrap()
    };
    let refused = restricted(&["latency", "--each-cpu", &other, "--size", "64K"]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8(refused.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("CPU {other} is not allowed")),
        "{stderr}"
    );
    let measured = restricted(&[
        "latency",
        "--each-cpu",
        "--size",
        "64K",
        "--repeat",
        "1",
        "--json",
    ]);
    assert!(measured.status.success());
    let (_, records) = typed_stdout("taskset latency --each-cpu", &measured.stdout);
    let latencies: Vec<Record> = records
        .into_iter()
        .filter(|record| record.metric == "latency")
        .collect();
    assert_eq!(cpus_and_nodes(&latencies), vec![cpus[0]]);
}
