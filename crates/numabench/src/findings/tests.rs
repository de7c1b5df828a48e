//! Records shaped as a real `characterize --jsonl` run writes them (params
//! and placement copied from one, values chosen here).

use super::*;
use crate::memory::{HugePageCheck, PlacementCheck};
use crate::output::Record;

fn check(pages: u64, fraction: f64, huge: Option<(u64, u64)>) -> PlacementCheck {
    PlacementCheck {
        moved: None,
        pages,
        pages_per_node: [(0, pages)].into_iter().collect(),
        fraction_as_requested: fraction,
        achieved: fraction >= 0.9,
        huge_pages: huge.map(|(resident_bytes, huge_bytes)| HugePageCheck {
            source: "thp".into(),
            resident_bytes,
            huge_bytes,
            fraction: huge_bytes as f64 / resident_bytes as f64,
        }),
    }
}

fn record(benchmark: &str, metric: &str, value: f64, params: Value) -> Record {
    Record {
        benchmark: benchmark.into(),
        metric: metric.into(),
        value,
        unit: if metric.ends_with("bandwidth") {
            Unit::GigabytesPerSecond
        } else {
            Unit::Nanoseconds
        },
        params: params.as_object().unwrap().clone(),
        placement: Placement::default(),
        stats: Sample::new([value]).unwrap().summary(),
    }
}

/// latency then latency_cycles of one chase, as `latency` emits them.
fn latency_pair(size: u64, value: f64, checked: PlacementCheck) -> [Record; 2] {
    let level = if size <= 16384 { "L1" } else { "memory" };
    let params = json!({"size_bytes": size, "cache_bytes_in_front": 34635776u64,
        "cache_affected": true, "cache_level": level, "cpu": 0, "cpu_node": 0, "order": "tlb-block",
        "block_bytes": 16384, "hugepages": true, "loads_per_sample": 14878990,
        "cpu_order": "compact"});
    let mut pair = [
        record("latency", "latency", value, params.clone()),
        record("latency", "latency_cycles", value * 2.6, params),
    ];
    pair[1].params.insert("tsc_ghz".into(), json!(2.6));
    for record in &mut pair {
        record.placement.verified = Some(checked.clone());
    }
    pair
}

fn matrix_cell(benchmark: &str, cpu_node: u64, mem_node: u64, value: f64) -> Record {
    let metric = if benchmark == "matrix-latency" {
        "latency"
    } else {
        "read_bandwidth"
    };
    let mut params = json!({"cpu_node": cpu_node, "mem_node": mem_node, "cpu_order": "compact",
               "size_bytes": 268435456u64, "hugepages": false, "slit_distance":
               if cpu_node == mem_node { 10 } else { 21 }});
    if benchmark == "matrix-bandwidth" {
        params["mode"] = json!("serial");
        params["threads"] = json!(1);
    }
    record(benchmark, metric, value, params)
}

fn scaling_point(threads: u64, value: f64) -> Record {
    record(
        "scaling",
        "read_bandwidth",
        value,
        json!({"cpu_node": 0, "mem_node": 0, "locality": "local", "cpu_order": "cores-first",
               "kernel": "read", "threads": threads, "size_bytes": 268435456u64}),
    )
}

