//! The two-socket VM (node 0: CPUs 0-1, node 1: CPUs 2-3): where the
//! micro-benchmarks and `numabench run` place memory, verified from the
//! kernel's page locations, and the boot every two-socket test shares
//! ([`boot`]).

use super::boot::{Part, SharedBoot};
use super::harness::{VmOptions, VmRun};
use super::placement_checks::{
    expect_fraction, expect_requested, expect_split, huge_page_check, records, requested_cpus,
    verified, with_metric,
};
use super::records::params_of;
use super::{topologies, FIRST_EXTRA_COMMAND};
use numabench_schema::params::{
    C2cParams, CacheStateParams, LatencyParams, LoadedLatencyParams, MlpParams, RunParams,
    ScalingParams,
};
use numabench_schema::Record;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

/// Placement commands run in the two-socket VM (node 0: CPUs 0-1, node 1:
/// CPUs 2-3), in this order after the standard ones: the micro-benchmarks
/// and `numabench run`. Sizes are small and repeats few because TCG is slow
/// and the nodes hold 256-512 MiB.
const TWO_SOCKET_PLACEMENT: [&str; 19] = [
    // Remote binding: chase from node 0 through memory bound to node 1.
    // Automatic NUMA balancing is off for the whole boot (the harness's
    // default): none of these studies it, and on the guest's kernel (6.1)
    // move_pages reads a page its scanner has just made PROT_NONE as not
    // present (see docs/results.md, `placement.status`).
    "numabench latency --size 16M --repeat 2 --cpu-node 0 --mem-node 1 --json",
    // Interleave over both nodes: pages split evenly. (Two threads via
    // `--cpus`: `--threads` conflicts with `--cpus` by design.)
    "numabench bandwidth --kernel copy --simd sse2 --size 32M --repeat 2 --cpus 0,2 --interleave 0-1 --json",
    // Default first touch: each pinned thread touches its own half. THP stays
    // `always` (the benchmark asks for base pages, so it cannot skew the
    // split). Balancing is off since the first command: under a heavily
    // loaded host (TCG runs slowly) its scanner can act between first touch
    // and the page-location query, and pages it is handling read as not
    // present.
    "numabench bandwidth --kernel copy --simd sse2 --size 32M --repeat 2 --cpus 0,2 --json",
    // Everything on the first node, as a serial initialization would leave it.
    "numabench bandwidth --kernel copy --simd sse2 --size 32M --repeat 2 --cpus 0,2 --mem-node 0 --json",
    // `numabench run`: the child itself sees bind:1 (memory policy and CPUs of node 1).
    "numabench run --repeat 1 --warmup 0 --policy bind:1 --json -- sh -c 'grep -q bind:1 /proc/self/numa_maps && grep -q \"Cpus_allowed_list:[[:space:]]*2-3$\" /proc/self/status'",
    // interleave:all, observed: the child's pages land on both nodes.
    "numabench run --repeat 1 --warmup 0 --policy interleave:all --observe=20ms --json -- numabench latency --size 48M --repeat 2",
    // pin-scatter alternates nodes (CPU order 0,2,1,3; the shim is not in the VM, so OpenMP places carry it).
    "numabench run --repeat 1 --warmup 0 --policy pin-scatter --json -- sh -c '[ \"$OMP_PLACES\" = \"{0},{2},{1},{3}\" ]'",
    // Pinned threads stay on their CPUs: sched_getcpu is checked inside every worker.
    "numabench contention --size 8M --repeat 1 --cpus 0,2 --json",
    // `numabench run --policy bind:1`, observed: the child's pages are on node 1.
    "numabench run --repeat 1 --warmup 0 --policy bind:1 --observe=20ms --json -- numabench latency --size 48M --repeat 2",
    // interleave:all as the child's own numa_maps shows it.
    "numabench run --repeat 1 --warmup 0 --policy interleave:all --json -- sh -c 'grep -q interleave:0-1 /proc/self/numa_maps'",
    // The other micro-benchmarks across both nodes, small.
    "numabench scaling --mem-node 0 --size 8M --repeat 1 --json",
    "numabench loaded-latency --cpu 0 --mem-node 1 --size 8M --delays 1000,0 --mix 3:1 --repeat 1 --json",
    "numabench mlp --cpu-node 0 --mem-node 1 --size 8M --repeat 1 --json",
    "numabench c2c --repeat 1 --json",
    // --hugepages: node 1 gets a 2 MiB hugetlbfs pool and the buffer comes from it;
    // node 0 has none, so transparent huge pages back it instead.
    "echo 12 > /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages && numabench latency --size 16M --hugepages --repeat 1 --cpu-node 0 --mem-node 1 --json",
    "numabench latency --size 16M --hugepages --repeat 1 --cpu-node 0 --mem-node 0 --json",
    // The remote-cache chase across the sockets: CPU 2 (node 1) writes the
    // chain, CPU 0 (node 0) follows it without flushing.
    "numabench latency --size 1M --cpu 0 --writer-cpu 2 --repeat 2 --json",
    // Four threads chasing at once, each buffer on its CPU's node, pinned against unpinned.
    "numabench mlp --threads 4 --chains 1,4 --size 8M --repeat 2 --json",
    // Another core's caches: CPU 0 owns, CPU 1 (same package) and CPU 2 (the other) measure.
    "numabench cache --owner 0 --levels L1,L2 --repeat 2 --json",
];

