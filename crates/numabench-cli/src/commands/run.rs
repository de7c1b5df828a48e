//! `numabench run -- COMMAND`.

use super::measuring::{context, pipeline_with_view};
use crate::args::{MeasureArgs, RunCommandArgs};
use crate::exit::{CliError, Status};
use crate::progress::Progress;
use crate::tables::StdoutView;
use numabench::output::check_distinct_files;
use numabench::runner::{
    parse_policy, render_comparison, run_study, Executor, Invocation, ProcessExecutor, RunError,
    RunOutcome, RunStudyConfig, StudyError,
};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const DEFAULT_POLICIES: [&str; 4] = ["as-is", "pin-compact", "pin-scatter", "interleave:all"];

/// Finds the program as exec would (a path, or a name on PATH).
fn find_program(program: &str) -> Option<PathBuf> {
    let executable = |path: &Path| {
        std::fs::metadata(path).is_ok_and(|meta| {
            meta.is_file()
                && std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o111 != 0
        })
    };
    if program.contains('/') {
        return executable(Path::new(program)).then(|| PathBuf::from(program));
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|path| executable(path))
    })
}

/// libnumabench_pin.so: `$NUMABENCH_PIN_LIB` (which must name a file), or
/// beside this executable, in its `deps/` or in the install prefix's `lib/`
/// (`numabench::companions`).
fn pin_library() -> Result<Option<PathBuf>, CliError> {
    if let Some(path) = std::env::var_os("NUMABENCH_PIN_LIB") {
        let path = PathBuf::from(path);
        if !path.is_file() {
            return Err(CliError::usage(format!(
                "NUMABENCH_PIN_LIB: '{}' is not a file (it should name libnumabench_pin.so)",
                path.display()
            )));
        }
        return Ok(Some(path));
    }
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| numabench::companions::find(exe.parent()?, "libnumabench_pin.so"));
    Ok(beside)
}

/// The real executor, printing each distinct warning of the pinning shim on
/// stderr the first time a run reports it (the runs' records carry them all).
struct WarningExecutor {
    seen: BTreeSet<String>,
}

impl Executor for WarningExecutor {
    fn execute(
        &mut self,
        invocation: &Invocation,
        node_of_cpu: &(dyn Fn(u32) -> Option<u32> + Sync),
    ) -> Result<RunOutcome, RunError> {
        let outcome = ProcessExecutor.execute(invocation, node_of_cpu)?;
        for warning in outcome.pin_warnings.iter().flatten() {
            if self.seen.insert(warning.clone()) {
                eprintln!(
                    "numabench: warning: pinning shim (policy {}): {warning}",
                    invocation.policy.label
                );
            }
        }
        Ok(outcome)
    }
}

pub fn run(args: &RunCommandArgs) -> Result<Status, CliError> {
    if args.command.is_empty() {
        return Err(CliError::usage(
            "no program to run: give it after '--' (numabench run [OPTIONS] -- COMMAND [ARGS]...)",
        ));
    }
    let pin_library = pin_library()?;
    let monitor_library = match args.mpi_monitor && !args.plan {
        true => Some(super::mpi_monitor::library()?),
        false => None,
    };
    let context = context(&MeasureArgs {
        repeat: args.repeat,
        hugepages: false,
        plan: args.plan,
    })?;
    let topology = &context.topology;
    let scan = super::run_scan::parse(args)?;
    // A plan may be made for another machine, where the program may live.
    let programs = super::run_scan::programs(scan.as_deref(), &args.command);
    if let Some(program) = programs
        .iter()
        .find(|p| !args.plan && find_program(p).is_none())
    {
        return Err(CliError::usage(format!(
            "cannot run '{program}': no such executable"
        )));
    }
    let texts: Vec<String> = if args.policies.is_empty() && (scan.is_some() || args.mpi_monitor) {
        vec!["as-is".to_string()]
    } else if args.policies.is_empty() {
        DEFAULT_POLICIES
            .iter()
            .map(|policy| policy.to_string())
            .collect()
    } else {
        args.policies.clone()
    };
    let policies = texts
        .iter()
        .map(|text| parse_policy(text, topology))
        .collect::<Result<Vec<_>, _>>()
        .map_err(CliError::usage)?;
    if args.plan {
        let plan = match &scan {
            Some(params) => super::run_scan::plan(topology, args, params, &policies),
            None => {
                crate::plan::run_plan(topology, &args.command, &policies, args.repeat, args.warmup)
            }
        };
        if args.output.json {
            println!("{plan:#}");
        } else {
            print!("{}", crate::plan::run_plan_text(&plan));
        }
        return Ok(Status::Clean);
    }
    if let Some(path) = &args.markdown {
        let mut files = vec![("--markdown", path.as_path())];
        files.extend(args.output.csv.as_deref().map(|csv| ("--csv", csv)));
        files.extend(args.output.jsonl.as_deref().map(|jsonl| ("--jsonl", jsonl)));
        check_distinct_files(&files).map_err(CliError::usage)?;
    }
    let markdown = match &args.markdown {
        Some(path) => Some((
            path.clone(),
            std::fs::File::create(path).map_err(|error| {
                CliError::usage(format!("cannot write '{}': {error}", path.display()))
            })?,
        )),
        None => None,
    };
    if pin_library.is_none() && policies.iter().any(|policy| policy.pin_order.is_some()) {
        eprintln!("numabench: warning: libnumabench_pin.so not found beside numabench nor in ../lib (install it with scripts/install, or set NUMABENCH_PIN_LIB): pthreads are not pinned individually; the main thread and OpenMP threads (OMP_PLACES) are");
    }
    let config = RunStudyConfig {
        command: args.command.clone(),
        policies,
        repeat: args.repeat as usize,
        warmup: args.warmup as usize,
        show_output: args.show_output,
        ignore_failure: args.ignore_failure,
        observe: args.observe,
        pin_library,
    };
    let mut pipeline = pipeline_with_view(&args.output, &context, StdoutView::Quiet)?;
    let configurations = super::run_scan::configurations(scan.as_deref(), &config);
    let mut progress = Progress::new(configurations * (config.repeat + config.warmup));
    let mut executor = WarningExecutor {
        seen: BTreeSet::new(),
    };
    let mut monitor = monitor_library
        .map(|library| super::mpi_monitor::prepare(&library))
        .transpose()?
        .map(|out| {
            super::mpi_monitor::MonitorExecutor::new(
                Box::new(WarningExecutor {
                    seen: BTreeSet::new(),
                }),
                out,
                config.warmup * configurations,
            )
        });
    let chosen: &mut dyn Executor = match monitor.as_mut() {
        Some(monitor) => monitor,
        None => &mut executor,
    };
    let mut step = |label: &str| progress.step(label);
    let (result, note) = match scan {
        Some(params) => {
            super::run_scan::execute(chosen, config, params, topology, &mut pipeline, &mut step)
        }
        None => (
            run_study(chosen, &config, topology, &mut pipeline, &mut step),
            String::new(),
        ),
    };
    if let Some(monitor) = monitor {
        monitor.finish(&mut pipeline, args.output.json)?;
    }
    pipeline.finish().map_err(CliError::system)?;
    let summaries = match result {
        Ok(summaries) => summaries,
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
    if let Some((path, mut file)) = markdown {
        use std::io::Write;
        file.write_all(format!("{}{note}", render_comparison(&summaries, true)).as_bytes())
            .map_err(|error| CliError::system(format!("writing '{}': {error}", path.display())))?;
    }
    Ok(if summaries.iter().any(|summary| summary.failures > 0) {
        Status::Warnings
    } else {
        Status::Clean
    })
}