/// This machine's shape: one node, so matrices of one cell. No sentence
/// about remote or CPU-less memory; scaling, huge pages and placement do
/// get theirs, with figures from the records.
#[test]
fn one_node_says_nothing_about_remote_memory() {
    let mut records = Vec::new();
    records.extend(latency_pair(16384, 6.2, check(4, 1.0, Some((16384, 0)))));
    records.extend(latency_pair(
        1 << 28,
        90.0,
        check(64, 1.0, Some((1 << 28, 1 << 27))),
    ));
    records.push(matrix_cell("matrix-latency", 0, 0, 95.0));
    records.push(matrix_cell("matrix-bandwidth", 0, 0, 12.0));
    records.extend([scaling_point(1, 5.0), scaling_point(2, 7.0)]);
    let sentences = summarize(&records);
    assert_wire(&sentences, &[
        "idle_latency {\"cpu\":0,\"l1_ns\":6.2,\"l1_size_bytes\":16384,\"memory_ns\":90.0,\"memory_size_bytes\":268435456}",
        "memory_bandwidth {\"one_thread_local_gbs\":[12.0,12.0],\"all_threads\":2,\"all_threads_local_gbs\":[7.0,7.0]}",
        "bandwidth_saturation {\"kernel\":\"read\",\"cpu_node\":0,\"mem_node\":0,\"threads_measured\":2,\"counts_measured\":[1,2],\"peak_gbs\":7.0,\"one_thread_share\":0.7142857142857143}",
        "huge_pages {\"of_benchmark\":\"latency\",\"source\":\"thp\",\"resident_bytes\":268451840}",
        "placement_verified {\"pages\":68,\"checked_records\":2}",
    ]);
    let texts: Vec<&str> = sentences.iter().map(|s| s.text.as_str()).collect();
    assert!(
        texts.iter().all(|text| !text.contains("remote")),
        "{texts:?}"
    );
    assert!(
        texts.iter().all(|text| !text.contains("CPU-less")),
        "{texts:?}"
    );
    assert_eq!(
        texts,
        [
            "idle latency from CPU 0: L1 6.20 ns, memory 90.0 ns",
            "read bandwidth, one thread: local 12.0 GB/s; all 2 threads of a node: local 7.00 GB/s",
            "node 0's local read bandwidth saturates at 2 of 2 threads (90% of its peak, 7.0 GB/s); one thread gets 71% of it",
            // (16384 + 2^28 / 2) of (16384 + 2^28) resident bytes.
            "the latency chain hit huge pages (thp) on 50.0% of the buffer",
            "the requested placement was verified on 100.0% of 68 checked pages (2 measurements)",
        ]
    );
    let records = summary_records(&sentences);
    assert_eq!(records[0].benchmark, "summary");
    assert_eq!(
        FindingKind::of_metric(&records[2].metric),
        Some(FindingKind::BandwidthSaturation)
    );
    assert_eq!(records[2].value, 2.0);
    assert_eq!(records[4].params["sentence"], texts[4]);
}

/// Two CPU nodes and a CPU-less one: remote and CPU-less costs from the
/// matrices; saturation at the first thread count reaching 90% of peak.
#[test]
fn remote_and_cpuless_costs_come_from_the_matrices() {
    let mut records = Vec::new();
    for (cpu_node, mem_node, latency, bandwidth) in [
        (0, 0, 100.0, 10.0),
        (0, 1, 190.0, 4.5),
        (0, 2, 240.0, 3.0),
        (1, 0, 210.0, 4.0),
        (1, 1, 100.0, 10.0),
        (1, 2, 300.0, 2.0),
    ] {
        records.push(matrix_cell("matrix-latency", cpu_node, mem_node, latency));
        records.push(matrix_cell(
            "matrix-bandwidth",
            cpu_node,
            mem_node,
            bandwidth,
        ));
    }
    records.extend(
        [5.0, 8.9, 9.5, 10.0, 9.8]
            .iter()
            .enumerate()
            .map(|(index, &value)| scaling_point(index as u64 + 1, value)),
    );
    let findings = summarize(&records);
    assert_wire(&findings, &[
        "memory_latency {\"local_ns\":[100.0,100.0],\"remote_ns\":[190.0,210.0],\"worst_cpu_node\":1,\"worst_mem_node\":0,\"value_is\":\"worst remote latency over local\",\"ci95_rel\":0.0}",
        "memory_bandwidth {\"one_thread_local_gbs\":[10.0,10.0],\"one_thread_remote_gbs\":[4.0,4.5],\"one_thread_remote_ratio\":[0.4,0.45],\"all_threads\":5,\"all_threads_local_gbs\":[9.8,9.8]}",
        "cpuless_node {\"mem_node\":2,\"cpu_node\":0}",
        "bandwidth_saturation {\"kernel\":\"read\",\"cpu_node\":0,\"mem_node\":0,\"threads_measured\":5,\"counts_measured\":[1,2,3,4,5],\"peak_gbs\":10.0,\"one_thread_share\":0.5}",
        "advice {\"rests_on\":[\"bandwidth_saturation\"]}",
        "advice {\"rests_on\":[\"memory_latency\"]}",
    ]);
    let texts: Vec<String> = findings.into_iter().map(|s| s.text).collect();
    assert_eq!(
        texts,
        [
            "memory latency: local 100 ns, remote 190-210 ns (1.90x-2.10x local; worst node 1's CPUs reading node 0)",
            "read bandwidth, one thread: local 10.0 GB/s, remote 4.00-4.50 GB/s (0.40x-0.45x local); all 5 threads of a node: local 9.80 GB/s",
            "node 2 is CPU-less: 2.40x latency and 0.30x bandwidth of node 0's local memory, from node 0",
            "node 0's local read bandwidth saturates at 3 of 5 threads (90% of its peak, 10.0 GB/s); one thread gets 50% of it",
            "by 3 threads (counts measured: 1, 2, 3, 4, 5), node 0's memory gives 90% of its read bandwidth: a bandwidth-bound code gains little from the other 2 threads of the 5 measured",
            "latency-bound code (pointer chasing, small random reads): keep data on the node of the threads that read it (bind:NODE, or first touch by that thread): remote memory costs up to 2.10x local latency",
        ]
    );
}

