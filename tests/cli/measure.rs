//! Measuring commands on this machine: records reach every output, with
//! verified placement, and files are complete after the run.

use super::{json_of, numabench};

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
    let document = json_of(
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
    let records = document["records"].as_array().unwrap();
    let latencies: Vec<&serde_json::Value> = records
        .iter()
        .filter(|record| record["metric"] == "latency")
        .collect();
    assert_eq!(latencies.len(), 2);
    for record in &latencies {
        assert_eq!(record["unit"], "ns");
        assert_eq!(record["stats"]["n"], 3);
        assert!(record["value"].as_f64().unwrap() > 0.0);
        assert_eq!(record["placement"]["requested"]["memory"], "bind:0");
        assert_eq!(record["placement"]["verified"]["achieved"], true);
        assert_eq!(
            record["placement"]["verified"]["fraction_as_requested"],
            1.0
        );
    }
    // A larger working set cannot be faster to chase than one that fits in L1/L2.
    assert!(latencies[1]["value"].as_f64().unwrap() > latencies[0]["value"].as_f64().unwrap());
    let lines: Vec<String> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    // One line per record, each with the run metadata.
    assert_eq!(lines.len(), records.len());
    let first: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(first["run"]["command_line"][1], "latency");
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv_text.lines().count(), 1 + records.len());
    assert!(csv_text.starts_with("benchmark,metric,value,unit,run.tool,"));
}

