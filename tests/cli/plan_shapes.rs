//! `--plan` on every machine shape of `crates/numabench/tests/fixtures`:
//! every measuring command and `characterize` plan on each; the CPU
//! orders, per-CPU steps and working sets the plans show follow the rules
//! (docs/plan.md); records name the order numabench took their CPUs in.

use super::plan::{fixture, plan_on, read_plan, PLANNING};
use super::{param, typed_records, MEASURING_COMMANDS};
use numabench::runner::RunPlan;
use numabench::topology::Machine;

/// Every fixture (`make-fixtures.sh` and `make-xml.sh` write them).
const FIXTURES: &[&str] = &[
    "amd-nps4.xml",
    "cxl-hmat.xml",
    "four-socket-ladder.xml",
    "hybrid-laptop.xml",
    "intel-snc2-hbm.xml",
    "knl-snc4-cache.xml",
    "two-socket-smt.xml",
    "two-sockets-hbm-cxl.xml",
];

/// `topo --json` of a fixture, read as the library's [`Machine`].
pub fn topology(file: &str) -> Machine {
    let arguments = ["--topology", file, "topo", "--json"];
    let output = super::succeeding(&arguments);
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{arguments:?}: not a Machine: {error}"))
}

/// The index of the entry of `groups` (lists of CPUs) holding `cpu`.
pub fn group_of(groups: &[Vec<u32>], cpu: u32) -> usize {
    groups
        .iter()
        .position(|group| group.contains(&cpu))
        .unwrap_or_else(|| panic!("CPU {cpu} in no group of {groups:?}"))
}

/// The CPU groups of the fixture's L3 caches.
fn l3_domains(topology: &Machine) -> &[Vec<u32>] {
    let l3 = topology
        .caches
        .iter()
        .find(|cache| cache.level == 3)
        .expect("an L3");
    &l3.cpu_groups
}

/// The node holding `cpu`.
fn node_of(topology: &Machine, cpu: u32) -> u32 {
    topology
        .nodes
        .iter()
        .find(|node| node.cpus.contains(&cpu))
        .map(|node| node.index)
        .unwrap_or_else(|| panic!("CPU {cpu} on no node"))
}

/// Every node with memory, CPU-less ones included.
fn memory_nodes(topology: &Machine) -> Vec<u32> {
    topology
        .nodes
        .iter()
        .filter(|node| node.memory_total_bytes > 0)
        .map(|node| node.index)
        .collect()
}

/// On every machine shape every measuring command (the per-CPU ones
/// included) and characterize plan: exit 0, steps, each with CPUs of the
/// file; characterize names the order of every step's CPUs.
#[test]
fn every_fixture_plans_every_measuring_command() {
    for name in FIXTURES {
        let file = fixture(name);
        let allowed = topology(&file).allowed.cpus;
        for command in PLANNING {
            let plan = plan_on(&file, command);
            assert!(!plan.steps.is_empty(), "{name} {command:?}");
            for step in &plan.steps {
                assert!(
                    step.cpus.iter().all(|cpu| allowed.contains(cpu)),
                    "{name} {command:?}: {step:?}"
                );
            }
            if command[0] == "characterize" {
                for step in &plan.steps {
                    assert!(step.cpu_order.is_some(), "{name}: {step:?}");
                }
            }
        }
        // `run` plans its policies (the last of the measuring commands).
        let run = MEASURING_COMMANDS.last().unwrap();
        assert_eq!(run[0], "run");
        let at = run.iter().position(|word| *word == "--").unwrap();
        let arguments = [
            &["--topology", &file][..],
            &run[..at],
            &["--plan", "--json"],
            &run[at..],
        ]
        .concat();
        let output = super::succeeding(&arguments);
        let plan: RunPlan = read_plan(&format!("{arguments:?}"), &output.stdout);
        assert!(!plan.steps.is_empty(), "{name} run");
    }
}

