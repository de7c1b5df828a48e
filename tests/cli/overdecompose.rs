//! `numabench overdecompose --plan`: the configurations, without MPI and
//! without running anything (the runs themselves are in tests/mpi).

use super::plan::read_plan;
use super::OTHER_MACHINE_XML;
use numabench::overdecompose::OverdecomposePlan;
use std::process::{Command, Output};

/// The variables that put the study on every node of a Slurm allocation.
const SLURM_NODES: [&str; 2] = ["SLURM_JOB_NUM_NODES", "SLURM_NNODES"];

/// numabench outside any Slurm allocation the tests may run in.
fn numabench_here() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_numabench"));
    for name in SLURM_NODES {
        command.env_remove(name);
    }
    command
}

/// Runs `command`, asserts success, and returns what it printed.
fn succeeding(command: &mut Command) -> Output {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

#[test]
fn the_plan_lists_each_share_and_k_with_every_ranks_cpu() {
    let output = succeeding(numabench_here().args([
        "--topology",
        OTHER_MACHINE_XML,
        "overdecompose",
        "--plan",
        "--json",
        "--ranks-per-core",
        "4,2",
        "--comm-share",
        "25,75",
        "--cores",
        "3",
    ]));
    let plan: OverdecomposePlan = read_plan("overdecompose --plan --json", &output.stdout);
    assert_eq!(plan.cores, 3);
    let core_cpus = &plan.core_cpus;
    assert_eq!(core_cpus.len(), 3);
    let configurations = &plan.configurations;
    // K = 1 (the baseline) is added: 2 shares x K in {1, 2, 4}.
    let keys: Vec<(f64, usize)> = configurations
        .iter()
        .map(|c| (c.target_comm_share, c.ranks_per_core))
        .collect();
    assert_eq!(
        keys,
        [
            (0.25, 1),
            (0.25, 2),
            (0.25, 4),
            (0.75, 1),
            (0.75, 2),
            (0.75, 4)
        ]
    );
    for configuration in configurations {
        let k = configuration.ranks_per_core;
        assert_eq!(configuration.ranks, 3 * k);
        // The K ranks of a core share its CPU; each core's CPU comes K times in a row.
        let expected: Vec<Option<u32>> = core_cpus
            .iter()
            .flat_map(|&cpu| std::iter::repeat_n(Some(cpu), k))
            .collect();
        assert_eq!(configuration.rank_cpus, expected, "{configuration:?}");
    }
}

/// The text plan of `overdecompose --plan --cores 1 --ranks-per-core 2`
/// with the variables `env` set.
fn text_plan(env: &[(&str, &str)]) -> String {
    let mut command = numabench_here();
    command.args([
        "overdecompose",
        "--plan",
        "--cores",
        "1",
        "--ranks-per-core",
        "2",
    ]);
    command.envs(env.iter().copied());
    String::from_utf8_lossy(&succeeding(&mut command).stdout).into_owned()
}

#[test]
fn the_text_plan_names_the_calibration_and_runs_nothing() {
    let text = text_plan(&[]);
    assert!(text.contains("calibration first"), "{text}");
    assert!(text.contains("6 configurations x 3 repetitions"), "{text}");
    assert_eq!(text.matches("K=2 ").count(), 3, "{text}");
    assert!(!text.contains("hosts:"), "{text}");
}

#[test]
fn across_a_hostfile_or_a_slurm_allocation_every_host_runs_the_ranks() {
    let dir = tempfile::tempdir().unwrap();
    let hostfile = dir.path().join("hosts");
    std::fs::write(&hostfile, "# two nodes\nn1 slots=8\nn2 slots=8\n").unwrap();
    let output = succeeding(
        numabench_here()
            .args(["overdecompose", "--plan", "--json", "--cores", "1"])
            .arg("--hostfile")
            .arg(&hostfile),
    );
    let plan: OverdecomposePlan = read_plan("overdecompose --hostfile", &output.stdout);
    assert_eq!(plan.hosts, 2);
    assert_eq!(plan.host_names, ["n1", "n2"]);
    for configuration in &plan.configurations {
        let k = configuration.ranks_per_core;
        assert_eq!(configuration.ranks, 2 * k, "{configuration:?}");
        assert_eq!(configuration.ranks_per_host, k, "{configuration:?}");
    }
    // Inside an allocation of three nodes, without --host or --hostfile.
    let text = text_plan(&[
        ("SLURM_JOB_NUM_NODES", "3"),
        ("SLURM_JOB_NODELIST", "c[1-3]"),
    ]);
    assert!(
        text.contains("hosts: the 3 hosts of the Slurm allocation (c[1-3]); each runs K x 1 ranks"),
        "{text}"
    );
    assert!(
        text.contains("K=2   ranks 6    CPU per rank on each host"),
        "{text}"
    );
}
