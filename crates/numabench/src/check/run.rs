//! A check against a baseline entry, and the measurement of a new one.

use super::baseline::{BaselineEntry, Reference, Written, SPREAD_MULTIPLE};
use super::fingerprint::{Difference, Fingerprint};
use super::measure::{measure_item, Attempt};
use super::plan::{CheckItem, CheckPlan, CheckQuantity};
use crate::bench::{BenchError, Context};
use crate::interrupt::interrupted;
use crate::parse::format_id_list;
use crate::units::format_value;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The verdict of one item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Within the reference's bounds (on the first attempt or a retry).
    Ok,
    /// Outside them on every attempt.
    Fail,
    /// Its pages did not land on the node asked for on every attempt:
    /// the figure is not that node's.
    Misplaced,
}

impl Verdict {
    /// Its name in records and problem lines (`ok`, `fail`, `misplaced`).
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Fail => "fail",
            Verdict::Misplaced => "misplaced",
        }
    }
}

/// One item's attempts and verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    pub item: CheckItem,
    pub reference: Reference,
    /// The first attempt, then each retry; the check stops at the first
    /// that passes.
    pub attempts: Vec<Attempt>,
    pub verdict: Verdict,
}

impl Outcome {
    /// The attempt reported: the last (the one that passed, or the last
    /// of those that failed).
    pub fn reported(&self) -> &Attempt {
        self.attempts.last().expect("every outcome has an attempt")
    }
}

/// A problem, one line each: NHC's `ERROR` line names its check, what was
/// measured, the reference and the tolerance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// What was checked: `node 1 triad bandwidth`, `node 0 memory`.
    pub check: String,
    pub measured: String,
    pub reference: String,
    pub tolerance: String,
}

impl Problem {
    /// `ERROR numabench: <check>: <measured> vs <reference> (<tolerance>)`.
    pub fn nhc_line(&self) -> String {
        format!(
            "ERROR numabench: {}: {} vs {} ({})",
            self.check, self.measured, self.reference, self.tolerance
        )
    }

    /// The text after `numabench: ` in a drain reason.
    pub fn reason(&self) -> String {
        format!(
            "{}: {} vs {} ({})",
            self.check, self.measured, self.reference, self.tolerance
        )
    }

    fn of_difference(difference: &Difference) -> Problem {
        Problem {
            check: difference.what.clone(),
            measured: difference.measured.clone(),
            reference: difference.reference.clone(),
            tolerance: difference.tolerance.clone(),
        }
    }
}

/// Everything a check found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckReport {
    /// How the node differs from its baseline's fingerprint.
    pub differences: Vec<Difference>,
    pub outcomes: Vec<Outcome>,
    /// Every problem, in the order found: differences, then items.
    pub problems: Vec<Problem>,
    /// Stopped by Ctrl-C or SIGTERM before every item was measured.
    pub interrupted: bool,
}

impl CheckReport {
    /// True when nothing is wrong.
    pub fn healthy(&self) -> bool {
        self.problems.is_empty()
    }
}

/// A figure with its unit: `18.2 GB/s`, `96.1 ns`.
pub fn figure(value: f64, quantity: CheckQuantity) -> String {
    format!("{} {}", format_value(value), quantity.unit())
}

/// Pause before a round of retries: a neighbour's burst (another tenant
/// of the host, a daemon waking) is usually over by then.
pub const RETRY_PAUSE: Duration = Duration::from_secs(1);

