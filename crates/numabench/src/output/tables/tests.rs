//! Golden tests: each shape's table on fixed records, as plain text.

use super::*;
use crate::output::{Placement, Unit};
use crate::stats::Sample;
use serde_json::{json, Value};

fn record(benchmark: &str, metric: &str, value: f64, unit: Unit, params: Value) -> Record {
    Record {
        benchmark: benchmark.into(),
        metric: metric.into(),
        value,
        unit,
        params: params.as_object().unwrap().clone(),
        placement: Placement::default(),
        stats: Sample::new([value * 0.99, value, value * 1.01])
            .unwrap()
            .summary(),
    }
}

fn ladder() -> CacheLadder {
    CacheLadder::new(vec![
        ("L1".into(), 32 << 10),
        ("L2".into(), 1 << 20),
        ("L3".into(), 32 << 20),
    ])
}

fn plain(records: &[Record]) -> String {
    shape_all(records, &ladder())
        .iter()
        .map(TableModel::plain)
        .collect::<Vec<_>>()
        .join("\n")
}

fn latency_records() -> Vec<Record> {
    let mut records = Vec::new();
    for (size, ns, affected) in [
        (16u64 << 10, 1.2, true),
        (16 << 20, 30.5, true),
        (64 << 20, 80.0, true),
        (1 << 30, 95.25, false),
    ] {
        let params = json!({"size_bytes": size, "cache_bytes_in_front": 34u64 << 20,
            "cache_affected": affected, "cpu": 0, "cpu_node": 0,
            "order_measures": "idle memory latency: random within TLB-sized blocks"});
        records.push(record(
            "latency",
            "latency",
            ns,
            Unit::Nanoseconds,
            params.clone(),
        ));
        records.push(record(
            "latency",
            "latency_cycles",
            ns * 3.0,
            Unit::Cycles,
            params,
        ));
    }
    records
}

#[test]
fn latency_sweep_is_size_against_ns_with_the_level() {
    assert_eq!(
        plain(&latency_records()),
        "\
Latency by working-set size (cpu 0, idle)
size | level | ns | cycles | cv
16 KiB | L1 | 1.20 | 3.60 | 1.0%
16 MiB | L3 | 30.50 | 91.50 | 1.0%
64 MiB | L3+DRAM | 80.00 | 240.0 | 1.0%
1 GiB | DRAM | 95.25 | 285.8 | 1.0%
chase: idle memory latency: random within TLB-sized blocks
"
    );
}

fn bandwidth_records() -> Vec<Record> {
    let mut records = Vec::new();
    for kernel in ["read", "copy"] {
        for (size, gbs) in [(16u64 << 10, 200.0), (1u64 << 30, 12.5)] {
            let value = if kernel == "copy" { gbs * 0.8 } else { gbs };
            records.push(record("bandwidth", &format!("{kernel}_bandwidth"), value, Unit::GigabytesPerSecond,
                json!({"kernel": kernel, "threads": 2, "size_bytes": size, "cache_affected": size < (1 << 30)})));
        }
    }
    records
}

fn matrix_records() -> Vec<Record> {
    let mut records = Vec::new();
    for cpu in 0..2u64 {
        for mem in 0..3u64 {
            let ns = if cpu == mem {
                100.0
            } else {
                190.0 + 10.0 * mem as f64
            };
            records.push(record(
                "matrix-latency",
                "latency",
                ns,
                Unit::Nanoseconds,
                json!({"cpu_node": cpu, "mem_node": mem}),
            ));
            records.push(record(
                "matrix-latency",
                "latency_cycles",
                ns * 3.0,
                Unit::Cycles,
                json!({"cpu_node": cpu, "mem_node": mem}),
            ));
        }
    }
    records
}

fn per_cpu_records() -> Vec<Record> {
    let mut records = Vec::new();
    let latency = [100.0, 120.0, 101.0, 99.0];
    let median = 100.5;
    for (cpu, ns) in latency.iter().enumerate() {
        let params = json!({"each_cpu": true, "cpu": cpu, "cpu_node": cpu / 2});
        records.push(record(
            "per-cpu",
            "latency",
            *ns,
            Unit::Nanoseconds,
            params.clone(),
        ));
        records.push(record(
            "per-cpu",
            "latency_cycles",
            ns * 3.0,
            Unit::Cycles,
            params,
        ));
    }
    for (cpu, ns) in latency.iter().enumerate() {
        records.push(record("per-cpu", "latency_vs_node_median", ns / median, Unit::Ratio,
            json!({"each_cpu": true, "cpu": cpu, "cpu_node": cpu / 2, "deviation_from_node_median": ns / median - 1.0})));
    }
    records
}

