//! Figures two numabench commands must agree on, compared by timing. The
//! tests of this binary take one lock, so two of its comparisons never
//! measure side by side, and cargo runs it apart from the CLI tests (which
//! run many numabench processes at once, skewing a latency on a 2-CPU
//! machine by 20-80%). Other processes may share the CPUs:
//! scripts/test runs the MPI tests and the lints beside it, and a shared
//! host has neighbours. So each comparison is made within interleaved
//! rounds, never of one side's best against the other's.
//! The commands' output is read through the schema crate's strict reader
//! and the records' params through their types.

#[path = "../shared/records.rs"]
mod records;

use assert_cmd::Command;
use numabench_schema::params::{ChaseOrderParams, LatencyParams, MlpParams};
use numabench_schema::Record;
use records::{params_of, read_typed};
use std::sync::Mutex;

/// Held by every test of this binary while it measures.
static ALONE: Mutex<()> = Mutex::new(());

/// Runs numabench with `--json` appended, asserts success, and returns
/// what it printed.
fn json_output(arguments: &[&str]) -> String {
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
    String::from_utf8(output.stdout).unwrap()
}

/// The records of a measuring command run with `--json`.
fn records_of(arguments: &[&str]) -> Vec<Record> {
    read_typed(&arguments.join(" "), &json_output(arguments)).1
}

/// A DRAM-sized working set: twice the largest cache, at least 64 MiB.
fn dram_size() -> String {
    let topology: numabench::topology::Machine = serde_json::from_str(&json_output(&["topo"]))
        .unwrap_or_else(|error| panic!("topo --json is not a Machine: {error}"));
    let last_level = topology
        .caches
        .iter()
        .map(|cache| cache.size_bytes)
        .max()
        .unwrap_or(0);
    let mib = (2 * last_level).max(64 << 20).next_power_of_two() >> 20;
    format!("{mib}M")
}

/// The median sample (ns per load) of one `latency` run over `size`, and
/// its chase (order and block).
fn latency_run(size: &str) -> (f64, ChaseOrderParams) {
    let records = records_of(&["latency", "--size", size, "--repeat", "10"]);
    let record = records
        .iter()
        .find(|record| record.metric == "latency")
        .unwrap_or_else(|| panic!("no latency record: {records:?}"));
    let params: LatencyParams = params_of(record);
    (typical(record), params.chase)
}

/// One `mlp` run over `size`: the median one-chain sample (ns per load),
/// its chase, and the `mlp` ratio by k.
fn mlp_run(size: &str) -> (f64, ChaseOrderParams, Vec<(f64, f64)>) {
    let records = records_of(&["mlp", "--size", size, "--repeat", "10"]);
    let chains = |record: &Record| params_of::<MlpParams>(record).chains;
    let one_chain = records
        .iter()
        .find(|record| record.metric == "ns_per_load" && chains(record) == Some(1))
        .unwrap_or_else(|| panic!("no one-chain record: {records:?}"));
    let chase = params_of::<MlpParams>(one_chain)
        .chase
        .unwrap_or_else(|| panic!("no chase order: {one_chain:?}"));
    let ratios = records
        .iter()
        .filter(|record| record.metric == "mlp")
        .map(|record| {
            let k = chains(record).unwrap_or_else(|| panic!("no chains: {record:?}"));
            (k as f64, record.value)
        })
        .collect();
    (typical(one_chain), chase, ratios)
}

