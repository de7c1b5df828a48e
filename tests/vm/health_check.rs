//! `numabench check` in the two-socket guest (node 0 = CPUs 0-1, node 1 =
//! CPUs 2-3): a baseline written in the guest, a healthy check against it
//! (exit 0, nothing printed), then node 1 with one of its CPUs taken
//! offline: the check names node 1 (its CPUs, and the bandwidths its CPUs
//! can no longer measure as the baseline did) and never node 0.

use super::boot::Part;
use super::FIRST_EXTRA_COMMAND;

/// Wide tolerances: TCG's emulated memory is slow and noisy; the node is
/// named here by what changed on it, not by a small drop. The checks retry
/// as a health check does (the default two retries, a second apart): on a
/// busy host a guest's vCPU can lose the host CPU for a whole measurement
/// (node 0's latency to node 1 read 132 ns against 13.5 in one run beside a
/// compiler, over the 500% tolerance), which one attempt cannot tell from a
/// fault; a CPU taken offline stays offline for every retry.
const WRITE: &str = "numabench check --write-baseline /tmp/b.json --size 2M --repeat 2 --runs 2 \
                     --tolerance bandwidth=80%,latency=500%";
const CHECK: &str = "numabench check --baseline /tmp/b.json";
const OFFLINE: &str = "echo 0 > /sys/devices/system/cpu/cpu3/online && \
                       numabench check --baseline /tmp/b.json; status=$?; \
                       echo 1 > /sys/devices/system/cpu/cpu3/online; exit $status";

/// This test's part of the two-socket boot (its last: a CPU goes offline).
pub fn part() -> Part {
    Part::new("health_check", &[WRITE, CHECK, OFFLINE], 600)
}

#[test]
fn two_sockets_check_names_the_node_with_a_cpu_offline() {
    let run = super::two_sockets::boot().part("health_check");
    let written = run.stdout_ok(FIRST_EXTRA_COMMAND);
    assert!(written.contains("node1.read_bandwidth"), "{written}");
    let healthy = &run.commands[FIRST_EXTRA_COMMAND + 1];
    assert_eq!(healthy.status, 0, "{}", run.transcript());
    assert!(healthy.stdout.is_empty(), "{}", run.transcript());
    let offline = &run.commands[FIRST_EXTRA_COMMAND + 2];
    assert_eq!(offline.status, 1, "{}", run.transcript());
    let lines: Vec<&str> = offline.stdout.lines().collect();
    assert!(
        lines.contains(&"ERROR numabench: node 1 CPUs: 1 vs 2 (must match)"),
        "{}",
        run.transcript()
    );
    assert!(
        lines.iter().any(
            |line| line.starts_with("ERROR numabench: node 1 read bandwidth: CPU(s) 3 offline")
        ),
        "{}",
        run.transcript()
    );
    for line in &lines {
        assert!(
            line.starts_with("ERROR numabench: node 1 "),
            "a healthy node named: {line}\n{}",
            run.transcript()
        );
    }
}