fn loaded_records() -> Vec<Record> {
    [(0, None, 0.0, 100.0), (1, Some(0), 10.0, 120.0), (2, Some(0), 18.5, 180.0)]
        .into_iter()
        .map(|(generators, delay, traffic, ns)| {
            record("loaded-latency", "loaded_latency", ns, Unit::Nanoseconds,
                json!({"generators": generators, "delay": delay, "traffic_gbs": traffic, "mix": "reads"}))
        })
        .collect()
}

fn scaling_records() -> Vec<Record> {
    [(1, 10.0), (2, 18.0), (4, 20.0)]
        .into_iter()
        .map(|(threads, gbs)| {
            record("scaling", "read_bandwidth", gbs, Unit::GigabytesPerSecond,
                json!({"cpu_node": 0, "mem_node": 0, "locality": "local", "kernel": "read", "threads": threads}))
        })
        .collect()
}

fn mlp_records() -> Vec<Record> {
    let mut records = Vec::new();
    for (chains, ns) in [(1, 100.0), (2, 52.0), (4, 30.0)] {
        records.push(record(
            "mlp",
            "ns_per_load",
            ns,
            Unit::Nanoseconds,
            json!({"chains": chains}),
        ));
        records.push(record(
            "mlp",
            "mlp",
            100.0 / ns,
            Unit::Ratio,
            json!({"chains": chains}),
        ));
    }
    records
}

/// The table names a level by the rule the record's `cache_level` was
/// made with, so the two agree at every size. On a host declaring L1d
/// 48 KiB, L2 2 MiB and L3 480 MiB, the table said `32 KiB | L1d | 1.23`
/// while the record (and the summary from it) said `L2`.
#[test]
fn the_table_and_the_record_name_one_level() {
    let topology = crate::topology::synthetic(
        "pack:1 [numa(memory=8GiB)] l3:1(size=480MiB) l2:1(size=2MiB) l1d:1(size=48KiB) core:1 pu:1",
    );
    let ladder = CacheLadder::of(&topology);
    for (size, level) in [
        (16u64 << 10, "L1"),
        (32 << 10, "L1"),
        (64 << 10, "L2"),
        (2 << 20, "L2"),
        (32 << 20, "L3"),
        (1 << 30, "L3+DRAM"),
        (4 << 30, "DRAM"),
    ] {
        let mut params = serde_json::Map::new();
        params.insert("size_bytes".into(), json!(size));
        crate::bench::insert_cache_params(&topology, size, &[0], &[0], &mut params);
        let made = record(
            "latency",
            "latency",
            1.0,
            Unit::Nanoseconds,
            Value::Object(params.clone()),
        );
        assert_eq!(ladder.level_of(&made), level, "{size}");
        // A record without `cache_level` (made before it existed) is named
        // by the same rule from the ladder.
        params.remove("cache_level");
        let older = record(
            "latency",
            "latency",
            1.0,
            Unit::Nanoseconds,
            Value::Object(params),
        );
        assert_eq!(ladder.level_of(&older), level, "{size} without cache_level");
    }
}

fn c2c_records(cpus: u64) -> Vec<Record> {
    let mut records = Vec::new();
    for a in 0..cpus {
        for b in a + 1..cpus {
            let same = a / 8 == b / 8;
            records.push(record("c2c", "c2c_latency", if same { 50.0 + b as f64 } else { 150.0 + a as f64 }, Unit::Nanoseconds,
                json!({"cpu_a": a, "cpu_b": b, "relation": if same { "same-node" } else { "cross-node" }})));
        }
    }
    records
}

#[test]
fn bandwidth_is_kernel_against_size() {
    assert_eq!(
        plain(&bandwidth_records()),
        "\
Bandwidth GB/s by kernel and working-set size
kernel | 16 KiB L1 | 1 GiB DRAM
read | 200.0 | 12.50
copy | 160.0 | 10.00
threads: 2
"
    );
}

#[test]
fn bandwidth_is_kernel_against_threads_when_they_vary() {
    let records: Vec<Record> = [1u64, 2]
        .into_iter()
        .map(|threads| {
            record("bandwidth", "read_bandwidth", 10.0 * threads as f64, Unit::GigabytesPerSecond,
                json!({"kernel": "read", "threads": threads, "size_bytes": 1u64 << 30, "cache_affected": false}))
        })
        .collect();
    assert_eq!(
        plain(&records),
        "\
Bandwidth GB/s by kernel and thread count
kernel | 1 thr | 2 thr
read | 10.00 | 20.00
working set: 1 GiB
"
    );
}

