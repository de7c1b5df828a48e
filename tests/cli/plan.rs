//! `--plan`: every measuring command and `characterize` print what they
//! would run and run nothing, also for another machine's topology file; a
//! real run executes exactly the steps its plan shows.

use super::errors::assert_refused;
use super::{
    numabench, requested, succeeding, typed_records, typed_records_of, MEASURING_COMMANDS,
};
use numabench::bench::PlanDocument;
use numabench::runner::{RunPlan, RunPlanStep};
use numabench::topology::NodeInfo;
use serde::de::DeserializeOwned;

/// A fixture of a machine shape (hwloc XML written by the project).
pub fn fixture(name: &str) -> String {
    format!(
        "{}/../numabench/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Every measuring command that plans like a measurement (`run` plans its
/// policies instead: `run_plans_its_policies`).
pub const PLANNING: &[&[&str]] = MEASURING_COMMANDS.split_last().expect("commands").1;

/// A plan document printed on stdout, read through its type (the
/// library's: [`PlanDocument`], [`RunPlan`], ...); one that does not
/// parse fails the test, naming `origin` and the text. (Its keys and their
/// order are the wire tests' concern: `plan_wire.rs`.)
pub fn read_plan<T: DeserializeOwned>(origin: &str, stdout: &[u8]) -> T {
    let text = String::from_utf8_lossy(stdout);
    serde_json::from_str(&text).unwrap_or_else(|error| {
        panic!(
            "{origin}: not a {} ({error}):\n{text}",
            std::any::type_name::<T>()
        )
    })
}

/// The plan document `arguments` (with `--plan --json` among them) print,
/// read as `T` ([`read_plan`]).
pub fn plan_of<T: DeserializeOwned>(arguments: &[&str]) -> T {
    read_plan(&format!("{arguments:?}"), &succeeding(arguments).stdout)
}

/// The label of each of a `run` plan's steps, in order.
pub fn run_labels(steps: &[RunPlanStep]) -> Vec<&str> {
    steps.iter().map(|step| step.label.as_str()).collect()
}

/// The plan `--plan` prints for `arguments` on fixture `name`, as text.
pub fn plan_text(name: &str, arguments: &[&str]) -> String {
    let file = fixture(name);
    let output = succeeding(&[&["--topology", file.as_str()], arguments, &["--plan"]].concat());
    String::from_utf8(output.stdout).unwrap()
}

/// The plan `--plan --json` prints for `arguments` on topology `file`.
pub fn plan_on(file: &str, arguments: &[&str]) -> PlanDocument {
    plan_of(&[&["--topology", file], arguments, &["--plan", "--json"]].concat())
}

/// The plan `--plan --json` prints for `arguments` on this machine.
pub fn plan_here(arguments: &[&str]) -> PlanDocument {
    plan_of(&[arguments, &["--plan", "--json"]].concat())
}

/// The CPUs a record's placement asked for, as numbers.
fn requested_cpus(record: &numabench_schema::Record) -> Vec<u32> {
    requested(record)
        .cpus
        .unwrap_or_else(|| panic!("no requested CPUs: {record:?}"))
        .into_iter()
        .map(|cpu| cpu.unwrap_or_else(|| panic!("a CPU not named: {record:?}")))
        .collect()
}

/// Every measuring command plans for a 128-CPU two-socket file: the steps
/// carry the documented fields (read through `PlanStep`; their keys are
/// `plan_wire.rs`'s), the CPUs are the file's (CPU 127 does not exist
/// here), the total is the sum of the steps, and no output file is created
/// (nothing runs).
#[test]
fn every_measuring_command_plans_a_topology_file() {
    let file = fixture("two-socket-smt.xml");
    let directory = tempfile::tempdir().unwrap();
    for command in PLANNING {
        let csv = directory.path().join("out.csv");
        let csv_text = csv.to_str().unwrap();
        let plan = plan_on(&file, &[*command, &["--csv", csv_text]].concat());
        assert!(!csv.exists(), "{command:?} wrote {csv_text}");
        assert!(!plan.steps.is_empty(), "{command:?}");
        let mut total = 0.0;
        for step in &plan.steps {
            // Only unpinned application workers have no CPUs of their own.
            let unpinned = step.label.contains("unpinned");
            assert!(!step.cpus.is_empty() || unpinned, "{command:?}: {step:?}");
            assert!(step.cache_bytes_in_front > 0, "{step:?}");
            assert!(
                step.cpus.iter().all(|&cpu| cpu < 128),
                "{command:?}: {step:?}"
            );
            assert!(step.size_bytes > 0, "{step:?}");
            assert!(step.threads >= 1, "{step:?}");
            assert!(step.repeat >= 1, "{step:?}");
            assert!(step.estimated_seconds > 0.0, "{command:?}: {step:?}");
            total += step.estimated_seconds;
        }
        let planned = plan.estimated_seconds;
        assert!((planned - total).abs() < 1e-6 * total, "{command:?}");
    }
    // The file's CPUs, not this machine's: its all-CPU steps reach CPU 127.
    let characterize = plan_on(&file, &["characterize"]);
    assert!(characterize
        .steps
        .iter()
        .any(|step| step.cpus.contains(&127)));
}

/// The table form names each step and ends with the total estimate.
#[test]
fn characterize_plan_table_ends_with_the_total() {
    let file = fixture("two-socket-smt.xml");
    let output = succeeding(&["--topology", &file, "characterize", "--plan"]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("latency matrix"), "{text}");
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("Estimated total: "), "{last}");
}

/// Matrices cover every CPU node x every memory node, CPU-less (HBM) nodes
/// as targets, one CPU of each CPU node measuring.
#[test]
fn matrix_plans_cover_every_cpu_node_and_every_memory_node() {
    let file = fixture("intel-snc2-hbm.xml");
    let topology = super::plan_shapes::topology(&file);
    let cpu_nodes: Vec<&NodeInfo> = topology
        .nodes
        .iter()
        .filter(|node| !node.cpus.is_empty())
        .collect();
    let all_nodes: Vec<u32> = topology.nodes.iter().map(|node| node.index).collect();
    assert!(
        cpu_nodes.len() < all_nodes.len(),
        "the fixture has CPU-less nodes"
    );
    for matrix in ["latency", "bandwidth"] {
        let plan = plan_on(&file, &["matrix", matrix]);
        let step = &plan.steps[0];
        assert_eq!(step.mem_nodes, all_nodes, "{matrix}");
        assert_eq!(step.cpus.len(), cpu_nodes.len(), "{matrix}");
        for (cpu, node) in step.cpus.iter().zip(&cpu_nodes) {
            assert!(node.cpus.contains(cpu), "{matrix}: {cpu}");
        }
        assert_eq!(step.measurements, cpu_nodes.len() * all_nodes.len());
    }
}

/// What a run on this machine executes is what its plan showed: the same
/// CPUs and sizes, step by step.
#[test]
fn a_run_executes_the_steps_its_plan_shows() {
    // Each with the metric of one record per measurement ("": any).
    let cases: &[(&[&str], &str)] = &[
        (&["latency", "--size", "64K,1M", "--repeat", "1"], "latency"),
        (
            &[
                "bandwidth",
                "--kernel",
                "read,copy",
                "--size",
                "64K,1M",
                "--threads",
                "1",
                "--repeat",
                "1",
            ],
            "",
        ),
        (&["mlp", "--size", "1M", "--repeat", "1"], ""),
        (
            &["latency", "--each-cpu", "--size", "64K", "--repeat", "1"],
            "latency",
        ),
        (super::per_cpu::EACH_CPU_READ, "read_bandwidth"),
        (super::per_cpu::PER_CPU_LATENCY_MATRIX, "latency"),
    ];
    for (arguments, metric) in cases {
        let plan = plan_here(arguments);
        let mut planned: Vec<(Vec<u32>, u64)> = plan
            .steps
            .iter()
            .map(|step| (step.cpus.clone(), step.size_bytes))
            .collect();
        let records = typed_records(arguments);
        // Through the shared params view: every benchmark here names its size.
        let mut ran: Vec<(Vec<u32>, u64)> = records
            .iter()
            .filter(|record| metric.is_empty() || record.metric == *metric)
            .map(|record| {
                (
                    requested_cpus(record),
                    record.typed_params().size_bytes().unwrap(),
                )
            })
            .collect();
        // bandwidth: one step and record per kernel and size (the kernels
        // of a size share CPUs and size); mlp: a record per chain count.
        ran.dedup();
        planned.dedup();
        assert_eq!(ran, planned, "{arguments:?}");
        let measurements: usize = plan.steps.iter().map(|step| step.measurements).sum();
        if !metric.is_empty() {
            assert_eq!(
                records.iter().filter(|r| r.metric == *metric).count(),
                measurements
            );
        }
    }
}

/// A matrix run measures every cell its plan counted, from the plan's CPUs.
#[test]
fn a_matrix_run_measures_the_cells_its_plan_counts() {
    let arguments = ["matrix", "latency", "--size", "1M", "--repeat", "1"];
    let plan = plan_here(&arguments);
    let step = &plan.steps[0];
    let records = typed_records_of(&arguments, "latency");
    assert_eq!(records.len(), step.measurements);
    for record in &records {
        let used = requested_cpus(record);
        assert!(used.iter().all(|cpu| step.cpus.contains(cpu)), "{record:?}");
    }
}

/// Bad input is refused with --plan as without: status 2, one line.
#[test]
fn plans_refuse_bad_input() {
    let file = fixture("two-socket-smt.xml");
    let cases: &[(&[&str], &str)] = &[
        (&["latency", "--cpu", "4096", "--plan"], "4096"),
        (
            &["--topology", &file, "latency", "--cpu", "4096", "--plan"],
            "4096",
        ),
        (
            &[
                "--topology",
                &file,
                "bandwidth",
                "--mem-node",
                "77",
                "--plan",
            ],
            "77",
        ),
        (&["characterize", "--only", "nosuch", "--plan"], "nosuch"),
    ];
    for (arguments, expected) in cases {
        let output = numabench().args(*arguments).output().unwrap();
        assert_refused(&output, &format!("{arguments:?}"), expected);
    }
}

/// A real characterize announces its estimate on stderr before it runs.
#[test]
fn characterize_announces_its_estimate_first() {
    let output = succeeding(&["characterize", "--only", "c2c", "--repeat", "1", "--json"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.lines().next().unwrap_or("").contains("estimated"),
        "{stderr}"
    );
}

/// A STREAM run uses the CPUs and array bytes its plan shows.
#[test]
fn a_stream_run_matches_its_plan() {
    let arguments = ["stream", "--threads", "1", "--size", "1M", "--repeat", "1"];
    let plan = plan_here(&arguments);
    let step = &plan.steps[0];
    assert_eq!(step.benchmark, "stream");
    let records = typed_records(&arguments);
    let record = &records[0];
    assert_eq!(requested_cpus(record), step.cpus);
    let pages: u64 = super::records::params_of::<numabench_schema::params::AppParams>(record)
        .run
        .pages_after_placement
        .expect("pages_after_placement")
        .pages_per_node
        .values()
        .sum();
    assert_eq!(pages * 4096, step.size_bytes, "{record:?}");
}

/// placement-study plans its grid: one step per placement x thread scheme,
/// a serial placement's memory on the node of the initialising worker.
#[test]
fn a_placement_study_plans_its_grid() {
    let file = fixture("amd-nps4.xml");
    let plan = plan_on(
        &file,
        &[
            "placement-study",
            "stream",
            "--placements",
            "first-touch,serial",
            "--threads-placements",
            "compact,scatter",
        ],
    );
    assert_eq!(plan.steps.len(), 4);
    for step in &plan.steps {
        if step.label.ends_with(", serial") {
            assert_eq!(step.mem_nodes.len(), 1, "{step:?}");
        } else {
            assert!(step.mem_nodes.len() > 1, "{step:?}");
        }
        assert_eq!(step.threads, step.cpus.len());
    }
}

/// `run --plan` lists each policy with its pin order and memory policy for
/// the file's machine, without running (or finding) the program.
#[test]
fn run_plans_its_policies() {
    let file = fixture("two-socket-smt.xml");
    let arguments = [
        "--topology",
        &file,
        "run",
        "--repeat",
        "3",
        "--plan",
        "--json",
        "--",
        "not-a-program-here",
    ];
    let plan: RunPlan = plan_of(&arguments);
    let steps = &plan.steps;
    assert_eq!(
        run_labels(steps),
        ["as-is", "pin-compact", "pin-scatter", "interleave:all"]
    );
    assert!(steps[0].cpus.is_empty());
    let compact = &steps[1].cpus;
    assert_eq!(compact.len(), 128);
    // SMT siblings numbered 64 apart sit together in compact order.
    assert_eq!(compact[..2], [0, 64]);
    assert_eq!(steps[1].cpu_order.as_deref(), Some("compact"));
    assert_eq!(steps[2].cpu_order.as_deref(), Some("scatter"));
    assert_eq!(steps[3].mem_nodes, [0, 1]);
    assert!(steps.iter().all(|step| step.repeat == 3));
}

/// An application's plan says when its arrays ask for huge pages.
#[test]
fn an_application_plan_names_huge_pages() {
    for (extra, expected) in [(&["--hugepages"][..], true), (&[][..], false)] {
        let arguments = [&["cg", "--class", "S", "--threads", "1"][..], extra].concat();
        let plan = plan_here(&arguments);
        let label = &plan.steps[0].label;
        assert_eq!(label.contains("huge pages"), expected, "{label}");
    }
}