/// Two sockets of 8 L3 domains, siblings 64 apart: `--threads 4` takes
/// four different cores in four different L3 domains (cores-first), and
/// names the order; `--cpu-order compact` takes a core's two threads first.
#[test]
fn bandwidth_threads_take_cores_first() {
    let file = fixture("two-socket-smt.xml");
    let topology = topology(&file);
    let plan = plan_on(&file, &["bandwidth", "--threads", "4", "--kernel", "read"]);
    let step = &plan.steps[0];
    assert_eq!(step.cpu_order.as_deref(), Some("cores-first"));
    let cpus = &step.cpus;
    assert_eq!(cpus.len(), 4);
    let mut cores: Vec<usize> = cpus
        .iter()
        .map(|&cpu| group_of(&topology.cores, cpu))
        .collect();
    let mut domains: Vec<usize> = cpus
        .iter()
        .map(|&cpu| group_of(l3_domains(&topology), cpu))
        .collect();
    cores.sort_unstable();
    cores.dedup();
    domains.sort_unstable();
    domains.dedup();
    assert_eq!(cores.len(), 4, "{cpus:?}: an SMT sibling was taken");
    assert_eq!(domains.len(), 4, "{cpus:?}: not spread over L3 domains");

    let compact = plan_on(
        &file,
        &["bandwidth", "--threads", "2", "--cpu-order", "compact"],
    );
    let step = &compact.steps[0];
    assert_eq!(step.cpu_order.as_deref(), Some("compact"));
    let cpus = &step.cpus;
    assert_eq!(
        group_of(&topology.cores, cpus[0]),
        group_of(&topology.cores, cpus[1])
    );
    // CPUs the user names are theirs: no order is claimed.
    let named = plan_on(&file, &["bandwidth", "--cpus", "0,64"]);
    assert!(named.steps[0].cpu_order.is_none());
}

/// scaling, contention and loaded-latency take the order too; a
/// single-thread command's CPU, unless named, is the tree's first
/// (`compact`); c2c takes its pairs in tree order.
#[test]
fn commands_that_pick_cpus_name_their_order() {
    let file = fixture("two-socket-smt.xml");
    for (command, order) in [
        (&["scaling", "--cpu-order", "scatter"][..], Some("scatter")),
        (&["scaling"], Some("cores-first")),
        (&["contention", "--cpu-order", "compact"], Some("compact")),
        (&["contention", "--cpus", "0-3"], None),
        (&["loaded-latency"], Some("cores-first")),
        (&["latency"], Some("compact")),
        (&["latency", "--cpu", "3"], None),
        (&["mlp", "--cpu-node", "1"], Some("compact")),
        (&["c2c"], Some("compact")),
    ] {
        let plan = plan_on(&file, command);
        assert_eq!(plan.steps[0].cpu_order.as_deref(), order, "{command:?}");
    }
    // loaded-latency: the chaser, then generators on other cores first.
    let topology = topology(&file);
    let plan = plan_on(&file, &["loaded-latency"]);
    let cpus = &plan.steps[0].cpus;
    let cores: Vec<usize> = cpus[..4]
        .iter()
        .map(|&cpu| group_of(&topology.cores, cpu))
        .collect();
    let mut distinct = cores.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 4, "{cpus:?}");
}

/// `latency --each-cpu` plans one step per allowed CPU: that CPU, its own
/// node (or --mem-node), its one-thread working set at least 4x the
/// caches in front of it.
#[test]
fn each_cpu_plans_a_step_per_cpu() {
    for name in ["two-socket-smt.xml", "intel-snc2-hbm.xml"] {
        let file = fixture(name);
        let topology = topology(&file);
        let allowed = &topology.allowed.cpus;
        for command in [
            &["latency", "--each-cpu"][..],
            &["bandwidth", "--each-cpu", "--kernel", "read"],
        ] {
            let plan = plan_on(&file, command);
            assert_eq!(plan.steps.len(), allowed.len(), "{name} {command:?}");
            let mut seen = Vec::new();
            for step in &plan.steps {
                let cpus = &step.cpus;
                assert_eq!(cpus.len(), 1, "{step:?}");
                assert_eq!(step.threads, 1);
                assert_eq!(step.mem_nodes, [node_of(&topology, cpus[0])]);
                let size = step.size_bytes;
                let caches = step.cache_bytes_in_front;
                assert!(caches > 0 && size >= 4 * caches, "{name}: {step:?}");
                assert!(!step.cache_affected, "{step:?}");
                seen.push(cpus[0]);
            }
            seen.sort_unstable();
            assert_eq!(&seen, allowed, "{name} {command:?}");
        }
        // Memory on a chosen node: every step targets it.
        let target = *memory_nodes(&topology).last().unwrap();
        let plan = plan_on(
            &file,
            &[
                "latency",
                "--each-cpu",
                "0,1",
                "--mem-node",
                &target.to_string(),
            ],
        );
        assert_eq!(plan.steps.len(), 2);
        for step in &plan.steps {
            assert_eq!(step.mem_nodes, [target], "{step:?}");
            assert!(step.cpu_order.is_none(), "CPUs named by the user: {step:?}");
        }
    }
}

