//! The whole of a study's loop, once: run every slot of a [`Schedule`],
//! keep each configuration's runs, finish a configuration into its result
//! once its runs are complete, and, when Ctrl-C or a run ends the study
//! early, finish every configuration that has runs and was not finished
//! yet. A caller gives the two things that are its own, how to make one
//! run ([`run_study`]'s `run`) and what a configuration's runs make
//! (`finish`: its records, its row), and gets the runs and the results
//! back in grid order.

use super::schedule::{Schedule, Slot};
use std::ops::ControlFlow;

/// When a configuration's runs are finished into its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinishWhen {
    /// Right after its own last run: each configuration's records go out
    /// as soon as they are complete (a placement study).
    ItsLastRun,
    /// After its own last run and every earlier configuration's: results
    /// in grid order, whatever order the rotated schedule ends them in
    /// (thread scaling, whose first configuration is the reference of
    /// the rest).
    InGridOrder,
    /// Only once the schedule has ended, in grid order (a study whose
    /// results need every configuration's runs, as speedups need their
    /// baseline's).
    AtTheEnd,
}

/// What a study made.
#[derive(Debug)]
pub struct Finished<R, T> {
    /// Each configuration's runs, in the order they were made.
    pub runs: Vec<Vec<R>>,
    /// Each configuration's result, in grid order: `None` where it had no
    /// run, or where `finish` gave none.
    pub results: Vec<Option<T>>,
    /// Ctrl-C ended the schedule before its last run.
    pub interrupted: bool,
    /// A run ended the study ([`ControlFlow::Break`]).
    pub stopped: bool,
}

impl<R, T> Finished<R, T> {
    /// The results there are, in grid order.
    pub fn into_results(self) -> Vec<T> {
        self.results.into_iter().flatten().collect()
    }
}