#[test]
fn matrix_is_a_node_grid_with_ratios_to_local() {
    assert_eq!(
        plain(&matrix_records()),
        "\
Node matrix: latency, ns
cpu \\ mem | node 0 | node 1 | node 2
node 0 | 100.0 | 200.0 | 210.0
node 1 | 190.0 | 100.0 | 210.0

Node matrix: latency, ns, ratio to the row's local cell
cpu \\ mem | node 0 | node 1 | node 2
node 0 | 1.00x | 2.00x | 2.10x
node 1 | 1.90x | 1.00x | 2.10x
local = the row's own node; - where a row has no local cell (CPU-less node)
"
    );
}

#[test]
fn each_cpu_is_sorted_by_deviation_with_outliers_marked() {
    assert_eq!(
        plain(&per_cpu_records()),
        "\
Each CPU against its node's median, furthest first
cpu | node | latency ns | vs median | 
1 | 0 | 120.0 | +19.4% | outlier
3 | 1 | 99.00 | -1.5% | 
2 | 1 | 101.0 | +0.5% | 
0 | 0 | 100.0 | -0.5% | 
vs median: the CPU's figure over its node's median, minus one; outlier: beyond 10.0%
"
    );
}

#[test]
fn loaded_latency_is_traffic_against_latency() {
    assert_eq!(
        plain(&loaded_records()),
        "\
Loaded latency: latency against memory traffic
generators | delay | traffic GB/s | latency ns | vs idle
0 | - | 0 | 100.0 | 1.00x
1 | 0 | 10.00 | 120.0 | 1.20x
2 | 0 | 18.50 | 180.0 | 1.80x
traffic: reads; vs idle: over the latency with no generator
"
    );
}