/// `matrix ... --per-cpu` plans a row per allowed CPU against every memory
/// node, CPU-less (HBM) ones included.
#[test]
fn per_cpu_matrix_plans_a_row_per_cpu() {
    let file = fixture("intel-snc2-hbm.xml");
    let topology = topology(&file);
    let allowed = &topology.allowed.cpus;
    let memory = memory_nodes(&topology);
    for matrix in ["latency", "bandwidth"] {
        let plan = plan_on(&file, &["matrix", matrix, "--per-cpu"]);
        assert_eq!(plan.steps.len(), allowed.len(), "{matrix}");
        for step in &plan.steps {
            assert_eq!(step.cpus.len(), 1);
            assert_eq!(step.mem_nodes, memory, "{step:?}");
            assert_eq!(step.measurements, memory.len());
            assert!(step.size_bytes >= 4 * step.cache_bytes_in_front, "{step:?}");
        }
    }
}

/// characterize's per-CPU steps on two sockets of 8 L3 domains x 4 cores
/// (siblings 64 apart): a latency step, then a read-bandwidth step, for
/// every allowed CPU (the rule; the per-CPU steps alone fit the default
/// budget, so none is cut), each at its own one-thread working set over
/// 4x its caches, at most 3 repetitions, the rule shown.
#[test]
fn characterize_per_cpu_steps_follow_the_rule() {
    let file = fixture("two-socket-smt.xml");
    let topology = topology(&file);
    let plan = plan_on(&file, &["characterize", "--only", "per-cpu"]);
    let steps = &plan.steps;
    let rule_cpus: Vec<u32> = (0..128).collect();
    assert_eq!(steps.len(), 2 * rule_cpus.len());
    for (half, steps) in steps.chunks(rule_cpus.len()).enumerate() {
        let mut cpus = Vec::new();
        for step in steps {
            let label = &step.label;
            let what = if half == 0 {
                "latency"
            } else {
                "read bandwidth"
            };
            assert!(
                label.starts_with(&format!("per-CPU {what}, CPU ")),
                "{label}"
            );
            assert_eq!(step.benchmark, "per-cpu");
            assert!(step.repeat <= 3, "{step:?}");
            let rule = step
                .sample_rule
                .as_deref()
                .unwrap_or_else(|| panic!("no sample_rule: {step:?}"));
            assert!(rule.starts_with("every allowed CPU"), "{step:?}");
            let cpu = step.cpus[0];
            assert_eq!(step.mem_nodes, [node_of(&topology, cpu)]);
            let size = step.size_bytes;
            let caches = step.cache_bytes_in_front;
            assert!(caches > 0 && size >= 4 * caches, "{step:?}");
            cpus.push(cpu);
        }
        cpus.sort_unstable();
        assert_eq!(cpus, rule_cpus);
    }
    // The last step of each half also gives the ratios to the node median.
    assert!(steps[rule_cpus.len() - 1].label.contains("ratio"));
    // The table shows the rule and the capped repetitions.
    let output = super::succeeding(&[
        "--topology",
        &file,
        "characterize",
        "--only",
        "per-cpu",
        "--plan",
    ]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("sampled: every allowed CPU"), "{text}");
    assert!(text.contains("x 3 repetitions"), "{text}");
}

/// Records name the order numabench took their CPUs in: bandwidth's
/// `--threads`, and every characterize step's records (here c2c's).
#[test]
fn records_name_the_cpu_order() {
    let read = |cpus: &[&str]| {
        let short = ["bandwidth", "--kernel=read", "--size=1M", "--repeat=1"];
        typed_records(&[&short[..], cpus].concat())
    };
    // `cpu_order` is a label before the benchmark's own params.
    let records = read(&["--threads", "1"]);
    assert!(!records.is_empty());
    assert!(records
        .iter()
        .all(|record| *param(record, "cpu_order") == "cores-first"));
    let named = read(&["--cpus", "0"]);
    assert!(named
        .iter()
        .all(|record| record.params.get("cpu_order").is_none()));
    let characterize = typed_records(&["characterize", "--only", "c2c", "--repeat", "1"]);
    // Every step's records; the summary's (run_time at least) describe the run.
    let records: Vec<_> = characterize
        .iter()
        .filter(|record| record.benchmark != "summary")
        .collect();
    assert!(!records.is_empty());
    assert!(records
        .iter()
        .all(|record| *param(record, "cpu_order") == "compact"));
}
