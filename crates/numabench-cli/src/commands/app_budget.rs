//! `--budget` for the application commands (`stream`, `cg`, `mg`,
//! `placement-study`): the library fits the knobs
//! ([`numabench::bench::fit_app_budget`]); this applies them. And how every
//! command but characterize says what its budget cut ([`say_cuts`]).

use numabench::bench::total_seconds;
use numabench::bench::{fit_app_budget, AppKnobs, Budget, BudgetOutcome, PlanStep};
use numabench::topology::Machine;
use numabench::workloads::AppChoice;

/// Fits a plan of `runs` runs of `choice` per configuration, planned as
/// `plan`, into `budget`, cutting runs down to `runs_floor` and then
/// STREAM's arrays. Every run's estimate is linear in the runs and in the
/// arrays' bytes (`app_plan_step`), so a cut plan is the planned total
/// scaled; the steps are planned once more, with what the cuts left, only
/// by the caller. Returns the choice and runs to use, and what was cut.
pub fn fit_app_plan(
    topology: &Machine,
    budget: Budget,
    choice: AppChoice,
    runs: usize,
    runs_floor: usize,
    plan: &[PlanStep],
) -> (AppChoice, usize, BudgetOutcome) {
    let total = total_seconds(plan);
    let knobs = AppKnobs {
        runs,
        stream_elements: choice.stream_elements(),
    };
    let estimate = |tried: &AppKnobs| {
        let bytes = match (tried.stream_elements, knobs.stream_elements) {
            (Some(now), Some(was)) if was > 0 => now as f64 / was as f64,
            _ => 1.0,
        };
        total * tried.runs as f64 / runs.max(1) as f64 * bytes
    };
    let (fitted, outcome) = fit_app_budget(topology, budget, knobs, runs_floor, &estimate);
    (
        choice.with_stream_elements(fitted.stream_elements),
        fitted.runs,
        outcome,
    )
}

/// What the budget cut, on stderr before a run (stdout keeps the results).
pub fn say_cuts(outcome: &BudgetOutcome) {
    for line in outcome.sentences() {
        eprintln!("numabench: {line}");
    }
}
