//! Tiered memory in a guest with a kernel that has weighted interleave and
//! memory tiers (bookworm-backports' 6.12, `VmKernel::Backports`): two
//! sockets with DRAM and a CPU-less, slower-by-declaration node behind each
//! (`topologies::two_sockets_two_cxl`), booted once for every check.
//!
//! - `--set-weights` writes 3 and 1 into the kernel's weights, so
//!   `--interleave 0=3,2=1` runs in the kernel's mode (`MPOL_WEIGHTED_INTERLEAVE`)
//!   and lands 3:1 on pages, verified; the weights are back to 1 afterwards.
//! - Without it the kernel's weights are 1 and 1, so the same policy runs
//!   emulated, and still lands 3:1.
//! - `run --set-weights --policy weighted:0=3,2=1` gives a program the
//!   kernel's policy: its memory is 3:1 over nodes 0 and 2 (numa_maps);
//!   without `--set-weights` it is refused, naming the flag.
//! - records carry the page-movement counters that grew (`vmstat_delta`).
//! - `tiers advise` runs end to end: every weighting measured and
//!   verified, the advice, the measured weights and the lines to apply.
//! - `doctor` reads the tiering state: the kernel put the CPU-less nodes
//!   in a tier of their own (from the HMAT), demotion, the weights.
//! - `interference` measures every victim against every aggressor (the
//!   matrix has all 16 pairs), and names the worst pair or says none was
//!   measurable.
//! - `loaded-latency --curve` draws a family on a CPU-less node: 25
//!   points per mix, every one verified on node 2, with its traffic.
//! - a page demoted while a measurement runs is named: a latency run in a
//!   memory cgroup whose memory is reclaimed (so demoted) under it carries
//!   the counters, the pages that moved and where, and both warnings.
//! - the HMAT's read-bandwidth gaps, which TCG does not reproduce, are
//!   named as contradicted by the findings computed from the guest's
//!   matrices (`declared_gap`).
//!
//! Under TCG the emulated nodes have no real speed difference: only
//! structure, placement and provenance are checked, never speed.

use super::harness::{VmKernel, VmOptions};
use super::placement_checks::all_records;
use super::records::{params_of, params_part, requested};
use super::{check_topology_with, records, topologies, FIRST_EXTRA_COMMAND};
use numabench::doctor::{CheckId, DoctorReport};
use numabench_schema::params::findings::DeclaredGapParams;
use numabench_schema::params::{
    InterferenceCellParams, InterferenceParams, LoadedLatencyParams, MatrixCellParams, RunParams,
    TiersAdviceParams, TiersParams,
};
use numabench_schema::{PlacementCheck, Record, RequestedMemory, RequestedMemoryPolicy};
use serde::Deserialize;
use std::collections::BTreeMap;

const WEIGHTS: &str = "/sys/kernel/mm/mempolicy/weighted_interleave";
/// Where the advisor's records go in the guest.
const ADVICE: &str = "/tmp/advice.jsonl";
/// Where interference's records go in the guest.
const INTERFERENCE: &str = "/tmp/interference.jsonl";