/// Only what was measured: a latency matrix alone gives no bandwidth
/// figure, and records without placement checks give no placement sentence.
#[test]
fn absent_measurements_give_no_sentence() {
    let records = [
        matrix_cell("matrix-latency", 0, 0, 100.0),
        matrix_cell("matrix-latency", 0, 1, 150.0),
        matrix_cell("matrix-latency", 1, 1, 100.0),
        matrix_cell("matrix-latency", 1, 0, 150.0),
    ];
    let texts: Vec<String> = summarize(&records).into_iter().map(|s| s.text).collect();
    assert_eq!(
        texts,
        [
            "memory latency: local 100 ns, remote 150 ns (1.50x local; worst node 0's CPUs reading node 1)",
            "latency-bound code (pointer chasing, small random reads): keep data on the node of the threads that read it (bind:NODE, or first touch by that thread): remote memory costs up to 1.50x local latency",
        ]
    );
    assert!(summarize(&[]).is_empty());
}

/// A record whose repetitions spread about 1% around `value`.
fn repeated(mut record: Record, value: f64) -> Record {
    record.stats = Sample::new([value * 0.99, value, value * 1.01])
        .unwrap()
        .summary();
    record
}

/// Planted: four nodes with SLIT 10/21; remote memory 1.9x local latency
/// and half its bandwidth, except node 2 reading node 3, which SLIT calls
/// remote (21) but which measured like local (1.0x); CPU 7 20% slower than
/// the other CPUs of node 1; a serial initialisation 1.8x slower than each
/// thread reading its own node; mlp and c2c curves. Every finding and each
/// piece of advice comes with the planted figures, and nothing else is said.
#[test]
fn a_planted_machine_gives_exactly_its_findings_and_advice() {
    let mut records = Vec::new();
    for cpu_node in 0..4u64 {
        for mem_node in 0..4u64 {
            let local = cpu_node == mem_node || (cpu_node, mem_node) == (2, 3);
            let latency = if local { 100.0 } else { 190.0 };
            let bandwidth = if cpu_node == mem_node { 10.0 } else { 5.0 };
            records.push(repeated(
                matrix_cell("matrix-latency", cpu_node, mem_node, latency),
                latency,
            ));
            records.push(repeated(
                matrix_cell("matrix-bandwidth", cpu_node, mem_node, bandwidth),
                bandwidth,
            ));
        }
    }
    for cpu in 0..16u64 {
        let latency = if cpu == 7 { 120.0 } else { 100.0 };
        let params = json!({"each_cpu": true, "cpu": cpu, "cpu_node": cpu / 4,
            "size_bytes": 268435456u64});
        records.push(repeated(
            record("per-cpu", "latency", latency, params.clone()),
            latency,
        ));
        let mut ratio = record("per-cpu", "latency_vs_node_median", latency / 100.0, params);
        ratio.unit = Unit::Ratio;
        records.push(ratio);
    }
    records.extend(
        [5.0, 8.5, 9.6, 10.0]
            .iter()
            .enumerate()
            .map(|(index, &value)| scaling_point(index as u64 + 1, value)),
    );
    for (metric, value) in [
        ("contended_bandwidth", 20.0),
        ("local_bandwidth", 36.0),
        ("local_over_contended", 1.8),
    ] {
        records.push(record(
            "contention",
            metric,
            value,
            json!({"kernel": "read", "threads": 16}),
        ));
    }
    for (chains, ratio) in [(1, 1.0), (2, 1.9), (4, 3.5), (8, 6.4), (16, 6.6)] {
        let mut mlp = record("mlp", "mlp", ratio, json!({"chains": chains, "cpu": 0}));
        mlp.unit = Unit::Ratio;
        records.push(mlp);
    }
    for (a, b, relation, ns) in [
        (0, 1, "same-node", 30.0),
        (0, 2, "same-node", 34.0),
        (0, 4, "cross-node", 120.0),
        (0, 8, "cross-node", 140.0),
    ] {
        records.push(record(
            "c2c",
            "c2c_latency",
            ns,
            json!({"cpu_a": a, "cpu_b": b, "node_a": a / 4, "node_b": b / 4, "relation": relation}),
        ));
    }
    let findings = summarize(&records);
    assert_wire(&findings, &[
        "memory_latency {\"local_ns\":[100.0,100.0],\"remote_ns\":[100.0,190.0],\"worst_cpu_node\":0,\"worst_mem_node\":1,\"value_is\":\"worst remote latency over local\",\"ci95_rel\":0.020056977231583725}",
        "memory_bandwidth {\"one_thread_local_gbs\":[10.0,10.0],\"one_thread_remote_gbs\":[5.0,5.0],\"one_thread_remote_ratio\":[0.5,0.5],\"all_threads\":4,\"all_threads_local_gbs\":[10.0,10.0]}",
        "bandwidth_saturation {\"kernel\":\"read\",\"cpu_node\":0,\"mem_node\":0,\"threads_measured\":4,\"counts_measured\":[1,2,3,4],\"peak_gbs\":10.0,\"one_thread_share\":0.5}",
        "serial_init {\"contended_gbs\":20.0,\"local_gbs\":36.0,\"threads\":16,\"ci95_rel\":0.0}",
        "slow_cpu {\"cpu\":7,\"cpu_node\":1,\"metric\":\"latency\",\"spread\":0.010000000000000024,\"peers_median\":100.0}",
        "declared_mismatch {\"cpu_node\":2,\"declared\":\"slit_distance\",\"near_node\":2,\"far_node\":3,\"declared_near\":10.0,\"declared_far\":21.0,\"ci95_rel\":0.020056977231583697}",
        "mlp {\"chains_at_best\":16,\"chains_reaching_90_percent\":8,\"chains_measured\":5}",
        "c2c {\"same_node_ns\":[30.0,34.0],\"cross_node_ns\":[120.0,140.0]}",
        "advice {\"rests_on\":[\"serial_init\",\"memory_bandwidth\"]}",
        "advice {\"rests_on\":[\"bandwidth_saturation\"]}",
        "advice {\"rests_on\":[\"memory_latency\"]}",
    ]);
    let texts: Vec<&str> = findings.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "memory latency: local 100 ns, remote 100-190 ns (1.00x-1.90x local; worst node 0's CPUs reading node 1)",
            "read bandwidth, one thread: local 10.0 GB/s, remote 5.00 GB/s (0.50x local); all 4 threads of a node: local 10.0 GB/s",
            "node 0's local read bandwidth saturates at 3 of 4 threads (90% of its peak, 10.0 GB/s); one thread gets 50% of it",
            "serial initialisation: 16 threads reading data all on one node get 20.0 GB/s, against 36.0 GB/s when each reads its own node's memory (1.80x)",
            "CPU 7 is the slowest of node 1 in latency: 20% above the median of the node's other 3 measured CPUs (120 ns against 100 ns; its own repetitions spread 1.0%)",
            "from node 2, the SLIT distance says node 3 is farther than node 2 (21 against 10), but the two are not distinguishable by measurement (1.00x)",
            "memory-level parallelism: one core keeps about 6.6 misses in flight (16 chains; 90% of that from 8)",
            "core-to-core latency: same-node 30.0-34.0 ns, cross-node 120-140 ns",
            "bandwidth-bound OpenMP code: pin its threads (OMP_PROC_BIND=spread OMP_PLACES=cores, or numabench run --policy pin-scatter -- PROGRAM) and initialise its data in parallel, so each thread's pages land on its own node: that gave 1.80x the bandwidth of data first touched by one thread; a remote read gets as little as 0.50x of its own node's local bandwidth",
            "by 3 threads (counts measured: 1, 2, 3, 4), node 0's memory gives 90% of its read bandwidth: a bandwidth-bound code gains little from the other 1 thread of the 4 measured",
            "latency-bound code (pointer chasing, small random reads): keep data on the node of the threads that read it (bind:NODE, or first touch by that thread): remote memory costs up to 1.90x local latency",
        ]
    );
    let advice: Vec<&Sentence> = findings
        .iter()
        .filter(|s| s.kind == FindingKind::Advice)
        .collect();
    assert_eq!(
        advice[0].params["rests_on"],
        json!(["serial_init", "memory_bandwidth"])
    );
}

