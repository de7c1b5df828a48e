//! Sentences on what `characterize`'s time budget cut: one per cut, and
//! one where the plan stayed over the budget after every cut. They come
//! from the plan, not from records, so a run's summary names every cut.

use super::{FindingKind, Sentence};
use crate::bench::BudgetOutcome;
use crate::output::Unit;
use numabench_schema::params::findings::{BudgetCutParams, BudgetParams, RunTimeParams};
use numabench_schema::params::to_params;

/// One `budget_cut` sentence per cut (value: the seconds it saved by the
/// estimate), then an `over_budget` one (value: the estimate after every
/// cut) where the plan still does not fit.
pub fn budget_sentences(outcome: &BudgetOutcome) -> Vec<Sentence> {
    let lines = outcome.sentences();
    // The calibration's line comes before the cuts' (run_time records it).
    let calibration =
        usize::from(outcome.calibration_seconds.is_some() && outcome.budget_seconds.is_some());
    let mut sentences: Vec<Sentence> = outcome
        .cuts
        .iter()
        .zip(lines.iter().skip(calibration))
        .map(|(cut, line)| {
            let params = to_params(&BudgetCutParams {
                cut: Some(cut.what.to_string()),
                budget_seconds: outcome.budget_seconds,
                before_seconds: Some(cut.before_seconds),
                after_seconds: Some(cut.after_seconds),
            });
            Sentence {
                kind: FindingKind::BudgetCut,
                text: line.clone(),
                value: cut.before_seconds - cut.after_seconds,
                unit: Unit::Seconds,
                params,
            }
        })
        .collect();
    // The budget the other sentences were made under.
    let params = to_params(&BudgetParams {
        budget_seconds: outcome.budget_seconds,
    });
    if let Some(leftover) = &outcome.leftover {
        sentences.push(Sentence {
            kind: FindingKind::BudgetLeftover,
            text: format!("budget left by the cuts: {leftover}"),
            value: outcome.estimated_seconds,
            unit: Unit::Seconds,
            params: params.clone(),
        });
    }
    for spot in &outcome.blind_spots {
        sentences.push(Sentence {
            kind: FindingKind::BlindSpot,
            text: format!("cannot find at this budget: {spot}"),
            value: 0.0,
            unit: Unit::Count,
            params: params.clone(),
        });
    }
    if !outcome.fits {
        sentences.push(Sentence {
            kind: FindingKind::OverBudget,
            text: lines.last().cloned().unwrap_or_default(),
            value: outcome.estimated_seconds,
            unit: Unit::Seconds,
            params,
        });
    }
    sentences
}

/// The `run_time` sentence: how long the run took against its estimate
/// (value: elapsed seconds; params `estimated_seconds`, `elapsed_seconds`,
/// `elapsed_over_estimate`, `calibration_seconds` (the calibration of the
/// rates, part of both) and `estimate_rates`, the rates the estimate was
/// made with).
pub fn run_time_sentence(
    estimated_seconds: f64,
    elapsed_seconds: f64,
    calibration_seconds: f64,
    rates: &crate::bench::CostModel,
) -> Sentence {
    let ratio = if estimated_seconds > 0.0 {
        elapsed_seconds / estimated_seconds
    } else {
        0.0
    };
    let params = to_params(&RunTimeParams {
        estimated_seconds: Some(estimated_seconds),
        elapsed_seconds: Some(elapsed_seconds),
        elapsed_over_estimate: Some(ratio),
        calibration_seconds: Some(calibration_seconds),
        estimate_rates: Some(rates.into()),
    });
    Sentence {
        kind: FindingKind::RunTime,
        text: format!(
            "the run took {elapsed_seconds:.1} s against an estimate of {estimated_seconds:.1} s ({:+.0}%)",
            (ratio - 1.0) * 100.0
        ),
        value: elapsed_seconds,
        unit: Unit::Seconds,
        params,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{CostModel, Cut};
    use crate::findings::assert_wire;

    fn cut(what: &'static str, before_seconds: f64, after_seconds: f64) -> Cut {
        Cut {
            what: what.into(),
            text: format!("{what} cut"),
            before_seconds,
            after_seconds,
        }
    }

    /// Each sentence's params on the wire: a budget's seconds (null when
    /// unlimited) on every budget sentence, a cut's own estimates, and the
    /// run time's figures and rates.
    #[test]
    fn the_budget_params_on_the_wire() {
        let mut cut_plan = BudgetOutcome::fitted(
            60.0,
            200.0,
            90.0,
            vec![cut("sizes", 200.0, 120.0), cut("repetitions", 120.0, 90.0)],
        );
        cut_plan.leftover = Some("more members".into());
        cut_plan.blind_spots = vec!["a slow CPU".into()];
        assert_wire(&budget_sentences(&cut_plan), &[
            "budget_cut {\"cut\":\"sizes\",\"budget_seconds\":60.0,\"before_seconds\":200.0,\"after_seconds\":120.0}",
            "budget_cut {\"cut\":\"repetitions\",\"budget_seconds\":60.0,\"before_seconds\":120.0,\"after_seconds\":90.0}",
            "budget_leftover {\"budget_seconds\":60.0}",
            "blind_spot {\"budget_seconds\":60.0}",
            "over_budget {\"budget_seconds\":60.0}",
        ]);
        let mut unlimited = BudgetOutcome::unlimited(30.0);
        unlimited.leftover = Some("nothing".into());
        unlimited.blind_spots = vec!["a slow pair".into()];
        assert_wire(
            &budget_sentences(&unlimited),
            &[
                "budget_leftover {\"budget_seconds\":null}",
                "blind_spot {\"budget_seconds\":null}",
            ],
        );
        assert_wire(
            &[run_time_sentence(100.0, 110.0, 5.0, &CostModel::ASSUMED)],
            &[
                "run_time {\"estimated_seconds\":100.0,\"elapsed_seconds\":110.0,\"elapsed_over_estimate\":1.1,\"calibration_seconds\":5.0,\"estimate_rates\":{\"setup_bytes_per_second\":1000000000.0,\"chase_setup_bytes_per_second\":1000000000.0,\"thread_bytes_per_second\":5000000000.0,\"all_threads_bytes_per_second\":null,\"load_seconds\":1e-7,\"measurement_seconds\":0.0,\"c2c_repetition_seconds\":0.002,\"source\":\"assumed\"}}",
            ],
        );
    }
}