/// Runs `schedule`: `run` makes the run of each slot (it sees the runs made
/// so far) and may end the study after it ([`ControlFlow::Break`], the run
/// kept); `finish` turns a configuration's runs into its result, once, as
/// `when` says, or after the study for each configuration with runs that
/// was not finished (Ctrl-C, a run that ended it). An error from either
/// ends the study at once and is returned.
pub fn run_study<R, T, E>(
    schedule: Schedule,
    when: FinishWhen,
    mut run: impl FnMut(Slot, &[Vec<R>]) -> Result<ControlFlow<R, R>, E>,
    mut finish: impl FnMut(usize, &[R]) -> Result<Option<T>, E>,
) -> Result<Finished<R, T>, E> {
    let configurations = schedule.configurations;
    let mut runs: Vec<Vec<R>> = (0..configurations).map(|_| Vec::new()).collect();
    let mut results: Vec<Option<T>> = (0..configurations).map(|_| None).collect();
    let mut complete = vec![false; configurations];
    let mut finished = vec![false; configurations];
    // InGridOrder: the first configuration not finished yet.
    let mut next = 0;
    let mut slots = schedule.slots();
    let mut stopped = false;
    for slot in &mut slots {
        let index = slot.configuration;
        let flow = run(slot, &runs)?;
        let made = match flow {
            ControlFlow::Continue(made) => made,
            ControlFlow::Break(made) => {
                stopped = true;
                made
            }
        };
        runs[index].push(made);
        complete[index] |= slot.last;
        if stopped {
            break;
        }
        match when {
            FinishWhen::ItsLastRun if slot.last => {
                results[index] = finish(index, &runs[index])?;
                finished[index] = true;
            }
            FinishWhen::InGridOrder => {
                while next < configurations && complete[next] {
                    results[next] = finish(next, &runs[next])?;
                    finished[next] = true;
                    next += 1;
                }
            }
            _ => {}
        }
    }
    for index in 0..configurations {
        if !finished[index] && !runs[index].is_empty() {
            results[index] = finish(index, &runs[index])?;
        }
    }
    Ok(Finished {
        runs,
        results,
        interrupted: slots.interrupted(),
        stopped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::Interrupt;
    use std::convert::Infallible;

    /// Runs `schedule` with runs named (configuration, repetition) and a
    /// log of every run and finish in the order they happened.
    fn logged(
        schedule: Schedule,
        when: FinishWhen,
        stop_after: Option<usize>,
    ) -> (Finished<(usize, usize), usize>, Vec<String>) {
        let log = std::cell::RefCell::new(Vec::new());
        let mut made = 0;
        let finished = run_study::<_, _, Infallible>(
            schedule,
            when,
            |slot, _| {
                log.borrow_mut()
                    .push(format!("run {}.{}", slot.configuration, slot.repetition));
                made += 1;
                let run = (slot.configuration, slot.repetition);
                Ok(if stop_after == Some(made) {
                    ControlFlow::Break(run)
                } else {
                    ControlFlow::Continue(run)
                })
            },
            |index, runs| {
                log.borrow_mut()
                    .push(format!("finish {index} ({} runs)", runs.len()));
                Ok(Some(runs.len()))
            },
        )
        .unwrap();
        (finished, log.into_inner())
    }

    #[test]
    fn each_configuration_is_finished_right_after_its_last_run() {
        let (finished, log) = logged(Schedule::rotated(2, 2), FinishWhen::ItsLastRun, None);
        assert_eq!(
            log,
            [
                "run 0.0",
                "run 1.0",
                "run 1.1",
                "finish 1 (2 runs)",
                "run 0.1",
                "finish 0 (2 runs)"
            ]
        );
        assert_eq!(finished.results, [Some(2), Some(2)]);
        assert_eq!(finished.runs[1], [(1, 0), (1, 1)]);
        assert!(!finished.interrupted && !finished.stopped);
    }

    /// The rotated schedule ends configuration 1 first; in grid order it
    /// waits for configuration 0.
    #[test]
    fn in_grid_order_a_configuration_waits_for_the_ones_before_it() {
        let (finished, log) = logged(Schedule::rotated(2, 2), FinishWhen::InGridOrder, None);
        assert_eq!(
            log,
            [
                "run 0.0",
                "run 1.0",
                "run 1.1",
                "run 0.1",
                "finish 0 (2 runs)",
                "finish 1 (2 runs)"
            ]
        );
        assert_eq!(finished.into_results(), [2, 2]);
    }

    #[test]
    fn at_the_end_every_configuration_is_finished_after_the_last_run() {
        let (_, log) = logged(Schedule::rotated(3, 1), FinishWhen::AtTheEnd, None);
        assert_eq!(
            log,
            [
                "run 0.0",
                "run 1.0",
                "run 2.0",
                "finish 0 (1 runs)",
                "finish 1 (1 runs)",
                "finish 2 (1 runs)"
            ]
        );
    }

    /// A run that ends the study is kept; configurations with runs are
    /// finished after it, those without none.
    #[test]
    fn a_run_that_ends_the_study_leaves_the_partial_configurations_finished() {
        let (finished, log) = logged(Schedule::rotated(3, 2), FinishWhen::ItsLastRun, Some(2));
        assert_eq!(
            log,
            [
                "run 0.0",
                "run 1.0",
                "finish 0 (1 runs)",
                "finish 1 (1 runs)"
            ]
        );
        assert!(finished.stopped && !finished.interrupted);
        assert_eq!(finished.results, [Some(1), Some(1), None]);
        assert_eq!(finished.runs[2], []);
    }

    /// An error from a run ends the study there, nothing finished after.
    #[test]
    fn an_error_ends_the_study_at_once() {
        let mut finishes = 0;
        let result = run_study(
            Schedule::rotated(2, 2).interrupted_at(Interrupt::Never),
            FinishWhen::ItsLastRun,
            |slot, _| {
                if slot.repetition == 1 {
                    Err("broken")
                } else {
                    Ok(ControlFlow::Continue(()))
                }
            },
            |_, _| {
                finishes += 1;
                Ok(Some(()))
            },
        );
        assert_eq!(result.unwrap_err(), "broken");
        assert_eq!(finishes, 0);
    }

    /// `run` sees every run made before it.
    #[test]
    fn a_run_sees_the_runs_made_so_far() {
        let mut seen = Vec::new();
        run_study::<_, (), Infallible>(
            Schedule::round_robin(2, 2),
            FinishWhen::AtTheEnd,
            |slot, runs| {
                seen.push(runs.iter().map(Vec::len).sum::<usize>());
                Ok(ControlFlow::Continue(slot.configuration))
            },
            |_, _| Ok(None),
        )
        .unwrap();
        assert_eq!(seen, [0, 1, 2, 3]);
    }
}