/// Checks this node against `entry`: its fingerprint first, then every
/// item of the entry's plan. Items outside their bounds are measured again
/// in up to `retries` rounds, each after [`RETRY_PAUSE`] and after every
/// other item, and fail only if every attempt does; an attempt is made
/// only when it would end (as long as the item's last attempt took)
/// before `deadline`. `each` is handed every outcome as it is decided (for
/// records), passing items at once, failing ones after their last retry.
/// An item not started by `deadline` is a problem of its own (the node is
/// too slow to be checked in time), and an item with a CPU offline is one
/// without being measured.
pub fn run_check(
    context: &Context,
    entry: &BaselineEntry,
    fingerprint: &Fingerprint,
    retries: usize,
    deadline: Instant,
    each: &mut dyn FnMut(&Outcome),
) -> Result<CheckReport, BenchError> {
    let differences = super::differences(fingerprint, &entry.fingerprint);
    let mut problems: Vec<Problem> = differences.iter().map(Problem::of_difference).collect();
    // Per item: its attempts, the last one's duration, and whether it passed.
    let mut pending: Vec<(Outcome, Duration)> = Vec::new();
    let mut decided: Vec<Outcome> = Vec::new();
    let measure = |item: &CheckItem| -> Result<(Attempt, Duration), BenchError> {
        let began = Instant::now();
        let attempt = measure_item(context, item, entry.plan.latency_samples)?;
        Ok((attempt, began.elapsed()))
    };
    let accepted = |outcome: &Outcome| {
        let attempt = outcome.reported();
        attempt.placement.achieved && outcome.reference.accepts(attempt.value)
    };
    let mut offline_items = 0;
    let mut started_late = 0;
    for item in &entry.plan.items {
        if interrupted() {
            break;
        }
        // Out of time before the item even started: a node this slow is
        // what the check exists to report, and a check Slurm kills at 60 s
        // reports nothing.
        if Instant::now() >= deadline {
            problems.push(Problem {
                check: item.label(),
                measured: "not measured".into(),
                reference: "measured".into(),
                tolerance: "the check ran out of time before it".into(),
            });
            started_late += 1;
            continue;
        }
        // A CPU of the plan that is offline now: the item cannot run as
        // the baseline did (fewer CPUs, or none to measure from).
        let offline: Vec<u32> = item
            .cpus
            .iter()
            .copied()
            .filter(|&cpu| context.topology.node_of_cpu(cpu).is_none())
            .collect();
        if !offline.is_empty() {
            problems.push(Problem {
                check: item.label(),
                measured: format!("CPU(s) {} offline", format_id_list(&offline)),
                reference: format!("CPUs {}", format_id_list(&item.cpus)),
                tolerance: "every CPU online".into(),
            });
            offline_items += 1;
            continue;
        }
        let (attempt, took) = measure(item)?;
        let outcome = Outcome {
            item: item.clone(),
            reference: entry.metrics[&item.key].clone(),
            attempts: vec![attempt],
            verdict: Verdict::Ok,
        };
        if accepted(&outcome) {
            each(&outcome);
            decided.push(outcome);
        } else {
            pending.push((outcome, took));
        }
    }
    for _ in 0..retries {
        if pending.is_empty() || interrupted() || Instant::now() + RETRY_PAUSE > deadline {
            break;
        }
        std::thread::sleep(RETRY_PAUSE);
        let mut still = Vec::new();
        for (mut outcome, took) in pending {
            if interrupted() || Instant::now() + took > deadline {
                still.push((outcome, took));
                continue;
            }
            let (attempt, took) = measure(&outcome.item)?;
            outcome.attempts.push(attempt);
            if accepted(&outcome) {
                each(&outcome);
                decided.push(outcome);
            } else {
                still.push((outcome, took));
            }
        }
        pending = still;
    }
    for (mut outcome, _) in pending {
        let item = &outcome.item;
        let placed = outcome.reported().placement.achieved;
        outcome.verdict = if placed {
            Verdict::Fail
        } else {
            Verdict::Misplaced
        };
        problems.push(if placed {
            Problem {
                check: item.label(),
                measured: figure(outcome.reported().value, item.quantity),
                reference: figure(outcome.reference.value, item.quantity),
                tolerance: outcome.reference.tolerance_text(),
            }
        } else {
            Problem {
                check: item.label(),
                measured: format!(
                    "{:.0}% of pages on node {}",
                    outcome.reported().placement.fraction_as_requested * 100.0,
                    item.memory_node
                ),
                reference: "all".into(),
                tolerance: format!("{:.0}% needed", context.placement_threshold * 100.0),
            }
        });
        each(&outcome);
        decided.push(outcome);
    }
    // In the plan's order.
    let order = |outcome: &Outcome| {
        entry
            .plan
            .items
            .iter()
            .position(|item| item.key == outcome.item.key)
    };
    decided.sort_by_key(order);
    let interrupted = decided.len() + offline_items + started_late < entry.plan.items.len();
    Ok(CheckReport {
        differences,
        outcomes: decided,
        problems,
        interrupted,
    })
}