fn commands() -> Vec<String> {
    vec![
        // 0: the kernel's mode, weights written for the run.
        "numabench bandwidth --set-weights --kernel read --simd sse2 --size 8M --repeat 1 --cpus 0 \
         --interleave 0=3,2=1 --json"
            .into(),
        // 1: the weights afterwards.
        format!("cat {WEIGHTS}/node0 {WEIGHTS}/node2"),
        // 2: emulated: the kernel holds 1 and 1.
        "numabench bandwidth --kernel read --simd sse2 --size 8M --repeat 1 --cpus 0 \
         --interleave 0=3,2=1 --json"
            .into(),
        // 3: a program started under the kernel's weighted interleave.
        "numabench run --set-weights --policy weighted:0=3,2=1 --repeat 1 --warmup 0 \
         --observe=20ms --json -- numabench stream --size 24M --repeat 1 --iterations 2 \
         --threads 1 --placement serial"
            .into(),
        // 4: refused without --set-weights.
        "numabench run --policy weighted:0=3,2=1 --repeat 1 -- true".into(),
        // 5: the weights after run.
        format!("cat {WEIGHTS}/node0 {WEIGHTS}/node2"),
        // 6: doctor's view of the tiering state (status 1 with warnings).
        "numabench doctor --json; true".into(),
        // 7: the kernel's own files, for the log.
        "cd /sys/devices/virtual/memory_tiering && for f in memory_tier*; do echo \"$f: $(cat $f/nodelist)\"; done; \
         echo \"demotion_enabled: $(cat /sys/kernel/mm/numa/demotion_enabled)\"; \
         grep -E 'pgpromote|pgdemote' /proc/vmstat; true"
            .into(),
        // 8: the advisor, end to end (one ratio besides the baselines: TCG is slow).
        format!("numabench tiers advise --cpu-node 0 --weights 3:1 --mix read --threads all --size 4M --rounds 1 --repeat 1 --jsonl {ADVICE}"),
        // 9: its records.
        format!("cat {ADVICE}"),
        // 10: interference between every pair of the four nodes, under reads
        // (one aggressor thread, one round: TCG is slow).
        format!("numabench interference --load reads --aggressor-threads 1 --size 4M --rounds 1 --repeat 2 --jsonl {INTERFERENCE}"),
        // 11: its records.
        format!("cat {INTERFERENCE}"),
        // 12: a family of curves on a CPU-less node: two mixes, a full curve each.
        "numabench loaded-latency --curve --mem-node 2 --mix reads,nt-writes --size 4M --repeat 1 --json"
            .into(),
        // 13: the ratios on a program (each ratio's weights written for its runs; a
        // program's 3:1 on pages is checked by command 3 already, so a short one).
        "numabench tiers advise --set-weights --cpu-node 0 --memory 2 --weights 3:1 --rounds 1 --json \
         -- true"
            .into(),
        // 14: demotion mid-run: a latency run in a memory cgroup whose memory
        // is reclaimed (demoted: no swap, demotion enabled) every 0.5 s while
        // it measures, from 0.2 s on; its record, stderr and the counters. The
        // run may converge in about a second on a fast host: reclaiming from
        // 2 s on, every 2 s, missed it (a clean-clone CI here: no demotion).
        format!(
            "echo 1 > /sys/kernel/mm/numa/demotion_enabled; mkdir -p /sys/fs/cgroup; \
             mount -t cgroup2 none /sys/fs/cgroup; echo +memory > /sys/fs/cgroup/cgroup.subtree_control; \
             mkdir -p {VICTIM}; \
             sh -c 'echo $$ > {VICTIM}/cgroup.procs; exec numabench latency --cpu 0 --mem-node 0 \
             --size 64M --repeat 300 --json' > /tmp/victim.json 2> /tmp/victim.err & victim=$!; \
             sleep 0.2; while kill -0 $victim 2>/dev/null; do echo 16M > {VICTIM}/memory.reclaim; sleep 0.5; done; \
             wait $victim; echo \"victim exit status $?\" >&2; cat /tmp/victim.err >&2; cat /tmp/victim.json"
        ),
        // 15: the full-node read bandwidth matrix, beside the HMAT's
        // figures (the findings are computed from it by the test). Four
        // repetitions: the finding names a gap only where it stands out of
        // the cells' noise, and a guest on a busy host measured 0.4 cv
        // over two (one run here: no gap named).
        "numabench matrix bandwidth --mode parallel --simd sse2 --size 4M --repeat 4 \
         --jsonl /tmp/mb.jsonl > /dev/null && cat /tmp/mb.jsonl"
            .into(),
    ]
}

/// The memory cgroup whose memory is reclaimed under a running measurement.
const VICTIM: &str = "/sys/fs/cgroup/victim";

/// What the output pipeline adds to a record measured with a vmstat mark:
/// the kernel's vmstat counters that changed while it ran.
#[derive(Debug, Deserialize)]
struct VmstatDelta {
    vmstat_delta: BTreeMap<String, u64>,
}

/// A page demoted while a measurement ran is named: the kernel's counters
/// in the record, the buffer's pages checked again afterwards (some on a
/// CPU-less node now), and both warnings on stderr.
fn check_demotion_is_named(run: &super::harness::VmRun, index: usize) {
    let command = &run.commands[index];
    let latency = records(run, index, "latency");
    let record = latency
        .iter()
        .find(|record| record.metric == "latency")
        .unwrap_or_else(|| panic!("no latency record: {}", run.transcript()));
    eprintln!("[tiered] demotion: {}", command.stderr);
    let delta: VmstatDelta = params_part(record);
    let demoted: u64 = delta
        .vmstat_delta
        .iter()
        .filter(|(name, _)| name.starts_with("pgdemote_"))
        .map(|(_, count)| count)
        .sum();
    assert!(demoted > 0, "no demotion counted: {record:?}");
    let moved = record
        .placement
        .verified
        .as_ref()
        .and_then(|check| check.moved.clone())
        .unwrap_or_else(|| panic!("no pages moved: {record:?}"));
    assert!(moved.pages > 0, "{record:?}");
    let on_tiers: u64 = [2, 3]
        .iter()
        .filter_map(|node| moved.pages_per_node.get(node))
        .sum();
    assert!(
        on_tiers > 0,
        "no page on a CPU-less node afterwards: {record:?}"
    );
    for expected in [
        "pages between memory tiers while it ran",
        "pages moved while it was measured (pages per node afterwards: ",
    ] {
        assert!(command.stderr.contains(expected), "{}", command.stderr);
    }
}

