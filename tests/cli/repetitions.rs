//! Adaptive repetitions: latency and bandwidth measurements take at least
//! 3 and at most `--repeat` repetitions, stop early only once the median's
//! 95% confidence interval is within ±1%, and every record says what was
//! reached (`params.convergence`, docs/results.md). Whether a run here
//! converges depends on this shared machine's noise, so each record is
//! checked against the rule whichever way it stopped; the rule itself is
//! unit-tested on fixed streams (stats::stopping).

use super::{params_part, typed_records};
use numabench_schema::params::{ConvergenceParams, StoppedBy};
use numabench_schema::Record;
use serde::Deserialize;

/// Student's t quantile 0.975 for 1..=7 degrees of freedom.
const T_975: [f64; 7] = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365];

fn convergences(arguments: &[&str]) -> Vec<Record> {
    let records = typed_records(arguments);
    assert!(!records.is_empty(), "{arguments:?}");
    records
}

/// The part of the latency, bandwidth and mlp params alike that says what
/// the repetitions reached.
#[derive(Deserialize)]
struct Reached {
    convergence: ConvergenceParams,
}

/// A record's `params.convergence`; a record without one fails the test.
fn convergence(record: &Record) -> ConvergenceParams {
    params_part::<Reached>(record).convergence
}

fn check(record: &Record, max: u64) {
    let convergence = convergence(record);
    let repetitions = convergence.repetitions;
    assert_eq!(convergence.max_repetitions, max, "{record:?}");
    assert_eq!(convergence.ci95_target_rel, 0.01, "{record:?}");
    assert!(
        repetitions >= 3.min(max) && repetitions <= max,
        "{record:?}"
    );
    let rel = convergence.ci95_rel;
    match convergence.stopped_by {
        StoppedBy::Converged => assert!(repetitions >= 3 && rel.unwrap() <= 0.01, "{record:?}"),
        StoppedBy::Maximum => {
            assert_eq!(repetitions, max, "{record:?}");
            if max > 1 {
                assert!(rel.unwrap() > 0.01, "{record:?}");
            }
        }
        StoppedBy::Interrupted => panic!("stopped by Ctrl-C: {record:?}"),
    }
    if max == 1 {
        assert!(rel.is_none(), "{record:?}");
    }
}

#[test]
fn latency_and_bandwidth_records_state_the_interval_their_repetitions_reached() {
    for record in convergences(&["latency", "--size", "1MiB", "--repeat", "8"]) {
        check(&record, 8);
        // `latency_cycles` carries the convergence of the ns samples it is
        // derived from (each times the core clock measured beside it), so
        // its own statistics are not what the rule was fed.
        if record.metric != "latency" {
            continue;
        }
        // The interval recomputed from the record's own statistics (the
        // same per-sample values the rule was fed).
        let stats = &record.stats;
        let n = stats.n as u64;
        assert_eq!(n, convergence(&record).repetitions);
        let expected = T_975[n as usize - 2] * (std::f64::consts::PI / 2.0).sqrt() * stats.stddev
            / (n as f64).sqrt()
            / stats.median;
        let rel = convergence(&record).ci95_rel.unwrap();
        assert!(
            (rel - expected).abs() <= 1e-9 * expected.max(1.0),
            "{rel} vs {expected}"
        );
    }
    for record in convergences(&[
        "bandwidth",
        "--kernel",
        "read",
        "--size",
        "8MiB",
        "--repeat",
        "6",
    ]) {
        check(&record, 6);
    }
    // One-thread mlp: each k stops on its own.
    for record in convergences(&["mlp", "--size", "4MiB", "--repeat", "4"]) {
        check(&record, 4);
    }
    for record in convergences(&["latency", "--size", "1MiB", "--repeat", "1"]) {
        check(&record, 1);
        assert_eq!(convergence(&record).stopped_by, StoppedBy::Maximum);
    }
}
