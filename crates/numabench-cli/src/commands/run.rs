//! `numabench run -- COMMAND`.

use super::measuring::{context_of, pipeline_with_view};
use crate::args::RunCommandArgs;
use crate::exit::{CliError, Status};
use crate::progress::Progress;
use crate::tables::StdoutView;
use numabench::output::check_distinct_files;
use numabench::runner::{
    become_subreaper, find_program, parse_policy, policy_texts, programs, render_comparison,
    run_command, Executor, Invocation, LeftoverReport, ProcessExecutor, RunCommand, RunError,
    RunOutcome, RunPlan, RunStudyConfig, StudyError,
};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// libnumabench_pin.so: `$NUMABENCH_PIN_LIB` (which must name a file), or
/// beside this executable, in its `deps/` or in the install prefix's `lib/`
/// (`numabench::companions`).
fn pin_library() -> Result<Option<PathBuf>, CliError> {
    Ok(numabench::companions::locate_here(
        "NUMABENCH_PIN_LIB",
        "libnumabench_pin.so",
    )?)
}

/// The real executor, printing each distinct warning of the pinning shim on
/// stderr the first time a run reports it (the runs' records carry them all),
/// one warning at the first run that leaves processes running, and with
/// `--ignore-failure` one for each run whose program stopped (without it,
/// the study ends on that run and its error line says so).
#[derive(Default)]
struct WarningExecutor {
    executor: ProcessExecutor,
    seen: BTreeSet<String>,
    leftovers_told: bool,
    ignore_failure: bool,
}

impl Executor for WarningExecutor {
    fn execute(
        &mut self,
        invocation: &Invocation,
        node_of_cpu: &(dyn Fn(u32) -> Option<u32> + Sync),
    ) -> Result<RunOutcome, RunError> {
        let outcome = self.executor.execute(invocation, node_of_cpu)?;
        for warning in outcome.pin_warnings.iter().flatten() {
            if self.seen.insert(warning.clone()) {
                eprintln!(
                    "numabench: warning: pinning shim (policy {}): {warning}",
                    invocation.policy.label
                );
            }
        }
        if outcome.stop_signal.is_some() && self.ignore_failure {
            eprintln!(
                "numabench: warning: a run (policy {}): {}",
                invocation.policy.label,
                numabench::runner::status_text(&outcome)
            );
        }
        if let Some(leftovers) = outcome.leftovers.as_ref().filter(|l| l.count > 0) {
            if !self.leftovers_told {
                self.leftovers_told = true;
                eprintln!(
                    "numabench: warning: {}",
                    leftover_warning(&invocation.policy.label, leftovers)
                );
            }
        }
        Ok(outcome)
    }
}

/// The warning for the first run that left processes running (later runs
/// count theirs in their records).
fn leftover_warning(policy: &str, leftovers: &LeftoverReport) -> String {
    let processes = match leftovers.count {
        1 => "1 process".to_string(),
        count => format!("{count} processes"),
    };
    let names = leftovers.names.join(", ");
    let what = format!(
        "a run (policy {policy}) left {processes} running after its program ended ({names})"
    );
    match (leftovers.killed, leftovers.survivors) {
        (false, _) => format!("{what}: they compete with every later run; each run record counts its own (leftover_processes); --kill-leftovers ends them after each run"),
        (true, 0) => format!("{what}: killed (--kill-leftovers); each run record counts its own (leftover_processes)"),
        (true, survivors) => format!("{what}: {survivors} survived SIGKILL; each run record counts its own (leftover_processes)"),
    }
}

