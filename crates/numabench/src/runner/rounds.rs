//! The runs of `numabench run` and of its `--param` scans, through the
//! study engine ([`crate::study::Schedule`]): the warm-up rounds, then
//! every configuration `repeat` times interleaved, repetition r starting
//! with configuration r mod n ([`Schedule::rotated`]: with a baseline and
//! one policy, each goes first every other repetition), one record per
//! run as it finishes. A failed run stops the study unless failures are ignored.

use super::compare_policies::{run_record, status_text, RunStudyConfig, StudyError};
use super::executor::{Executor, Invocation, RunOutcome};
use super::policy::RunPolicy;
use crate::interrupt::interrupted;
use crate::output::Pipeline;
use crate::study::{run_study, FinishWhen, Interrupt, Schedule};
use crate::topology::Machine;
use serde_json::{Map, Value};
use std::ops::ControlFlow;

/// One configuration: a command under a policy.
pub(super) struct Runnable<'a> {
    pub command: &'a [String],
    pub policy: &'a RunPolicy,
    /// As progress shows it.
    pub label: &'a str,
    /// Params each run record gets after [`run_record`]'s (a scan's
    /// `scan` and `configuration`).
    pub extra: Map<String, Value>,
    /// How the failure message names it ("pin-compact", "as-is with t=4").
    pub failure_name: String,
}

/// What the rounds gave: each configuration's outcomes, in run order, and
/// the failure that stopped them, if one did.
pub(super) struct Rounds {
    pub outcomes: Vec<Vec<RunOutcome>>,
    pub failure: Option<StudyError>,
}

/// Runs the warm-up rounds, then the measured ones. `progress` is told
/// about each run before it starts.
pub(super) fn run_rounds(
    executor: &mut dyn Executor,
    study: &RunStudyConfig,
    runnables: &[Runnable],
    topology: &Machine,
    pipeline: &mut Pipeline,
    progress: &mut dyn FnMut(&str),
) -> Result<Rounds, StudyError> {
    let node_of_cpu = |cpu: u32| topology.node_of_cpu(cpu);
    let invocation = |runnable: &Runnable, observe| Invocation {
        command: runnable.command.to_vec(),
        policy: runnable.policy.clone(),
        show_output: study.show_output,
        pin_library: study.pin_library.clone(),
        observe,
        kill_leftovers: study.kill_leftovers,
    };
    let warm_up =
        Schedule::round_robin(runnables.len(), study.warmup).interrupted_at(Interrupt::Never);
    for slot in warm_up.slots() {
        let runnable = &runnables[slot.configuration];
        progress(&format!("warm-up, {}", runnable.label));
        executor.execute(&invocation(runnable, None), &node_of_cpu)?;
    }
    // A failed run ends the rounds (unless failures are ignored, or Ctrl-C
    // made it fail): it is kept, and named here.
    let mut failure = None;
    let finished = run_study(
        Schedule::rotated(runnables.len(), study.repeat),
        FinishWhen::AtTheEnd,
        |slot, _| {
            let runnable = &runnables[slot.configuration];
            progress(&format!(
                "run {}/{}, {}",
                slot.repetition + 1,
                study.repeat,
                runnable.label
            ));
            let outcome = executor.execute(&invocation(runnable, study.observe), &node_of_cpu)?;
            let mut record =
                run_record(runnable.command, runnable.policy, slot.repetition, &outcome);
            record.params.extend(runnable.extra.clone());
            pipeline.emit(&record)?;
            for record in executor.take_records() {
                pipeline.emit(&record)?;
            }
            if !outcome.succeeded() && !study.ignore_failure && !interrupted() {
                failure = Some(StudyError::Failed {
                    command: runnable.command.join(" "),
                    policy: runnable.failure_name.clone(),
                    status: status_text(&outcome),
                });
                return Ok(ControlFlow::Break(outcome));
            }
            Ok::<_, StudyError>(ControlFlow::Continue(outcome))
        },
        |_, _| Ok(None::<()>),
    )?;
    Ok(Rounds {
        outcomes: finished.runs,
        failure,
    })
}
