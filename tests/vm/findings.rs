//! `characterize`'s findings in the two-socket VM: local and remote memory
//! latency and read bandwidth with their ratios, from the run's own
//! records. Under TCG emulation remote memory costs what local memory does,
//! so the findings must also say that the SLIT (10 against 21) orders the
//! nodes one way while they measured alike, and give no advice that rests
//! on a remote cost the run did not find.

use super::boot::Part;
use super::{topologies, FIRST_EXTRA_COMMAND};

const CHARACTERIZE: &str =
    "numabench characterize --only matrix-latency,matrix-bandwidth --repeat 3 --jsonl /tmp/f.jsonl";

/// This test's part of the two-socket boot.
pub fn part() -> Part {
    Part::new("findings", &[CHARACTERIZE, "cat /tmp/f.jsonl"], 600)
}

#[test]
fn two_sockets_findings_name_local_and_remote_memory() {
    let topo = topologies::two_sockets();
    let run = super::two_sockets::boot().part("findings");
    let stdout = run.stdout_ok(FIRST_EXTRA_COMMAND);
    let (_, findings) = stdout
        .split_once("What this machine's NUMA costs:\n")
        .unwrap_or_else(|| panic!("no findings:\n{}", run.transcript()));
    eprintln!("[{}] findings:\n{findings}", topo.name);
    // The sentences as the summary records hold them (the terminal wraps).
    let sentences: Vec<String> =
        super::placement_checks::all_records(&run, FIRST_EXTRA_COMMAND + 1)
            .into_iter()
            .filter(|record| record.benchmark == "summary")
            .map(|record| {
                record
                    .typed_params()
                    .sentence()
                    .unwrap_or_else(|| panic!("a finding without a sentence: {record:?}"))
                    .to_string()
            })
            .collect();
    let find = |start: &str| {
        sentences
            .iter()
            .find(|sentence| sentence.starts_with(start))
            .unwrap_or_else(|| panic!("no '{start}' in {sentences:#?}"))
            .clone()
    };
    let latency = find("memory latency: local ");
    assert!(
        latency.contains(", remote ") && latency.contains("x local"),
        "{latency}"
    );
    let bandwidth = find("read bandwidth, one thread: local ");
    assert!(
        bandwidth.contains(", remote ") && bandwidth.contains("x local"),
        "{bandwidth}"
    );
    // Emulated NUMA: remote latency within 5% of local on at least one
    // row means the SLIT's 21 against 10 is named as not distinguishable; a
    // latency-bound advice appears only when some remote cell costs more.
    let ratio = |text: &str| -> f64 {
        // "... (1.00x-1.90x local; ...": the highest ratio.
        let (_, after) = text.split_once(" (").unwrap();
        let span = after.split(" local").next().unwrap();
        let highest = span.split('-').next_back().unwrap();
        highest.trim_end_matches('x').parse().unwrap()
    };
    let worst = ratio(&latency);
    let mismatch = sentences
        .iter()
        .any(|sentence| sentence.contains("the SLIT distance says node"));
    let latency_advice = sentences
        .iter()
        .any(|sentence| sentence.starts_with("latency-bound code"));
    // The ratio is shown to two decimals and the advice rests on the
    // unrounded one (above 1.05): a shown 1.05 (1.045 to 1.055) may fall on
    // either side of the line: the CI of 71804e0 met a ratio above 1.05
    // shown as 1.05, with the advice. Below or above it, the rule must hold.
    // The advice also needs the cost beyond twice its 95% interval (#34
    // item 9): above 1.05 but within the noise there is none.
    let shown_at_the_line = (worst - 1.05).abs() < 1e-9;
    if !shown_at_the_line {
        if latency_advice {
            assert!(worst > 1.05, "{sentences:#?}");
        }
        if worst < 1.05 {
            assert!(!latency_advice && mismatch, "{sentences:#?}");
        }
    }
    // Every line of the terminal's findings fits 100 columns.
    assert!(
        findings.lines().all(|line| line.chars().count() <= 100),
        "{findings}"
    );
}