pub fn run(args: &RunCommandArgs) -> Result<Status, CliError> {
    if args.command.is_empty() {
        return Err(CliError::usage(
            "no program to run: give it after '--' (numabench run [OPTIONS] -- COMMAND [ARGS]...)",
        ));
    }
    let pin_library = pin_library()?;
    let monitor_library = match args.mpi_monitor && !args.planning.plan {
        true => Some(super::mpi_monitor::library()?),
        false => None,
    };
    let context = context_of(args.repeat, false, &args.planning)?;
    let topology = &context.topology;
    let scan = super::run_scan::parse(args)?;
    // A plan may be made for another machine, where the program may live.
    if let Some(program) = programs(scan.as_deref(), &args.command)
        .iter()
        .find(|p| !args.planning.plan && find_program(p).is_none())
    {
        return Err(CliError::usage(format!(
            "cannot run '{program}': no such executable"
        )));
    }
    let texts = policy_texts(&args.policies, scan.is_some(), args.mpi_monitor);
    let policies = texts
        .iter()
        .map(|text| parse_policy(text, topology))
        .collect::<Result<Vec<_>, _>>()?;
    let command = RunCommand {
        study: RunStudyConfig {
            command: args.command.clone(),
            policies,
            repeat: args.repeat as usize,
            warmup: args.warmup as usize,
            show_output: args.show_output,
            ignore_failure: args.ignore_failure,
            observe: args.observe,
            pin_library,
            kill_leftovers: args.kill_leftovers,
        },
        scan,
    };
    let policies = &command.study.policies;
    if args.planning.plan {
        let plan = match &command.scan {
            Some(params) => RunPlan::scan(
                &topology.source,
                params,
                &args.command,
                policies,
                args.repeat,
                args.warmup,
            ),
            None => RunPlan::new(
                &topology.source,
                &args.command,
                policies,
                args.repeat,
                args.warmup,
            ),
        };
        if args.output.json {
            crate::plan::print_json(&plan);
        } else {
            print!("{}", crate::plan::run_plan_text(&plan));
        }
        return Ok(Status::Clean);
    }
    if let Some(path) = &args.markdown {
        let mut files = vec![("--markdown", path.as_path())];
        files.extend(args.output.csv.as_deref().map(|csv| ("--csv", csv)));
        files.extend(args.output.jsonl.as_deref().map(|jsonl| ("--jsonl", jsonl)));
        check_distinct_files(&files)?;
    }
    let markdown = match &args.markdown {
        Some(path) => Some((
            path.clone(),
            numabench::output::output_file::open(path).map_err(|error| {
                CliError::usage(format!("cannot write '{}': {error}", path.display()))
            })?,
        )),
        None => None,
    };
    if command.study.pin_library.is_none() && policies.iter().any(|p| p.pin_order.is_some()) {
        eprintln!("numabench: warning: libnumabench_pin.so not found beside numabench nor in ../lib (install it with scripts/install, or set NUMABENCH_PIN_LIB): pthreads are not pinned individually; the main thread and OpenMP threads (OMP_PLACES) are");
    }
    let mut pipeline = pipeline_with_view(&args.output, &context, StdoutView::Quiet)?;
    let configurations = command.configurations();
    let study = &command.study;
    let mut progress = Progress::new(configurations * (study.repeat + study.warmup));
    // A daemon a run starts (setsid) becomes numabench's child when its parent ends, so it can
    // be counted and ended. Without it (an old kernel) only the run's process group is checked.
    become_subreaper();
    let mut executor = WarningExecutor {
        ignore_failure: args.ignore_failure,
        ..WarningExecutor::default()
    };
    let mut monitor = monitor_library
        .map(|library| super::mpi_monitor::prepare(&library))
        .transpose()?
        .map(|out| {
            numabench::mpi_monitor::MonitorExecutor::new(
                Box::new(WarningExecutor {
                    ignore_failure: args.ignore_failure,
                    ..WarningExecutor::default()
                }),
                out,
                study.warmup * configurations,
            )
        });
    let chosen: &mut dyn Executor = match monitor.as_mut() {
        Some(monitor) => monitor,
        None => &mut executor,
    };
    let mut step = |label: &str| progress.step(label);
    let result = run_command(chosen, &command, topology, &mut pipeline, &mut step);
    if let Some(monitor) = monitor {
        super::mpi_monitor::finish(monitor.finish(), args.output.json);
    }
    pipeline.finish()?;
    let (summaries, note) = match result {
        Ok(result) => (
            result.summaries,
            command.efficiency_note(&result.efficiencies),
        ),
        Err(StudyError::Failed { .. }) => {
            let error = result.unwrap_err();
            crate::exit::error_line(&error);
            return Ok(Status::Warnings);
        }
        Err(StudyError::Run(error)) => return Err(CliError::usage(error)),
        Err(error) => return Err(CliError::system(error)),
    };
    if let Some(warning) = numabench::runner::thread_count_warning(&summaries) {
        eprintln!("numabench: warning: {warning}");
    }
    if !args.output.json {
        println!("\n{}{note}", render_comparison(&summaries, false));
    }
    if let Some((path, output)) = markdown {
        output
            .write_whole(format!("{}{note}", render_comparison(&summaries, true)).as_bytes())
            .map_err(|error| CliError::system(format!("writing '{}': {error}", path.display())))?;
    }
    Ok(if summaries.iter().any(|summary| summary.failures > 0) {
        Status::Warnings
    } else {
        Status::Clean
    })
}