/// A node pair 30% slower than the other pairs at its SLIT distance is
/// named; one within the noise of its repetitions is not.
#[test]
fn the_slowest_node_pair_is_named_only_beyond_the_noise() {
    let cells = |slow: f64, spread: f64| {
        let mut records = Vec::new();
        for cpu_node in 0..3u64 {
            for mem_node in 0..3u64 {
                let value = match (cpu_node, mem_node) {
                    (a, b) if a == b => 100.0,
                    (1, 2) => slow,
                    _ => 200.0,
                };
                let mut cell = matrix_cell("matrix-latency", cpu_node, mem_node, value);
                cell.stats = Sample::new([value * (1.0 - spread), value, value * (1.0 + spread)])
                    .unwrap()
                    .summary();
                records.push(cell);
            }
        }
        summarize(&records)
            .into_iter()
            .filter(|finding| finding.kind == FindingKind::SlowNodePair)
            .collect::<Vec<_>>()
    };
    let named = cells(260.0, 0.01);
    assert_wire(&named, &[
        "slow_node_pair {\"cpu_node\":1,\"mem_node\":2,\"peers_median_ns\":200.0,\"pairs_compared\":6}",
    ]);
    assert_eq!(
        named.iter().map(|f| f.text.as_str()).collect::<Vec<_>>(),
        ["node 1's CPUs reading node 2 are the slowest pair: 260 ns, 30% above the median of the 6 measured pairs at SLIT distance 21 (200 ns)"]
    );
    assert!(cells(260.0, 0.2).is_empty());
    assert!(cells(210.0, 0.01).is_empty());
}