/// A record's median sample. Of two runs back to back, each median stands
/// for the CPU share its run had; the fastest sample is whichever one the
/// scheduler happened to leave alone, a matter of luck on a loaded host (on
/// this 2-CPU VM at load 10 the rounds' ratios of fastest samples ranged
/// 0.80-1.09, of medians 0.96-1.07).
fn typical(record: &Record) -> f64 {
    record.stats.median
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

/// One round's figures: mlp's median one-chain sample over the mean of the
/// two `latency` runs around it, the second `latency` run over the first
/// (how far the host moves a figure within a round), and mlp's largest
/// ratio over its k.
#[derive(Debug, Clone, Copy)]
struct Round {
    one_chain_over_latency: f64,
    latency_over_latency: f64,
    worst_over_k: f64,
}

/// One round: `latency`, `mlp`, `latency` back to back over `size`. The
/// two `latency` runs bracket `mlp`, so a load that grows or shrinks
/// steadily through the round moves their mean as it moves `mlp`.
fn one_round(size: &str) -> Round {
    let (before, latency_chase) = latency_run(size);
    let (one_chain, one_chain_chase, ratios) = mlp_run(size);
    let (after, _) = latency_run(size);
    assert!(latency_chase.order.is_some(), "{latency_chase:?}");
    assert_eq!(one_chain_chase.order, latency_chase.order);
    assert!(latency_chase.block_bytes.is_some(), "{latency_chase:?}");
    assert_eq!(one_chain_chase.block_bytes, latency_chase.block_bytes);
    let worst_over_k = ratios
        .iter()
        .map(|(k, ratio)| ratio / k)
        .fold(0.0, f64::max);
    Round {
        one_chain_over_latency: one_chain / ((before + after) / 2.0),
        latency_over_latency: after / before,
        worst_over_k,
    }
}

/// Rounds taken at most; the test stops earlier, once the medians agree:
/// on a quiet host after two.
const ROUNDS: usize = 16;

/// How far mlp's one chain may stand from `latency` beyond the host's own
/// noise: 5%.
const AGREEMENT: f64 = 0.05;

/// `mlp` with one chain agrees with `latency` at the same size and order
/// within 5% plus what the host moves `latency` against itself, and k
/// chains are never much more than k times faster than one. Before its
/// chains continued where they stopped, every sample re-read the same
/// 65,536 lines from the cache: k = 1 read several times faster than
/// `latency`, and the ratio at k = 16 exceeded 16 (cache hits are many
/// times faster than DRAM loads, so a re-read shows as a ratio of several
/// times k).
///
/// "Much more" is 1.5 x k: a loaded memory system can answer each load
/// sooner than an idle one. On an Intel Xeon VM (2 vCPUs, 2026-11-27) two
/// chains of this debug build read 2.53-2.56x one chain in every round
/// (about 40 ns per load against 99), while one chain agreed with
/// `latency` within 2%: the bound of 1.1 x k failed there for no defect
/// of the chase.
///
/// Each round runs `latency`, `mlp`, `latency` back to back; its figure is
/// mlp's median sample over the mean of latency's two, and the test takes
/// the median of the rounds' figures. Another job on the machine slows
/// every run of a round alike and leaves the figure alone; one that starts
/// or stops within a round skews that round only, and the median sets it
/// aside. A host busy enough to move latency against itself from one run
/// to the next widens the bound by that much (the median over the rounds
/// of |second latency / first - 1|): CI on 2026-11-29 took 16 rounds whose
/// figures ranged 0.84-1.27 (median 0.923) and failed a fixed 5% with no
/// defect in the chase, which re-reading the cache would put several times
/// below 1. The former test compared the fastest sample of each side over
/// all rounds, taken at different times: with another job on a 2-CPU host,
/// latency's quiet moment had no counterpart in mlp's rounds and it failed
/// (103.5 ns against 112.3 ns).
#[test]
fn mlp_with_one_chain_measures_the_latency_and_k_chains_at_most_k_times_faster() {
    let _alone = ALONE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let size = dram_size();
    let mut rounds = Vec::new();
    for _ in 0..ROUNDS {
        rounds.push(one_round(&size));
        if rounds.len() >= 2 && agree(&rounds) {
            return;
        }
    }
    let ratios: Vec<f64> = rounds.iter().map(|r| r.one_chain_over_latency).collect();
    let selves: Vec<f64> = rounds.iter().map(|r| r.latency_over_latency).collect();
    let worst: Vec<f64> = rounds.iter().map(|r| r.worst_over_k).collect();
    panic!(
        "over {size}, per round: mlp one chain / latency (median samples) {ratios:?}, \
         median {:.3} (must be within {:.3} of 1: 5% plus the host's noise); \
         second latency / first {selves:?}; \
         largest mlp ratio / k {worst:?}, median {:.3} (at most 1.5)",
        median(&ratios),
        bound(&rounds),
        median(&worst)
    );
}

/// How far from 1 the median figure may stand: [`AGREEMENT`] plus the
/// median over the rounds of how far latency's second run stood from its
/// first.
fn bound(rounds: &[Round]) -> f64 {
    let noise: Vec<f64> = rounds
        .iter()
        .map(|round| (round.latency_over_latency - 1.0).abs())
        .collect();
    AGREEMENT + median(&noise)
}

/// Whether the rounds so far agree: the median of the per-round ratios of
/// mlp's one chain to latency within [`bound`] of 1, and the median of the
/// per-round largest mlp ratio over k at most 1.5.
fn agree(rounds: &[Round]) -> bool {
    let ratios: Vec<f64> = rounds.iter().map(|r| r.one_chain_over_latency).collect();
    let worst: Vec<f64> = rounds.iter().map(|r| r.worst_over_k).collect();
    (median(&ratios) - 1.0).abs() <= bound(rounds) && median(&worst) <= 1.5
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
    let per_round: Vec<Round> = rounds
        .iter()
        .map(|(latency, one_chain)| quiet(one_chain / latency))
        .collect();
    assert!(agree(&per_round));
}

/// A round whose two latency runs agreed exactly.
fn quiet(one_chain_over_latency: f64) -> Round {
    Round {
        one_chain_over_latency,
        latency_over_latency: 1.0,
        worst_over_k: 1.0,
    }
}

/// The bound widens only by what the host moved latency against itself:
/// on a quiet host an 8% gap fails; with rounds as noisy as CI's of
/// 2026-11-29 it passes; and a chase that re-read the cache (a third of
/// latency) fails on either.
#[test]
fn the_bound_widens_with_the_hosts_own_noise_and_no_further() {
    let noisy = |figure: f64| -> Vec<Round> {
        [0.88, 1.12, 0.91, 1.09, 0.95, 1.05]
            .iter()
            .map(|&latency_over_latency| Round {
                latency_over_latency,
                ..quiet(figure)
            })
            .collect()
    };
    assert!(!agree(&[quiet(0.92), quiet(0.92), quiet(0.92)]));
    assert!(agree(&[quiet(0.97), quiet(1.03), quiet(0.99)]));
    assert!(agree(&noisy(0.923)));
    assert!(!agree(&noisy(0.33)));
    assert!(!agree(&[Round {
        worst_over_k: 2.0,
        ..quiet(1.0)
    }]));
}

#[test]
fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
    assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
}
