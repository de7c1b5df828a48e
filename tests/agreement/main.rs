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

/// The median sample (ns per load) of one `latency` run over `size`, and
/// its record (for the chase's order and block).
fn latency_run(size: &str) -> (f64, Value) {
    let document = json_document(&["latency", "--size", size, "--repeat", "10"]);
    let record = document["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|record| record["metric"] == "latency")
        .unwrap()
        .clone();
    (typical(&record), record)
}

/// One `mlp` run over `size`: the median one-chain sample (ns per load),
/// its record, and the `mlp` ratio by k.
fn mlp_run(size: &str) -> (f64, Value, Vec<(f64, f64)>) {
    let document = json_document(&["mlp", "--size", size, "--repeat", "10"]);
    let records = document["records"].as_array().unwrap();
    let one_chain = records
        .iter()
        .find(|record| record["metric"] == "ns_per_load" && record["params"]["chains"] == 1)
        .unwrap()
        .clone();
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
    (typical(&one_chain), one_chain, ratios)
}

/// A record's median sample. Of two runs back to back, each median stands
/// for the CPU share its run had; the fastest sample is whichever one the
/// scheduler happened to leave alone, a matter of luck on a loaded host (on
/// this 2-CPU VM at load 10 the rounds' ratios of fastest samples ranged
/// 0.80-1.09, of medians 0.96-1.07).
fn typical(record: &Value) -> f64 {
    record["stats"]["median"].as_f64().unwrap()
}

/// The median of `values` (the mean of the middle two of an even count).
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    } else {
        sorted[middle]
    }
}

/// One round: `latency` and `mlp` back to back over `size`, `latency` first
/// when `latency_first`. Returns mlp's median one-chain sample over
/// latency's median sample, and mlp's largest ratio over its k.
fn one_round(size: &str, latency_first: bool) -> (f64, f64) {
    let (latency, latency_record, (one_chain, one_chain_record, ratios)) = if latency_first {
        let latency = latency_run(size);
        (latency.0, latency.1, mlp_run(size))
    } else {
        let mlp = mlp_run(size);
        let latency = latency_run(size);
        (latency.0, latency.1, mlp)
    };
    assert_eq!(
        one_chain_record["params"]["order"],
        latency_record["params"]["order"]
    );
    assert_eq!(
        one_chain_record["params"]["block_bytes"],
        latency_record["params"]["block_bytes"]
    );
    let worst_over_k = ratios
        .iter()
        .map(|(k, ratio)| ratio / k)
        .fold(0.0, f64::max);
    (one_chain / latency, worst_over_k)
}

/// Rounds taken at most; the test stops earlier, after an even number of
/// rounds (as many with `latency` first as with `mlp` first), once the
/// medians agree: on a quiet host after two. Eight were too few at load 7
/// on a 2-CPU VM (three compilers beside the suite): the rounds' ratios
/// ranged 0.75-1.20 and their median was 1.10; more rounds narrow the
/// median of such noise, the bounds stay as they are.
const ROUNDS: usize = 16;

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
///
/// The two commands are compared round by round: each round runs them back
/// to back (which goes first alternates), its figure is the ratio of the
/// two runs' median samples, and the test takes the median of the rounds'
/// ratios. Another job
/// on the machine slows both sides of a round alike, so it leaves the
/// ratio alone; one that starts or stops within a round skews that round
/// only, each way in turn, and the median sets it aside. The former test
/// compared the fastest sample of each side over all rounds, taken at
/// different times: with another job on a 2-CPU host, latency's quiet
/// moment had no counterpart in mlp's rounds and it failed (103.5 ns
/// against 112.3 ns).
#[test]
fn mlp_with_one_chain_measures_the_latency_and_k_chains_at_most_k_times_faster() {
    let _alone = ALONE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let size = dram_size();
    let mut rounds = Vec::new();
    for round in 0..ROUNDS {
        rounds.push(one_round(&size, round.is_multiple_of(2)));
        if round % 2 == 1 && agree(&rounds) {
            return;
        }
    }
    let (ratios, worst): (Vec<f64>, Vec<f64>) = rounds.iter().copied().unzip();
    panic!(
        "over {size}, per round (latency first in odd rounds): mlp one chain / latency \
         (median samples) {ratios:?}, median {:.3} (must be within 5% of 1); \
         largest mlp ratio / k {worst:?}, median {:.3} (at most 1.5)",
        median(&ratios),
        median(&worst)
    );
}

/// Whether the rounds so far agree: the median of the per-round ratios of
/// mlp's one chain to latency within 5% of 1, and the median of the
/// per-round largest mlp ratio over k at most 1.5.
fn agree(rounds: &[(f64, f64)]) -> bool {
    let (ratios, worst): (Vec<f64>, Vec<f64>) = rounds.iter().copied().unzip();
    (median(&ratios) - 1.0).abs() <= 0.05 && median(&worst) <= 1.5
}

/// The failure this test once had, in figures like its own: another job
/// started during the first round's mlp run and ran to the end, so only
/// latency's first run had a quiet moment (103.5 ns) and mlp's fastest
/// sample was 112.3 ns. Comparing each side's fastest over all rounds, as
/// the test did, finds 8.5% apart and fails; every round but the first
/// agrees within 2%, and the median of the rounds' ratios passes.
#[test]
fn a_neighbour_that_loads_one_side_of_one_round_is_set_aside() {
    let rounds = [
        (103.5, 124.0),
        (113.0, 112.3),
        (112.5, 114.0),
        (115.0, 113.5),
        (113.2, 114.1),
        (114.0, 113.0),
    ];
    let across_rounds =
        |side: fn(&(f64, f64)) -> f64| rounds.iter().map(side).fold(f64::INFINITY, f64::min);
    let (latency, one_chain) = (across_rounds(|r| r.0), across_rounds(|r| r.1));
    assert!((one_chain / latency - 1.0).abs() > 0.05, "the former rule");
    let per_round: Vec<(f64, f64)> = rounds
        .iter()
        .map(|(latency, one_chain)| (one_chain / latency, 1.0))
        .collect();
    assert!(agree(&per_round));
}

#[test]
fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
    assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
}
