//! `numabench cluster` outside mpirun: without the `mpi` feature it says
//! how to build it (status 2); with it, a lone process is a one-rank job.

use crate::plan::read_plan;
use crate::{numabench, refusal};
use numabench::cluster::ClusterPlan;

/// The default build names the build command in one line, status 2.
#[cfg(not(feature = "mpi"))]
#[test]
fn cluster_without_mpi_says_how_to_build_it() {
    let output = numabench()
        .args(["cluster", "--sequential"])
        .output()
        .unwrap();
    let stderr = refusal(&output);
    assert!(stderr.contains("built without MPI"), "{stderr}");
    assert!(
        stderr.contains("cargo build --release -p numabench-cli --features mpi"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

/// The MPI build run alone (an MPI singleton) measures its own host and
/// writes the verdict: one host, nothing compared, status 0.
#[cfg(feature = "mpi")]
#[test]
fn cluster_alone_is_a_one_rank_job() {
    let output = numabench()
        .args(["cluster", "--only", "topo", "--json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let (_, records) = crate::typed_stdout("cluster --only topo", &output.stdout);
    assert_eq!(records[0].benchmark, "cluster-topo");
    let labels: numabench_schema::params::ClusterLabels = crate::records::params_of(&records[0]);
    assert_eq!(labels.rank, Some(0), "{:?}", records[0]);
    let verdict = records.last().unwrap();
    assert_eq!(verdict.metric, "verdict");
    assert_eq!(verdict.value, 0.0);
    assert!(stderr.contains("cluster: 1 hosts"), "{stderr}");
}

/// Another machine's topology is refused before anything starts, in
/// either build (status 2, the file named).
#[test]
fn cluster_refuses_another_machines_topology() {
    let output = numabench()
        .args(["--topology", crate::OTHER_MACHINE_XML, "cluster"])
        .output()
        .unwrap();
    let stderr = refusal(&output);
    assert!(stderr.contains("two-sockets-hbm-cxl.xml"), "{stderr}");
}

/// Issue 21, item 18: `cluster --plan --hosts N` says what a run costs,
/// without MPI (in either build): at 1000 hosts the ping-pong's 9,000-odd
/// serial pairs of about 400 MiB take about an hour at 10 GbE, over the
/// default budget, and the plan says so and how many rounds of disjoint
/// pairs cover every host (what `--pairing auto` then runs); 16 hosts fit
/// and run serially. Before, `--plan` was an
/// unknown flag (status 2). Without `--hosts` it is bad input.
#[test]
fn cluster_plan_says_what_a_thousand_hosts_cost() {
    let output = numabench()
        .args(["cluster", "--plan", "--hosts", "1000", "--json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let plan: ClusterPlan = read_plan("cluster --plan --hosts 1000 --json", &output.stdout);
    let pingpong = plan.pingpong.as_ref().expect("the ping-pong's cost");
    let pairs = pingpong.pairs;
    assert!((9_000..=11_000).contains(&pairs), "{plan:?}");
    let seconds = pingpong.seconds;
    assert!((2_500.0..4_000.0).contains(&seconds), "{plan:?}");
    assert!(pingpong.over_budget, "{plan:?}");
    assert_eq!(pingpong.rounds, 10);
    assert!(plan.pingpong_in_rounds, "{plan:?}");
    let text = numabench()
        .args(["cluster", "--plan", "--hosts", "1000"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(
        stdout.contains("every pair one at a time: 10000 pair(s)"),
        "{stdout}"
    );
    assert!(stdout.contains("over the budget of 10 min"), "{stdout}");
    assert!(
        stdout.contains("10 rounds of disjoint pairs at once"),
        "{stdout}"
    );
    let serial = numabench()
        .args([
            "cluster",
            "--plan",
            "--hosts",
            "1000",
            "--pairing",
            "serial",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&serial.stdout);
    assert!(
        stdout.contains("warning: the ping-pong is over the budget"),
        "{stdout}"
    );
    let small = numabench()
        .args(["cluster", "--plan", "--hosts", "16"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&small.stdout);
    assert!(stdout.contains("120 pair(s)"), "{stdout}");
    assert!(!stdout.contains("over the budget"), "{stdout}");
    let missing = numabench().args(["cluster", "--plan"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--hosts"), "{stderr}");
}
