//! Measuring commands on this machine: records reach every output, with
//! verified placement, and files are complete after the run.

use super::{numabench, params_of, typed_jsonl, typed_of, typed_records, verified};
use numabench_schema::params::{BandwidthParams, C2cParams, LoadedLatencyParams, MlpParams};
use numabench_schema::{Record, Unit};

#[test]
fn list_names_every_benchmark_and_describes_them() {
    let output = numabench().arg("list").output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("latency") && text.contains("bandwidth"));
    let described = numabench().args(["list", "--describe"]).output().unwrap();
    let text = String::from_utf8(described.stdout).unwrap();
    assert!(
        text.contains("write-allocate"),
        "bandwidth says how bytes are counted"
    );
}

#[test]
fn latency_writes_verified_records_to_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, jsonl) = (dir.path().join("r.csv"), dir.path().join("r.jsonl"));
    let (_, records) = typed_of(
        numabench()
            .args([
                "latency",
                "--size",
                "64K,4M",
                "--repeat",
                "3",
                "--json",
                "--mem-node",
                "0",
            ])
            .arg("--csv")
            .arg(&csv)
            .arg("--jsonl")
            .arg(&jsonl),
    );
    let latencies: Vec<&Record> = records
        .iter()
        .filter(|record| record.metric == "latency")
        .collect();
    assert_eq!(latencies.len(), 2);
    for record in &latencies {
        assert_eq!(record.unit, Unit::Nanoseconds);
        assert_eq!(record.stats.n, 3);
        assert!(record.value > 0.0);
        assert_eq!(super::requested(record).memory_label(), Some("bind:0"));
        assert!(verified(record).achieved, "{record:?}");
        assert_eq!(verified(record).fraction_as_requested, 1.0);
    }
    // A larger working set cannot be faster to chase than one that fits in L1/L2.
    assert!(latencies[1].value > latencies[0].value);
    let lines = std::fs::read_to_string(&jsonl).unwrap().lines().count();
    // One line per record, each with the run metadata (the reader refuses
    // a line without it).
    assert_eq!(lines, records.len());
    let (run, lines) = typed_jsonl(&jsonl);
    assert_eq!(lines.len(), records.len());
    assert_eq!(run.command_line[1], "latency");
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv_text.lines().count(), 1 + records.len());
    assert!(csv_text.starts_with("benchmark,metric,value,unit,run.tool,"));
}

#[test]
fn bandwidth_reports_every_kernel_with_gigabytes_per_second() {
    let (_, records) = typed_of(numabench().args([
        "bandwidth",
        "--size",
        "8M",
        "--repeat",
        "2",
        "--json",
        "--threads",
        "1",
    ]));
    let metrics: Vec<&str> = records
        .iter()
        .map(|record| record.metric.as_str())
        .collect();
    assert_eq!(
        metrics,
        ["read", "write", "copy", "triad", "write-nt", "copy-nt", "triad-nt"]
            .map(|kernel| format!("{kernel}_bandwidth"))
    );
    for record in &records {
        assert_eq!(record.unit, Unit::GigabytesPerSecond);
        assert_eq!(record.value, record.stats.max);
        assert!(verified(record).achieved, "{record:?}");
    }
}

/// One single-threaded triad run over 1M: the bandwidth measurement whose
/// SIMD level is checked calibrated and forced.
const ONE_TRIAD: &[&str] = &[
    "bandwidth",
    "--kernel",
    "triad",
    "--size",
    "1M",
    "--threads",
    "1",
    "--repeat",
    "1",
];

/// Unforced, records name the calibrated level and every level's rate;
/// `--simd` forces one and no calibration runs.
#[test]
fn bandwidth_records_the_calibrated_or_forced_simd_level() {
    let calibrated = typed_records(ONE_TRIAD);
    let params = params_of::<BandwidthParams>(&calibrated[0]).simd;
    assert_eq!(params.simd_chosen_by.as_deref(), Some("calibration"));
    let rates = params.simd_calibration.as_object().unwrap();
    assert!(
        rates.contains_key("scalar"),
        "every level is calibrated: {rates:?}"
    );
    let best = rates
        .iter()
        .max_by(|x, y| x.1.as_f64().unwrap().total_cmp(&y.1.as_f64().unwrap()))
        .unwrap();
    assert_eq!(params.simd.as_deref(), Some(best.0.as_str()));
    let forced = typed_records(&[ONE_TRIAD, &["--simd", "scalar"]].concat());
    let params = params_of::<BandwidthParams>(&forced[0]).simd;
    assert_eq!(params.simd.as_deref(), Some("scalar"));
    assert_eq!(params.simd_chosen_by.as_deref(), Some("forced"));
    assert!(params.simd_calibration.is_null());
}