/// Tolerances the user sets when writing a baseline (fractions), instead
/// of those derived from the spread.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tolerances {
    /// Every bandwidth metric.
    pub bandwidth: Option<f64>,
    /// Every latency metric.
    pub latency: Option<f64>,
    /// One metric by key (over the two above).
    pub by_key: BTreeMap<String, f64>,
}

impl Tolerances {
    /// The tolerance set for `item`, if any.
    pub fn for_item(&self, item: &CheckItem) -> Option<f64> {
        self.by_key
            .get(&item.key)
            .copied()
            .or(if item.quantity.higher_is_better() {
                self.bandwidth
            } else {
                self.latency
            })
    }
}

/// Why no baseline is written when a metric's runs spread so far that
/// its tolerance (three robust deviations) would let a bandwidth fall
/// 100% or more: such a file accepts any figure, and check refuses to
/// read it.
fn too_noisy(key: &str, runs: usize, reference: &Reference) -> String {
    format!(
        "{key}: its {runs} runs spread {:.0}% (robust deviation over the median), so a tolerance \
         of {SPREAD_MULTIPLE} deviations would accept any figure: no baseline written; write it \
         on an idle node, with more --runs, or with --tolerance",
        reference.spread.unwrap_or(f64::NAN) * 100.0
    )
}

/// Measures `plan` `runs` times on this (healthy) node, every item once a
/// run so that the runs interleave, and returns the baseline entry: per
/// item the median of its runs with a tolerance ([`Reference::from_runs`]).
/// `each` is handed (run, item, attempt) as they are made. A misplaced
/// measurement is an error: a baseline must hold the node's own figures.
pub fn measure_baseline(
    context: &Context,
    plan: &CheckPlan,
    runs: usize,
    tolerances: &Tolerances,
    fingerprint: Fingerprint,
    written: Written,
    each: &mut dyn FnMut(usize, &CheckItem, &Attempt),
) -> Result<BaselineEntry, BenchError> {
    let mut values: Vec<Vec<f64>> = vec![Vec::new(); plan.items.len()];
    for run in 0..runs {
        for (index, item) in plan.items.iter().enumerate() {
            if interrupted() {
                return Err(BenchError::Invalid(
                    "interrupted: no baseline written".into(),
                ));
            }
            let attempt = measure_item(context, item, plan.latency_samples)?;
            if !attempt.placement.achieved {
                return Err(BenchError::Invalid(format!(
                    "{}: only {:.0}% of the pages landed on node {}: not this node's figure, no baseline written",
                    item.label(),
                    attempt.placement.fraction_as_requested * 100.0,
                    item.memory_node
                )));
            }
            each(run, item, &attempt);
            values[index].push(attempt.value);
        }
    }
    entry_from_runs(plan, &values, tolerances, fingerprint, written)
}

/// The baseline entry of `plan` from each item's runs (`values[i]` the
/// runs of `plan.items[i]`). An error when a metric's runs spread so far
/// that the file would accept any figure ([`too_noisy`]).
pub(super) fn entry_from_runs(
    plan: &CheckPlan,
    values: &[Vec<f64>],
    tolerances: &Tolerances,
    fingerprint: Fingerprint,
    written: Written,
) -> Result<BaselineEntry, BenchError> {
    let mut metrics = BTreeMap::new();
    for (item, runs) in plan.items.iter().zip(values) {
        let reference = Reference::from_runs(item.quantity, runs, tolerances.for_item(item));
        if !reference.bounds_are_valid() {
            return Err(BenchError::Invalid(too_noisy(
                &item.key,
                runs.len(),
                &reference,
            )));
        }
        metrics.insert(item.key.clone(), reference);
    }
    Ok(BaselineEntry {
        fingerprint,
        written,
        plan: plan.clone(),
        metrics,
    })
}