/// The HMAT declares the CXL-like nodes' read bandwidth 2.5x (and the far
/// ones' 5x) below DRAM's; under TCG every node measures alike, so the
/// findings, computed by the library from the guest's records, name a
/// declared bandwidth gap the measurement contradicts.
fn check_declared_gaps_are_contradicted(run: &super::harness::VmRun, index: usize) {
    let records: Vec<numabench::output::Record> = all_records(run, index)
        .into_iter()
        .filter(|record| record.benchmark == "matrix-bandwidth")
        .collect();
    assert!(
        records.iter().any(|record| {
            params_of::<MatrixCellParams>(record)
                .declared
                .declared_bandwidth_mib_s
                .is_some()
        }),
        "no declared bandwidth in the matrix: {}",
        run.transcript()
    );
    let sentences = numabench::findings::summarize(&records);
    let gaps: Vec<&numabench::findings::Sentence> = sentences
        .iter()
        .filter(|sentence| sentence.kind == numabench::findings::FindingKind::DeclaredGap)
        .collect();
    for gap in &gaps {
        eprintln!("[tiered] declared gap: {}", gap.text);
    }
    let bandwidth = gaps
        .iter()
        .find(|gap| gap.text.contains("read bandwidth"))
        .unwrap_or_else(|| panic!("no bandwidth gap in {sentences:#?}"));
    let gap: DeclaredGapParams = bandwidth
        .params_as()
        .unwrap_or_else(|| panic!("not a declared gap's params: {bandwidth:?}"));
    let declared = gap.declared_gap.expect("a declared gap");
    let measured = gap.measured_gap.expect("a measured gap");
    assert!(
        declared >= 2.0 && declared / measured > 1.5,
        "{bandwidth:?}"
    );
}

/// Node 0's share of nodes 0 and 2 in a per-node count.
fn node0_share(per_node: &BTreeMap<u32, u64>) -> f64 {
    let on = |node: u32| per_node.get(&node).copied().unwrap_or(0) as f64;
    on(0) / (on(0) + on(2))
}

/// A record's page check, which must say achieved.
fn achieved_check(record: &Record) -> &PlacementCheck {
    let check = record
        .placement
        .verified
        .as_ref()
        .unwrap_or_else(|| panic!("placement not checked: {record:?}"));
    assert!(check.achieved, "{record:?}");
    check
}

/// A record's requested memory policy (a run's).
fn requested_policy(record: &Record) -> RequestedMemoryPolicy {
    match record
        .placement
        .requested_as()
        .and_then(|requested| requested.memory)
    {
        Some(RequestedMemory::Policy(policy)) => policy,
        other => panic!("requested memory {other:?}, want a policy: {record:?}"),
    }
}