/// The two-socket machine's one boot: every part of every test that needs
/// it, in this order (the health check last: it takes a CPU offline, and
/// puts it back). MPI's runtime is in the guest for the MPI parts.
pub fn boot() -> &'static SharedBoot {
    static BOOT: OnceLock<SharedBoot> = OnceLock::new();
    BOOT.get_or_init(|| {
        let parts = vec![
            Part::new("placement", &TWO_SOCKET_PLACEMENT, 600),
            super::applications::part(),
            super::numastat::part(),
            super::weighted::part(),
            super::findings::part(),
            super::huge_pages::part(),
            super::plugins::part(),
            super::mpi::hello_part(),
            super::mpi::monitor_part(),
            super::health_check::part(),
        ];
        let options = VmOptions {
            mpi: true,
            ..VmOptions::default()
        };
        SharedBoot::run(&topologies::two_sockets(), options, parts)
    })
}

#[test]
fn two_sockets() {
    let run = boot().part("placement");
    let cmd = |k: usize| FIRST_EXTRA_COMMAND + k;

    // latency, bind:1 from node 0.
    for r in records(&run, cmd(0), "latency") {
        expect_requested(&run, cmd(0), &r, "bind:1", None);
        let cpus = requested_cpus(&r);
        assert!(
            cpus == [0] || cpus == [1],
            "{}: requested cpus {cpus:?}, want one CPU of node 0\n{}",
            run.commands[cmd(0)].command,
            run.transcript()
        );
        let v = verified(&run, cmd(0), &r);
        expect_split(&run, cmd(0), &v, &[(1, 1.0, 1.0)]);
        expect_fraction(&run, cmd(0), &v, 1.0);
    }

    // bandwidth, interleave:0-1.
    for r in records(&run, cmd(1), "bandwidth") {
        expect_requested(&run, cmd(1), &r, "interleave:0-1", Some(&[0, 2]));
        let v = verified(&run, cmd(1), &r);
        expect_split(&run, cmd(1), &v, &[(0, 0.4, 0.6), (1, 0.4, 0.6)]);
        expect_fraction(&run, cmd(1), &v, 1.0);
    }

    // bandwidth, first touch by threads on CPU 0 (node 0) and CPU 2 (node 1).
    for r in records(&run, cmd(2), "bandwidth") {
        expect_requested(&run, cmd(2), &r, "first-touch", Some(&[0, 2]));
        let v = verified(&run, cmd(2), &r);
        expect_split(&run, cmd(2), &v, &[(0, 0.4, 0.6), (1, 0.4, 0.6)]);
        expect_fraction(&run, cmd(2), &v, 1.0);
    }

    // bandwidth, bind:0 with threads on both nodes.
    for r in records(&run, cmd(3), "bandwidth") {
        expect_requested(&run, cmd(3), &r, "bind:0", Some(&[0, 2]));
        let v = verified(&run, cmd(3), &r);
        expect_split(&run, cmd(3), &v, &[(0, 1.0, 1.0)]);
        expect_fraction(&run, cmd(3), &v, 1.0);
    }

    check_run_policies(&run, cmd(4));
    let contention = records(&run, cmd(7), "contention");
    assert!(
        contention.iter().any(|r| r.metric == "contended_bandwidth"),
        "{}",
        run.transcript()
    );
    check_observed_bind(&run, cmd(8));
    let own_view = one_run(&run, cmd(9));
    assert_eq!(
        own_view.exit_code,
        Some(0),
        "the child's numa_maps shows no interleave:0-1\n{}",
        run.transcript()
    );
    check_other_benchmarks(&run, cmd(10));
    check_huge_pages(&run, cmd(14));
    check_cross_node_writer(&run, cmd(16));
    check_many_threads_chase(&run, cmd(17));
    check_cache_states(&run, cmd(18));
}