/// Scaling reads one node's memory from its own node and from the
/// farthest: the remote all-threads figure is compared with that memory
/// read locally. The reading node has no local curve of its own, and the
/// sentence said "(infx--infx local)" (a ratio of no values), seen on the
/// two-socket VM's screen.
#[test]
fn all_threads_remote_is_against_the_memory_read_locally() {
    let mut records = vec![
        matrix_cell("matrix-bandwidth", 0, 0, 10.0),
        matrix_cell("matrix-bandwidth", 0, 1, 5.0),
        matrix_cell("matrix-bandwidth", 1, 0, 5.0),
        matrix_cell("matrix-bandwidth", 1, 1, 10.0),
    ];
    for (cpu_node, threads, value) in [(0, 1, 10.0), (0, 2, 16.0), (1, 1, 6.0), (1, 2, 8.0)] {
        let mut point = scaling_point(threads, value);
        point.params.insert("cpu_node".into(), json!(cpu_node));
        records.push(point);
    }
    let text = &super::bandwidth::sentences(&records)[0].text;
    assert!(!text.contains("inf"), "{text}");
    assert!(
        text.ends_with("all 2 threads of a node: local 16.0 GB/s, remote 8.00 GB/s (0.50x local)"),
        "{text}"
    );
}

/// Records of a cell whose repetitions spread `spread` around `value`
/// (three of them, as a cut budget leaves).
fn spread_cell(benchmark: &str, cpu_node: u64, mem_node: u64, value: f64, spread: f64) -> Record {
    let mut cell = matrix_cell(benchmark, cpu_node, mem_node, value);
    cell.stats = Sample::new([value * (1.0 - spread), value, value * (1.0 + spread)])
        .unwrap()
        .summary();
    cell
}