#[test]
fn bandwidth_reports_every_kernel_with_gigabytes_per_second() {
    let document = json_of(numabench().args([
        "bandwidth",
        "--size",
        "8M",
        "--repeat",
        "2",
        "--json",
        "--threads",
        "1",
    ]));
    let metrics: Vec<&str> = document["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|record| record["metric"].as_str().unwrap())
        .collect();
    assert_eq!(
        metrics,
        ["read", "write", "copy", "triad", "write-nt", "copy-nt", "triad-nt"]
            .map(|kernel| format!("{kernel}_bandwidth"))
    );
    for record in document["records"].as_array().unwrap() {
        assert_eq!(record["unit"], "GB/s");
        assert_eq!(record["value"], record["stats"]["max"]);
        assert_eq!(record["placement"]["verified"]["achieved"], true);
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
    let calibrated = records(ONE_TRIAD);
    let params = &calibrated[0]["params"];
    assert_eq!(params["simd_chosen_by"], "calibration");
    let rates = params["simd_calibration"].as_object().unwrap();
    assert!(
        rates.contains_key("scalar"),
        "every level is calibrated: {rates:?}"
    );
    let best = rates
        .iter()
        .max_by(|x, y| x.1.as_f64().unwrap().total_cmp(&y.1.as_f64().unwrap()))
        .unwrap();
    assert_eq!(params["simd"], best.0.as_str());
    let forced = records(&[ONE_TRIAD, &["--simd", "scalar"]].concat());
    let params = &forced[0]["params"];
    assert_eq!(params["simd"], "scalar");
    assert_eq!(params["simd_chosen_by"], "forced");
    assert!(params["simd_calibration"].is_null());
}

#[test]
fn bandwidth_takes_a_size_list_and_sweeps_from_l1_to_dram() {
    let listed = records(&[
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
        .map(|record| {
            (
                record["params"]["size_bytes"].as_u64().unwrap(),
                record["metric"].as_str().unwrap(),
            )
        })
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
    let swept = records(&[
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
        .map(|record| record["params"]["size_bytes"].as_u64().unwrap())
        .collect();
    assert!(sizes.len() >= 5, "{sizes:?}");
    assert!(
        sizes.windows(2).all(|pair| pair[1] == 2 * pair[0]),
        "{sizes:?}"
    );
    assert!(sizes[0] <= 64 << 10, "starts within the L1: {sizes:?}");
    // It ends past 256 MiB (and 4x the last-level cache) unless a quarter of
    // the node's free memory is less: then just below that quarter.
    let topology = super::json_document(&["topo"]);
    let free = topology["nodes"][0]["memory_free_bytes"]
        .as_u64()
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
    let topology = super::json_document(&["topo"]);
    let in_front = |cpus: &[u64]| -> u64 {
        topology["caches"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|cache| cache["type"] != "instruction")
            .map(|cache| {
                let used = cache["cpu_groups"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|group| {
                        group
                            .as_array()
                            .unwrap()
                            .iter()
                            .any(|cpu| cpus.contains(&cpu.as_u64().unwrap()))
                    })
                    .count() as u64;
                used * cache["size_bytes"].as_u64().unwrap()
            })
            .sum()
    };
    let cpus_of = |record: &serde_json::Value| -> Vec<u64> {
        record["placement"]["requested"]["cpus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|cpu| cpu.as_u64().unwrap())
            .collect()
    };
    let small = records(&[
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
    let record = &small[0];
    let front = in_front(&cpus_of(record));
    assert!(front > 0, "{record}");
    assert_eq!(record["params"]["cache_bytes_in_front"], front, "{record}");
    assert_eq!(record["params"]["cache_affected"], true, "{record}");
    let default = records(&["bandwidth", "--kernel", "read", "--repeat", "1"]);
    let record = &default[0];
    let front = in_front(&cpus_of(record));
    assert_eq!(record["params"]["cache_bytes_in_front"], front, "{record}");
    assert_eq!(record["params"]["cache_affected"], false, "{record}");
    assert!(
        record["params"]["size_bytes"].as_u64().unwrap() >= 4 * front,
        "{record}"
    );
}

/// Runs a measuring command with `--json` and returns its records.
fn records(arguments: &[&str]) -> Vec<serde_json::Value> {
    super::json_document(arguments)["records"]
        .as_array()
        .unwrap()
        .clone()
}

fn node_count() -> usize {
    let output = numabench().args(["topo", "--json"]).output().unwrap();
    let topology: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    topology["nodes"].as_array().unwrap().len()
}

#[test]
fn matrices_have_one_cell_per_node_pair() {
    let nodes = node_count();
    let latency = records(&["matrix", "latency", "--size", "8M", "--repeat", "2"]);
    let cells: Vec<_> = latency
        .iter()
        .filter(|record| record["metric"] == "latency")
        .collect();
    assert_eq!(cells.len(), nodes * nodes);
    for cell in cells {
        assert_eq!(cell["benchmark"], "matrix-latency");
        assert_eq!(
            cell["placement"]["requested"]["memory"],
            format!("bind:{}", cell["params"]["mem_node"])
        );
        assert_eq!(cell["placement"]["verified"]["achieved"], true);
        assert_eq!(cell["params"]["cpu_order"], "compact");
    }
    for mode in ["serial", "parallel"] {
        let bandwidth = records(&[
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
            .all(|record| record["params"]["mode"] == mode
                && record["unit"] == "GB/s"
                && record["params"]["cpu_order"] == "compact"));
    }
}

#[test]
fn contention_reports_three_scenarios_and_ratios() {
    let records = records(&["contention", "--size", "8M", "--repeat", "2"]);
    let metrics: Vec<&str> = records
        .iter()
        .map(|record| record["metric"].as_str().unwrap())
        .collect();
    let cpus = records
        .iter()
        .filter(|record| record["metric"] == "serial_bandwidth")
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
        .find(|record| record["metric"] == "contended_bandwidth")
        .unwrap();
    assert_eq!(
        contended["params"]["per_thread_gbs"]
            .as_array()
            .unwrap()
            .len(),
        cpus
    );
}

#[test]
fn scaling_mlp_c2c_and_loaded_latency_produce_their_curves() {
    let scaling = records(&["scaling", "--size", "8M", "--repeat", "2"]);
    let threads: Vec<u64> = scaling
        .iter()
        .map(|record| record["params"]["threads"].as_u64().unwrap())
        .collect();
    assert_eq!(threads[0], 1);
    assert!(threads
        .windows(2)
        .all(|pair| pair[1] == pair[0] + 1 || pair[1] == 1));
    assert!(scaling
        .iter()
        .all(|record| record["params"]["cpu_order"] == "cores-first"));
    let mlp = records(&["mlp", "--size", "16M", "--repeat", "2"]);
    let chains: Vec<u64> = mlp
        .iter()
        .filter(|record| record["metric"] == "mlp")
        .map(|record| record["params"]["chains"].as_u64().unwrap())
        .collect();
    assert_eq!(chains, (1..=16).collect::<Vec<u64>>());
    let topology = numabench().args(["topo", "--json"]).output().unwrap();
    let topology: serde_json::Value = serde_json::from_slice(&topology.stdout).unwrap();
    let cpus = topology["allowed"]["cpus"].as_array().unwrap().len();
    if cpus >= 2 {
        let c2c = records(&["c2c", "--repeat", "2"]);
        assert_eq!(c2c.len(), cpus * (cpus - 1) / 2);
        assert!(c2c
            .iter()
            .all(|record| record["value"].as_f64().unwrap() > 0.0));
        // The shared cache named for each pair is one whose CPU groups hold both CPUs.
        for record in &c2c {
            let (a, b) = (&record["params"]["cpu_a"], &record["params"]["cpu_b"]);
            let shares = |cache: &serde_json::Value| {
                cache["cpu_groups"].as_array().unwrap().iter().any(|group| {
                    let group = group.as_array().unwrap();
                    group.contains(a) && group.contains(b)
                })
            };
            let lowest_shared = topology["caches"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|cache| cache["type"] != "instruction" && shares(cache))
                .map(|cache| cache["level"].as_u64().unwrap())
                .min();
            assert_eq!(
                record["params"]["shared_cache"],
                serde_json::json!(lowest_shared.map(|level| format!("L{level}"))),
                "{record}"
            );
            assert!(record["params"]["same_package"].is_boolean(), "{record}");
        }
        let loaded = records(&[
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
        let delays: Vec<&serde_json::Value> = loaded
            .iter()
            .map(|record| &record["params"]["delay"])
            .collect();
        assert_eq!(
            delays,
            [
                &serde_json::Value::Null,
                &serde_json::json!(500),
                &serde_json::json!(0)
            ]
        );
        assert_eq!(
            loaded[0]["params"]["traffic_gbs"], 0.0,
            "the idle point has no traffic"
        );
        assert!(loaded[2]["params"]["traffic_gbs"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn characterize_runs_only_what_is_selected() {
    let records = records(&[
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
        .all(|record| record["benchmark"] == "latency" || record["benchmark"] == "summary"));
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
    let lines = std::fs::read_to_string(&jsonl).unwrap();
    let values: Vec<serde_json::Value> = lines
        .lines()
        .map(|line| serde_json::from_str(line).expect("every JSONL line parses"))
        .collect();
    assert!(
        values
            .iter()
            .any(|value| value["unit"] == "GB/s" && value["stats"]["n"].as_u64() >= Some(2)),
        "a record of the finished repetitions: {lines}"
    );
}

/// A curve family: `--curve` gives every mix 25 points (the idle one and
/// 24 delays), one curve per mix (non-temporal writes among them), each
/// point with the tail of the chase's latency under its load.
#[test]
fn loaded_latency_draws_a_family_of_curves_with_tails() {
    let loaded = records(&[
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
        let curve: Vec<&serde_json::Value> = loaded
            .iter()
            .filter(|record| record["params"]["mix"] == mix)
            .collect();
        assert_eq!(curve.len(), 25, "{mix}: {curve:?}");
        assert_eq!(curve[0]["params"]["delay"], serde_json::Value::Null);
        assert_eq!(curve[24]["params"]["delay"], 0);
        for point in &curve {
            let tail = &point["params"]["tail"];
            assert!(
                tail["p50"].as_f64().unwrap() <= tail["p99"].as_f64().unwrap(),
                "{point}"
            );
        }
        assert!(curve[24]["params"]["traffic_gbs"].as_f64().unwrap() > 0.0);
    }
}