#[test]
fn weighted_interleave_runs_in_the_kernel_with_set_weights_and_emulated_without() {
    let commands = commands();
    let commands: Vec<&str> = commands.iter().map(String::as_str).collect();
    // Sixteen checks in one boot: about 300 s on a quiet 2-core host, 550 s
    // beside a compiler.
    let options = VmOptions {
        kernel: VmKernel::Backports,
        time_limit: Some(std::time::Duration::from_secs(900)),
        ..VmOptions::default()
    };
    let run = check_topology_with(&topologies::two_sockets_two_cxl(), &commands, options);
    let context = || run.transcript();

    for (index, mode) in [(0, "kernel"), (2, "emulated")] {
        let bandwidth = records(&run, FIRST_EXTRA_COMMAND + index, "bandwidth");
        assert!(!bandwidth.is_empty(), "{}", context());
        for record in bandwidth {
            let requested = requested(&record);
            assert_eq!(requested.memory_label(), Some("weighted:0=3,2=1"));
            assert_eq!(requested.weighted_mode.as_deref(), Some(mode), "{record:?}");
            let share = node0_share(&achieved_check(&record).pages_per_node);
            assert!(
                (share - 0.75).abs() < 0.01,
                "{mode}: node 0 holds {share}: {record:?}"
            );
        }
    }
    let first = &run.commands[FIRST_EXTRA_COMMAND];
    assert!(
        first
            .stderr
            .contains("interleave weights are back: node 0: 1, node 2: 1"),
        "{}",
        first.stderr
    );
    for index in [1, 5] {
        let weights = run.stdout_ok(FIRST_EXTRA_COMMAND + index);
        assert_eq!(
            weights.split_whitespace().collect::<Vec<_>>(),
            ["1", "1"],
            "{}",
            context()
        );
    }

    let program = records(&run, FIRST_EXTRA_COMMAND + 3, "run");
    let record = program.first().unwrap_or_else(|| panic!("{}", context()));
    let memory = requested_policy(record);
    assert_eq!(memory.mode, 6, "{record:?}");
    assert_eq!(
        memory.weighted_mode.as_deref(),
        Some("kernel"),
        "{record:?}"
    );
    params_part::<VmstatDelta>(record);
    let peak = super::two_sockets::observed_peak(&run, &params_of::<RunParams>(record));
    let share = node0_share(&peak);
    assert!(
        (share - 0.75).abs() < 0.05,
        "node 0 holds {share} of the program's memory: {record:?}"
    );

    let doctor: DoctorReport = serde_json::from_str(run.stdout_ok(FIRST_EXTRA_COMMAND + 6))
        .unwrap_or_else(|error| panic!("doctor --json: {error}\n{}", context()));
    let finding = |check: CheckId| {
        doctor
            .findings
            .iter()
            .find(|finding| finding.check == check)
            .cloned()
            .unwrap_or_else(|| panic!("no {check:?} finding: {doctor:?}"))
    };
    eprintln!(
        "[tiered] guest's tiering files:\n{}",
        run.stdout_ok(FIRST_EXTRA_COMMAND + 7)
    );
    for check in [
        CheckId::MemoryTiers,
        CheckId::Demotion,
        CheckId::WeightedInterleave,
        CheckId::HiddenMemory,
    ] {
        let found = finding(check);
        eprintln!(
            "[tiered] doctor {check:?}: {:?} {}",
            found.severity, found.found
        );
        assert!(!found.found.starts_with("unknown"), "{found:?}");
    }
    let tiers = finding(CheckId::MemoryTiers).found;
    assert!(tiers.starts_with("tier "), "{tiers}");
    assert_eq!(
        finding(CheckId::WeightedInterleave).found,
        "weights node 0: 1, node 1: 1, node 2: 1, node 3: 1",
        "the weights --set-weights wrote are back"
    );

    // The advisor: a sweep table, the advice with its gains, the measured
    // weights and the lines that apply them; every configuration measured
    // with its pages verified.
    let screen = run.stdout_ok(FIRST_EXTRA_COMMAND + 8);
    eprintln!("[tiered] tiers advise:\n{screen}");
    for expected in [
        "Socket 0: GB/s with 2 thread(s), DRAM node 0 and tier node(s) 2",
        "Socket 0: the fastest ratio per mix and thread count",
        "weights from measured bandwidth (read, 2 threads): node 0: ",
        // The kernel's reduction of the HMAT's figures (DRAM 20480, CXL 8192 MiB/s
        // over four nodes: 32 x 20480 / 57344 = 11, 32 x 8192 / 57344 = 4).
        "weights auto mode writes (from the kernel access1 figures): node 0: 11, node 2: 4",
        "measured weights against auto mode's, read: ",
        "echo ",
        "numactl --weighted-interleave=0,2 ./app",
        "numabench run --set-weights --policy weighted:0=",
    ] {
        assert!(screen.contains(expected), "no {expected:?} in:\n{screen}");
    }
    let lines: Vec<Record> = all_records(&run, FIRST_EXTRA_COMMAND + 9)
        .into_iter()
        .filter(|line| line.benchmark == "tiers")
        .collect();
    let sweep: Vec<(&Record, TiersParams)> = lines
        .iter()
        .filter_map(|line| Some((line, line.params_as::<TiersParams>().ok()?)))
        .filter(|(_, params)| params.labels.phase.as_deref() == Some("sweep"))
        .collect();
    let weightings: Vec<&str> = sweep
        .iter()
        .map(|(_, params)| params.labels.weights.as_deref().expect("weights"))
        .collect();
    for expected in ["3:1", "1:0", "1:1", "0:1", "kernel"] {
        assert!(weightings.contains(&expected), "{weightings:?}");
    }
    for (line, _) in &sweep {
        achieved_check(line);
    }
    let advice: Vec<&Record> = lines
        .iter()
        .filter(|line| line.metric == "advice")
        .collect();
    assert_eq!(advice.len(), 1, "{lines:?}");
    let advice_params: TiersAdviceParams = params_of(advice[0]);
    for (compared, against) in [
        ("vs_dram_only", &advice_params.vs_dram_only),
        ("vs_interleave", &advice_params.vs_interleave),
        ("vs_kernel_weights", &advice_params.vs_kernel_weights),
    ] {
        assert!(
            against.as_ref().and_then(|against| against.gain).is_some(),
            "{compared}: {:?}",
            advice[0]
        );
    }
    assert!(
        lines.iter().any(|line| line.metric == "weights_check"),
        "{lines:?}"
    );

    // Interference: every pair of the four nodes under reads, the matrix
    // and its finding.
    let screen = run.stdout_ok(FIRST_EXTRA_COMMAND + 10);
    eprintln!("[tiered] interference:\n{screen}");
    let lines = all_records(&run, FIRST_EXTRA_COMMAND + 11);
    let of = |metric: &str| -> Vec<&Record> {
        lines.iter().filter(|line| line.metric == metric).collect()
    };
    let mut pairs: Vec<(u32, u32)> = of("latency_ratio")
        .iter()
        .map(|line| {
            let cell: InterferenceCellParams = params_of(line);
            (
                cell.victim_node.expect("victim_node"),
                cell.aggressor_node.expect("aggressor_node"),
            )
        })
        .collect();
    pairs.sort_unstable();
    let every: Vec<(u32, u32)> = (0..4).flat_map(|v| (0..4).map(move |a| (v, a))).collect();
    assert_eq!(pairs, every, "{}", context());
    assert_eq!(of("bandwidth_ratio").len(), 16);
    for line in of("victim_latency") {
        achieved_check(line);
        let params: InterferenceParams = params_of(line);
        let victim = params.victim_node.expect("victim_node");
        // A CPU-less victim is measured from its socket's CPUs (nodes 0 and 1 hold CPUs 0-1 and 2-3).
        let cpu = params.victim_cpu.expect("victim_cpu");
        assert_eq!(cpu / 2, victim % 2, "{line:?}");
    }
    assert_eq!(of("victim_latency").len(), 4 + 16);
    assert_eq!(of("interference").len(), 1, "{lines:?}");

    // A family of curves on the CPU-less node 2: at least 20 points per mix.
    let curve = records(&run, FIRST_EXTRA_COMMAND + 12, "loaded-latency");
    for mix in ["reads", "nt-writes"] {
        let points: Vec<(&Record, LoadedLatencyParams)> = curve
            .iter()
            .map(|record| (record, params_of::<LoadedLatencyParams>(record)))
            .filter(|(_, params)| params.mix.as_deref() == Some(mix))
            .collect();
        assert!(
            points.len() >= 20,
            "{mix}: {} points\n{}",
            points.len(),
            context()
        );
        for (point, params) in points {
            let check = achieved_check(point);
            assert!(check.pages_per_node.contains_key(&2), "{point:?}");
            assert!(params.traffic_gbs.is_some(), "{point:?}");
        }
    }

    // The ratios on a program: as it is, DRAM only, 3:1, 1:1 and the tier
    // only, each run under the kernel's own weighted interleave.
    let program: Vec<(Record, RunParams)> = records(&run, FIRST_EXTRA_COMMAND + 13, "run")
        .into_iter()
        .filter(|record| record.metric == "run_wall_time")
        .map(|record| {
            let params = params_of(&record);
            (record, params)
        })
        .collect();
    let policies: Vec<&str> = program
        .iter()
        .filter_map(|(_, params)| params.policy.as_deref())
        .collect();
    for expected in [
        "as-is",
        "membind:0",
        "weighted:0=3,2=1",
        "weighted:0=1,2=1",
        "membind:2",
    ] {
        assert!(
            policies.contains(&expected),
            "{expected}: {policies:?}\n{}",
            context()
        );
    }
    for (record, params) in &program {
        if params.policy.as_deref() == Some("weighted:0=3,2=1") {
            assert_eq!(
                requested_policy(record).weighted_mode.as_deref(),
                Some("kernel"),
                "{record:?}"
            );
        }
    }

    check_demotion_is_named(&run, FIRST_EXTRA_COMMAND + 14);
    check_declared_gaps_are_contradicted(&run, FIRST_EXTRA_COMMAND + 15);

    let refused = &run.commands[FIRST_EXTRA_COMMAND + 4];
    assert_eq!(refused.status, 2, "{}", context());
    assert!(
        refused.stderr.contains("--set-weights"),
        "{}",
        refused.stderr
    );
}