/// A sampled 6-node latency matrix at SLIT 10/21/42 where one inferred
/// cell (copied from its class's representative, n = 1, no spread) sits
/// 40% above the measured distance-21 pairs: no pair finding rests on it
/// (the slowest-pair finding used to pool inferred cells of every
/// distance into one group and name a copied cell), and the sentences on
/// the matrix say how many of its cells were measured.
#[test]
fn no_finding_rests_on_an_inferred_cell() {
    let mut records = Vec::new();
    for cpu_node in 0..6u64 {
        for mem_node in 0..6u64 {
            let (value, distance) = match (cpu_node, mem_node) {
                (a, b) if a == b => (100.0, 10),
                (a, b) if a / 3 == b / 3 => (200.0, 21),
                _ => (280.0, 42),
            };
            let mut cell = spread_cell("matrix-latency", cpu_node, mem_node, value, 0.01);
            cell.params.insert("slit_distance".into(), json!(distance));
            let inferred = distance == 42 && (cpu_node + mem_node) % 2 == 0;
            cell.params.insert(
                "cell".into(),
                json!(if inferred { "inferred" } else { "measured" }),
            );
            if inferred {
                cell.stats = Sample::new([cell.value]).unwrap().summary();
            }
            records.push(cell);
        }
    }
    // The copied cell: its representative's figure, far above its distance's pairs.
    let copied = records
        .iter_mut()
        .find(|r| r.params["cell"] == "inferred")
        .unwrap();
    copied.value = 400.0;
    copied.stats = Sample::new([400.0]).unwrap().summary();
    let findings = summarize(&records);
    assert!(
        findings.iter().all(|f| f.kind != FindingKind::SlowNodePair),
        "{:?}",
        findings.iter().map(|f| &f.text).collect::<Vec<_>>()
    );
    let latency = findings
        .iter()
        .find(|f| f.kind == FindingKind::MemoryLatency)
        .unwrap();
    assert!(
        latency.text.contains("28 of 36 cells measured"),
        "{}",
        latency.text
    );
    assert!(!latency.text.contains("400"), "{}", latency.text);
}

