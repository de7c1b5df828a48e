//! Records shaped as a real `characterize --jsonl` run writes them (params
//! and placement copied from one, values chosen here).

use super::*;
use crate::memory::{HugePageCheck, PlacementCheck};
use crate::output::Record;

fn check(pages: u64, fraction: f64, huge: Option<(u64, u64)>) -> PlacementCheck {
    PlacementCheck {
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
    let params = json!({"size_bytes": size, "cache_bytes_in_front": 34635776u64,
        "cache_affected": true, "cpu": 0, "cpu_node": 0, "order": "tlb-block",
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
    record(
        benchmark,
        metric,
        value,
        json!({"cpu_node": cpu_node, "mem_node": mem_node, "cpu_order": "compact",
               "size_bytes": 268435456u64, "hugepages": false}),
    )
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
            "node 0's local read bandwidth saturates at 2 of 2 threads (90% of its peak, 7.0 GB/s)",
            // (16384 + 2^28 / 2) of (16384 + 2^28) resident bytes.
            "the latency chain hit huge pages (thp) on 50.0% of the buffer",
            "the requested placement was verified on 100.0% of 68 checked pages (2 measurements)",
        ]
    );
    let records = summary_records(&sentences);
    assert_eq!(records[0].benchmark, "summary");
    assert_eq!(records[0].metric, "bandwidth_saturation");
    assert_eq!(records[0].value, 2.0);
    assert_eq!(records[2].params["sentence"], texts[2]);
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
    let texts: Vec<String> = summarize(&records).into_iter().map(|s| s.text).collect();
    assert_eq!(
        texts,
        [
            "remote memory (node 1) costs 1.90x local latency and 0.45x bandwidth from node 0",
            "remote memory (node 0) costs 2.10x local latency and 0.40x bandwidth from node 1",
            "node 2 is CPU-less: 2.40x latency and 0.30x bandwidth of node 0's local memory, from node 0",
            "node 0's local read bandwidth saturates at 3 of 5 threads (90% of its peak, 10.0 GB/s)",
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
            "remote memory (node 1) costs 1.50x local latency from node 0",
            "remote memory (node 0) costs 1.50x local latency from node 1",
        ]
    );
    assert!(summarize(&[]).is_empty());
}