/// `cache --owner 0`: every state (M, E, S: four CPUs give a sharer) and
/// both levels, measured from the same package and from the other one at
/// SLIT distance 21, each thread on its intended CPU, the buffer on node 0.
fn check_cache_states(run: &VmRun, i: usize) {
    let records = records(run, i, "cache");
    let mut seen = BTreeSet::new();
    for record in &records {
        let params: CacheStateParams = params_of(record);
        assert_eq!(params.owner_cpu, Some(0), "{record:?}");
        assert_eq!(params.owner_cpu_seen, Some(0), "{record:?}");
        assert_eq!(params.measurer_cpu_seen, params.measurer_cpu, "{record:?}");
        let state = params.state.clone().expect("a state");
        if state == "shared" {
            assert_eq!(params.sharer_cpu_seen, params.sharer_cpu, "{record:?}");
        }
        let v = verified(run, i, record);
        expect_split(run, i, &v, &[(0, 1.0, 1.0)]);
        let relation = params.relation.clone().expect("a relation");
        if relation == "other-package" {
            assert_eq!(params.distance, Some(21), "{record:?}");
        }
        seen.insert((state, params.level.clone().expect("a level"), relation));
    }
    for state in ["modified", "exclusive", "shared"] {
        for level in ["L1", "L2"] {
            assert!(
                seen.contains(&(state.into(), level.into(), "other-package".into())),
                "{state} {level} other-package missing: {seen:?}\n{}",
                run.transcript()
            );
            assert!(
                seen.iter()
                    .any(|(s, l, r)| s == state && l == level && r != "other-package"),
                "{state} {level} from the owner's package missing: {seen:?}"
            );
        }
    }
}

/// `mlp --threads 4`: each thread's buffer verified on the node of its
/// CPU (CPUs 0-1 on node 0, 2-3 on node 1), pinned threads seen on their
/// CPUs, unpinned ones recorded wherever the scheduler put them.
fn check_many_threads_chase(run: &VmRun, i: usize) {
    let records = records(run, i, "mlp");
    let rates: Vec<&Record> = records
        .iter()
        .filter(|r| r.metric == "aggregate_loads")
        .collect();
    // Two chain counts, pinned and unpinned.
    assert_eq!(rates.len(), 4, "{}", run.transcript());
    for record in rates {
        let params: MlpParams = params_of(record);
        let cpus_seen = params.cpus_seen.clone().unwrap_or_default();
        assert_eq!(cpus_seen.first().map(Vec::len), Some(4), "{record:?}");
        let v = verified(run, i, record);
        expect_split(run, i, &v, &[(0, 0.5, 0.5), (1, 0.5, 0.5)]);
        if params.pinned == Some(true) {
            let buffer_nodes = params.buffer_nodes.clone().unwrap_or_default();
            for (thread, cpu) in requested_cpus(record).into_iter().enumerate() {
                let node = u32::from(cpu >= 2);
                assert_eq!(buffer_nodes.get(thread), Some(&node), "{record:?}");
                for repetition in &cpus_seen {
                    assert_eq!(
                        repetition.get(thread).map(|seen| seen[0]),
                        Some(cpu),
                        "{record:?}"
                    );
                }
            }
        }
    }
}