/// Eight nodes whose local latency repeats within 1%: node 5's own
/// memory 8% slower is named (the slow-DIMM-channel case no finding
/// named before: the latency matrix's local cells were read only for
/// their span), and so is node 2's bandwidth 9% lower in both the serial
/// and the parallel matrix; with no node slow, nothing is named.
#[test]
fn a_node_whose_own_memory_is_slow_is_named() {
    let cells = |slow_latency: Option<u64>, slow_bandwidth: Option<u64>| {
        let mut records = Vec::new();
        for node in 0..8u64 {
            // Healthy nodes differ a little, as real ones do.
            let healthy = 1.0 + 0.004 * (node as f64 - 3.5) / 3.5;
            let latency = 90.0
                * healthy
                * if Some(node) == slow_latency {
                    1.08
                } else {
                    1.0
                };
            records.push(spread_cell("matrix-latency", node, node, latency, 0.01));
            for (mode, peak) in [("serial", 12.0), ("parallel", 95.0)] {
                let value = peak / healthy
                    * if Some(node) == slow_bandwidth {
                        0.91
                    } else {
                        1.0
                    };
                let mut cell = spread_cell("matrix-bandwidth", node, node, value, 0.03);
                cell.params.insert("mode".into(), json!(mode));
                records.push(cell);
            }
        }
        summarize(&records)
            .into_iter()
            .filter(|f| f.kind == FindingKind::SlowNode)
            .collect::<Vec<_>>()
    };
    assert!(cells(None, None).is_empty());
    let sentences = cells(Some(5), Some(2));
    assert_wire(&sentences, &[
        "slow_node {\"mem_node\":5,\"cpu_node\":5,\"metric\":\"latency\",\"gap\":0.08246998284734142,\"uncertainty\":0.007637626158259736,\"nodes_compared\":8}",
        "slow_node {\"mem_node\":2,\"cpu_node\":2,\"metric\":\"read bandwidth\",\"gap\":0.08791642816256418,\"uncertainty\":0.012747548783981972,\"nodes_compared\":8}",
    ]);
    let named: Vec<(u64, Value, String)> = sentences
        .into_iter()
        .map(|f| {
            (
                f.params["mem_node"].as_u64().unwrap(),
                f.params["metric"].clone(),
                f.text,
            )
        })
        .collect();
    assert_eq!(named.len(), 2, "{named:?}");
    assert_eq!((named[0].0, &named[0].1), (5, &json!("latency")));
    assert!(
        named[0]
            .2
            .starts_with("node 5's own memory is slow in latency: 8% above"),
        "{}",
        named[0].2
    );
    assert_eq!((named[1].0, &named[1].1), (2, &json!("read bandwidth")));
    // A gap within the margin is not named, however steady.
    let within = {
        let mut records = Vec::new();
        for node in 0..8u64 {
            let latency = if node == 1 { 92.0 } else { 90.0 };
            records.push(spread_cell("matrix-latency", node, node, latency, 0.001));
        }
        summarize(&records)
    };
    assert!(within.iter().all(|f| f.kind != FindingKind::SlowNode));
}

/// Two measured CPUs per node are enough to tell the slow one: each is
/// compared with the node's other CPU, so the slow one is 20% below and
/// its peer is above, not below (against a node median of two, both
/// were 10% off and neither stood out).
#[test]
fn two_cpus_per_node_tell_the_slow_one() {
    let mut records = Vec::new();
    for cpu in 0..8u64 {
        let value = if cpu == 5 { 9.6 } else { 12.0 };
        let params =
            json!({"each_cpu": true, "cpu": cpu, "cpu_node": cpu / 2, "size_bytes": 268435456u64});
        records.push(repeated(
            record("per-cpu", "read_bandwidth", value, params),
            value,
        ));
    }
    let slow: Vec<Sentence> = summarize(&records)
        .into_iter()
        .filter(|f| f.kind == FindingKind::SlowCpu)
        .collect();
    assert_eq!(slow.len(), 1);
    assert_wire(&slow, &[
        "slow_cpu {\"cpu\":5,\"cpu_node\":2,\"metric\":\"read_bandwidth\",\"spread\":0.010000000000000009,\"peers_median\":12.0}",
    ]);
    assert_eq!(slow[0].params["cpu"], json!(5));
    assert!(
        slow[0]
            .text
            .contains("20% below the median of the node's other 1 measured CPU"),
        "{}",
        slow[0].text
    );
}