#[test]
fn bandwidth_takes_a_size_list_and_sweeps_from_l1_to_dram() {
    let listed = typed_records(&[
        "bandwidth",
        "--kernel",
        "read,copy",
        "--size",
        "64K,4M",
        "--threads",
        "1",
        "--repeat",
        "1",
    ]);
    let pairs: Vec<(u64, &str)> = listed
        .iter()
        .map(|record| (size_bytes(record).unwrap(), record.metric.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [
            (64 << 10, "read_bandwidth"),
            (64 << 10, "copy_bandwidth"),
            (4 << 20, "read_bandwidth"),
            (4 << 20, "copy_bandwidth"),
        ]
    );
    let swept = typed_records(&[
        "bandwidth",
        "--kernel",
        "read",
        "--sweep",
        "--threads",
        "1",
        "--repeat",
        "1",
    ]);
    let sizes: Vec<u64> = swept
        .iter()
        .map(|record| size_bytes(record).unwrap())
        .collect();
    assert!(sizes.len() >= 5, "{sizes:?}");
    assert!(
        sizes.windows(2).all(|pair| pair[1] == 2 * pair[0]),
        "{sizes:?}"
    );
    assert!(sizes[0] <= 64 << 10, "starts within the L1: {sizes:?}");
    // It ends past 256 MiB (and 4x the last-level cache) unless a quarter of
    // the node's free memory is less: then just below that quarter.
    let free = super::machine().nodes[0]
        .memory_free_bytes
        .unwrap_or(u64::MAX);
    let largest = *sizes.last().unwrap();
    assert!(
        largest >= (256u64 << 20).min(free / 8),
        "ends in DRAM: {sizes:?} (free {free})"
    );
}

/// Every record says which caches stand in front of its memory (each data
/// or unified CPU cache its CPUs use, counted once, from `topo`'s
/// `cpu_groups`) and whether its size is under 4x them; the default working
/// set is not.
#[test]
fn records_carry_the_caches_in_front_and_the_default_size_clears_them() {
    let topology = super::machine();
    let in_front = |cpus: &[u32]| -> u64 {
        topology
            .caches
            .iter()
            .filter(|cache| cache.cache_type != "instruction")
            .map(|cache| {
                let used = cache
                    .cpu_groups
                    .iter()
                    .filter(|group| group.iter().any(|cpu| cpus.contains(cpu)))
                    .count() as u64;
                used * cache.size_bytes
            })
            .sum()
    };
    let cpus_of = |record: &Record| -> Vec<u32> {
        super::requested(record)
            .cpus
            .unwrap_or_else(|| panic!("no requested cpus: {record:?}"))
            .into_iter()
            .map(|cpu| cpu.expect("a requested cpu"))
            .collect()
    };
    let small = typed_records(&[
        "bandwidth",
        "--kernel",
        "read",
        "--size",
        "64K",
        "--threads",
        "1",
        "--repeat",
        "1",
    ]);
    // The caches in front of a record's CPUs, as its params name them.
    let named_in_front = |record: &Record| {
        let front = in_front(&cpus_of(record));
        let working_set = params_of::<BandwidthParams>(record).working_set;
        let named = working_set.cache.cache_bytes_in_front;
        assert_eq!(named, Some(front), "{record:?}");
        (front, working_set)
    };
    let record = &small[0];
    let (front, working_set) = named_in_front(record);
    assert!(front > 0, "{record:?}");
    assert_eq!(working_set.cache.cache_affected, Some(true), "{record:?}");
    let default = typed_records(&["bandwidth", "--kernel", "read", "--repeat", "1"]);
    let record = &default[0];
    let (front, working_set) = named_in_front(record);
    assert_eq!(working_set.cache.cache_affected, Some(false), "{record:?}");
    assert!(working_set.size_bytes.unwrap() >= 4 * front, "{record:?}");
}

/// A bandwidth record's working-set size.
fn size_bytes(record: &Record) -> Option<u64> {
    params_of::<BandwidthParams>(record).working_set.size_bytes
}

fn node_count() -> usize {
    super::machine().nodes.len()
}

#[test]
fn matrices_have_one_cell_per_node_pair() {
    let nodes = node_count();
    let latency = typed_records(&["matrix", "latency", "--size", "8M", "--repeat", "2"]);
    let cells: Vec<_> = latency
        .iter()
        .filter(|record| record.metric == "latency")
        .collect();
    assert_eq!(cells.len(), nodes * nodes);
    for cell in cells {
        assert_eq!(cell.benchmark, "matrix-latency");
        // Matrix params are not typed yet: read through the shared view.
        let params = cell.typed_params();
        assert_eq!(
            super::requested(cell).memory_label(),
            Some(format!("bind:{}", params.mem_node().unwrap()).as_str())
        );
        assert!(verified(cell).achieved, "{cell:?}");
        assert_eq!(params.str("cpu_order"), Some("compact"));
    }
    for mode in ["serial", "parallel"] {
        let bandwidth = typed_records(&[
            "matrix",
            "bandwidth",
            "--mode",
            mode,
            "--size",
            "8M",
            "--repeat",
            "2",
        ]);
        assert_eq!(bandwidth.len(), nodes * nodes);
        assert!(bandwidth
            .iter()
            .all(|record| record.typed_params().mode() == Some(mode)
                && record.unit == Unit::GigabytesPerSecond
                && record.typed_params().str("cpu_order") == Some("compact")));
    }
}

#[test]
fn contention_reports_three_scenarios_and_ratios() {
    let records = typed_records(&["contention", "--size", "8M", "--repeat", "2"]);
    let metrics: Vec<&str> = records
        .iter()
        .map(|record| record.metric.as_str())
        .collect();
    let cpus = records
        .iter()
        .filter(|record| record.metric == "serial_bandwidth")
        .count();
    assert!(cpus >= 1);
    for metric in [
        "contended_bandwidth",
        "local_bandwidth",
        "local_over_contended",
    ] {
        assert!(metrics.contains(&metric), "{metrics:?}");
    }
    let contended = records
        .iter()
        .find(|record| record.metric == "contended_bandwidth")
        .unwrap();
    // Contention params are not typed yet.
    assert_eq!(
        contended.params["per_thread_gbs"].as_array().unwrap().len(),
        cpus
    );
}

#[test]
fn scaling_mlp_c2c_and_loaded_latency_produce_their_curves() {
    let scaling = typed_records(&["scaling", "--size", "8M", "--repeat", "2"]);
    // Scaling params are not typed yet: read through the shared view.
    let threads: Vec<u64> = scaling
        .iter()
        .map(|record| record.typed_params().threads().unwrap())
        .collect();
    assert_eq!(threads[0], 1);
    assert!(threads
        .windows(2)
        .all(|pair| pair[1] == pair[0] + 1 || pair[1] == 1));
    assert!(scaling
        .iter()
        .all(|record| record.typed_params().str("cpu_order") == Some("cores-first")));
    let mlp = typed_records(&["mlp", "--size", "16M", "--repeat", "2"]);
    let chains: Vec<u64> = mlp
        .iter()
        .filter(|record| record.metric == "mlp")
        .map(|record| params_of::<MlpParams>(record).chains.unwrap())
        .collect();
    assert_eq!(chains, (1..=16).collect::<Vec<u64>>());
    let topology = super::machine();
    let cpus = topology.allowed.cpus.len();
    if cpus >= 2 {
        let c2c = typed_records(&["c2c", "--repeat", "2"]);
        assert_eq!(c2c.len(), cpus * (cpus - 1) / 2);
        assert!(c2c.iter().all(|record| record.value > 0.0));
        // The shared cache named for each pair is one whose CPU groups hold both CPUs.
        for record in &c2c {
            let params = params_of::<C2cParams>(record);
            let (a, b) = (params.cpu_a.unwrap(), params.cpu_b.unwrap());
            let shares = |cache: &numabench::topology::CacheLevel| {
                cache
                    .cpu_groups
                    .iter()
                    .any(|group| group.contains(&a) && group.contains(&b))
            };
            let lowest_shared = topology
                .caches
                .iter()
                .filter(|cache| cache.cache_type != "instruction" && shares(cache))
                .map(|cache| cache.level)
                .min();
            assert_eq!(
                params.shared_cache,
                lowest_shared.map(|level| format!("L{level}")),
                "{record:?}"
            );
            assert!(params.same_package.is_some(), "{record:?}");
        }
        let loaded = typed_records(&[
            "loaded-latency",
            "--size",
            "8M",
            "--delays",
            "500,0",
            "--repeat",
            "2",
            "--mix",
            "3:1",
        ]);
        let loaded: Vec<LoadedLatencyParams> = loaded.iter().map(params_of).collect();
        let delays: Vec<Option<u32>> = loaded.iter().map(|params| params.delay).collect();
        assert_eq!(delays, [None, Some(500), Some(0)]);
        assert_eq!(
            loaded[0].traffic_gbs,
            Some(0.0),
            "the idle point has no traffic"
        );
        assert!(loaded[2].traffic_gbs.unwrap() > 0.0);
    }
}

#[test]
fn characterize_runs_only_what_is_selected() {
    let records = typed_records(&[
        "characterize",
        "--only",
        "latency,c2c",
        "--skip",
        "c2c",
        "--repeat",
        "1",
    ]);
    assert!(!records.is_empty());
    // Then the summary's sentences, which are about the latency records.
    assert!(records
        .iter()
        .all(|record| record.benchmark == "latency" || record.benchmark == "summary"));
}

/// Ctrl-C during a long `bandwidth` run: every worker stops at the same
/// repetition (worker 0 decides and releases the others), so numabench
/// exits by itself within seconds and the JSON Lines file holds the
/// metadata and the record of the repetitions that finished.
#[test]
fn ctrl_c_stops_every_bandwidth_worker_and_closes_the_outputs() {
    use std::os::unix::process::CommandExt;
    use std::time::{Duration, Instant};
    let directory = tempfile::tempdir().unwrap();
    let jsonl = directory.path().join("bandwidth.jsonl");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_numabench"))
        // Every repetition: no early stop once the figure converges.
        .env("NUMABENCH_FIXED_REPETITIONS", "1")
        .args([
            "bandwidth",
            "--threads",
            "2",
            "--kernel",
            "read",
            "--size",
            "8M",
            "--repeat",
            "100000",
            "--jsonl",
        ])
        .arg(&jsonl)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: signals our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let signalled = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if signalled.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("bandwidth still running 20 s after Ctrl-C: a worker waits at the barrier");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    // By itself (not killed), with the shell's status for a Ctrl-C
    // (128 + SIGINT), as every command exits after an interrupt.
    assert_eq!(status.code(), Some(130), "exited by itself after Ctrl-C");
    // Every line reads as a record (strictly, through the schema crate's
    // reader).
    let (_, records) = typed_jsonl(&jsonl);
    assert!(
        records
            .iter()
            .any(|record| record.unit == Unit::GigabytesPerSecond && record.stats.n >= 2),
        "a record of the finished repetitions: {records:?}"
    );
}

/// A curve family: `--curve` gives every mix 25 points (the idle one and
/// 24 delays), one curve per mix (non-temporal writes among them), each
/// point with the tail of the chase's latency under its load.
#[test]
fn loaded_latency_draws_a_family_of_curves_with_tails() {
    let loaded = typed_records(&[
        "loaded-latency",
        "--size",
        "4M",
        "--curve",
        "--repeat",
        "1",
        "--mix",
        "reads,1:1-nt",
    ]);
    for mix in ["reads", "1:1-nt"] {
        let curve: Vec<LoadedLatencyParams> = loaded
            .iter()
            .map(params_of::<LoadedLatencyParams>)
            .filter(|params| params.mix.as_deref() == Some(mix))
            .collect();
        assert_eq!(curve.len(), 25, "{mix}: {curve:?}");
        assert_eq!(curve[0].delay, None);
        assert_eq!(curve[24].delay, Some(0));
        for point in &curve {
            let tail = point.tail.as_ref().unwrap();
            assert!(tail.p50 > 0.0 && tail.p50 <= tail.p99, "{point:?}");
        }
        assert!(curve[24].traffic_gbs.unwrap() > 0.0);
    }
}