/// `latency --writer-cpu 2 --cpu 0`: the writer ran on CPU 2 of node 1,
/// the chaser on CPU 0, the chain's pages where the writer first touched
/// them (node 1), and each sample's loads were timed.
fn check_cross_node_writer(run: &VmRun, i: usize) {
    let records = records(run, i, "latency");
    let latency = records
        .iter()
        .find(|r| r.metric == "latency")
        .unwrap_or_else(|| panic!("no latency record\n{}", run.transcript()));
    let params: LatencyParams = params_of(latency);
    let writer = params
        .writer
        .unwrap_or_else(|| panic!("no writer params: {latency:?}"));
    assert_eq!(writer.writer_cpu, 2, "{latency:?}");
    assert_eq!(writer.writer_node, Some(1), "{latency:?}");
    assert_eq!(writer.writer_cpu_seen, Some(2), "{latency:?}");
    assert_eq!(writer.cpu_seen, Some(0), "{latency:?}");
    assert_eq!(writer.writer_same_cpu, Some(false), "{latency:?}");
    let v = verified(run, i, latency);
    expect_split(run, i, &v, &[(1, 1.0, 1.0)]);
    assert!(latency.value > 0.0, "{latency:?}");
}

/// `--hugepages` from node 1's hugetlbfs pool (command `first`), and from
/// transparent huge pages on node 0, which has no pool (`first + 1`).
fn check_huge_pages(run: &VmRun, first: usize) {
    for (i, node, source) in [(first, 1, "hugetlbfs"), (first + 1, 0, "thp")] {
        for r in records(run, i, "latency") {
            let v = verified(run, i, &r);
            expect_split(run, i, &v, &[(node, 1.0, 1.0)]);
            let huge = huge_page_check(run, &r);
            assert_eq!(huge.source, source, "{r:?}\n{}", run.transcript());
            if source == "hugetlbfs" {
                assert_eq!(huge.fraction, 1.0, "{r:?}");
                assert_eq!(huge.huge_bytes, 16u64 << 20, "{r:?}");
            }
            // Achieved only with most of the buffer on huge pages.
            assert_eq!(v.achieved, huge.fraction >= 0.9, "{r:?}");
        }
    }
}

