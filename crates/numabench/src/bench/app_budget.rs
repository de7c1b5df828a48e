//! A time budget for application runs (`stream`, `cg`, `mg` and
//! `placement-study`): their plans are configurations x runs, each run
//! building its arrays and passing over them, so what a budget may cut is
//! the runs per configuration (down to a floor the caller sets: a study of
//! run-to-run spread needs more runs than a mean does) and then, for
//! STREAM, the arrays halved together (never below [`CACHE_MULTIPLE`]
//! times the CPU caches, STREAM's own rule, and at least 10 million
//! elements). No configuration is dropped: the study is its grid. A cut
//! that saves under 1% of the estimate is not made, as in `characterize`.

use super::budget::{Budget, BudgetOutcome, Cut};
use super::placed::CACHE_MULTIPLE;
use crate::topology::{cpu_nodes, Machine};
use crate::units::format_bytes;

/// STREAM's array element: an f64.
const ELEMENT_BYTES: u64 = 8;

/// STREAM's rule's other floor: at least 10 million elements an array.
const MIN_STREAM_ELEMENTS: usize = 10_000_000;

/// A cut stage that saves less than this share of the estimate is not
/// made (unless it alone brings the plan within the budget).
const MIN_STAGE_SAVING: f64 = 0.01;

/// What an application plan's budget may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppKnobs {
    /// Runs (timed repetitions) per configuration.
    pub runs: usize,
    /// STREAM's elements per array; `None` for a kernel whose size is its
    /// class (CG, MG): never cut.
    pub stream_elements: Option<usize>,
}

/// The fewest elements a budget may leave a STREAM array on `topology`:
/// [`CACHE_MULTIPLE`] times the CPU caches of every allowed CPU (memory-side
/// caches not counted: past them is where a capped figure stays a
/// memory's), and at least 10 million elements.
pub fn stream_floor_elements(topology: &Machine) -> usize {
    let bytes = CACHE_MULTIPLE * topology.cpu_cache_bytes(&topology.allowed.cpus);
    ((bytes / ELEMENT_BYTES) as usize).max(MIN_STREAM_ELEMENTS)
}

/// Fits an application plan into `budget`: `estimate` gives the plan's
/// seconds for given knobs. Runs are cut first, one at a time, down to
/// `runs_floor`; then STREAM's arrays are halved down to
/// [`stream_floor_elements`]. Returns the knobs to run with and what was
/// cut (every cut with its sentence; `fits` false where even the floors
/// are over).
pub fn fit_app_budget(
    topology: &Machine,
    budget: Budget,
    knobs: AppKnobs,
    runs_floor: usize,
    estimate: &dyn Fn(&AppKnobs) -> f64,
) -> (AppKnobs, BudgetOutcome) {
    let uncut = estimate(&knobs);
    let limit = match budget {
        Budget::Seconds(seconds) => seconds,
        Budget::Unlimited => return (knobs, BudgetOutcome::unlimited(uncut)),
    };
    let mut current_knobs = knobs;
    let mut current = uncut;
    let mut cuts = Vec::new();
    // Runs, one at a time.
    if current > limit && current_knobs.runs > runs_floor {
        let mut tried = current_knobs;
        while tried.runs > runs_floor && estimate(&tried) > limit {
            tried.runs -= 1;
        }
        let after = estimate(&tried);
        if current - after >= MIN_STAGE_SAVING * current || after <= limit {
            cuts.push(Cut {
                what: "repetitions".into(),
                text: format!(
                    "{} runs per configuration instead of {} (floor {runs_floor})",
                    tried.runs, current_knobs.runs
                ),
                before_seconds: current,
                after_seconds: after,
            });
            current_knobs = tried;
            current = after;
        }
    }
    // STREAM's arrays, halved together.
    if let (true, Some(elements)) = (current > limit, current_knobs.stream_elements) {
        let floor = stream_floor_elements(topology);
        let mut tried = current_knobs;
        let mut cap = elements;
        while estimate(&tried) > limit && cap / 2 >= floor {
            cap /= 2;
            tried.stream_elements = Some(cap);
        }
        let after = estimate(&tried);
        if cap < elements && (current - after >= MIN_STAGE_SAVING * current || after <= limit) {
            cuts.push(Cut {
                what: "working-sets".into(),
                text: capped_arrays_text(topology, elements, cap),
                before_seconds: current,
                after_seconds: after,
            });
            current_knobs = tried;
            current = after;
        }
    }
    (
        current_knobs,
        BudgetOutcome::fitted(limit, uncut, current, cuts),
    )
}

