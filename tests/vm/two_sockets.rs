//! The two-socket VM (node 0: CPUs 0-1, node 1: CPUs 2-3): where the
//! micro-benchmarks and `numabench run` place memory, verified from the
//! kernel's page locations, and the boot every two-socket test shares
//! ([`boot`]).

use super::boot::{Part, SharedBoot};
use super::harness::{VmOptions, VmRun};
use super::placement_checks::{expect_fraction, expect_requested, expect_split, records, verified};
use super::{topologies, FIRST_EXTRA_COMMAND};
use serde_json::Value;
use std::collections::BTreeSet;
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
        let cpu = r["placement"]["requested"]["cpus"].clone();
        assert!(
            cpu == serde_json::json!([0]) || cpu == serde_json::json!([1]),
            "{}: requested cpus {cpu}, want one CPU of node 0\n{}",
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
        contention
            .iter()
            .any(|r| r["metric"] == "contended_bandwidth"),
        "{}",
        run.transcript()
    );
    check_observed_bind(&run, cmd(8));
    let interleave: Value = serde_json::from_str(run.stdout_ok(cmd(9))).expect("run JSON");
    let own_view = interleave["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "run_wall_time")
        .expect("a run record")
        .clone();
    assert_eq!(
        own_view["params"]["exit_code"],
        0,
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
        let params = &record["params"];
        assert_eq!(params["owner_cpu"], 0, "{record}");
        assert_eq!(params["owner_cpu_seen"], 0, "{record}");
        assert_eq!(
            params["measurer_cpu_seen"], params["measurer_cpu"],
            "{record}"
        );
        if params["state"] == "shared" {
            assert_eq!(params["sharer_cpu_seen"], params["sharer_cpu"], "{record}");
        }
        let v = verified(run, i, record);
        expect_split(run, i, &v, &[(0, 1.0, 1.0)]);
        seen.insert((
            params["state"].as_str().unwrap().to_string(),
            params["level"].as_str().unwrap().to_string(),
            params["relation"].as_str().unwrap().to_string(),
        ));
        if params["relation"] == "other-package" {
            assert_eq!(params["distance"], 21, "{record}");
        }
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
    let rates: Vec<&Value> = records
        .iter()
        .filter(|r| r["metric"] == "aggregate_loads")
        .collect();
    // Two chain counts, pinned and unpinned.
    assert_eq!(rates.len(), 4, "{}", run.transcript());
    for record in rates {
        let params = &record["params"];
        let cpus = params["cpus_seen"][0]
            .as_array()
            .unwrap_or_else(|| panic!("{record}"))
            .len();
        assert_eq!(cpus, 4, "{record}");
        let v = verified(run, i, record);
        expect_split(run, i, &v, &[(0, 0.5, 0.5), (1, 0.5, 0.5)]);
        if params["pinned"] == true {
            let asked = record["placement"]["requested"]["cpus"].as_array().unwrap();
            for (thread, cpu) in asked.iter().enumerate() {
                let node = u64::from(cpu.as_u64().unwrap() >= 2);
                assert_eq!(params["buffer_nodes"][thread], node, "{record}");
                for repetition in params["cpus_seen"].as_array().unwrap() {
                    assert_eq!(repetition[thread][0], *cpu, "{record}");
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
        .find(|r| r["metric"] == "latency")
        .unwrap_or_else(|| panic!("no latency record\n{}", run.transcript()));
    let params = &latency["params"];
    assert_eq!(params["writer_cpu"], 2, "{latency}");
    assert_eq!(params["writer_node"], 1, "{latency}");
    assert_eq!(params["writer_cpu_seen"], 2, "{latency}");
    assert_eq!(params["cpu_seen"], 0, "{latency}");
    assert_eq!(params["writer_same_cpu"], false, "{latency}");
    let v = verified(run, i, latency);
    expect_split(run, i, &v, &[(1, 1.0, 1.0)]);
    assert!(
        latency["value"].as_f64().is_some_and(|ns| ns > 0.0),
        "{latency}"
    );
}

/// `--hugepages` from node 1's hugetlbfs pool (command `first`), and from
/// transparent huge pages on node 0, which has no pool (`first + 1`).
fn check_huge_pages(run: &VmRun, first: usize) {
    for (i, node, source) in [(first, 1, "hugetlbfs"), (first + 1, 0, "thp")] {
        for r in records(run, i, "latency") {
            let v = verified(run, i, &r);
            expect_split(run, i, &v, &[(node, 1.0, 1.0)]);
            let huge = &r["placement"]["verified"]["huge_pages"];
            assert_eq!(huge["source"], source, "{r}\n{}", run.transcript());
            let fraction = huge["fraction"].as_f64().unwrap();
            if source == "hugetlbfs" {
                assert_eq!(fraction, 1.0, "{r}");
                assert_eq!(huge["huge_bytes"], 16u64 << 20, "{r}");
            }
            // Achieved only with most of the buffer on huge pages.
            assert_eq!(
                r["placement"]["verified"]["achieved"].as_bool().unwrap(),
                fraction >= 0.9,
                "{r}"
            );
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
        assert!(
            r["value"].as_f64().unwrap() > 0.0,
            "{r}\n{}",
            context(first)
        );
        seen.insert((
            r["params"]["locality"].as_str().unwrap().to_string(),
            r["params"]["cpu_node"].as_u64().unwrap(),
            r["params"]["threads"].as_u64().unwrap(),
        ));
    }
    let want: BTreeSet<(String, u64, u64)> = [
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
    let delays: Vec<Value> = loaded
        .iter()
        .map(|r| r["params"]["delay"].clone())
        .collect();
    assert_eq!(
        delays,
        [Value::Null, Value::from(1000), Value::from(0)],
        "{}",
        context(first + 1)
    );
    for r in &loaded {
        let v = verified(run, first + 1, r);
        expect_split(run, first + 1, &v, &[(1, 1.0, 1.0)]);
        assert_eq!(r["params"]["mix"], "3:1");
    }
    assert_eq!(
        loaded[2]["params"]["generators"],
        3,
        "{}",
        context(first + 1)
    );
    assert!(
        loaded[2]["params"]["traffic_gbs"].as_f64().unwrap() > 0.0,
        "{}",
        context(first + 1)
    );

    // mlp: chains 1..16 on node 0 chasing node 1's memory.
    let mlp: Vec<Value> = records(run, first + 2, "mlp")
        .into_iter()
        .filter(|r| r["metric"] == "ns_per_load")
        .collect();
    let chains: Vec<u64> = mlp
        .iter()
        .map(|r| r["params"]["chains"].as_u64().unwrap())
        .collect();
    assert_eq!(
        chains,
        (1..=16).collect::<Vec<u64>>(),
        "{}",
        context(first + 2)
    );
    for r in &mlp {
        let v = verified(run, first + 2, r);
        expect_split(run, first + 2, &v, &[(1, 1.0, 1.0)]);
    }

    // c2c: every pair of the 4 CPUs, named same-node or cross-node.
    let pairs: Vec<(u64, u64, String)> = records(run, first + 3, "c2c")
        .iter()
        .map(|r| {
            assert!(r["value"].as_f64().unwrap() > 0.0, "{r}");
            (
                r["params"]["cpu_a"].as_u64().unwrap(),
                r["params"]["cpu_b"].as_u64().unwrap(),
                r["params"]["relation"].as_str().unwrap().to_string(),
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

/// `numabench run --policy bind:1 --observe`: nearly all of the child's
/// resident memory at its peak is on node 1.
fn check_observed_bind(run: &VmRun, i: usize) {
    let doc: Value = serde_json::from_str(run.stdout_ok(i)).expect("run JSON");
    let record = doc["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "run_wall_time")
        .expect("a run record")
        .clone();
    assert_eq!(record["params"]["exit_code"], 0, "{}", run.transcript());
    let peak = &record["params"]["observation"]["peak_bytes_per_node"];
    let bytes = |node: &str| peak.get(node).and_then(Value::as_u64).unwrap_or(0) as f64;
    assert!(
        bytes("1") > 0.9 * (bytes("0") + bytes("1")),
        "bind:1 observed {peak}\n{}",
        run.transcript()
    );
}

/// `numabench run` policies seen from inside the child.
fn check_run_policies(run: &VmRun, first: usize) {
    let runs = |i: usize| -> Vec<Value> {
        let text = run.stdout_ok(i);
        let doc: Value = serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("`{}`: {e}\n{}", run.commands[i].command, run.transcript()));
        doc["records"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["metric"] == "run_wall_time")
            .cloned()
            .collect()
    };
    for i in [first, first + 2] {
        let records = runs(i);
        assert_eq!(
            records.len(),
            1,
            "`{}`\n{}",
            run.commands[i].command,
            run.transcript()
        );
        assert_eq!(
            records[0]["params"]["exit_code"],
            0,
            "the child's own check failed: `{}`\n{}",
            run.commands[i].command,
            run.transcript()
        );
    }
    let observed = &runs(first + 1)[0]["params"]["observation"]["peak_bytes_per_node"];
    let bytes = |node: &str| observed.get(node).and_then(Value::as_u64).unwrap_or(0) as f64;
    let (zero, one) = (bytes("0"), bytes("1"));
    assert!(
        zero > 0.3 * (zero + one) && one > 0.3 * (zero + one),
        "interleave:all observed {observed}\n{}",
        run.transcript()
    );
}