/// scaling, loaded-latency, mlp and c2c across the two nodes (commands
/// `first` to `first + 3`).
fn check_other_benchmarks(run: &VmRun, first: usize) {
    let context = |i: usize| format!("`{}`\n{}", run.commands[i].command, run.transcript());
    // scaling: 1 and 2 threads of node 0 (local) and of node 1 (remote) read node 0.
    let mut seen = BTreeSet::new();
    for r in records(run, first, "scaling") {
        let v = verified(run, first, &r);
        expect_split(run, first, &v, &[(0, 1.0, 1.0)]);
        assert!(r.value > 0.0, "{r:?}\n{}", context(first));
        let params: ScalingParams = params_of(&r);
        seen.insert((
            params.labels.locality.expect("a locality"),
            params.labels.cpu_node.expect("a cpu_node"),
            params.bandwidth.threads.expect("a thread count"),
        ));
    }
    let want: BTreeSet<(String, u32, u64)> = [
        ("local", 0, 1),
        ("local", 0, 2),
        ("remote", 1, 1),
        ("remote", 1, 2),
    ]
    .into_iter()
    .map(|(locality, node, threads)| (locality.to_string(), node, threads))
    .collect();
    assert_eq!(seen, want, "{}", context(first));

    // loaded-latency: idle, then CPUs 1-3 generating traffic into node 1.
    let loaded = records(run, first + 1, "loaded-latency");
    let loaded_params: Vec<LoadedLatencyParams> = loaded.iter().map(params_of).collect();
    let delays: Vec<Option<u32>> = loaded_params.iter().map(|p| p.delay).collect();
    assert_eq!(
        delays,
        [None, Some(1000), Some(0)],
        "{}",
        context(first + 1)
    );
    for (r, params) in loaded.iter().zip(&loaded_params) {
        let v = verified(run, first + 1, r);
        expect_split(run, first + 1, &v, &[(1, 1.0, 1.0)]);
        assert_eq!(params.mix.as_deref(), Some("3:1"), "{r:?}");
    }
    assert_eq!(
        loaded_params[2].generators,
        Some(3),
        "{}",
        context(first + 1)
    );
    assert!(
        loaded_params[2].traffic_gbs.is_some_and(|gbs| gbs > 0.0),
        "{}",
        context(first + 1)
    );

    // mlp: chains 1..16 on node 0 chasing node 1's memory.
    let mlp: Vec<Record> = records(run, first + 2, "mlp")
        .into_iter()
        .filter(|r| r.metric == "ns_per_load")
        .collect();
    let chains: Vec<Option<u64>> = mlp
        .iter()
        .map(|r| params_of::<MlpParams>(r).chains)
        .collect();
    assert_eq!(
        chains,
        (1..=16).map(Some).collect::<Vec<_>>(),
        "{}",
        context(first + 2)
    );
    for r in &mlp {
        let v = verified(run, first + 2, r);
        expect_split(run, first + 2, &v, &[(1, 1.0, 1.0)]);
    }

    // c2c: every pair of the 4 CPUs, named same-node or cross-node.
    let pairs: Vec<(u32, u32, String)> = records(run, first + 3, "c2c")
        .iter()
        .map(|r| {
            assert!(r.value > 0.0, "{r:?}");
            let params: C2cParams = params_of(r);
            (
                params.cpu_a.expect("cpu_a"),
                params.cpu_b.expect("cpu_b"),
                params.relation.expect("a relation"),
            )
        })
        .collect();
    assert_eq!(pairs.len(), 6, "{}", context(first + 3));
    for (a, b, relation) in pairs {
        let same = (a < 2) == (b < 2);
        assert_eq!(
            relation == "same-node",
            same,
            "{a}-{b} {relation}: {}",
            context(first + 3)
        );
    }
}

/// The peak resident bytes per node of a run record's `--observe`
/// observation.
pub(crate) fn observed_peak(run: &VmRun, params: &RunParams) -> BTreeMap<u32, u64> {
    params
        .observation
        .clone()
        .unwrap_or_else(|| panic!("no observation: {params:?}\n{}", run.transcript()))
        .peak_bytes_per_node
}

/// The params of command `i`'s one `run_wall_time` record.
fn one_run(run: &VmRun, i: usize) -> RunParams {
    let runs = with_metric(run, i, "run_wall_time");
    assert_eq!(
        runs.len(),
        1,
        "`{}`\n{}",
        run.commands[i].command,
        run.transcript()
    );
    params_of(&runs[0])
}

/// `numabench run --policy bind:1 --observe`: nearly all of the child's
/// resident memory at its peak is on node 1.
fn check_observed_bind(run: &VmRun, i: usize) {
    let params = one_run(run, i);
    assert_eq!(params.exit_code, Some(0), "{}", run.transcript());
    let peak = observed_peak(run, &params);
    let bytes = |node: u32| peak.get(&node).copied().unwrap_or(0) as f64;
    assert!(
        bytes(1) > 0.9 * (bytes(0) + bytes(1)),
        "bind:1 observed {peak:?}\n{}",
        run.transcript()
    );
}

/// `numabench run` policies seen from inside the child.
fn check_run_policies(run: &VmRun, first: usize) {
    for i in [first, first + 2] {
        assert_eq!(
            one_run(run, i).exit_code,
            Some(0),
            "the child's own check failed: `{}`\n{}",
            run.commands[i].command,
            run.transcript()
        );
    }
    let observed = observed_peak(run, &one_run(run, first + 1));
    let bytes = |node: u32| observed.get(&node).copied().unwrap_or(0) as f64;
    let (zero, one) = (bytes(0), bytes(1));
    assert!(
        zero > 0.3 * (zero + one) && one > 0.3 * (zero + one),
        "interleave:all observed {observed:?}\n{}",
        run.transcript()
    );
}