/// The working-set cut's sentence: how far the arrays were capped and what
/// the capped figures are (a memory's, or partly a cache's where the three
/// arrays are now within 4x the caches in front of the memory, memory-side
/// caches included).
fn capped_arrays_text(topology: &Machine, was: usize, cap: usize) -> String {
    let total = 3 * cap as u64 * ELEMENT_BYTES;
    let in_front = topology.cache_bytes_in_front(&topology.allowed.cpus, &cpu_nodes(topology));
    let meaning = if total < CACHE_MULTIPLE.saturating_mul(in_front) {
        format!(
            "the three arrays ({}) are below 4x the {} of caches in front of the memory (memory-side \
             caches included), so the figures are partly those caches'",
            format_bytes(total),
            format_bytes(in_front)
        )
    } else {
        "the arrays stay past 4x the caches in front of the memory".to_string()
    };
    format!(
        "STREAM arrays capped at {} each (were {}); {meaning}; --budget none runs the full size",
        format_bytes(cap as u64 * ELEMENT_BYTES),
        format_bytes(was as u64 * ELEMENT_BYTES),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine() -> Machine {
        crate::threads::smt_server(2, 8, 4)
    }

    /// A linear plan: 10 configurations, each run 1 s a GiB.
    fn linear(knobs: &AppKnobs) -> f64 {
        let gib = knobs.stream_elements.map_or(1.0, |elements| {
            elements as f64 * ELEMENT_BYTES as f64 / (1u64 << 30) as f64
        });
        10.0 * knobs.runs as f64 * gib
    }

    /// Runs go first, down to their floor; the arrays only after, never
    /// below the floor; the cuts say so and the result fits.
    #[test]
    fn runs_then_arrays_down_to_their_floors() {
        let topology = machine();
        let floor = stream_floor_elements(&topology);
        let knobs = AppKnobs {
            runs: 10,
            stream_elements: Some(floor * 64),
        };
        let uncut = linear(&knobs);
        let (fitted, outcome) =
            fit_app_budget(&topology, Budget::Seconds(uncut / 2.0), knobs, 5, &linear);
        assert_eq!(fitted.runs, 5, "{outcome:?}");
        assert_eq!(fitted.stream_elements, knobs.stream_elements);
        assert_eq!(outcome.cuts.len(), 1);
        assert!(outcome.fits);
        let (fitted, outcome) =
            fit_app_budget(&topology, Budget::Seconds(uncut / 40.0), knobs, 5, &linear);
        assert_eq!(fitted.runs, 5);
        // 6400 s after the runs against 320 s: five halvings (32x).
        assert_eq!(fitted.stream_elements, Some(floor * 2), "{outcome:?}");
        assert_eq!(
            outcome
                .cuts
                .iter()
                .map(|cut| &*cut.what)
                .collect::<Vec<_>>(),
            ["repetitions", "working-sets"]
        );
        assert!(outcome.fits && outcome.estimated_seconds <= uncut / 40.0);
        // Below what the floors allow: said, not hidden.
        let (fitted, outcome) =
            fit_app_budget(&topology, Budget::Seconds(uncut / 1e6), knobs, 5, &linear);
        assert_eq!(fitted.stream_elements, Some(floor));
        assert!(!outcome.fits);
        assert!(outcome
            .sentences()
            .iter()
            .any(|line| line.starts_with("over budget")));
    }

    /// CG and MG keep their class; `none` cuts nothing.
    #[test]
    fn a_class_is_never_cut_and_none_cuts_nothing() {
        let topology = machine();
        let knobs = AppKnobs {
            runs: 10,
            stream_elements: None,
        };
        let (fitted, outcome) = fit_app_budget(&topology, Budget::Seconds(1.0), knobs, 3, &linear);
        assert_eq!(fitted.stream_elements, None);
        assert_eq!(fitted.runs, 3);
        assert!(!outcome.fits);
        let (fitted, outcome) = fit_app_budget(&topology, Budget::Unlimited, knobs, 3, &linear);
        assert_eq!(fitted, knobs);
        assert!(outcome.cuts.is_empty() && outcome.fits);
    }
}