#[test]
fn scaling_is_threads_against_bandwidth_and_efficiency() {
    assert_eq!(
        plain(&scaling_records()),
        "\
Scaling: bandwidth as threads are added
series | threads | GB/s | per thread | efficiency | of peak
node 0 <- mem 0 (local) | 1 | 10.00 | 10.00 | 100.0% | 50.0%
 | 2 | 18.00 | 9.00 | 90.0% | 90.0%
 | 4 | 20.00 | 5.00 | 50.0% | 100.0%
efficiency: GB/s over (one thread's GB/s x threads); of peak: over the series' best
kernel: read
"
    );
}

#[test]
fn mlp_is_chains_against_speed_up() {
    assert_eq!(
        plain(&mlp_records()),
        "\
Memory-level parallelism: independent chases in one thread
chains | ns per load | speed-up
1 | 100.0 | 1.00x
2 | 52.00 | 1.92x
4 | 30.00 | 3.33x
speed-up: loads per second over one chain's (the misses in flight at once)
"
    );
}

#[test]
fn c2c_is_a_cpu_grid_up_to_sixteen_cpus() {
    assert_eq!(
        plain(&c2c_records(3)),
        "\
Core-to-core latency, ns (a modified line moving)
cpu | 0 | 1 | 2
0 | - | 51 | 52
1 | 51 | - | 52
2 | 52 | 52 | -
relations measured: same-node
"
    );
}

#[test]
fn c2c_beyond_sixteen_cpus_is_by_relation() {
    assert_eq!(
        plain(&c2c_records(17)),
        "\
Core-to-core latency by relation, ns
relation | pairs | min | median | max | slowest pair
same-node | 56 | 51.00 | 59.00 | 65.00 | 14-15
cross-node | 80 | 150.0 | 154.0 | 165.0 | 15-16
"
    );
}

/// Other benchmarks: the params that differ become columns, the shared
/// ones one note, a value too long for a cell a numbered note; summary
/// sentences are no table.
#[test]
fn other_records_show_differing_params_as_columns() {
    let long = "a configuration label far longer than any cell should hold";
    let records = vec![
        record(
            "plugin-x",
            "time",
            1.5,
            Unit::Seconds,
            json!({"policy": "pin-compact", "class": "S", "label": "short"}),
        ),
        record(
            "plugin-x",
            "time",
            2.5,
            Unit::Seconds,
            json!({"policy": "interleave:all", "class": "S", "label": long}),
        ),
        record(
            "summary",
            "placement_verified",
            1.0,
            Unit::Ratio,
            json!({"sentence": "x"}),
        ),
    ];
    assert_eq!(
        plain(&records),
        format!(
            "\
plugin-x results
metric | value | unit | cv | policy | label
time | 1.50 | s | 1.0% | pin-compact | short
time | 2.50 | s | 1.0% | interleave:all | [1]
every row: class=S
[1] label={long}
"
        )
    );
}

#[test]
fn contention_is_scenarios_with_the_ratios_in_notes() {
    let bandwidth = |metric, scenario, threads, gbs| {
        record(
            "contention",
            metric,
            gbs,
            Unit::GigabytesPerSecond,
            json!({"scenario": scenario, "kernel": "read", "threads": threads}),
        )
    };
    let records = vec![
        bandwidth("serial_bandwidth", "cpu 0 alone, memory on node 0", 1, 10.0),
        bandwidth(
            "contended_bandwidth",
            "all threads at once, memory on node 0",
            4,
            16.0,
        ),
        bandwidth(
            "local_bandwidth",
            "all threads at once, each on its own node",
            4,
            32.0,
        ),
        record(
            "contention",
            "local_over_contended",
            2.0,
            Unit::Ratio,
            json!({"meaning": "aggregate bandwidth gained by placing each thread's data on its own node"}),
        ),
    ];
    assert_eq!(
        plain(&records),
        "\
Contention: all threads on one node's memory against each on its own
scenario | threads | GB/s | per thread
cpu 0 alone, memory on node 0 | 1 | 10.00 | 10.00
all threads at once, memory on node 0 | 4 | 16.00 | 4.00
all threads at once, each on its own node | 4 | 32.00 | 8.00
local_over_contended = 2.00x: aggregate bandwidth gained by placing each thread's data on its own node
kernel: read
"
    );
}

/// One node's matrix is one cell: no ratio grid (it would only say 1.00x).
#[test]
fn a_one_cell_matrix_has_no_ratio_grid() {
    let records = vec![record(
        "matrix-latency",
        "latency",
        90.0,
        Unit::Nanoseconds,
        json!({"cpu_node": 0, "mem_node": 0}),
    )];
    assert_eq!(
        plain(&records),
        "\
Node matrix: latency, ns
cpu \\ mem | node 0
node 0 | 90.00
"
    );
}

/// An application run: configuration against time, Mop/s and verification;
/// STREAM's kernels against GB/s; the rest of the run in a note.
#[test]
fn an_app_run_is_configuration_against_time_and_verdict() {
    let params = json!({"placement": "first-touch", "threads_placement": "compact", "threads": 2,
        "threads_per_cpu": 1, "verification": {"passed": true}, "class": "S"});
    let records = vec![
        record("stream", "time", 0.2, Unit::Seconds, params.clone()),
        record(
            "stream",
            "mops",
            5.0,
            Unit::MegaOpsPerSecond,
            params.clone(),
        ),
        record(
            "stream",
            "first_iteration_time",
            0.1,
            Unit::Seconds,
            params.clone(),
        ),
        record(
            "stream",
            "triad_bandwidth",
            3.0,
            Unit::GigabytesPerSecond,
            params,
        ),
    ];
    assert_eq!(
        plain(&records),
        "\
stream: run time by configuration
configuration | threads | median s | min s | max s | Mop/s | verified
first-touch + compact | 2 | 0.200 | 0.198 | 0.202 | 5.00 | passed
threads_per_cpu=1 class=S

stream: bandwidth by kernel
kernel | first-touch + compact GB/s
triad | 3.00
"
    );
}

/// A sampled matrix's inferred cell is marked `*` in both grids, with a
/// footnote saying how many were inferred; measured cells are not.
#[test]
fn inferred_matrix_cells_are_marked() {
    let mut records = matrix_records();
    for record in records.iter_mut().filter(|r| r.metric == "latency") {
        let inferred = record.params["cpu_node"] == 1 && record.params["mem_node"] == 2;
        record.params.insert(
            "cell".into(),
            json!(if inferred { "inferred" } else { "measured" }),
        );
    }
    let text = plain(&records);
    assert!(text.contains("210.0*") && text.contains("2.10x*"), "{text}");
    assert_eq!(
        text.matches('*').count(),
        4,
        "two cells and two notes: {text}"
    );
    assert!(
        text.contains(
            "* inferred from its symmetry class's representative, not measured (1 of 6 cells"
        ),
        "{text}"
    );
}
