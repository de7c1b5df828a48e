//! Figures two numabench commands must agree on, compared by timing. Each
//! comparison runs alone: cargo runs test binaries one after another, and
//! the tests of this binary take one lock, so no other test's processes
//! share the CPUs while these measure (the CLI tests run many numabench
//! processes at once, which on a 2-CPU machine skews a latency by 20-80%).

use assert_cmd::Command;
use serde_json::Value;
use std::sync::Mutex;

/// Held by every test of this binary while it measures.
static ALONE: Mutex<()> = Mutex::new(());

/// Runs numabench with `--json` appended, asserts success, and returns the
/// JSON document it printed.
fn json_document(arguments: &[&str]) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_numabench"))
        .args(arguments)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{arguments:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// A DRAM-sized working set: twice the largest cache, at least 64 MiB.
fn dram_size() -> String {
    let topology = json_document(&["topo"]);
    let last_level = topology["caches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|cache| cache["size_bytes"].as_u64().unwrap())
        .max()
        .unwrap_or(0);
    let mib = (2 * last_level).max(64 << 20).next_power_of_two() >> 20;
    format!("{mib}M")
}

/// Runs latency and mlp once each over `size`; returns the fastest sample
/// of each (ns per load; mlp's with one chain) and mlp's ratios by k.
fn one_round(size: &str) -> (f64, f64, Vec<(f64, f64)>) {
    let fastest = |record: &Value| record["stats"]["min"].as_f64().unwrap();
    let latency = json_document(&["latency", "--size", size, "--repeat", "10"]);
    let latency = latency["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|record| record["metric"] == "latency")
        .unwrap()
        .clone();
    let document = json_document(&["mlp", "--size", size, "--repeat", "10"]);
    let records = document["records"].as_array().unwrap();
    let one_chain = records
        .iter()
        .find(|record| record["metric"] == "ns_per_load" && record["params"]["chains"] == 1)
        .unwrap();
    assert_eq!(one_chain["params"]["order"], latency["params"]["order"]);
    assert_eq!(
        one_chain["params"]["block_bytes"],
        latency["params"]["block_bytes"]
    );
    let ratios = records
        .iter()
        .filter(|record| record["metric"] == "mlp")
        .map(|record| {
            (
                record["params"]["chains"].as_f64().unwrap(),
                record["value"].as_f64().unwrap(),
            )
        })
        .collect();
    (fastest(&latency), fastest(one_chain), ratios)
}

/// `mlp` with one chain agrees with `latency` at the same size and order
/// within 5%, and k chains are never much more than k times faster than
/// one. Before its chains continued where they stopped, every sample
/// re-read the same 65,536 lines from the cache: k = 1 read several times
/// faster than `latency`, and the ratio at k = 16 exceeded 16 (cache hits
/// are many times faster than DRAM loads, so a re-read shows as a ratio of
/// several times k).
///
/// "Much more" is 1.5 x k: a loaded memory system can answer each load
/// sooner than an idle one. On an Intel Xeon VM (2 vCPUs, 2026-11-27) two
/// chains of this debug build read 2.53-2.56x one chain in every round
/// (about 40 ns per load against 99), while one chain agreed with
/// `latency` within 2%: the bound of 1.1 x k failed there for no defect
/// of the chase.
#[test]
fn mlp_with_one_chain_measures_the_latency_and_k_chains_at_most_k_times_faster() {
    let _alone = ALONE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // The fastest sample of each side over up to six rounds: anything else
    // running on the machine only slows samples down.
    let size = dram_size();
    let (mut latency, mut one_chain) = (f64::INFINITY, f64::INFINITY);
    let mut within_k = false;
    let mut seen = Vec::new();
    for _ in 0..6 {
        let (round_latency, round_one_chain, ratios) = one_round(&size);
        latency = latency.min(round_latency);
        one_chain = one_chain.min(round_one_chain);
        within_k |= ratios.iter().all(|(k, ratio)| *ratio <= k * 1.5);
        if (one_chain / latency - 1.0).abs() <= 0.05 && within_k {
            return;
        }
        seen.push((round_latency, round_one_chain, ratios));
    }
    panic!("fastest latency and mlp one-chain samples (ns), and mlp by k, in each round over {size}: {seen:?}");
}
