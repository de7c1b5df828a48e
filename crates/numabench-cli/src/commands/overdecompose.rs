//! `numabench overdecompose` (the study, which starts mpirun) and its
//! hidden `overdecompose-worker` (each MPI rank).

use super::measuring::{context_of, pipeline_with_view};
use crate::args::{OverdecomposeArgs, OverdecomposeWorkerArgs};
use crate::exit::{CliError, Status};
use crate::progress::Progress;
use crate::tables::StdoutView;
use numabench::overdecompose::{
    core_cpus, find_monitor_library, render_sweep, run_overdecompose, Hosts, Launcher, StudyConfig,
    DEFAULT_OMEGA, MONITOR_LIBRARY_ENV,
};

/// Seconds a K = 1 run should take when `--iterations` is not given: long
/// enough that the monitor's window (MPI_Init, each rank's topology load,
/// pinning, the gathers) is a small share of it around the timed loop.
const RUN_SECONDS: f64 = 3.0;

/// True when `name` is an executable file in a folder of PATH.
fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|dir| {
            std::fs::metadata(dir.join(name)).is_ok_and(|meta| {
                meta.is_file()
                    && std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o111 != 0
            })
        })
    })
}

/// Refuses a numabench built without MPI: its ranks could not run the worker.
fn require_mpi_build() -> Result<(), CliError> {
    if cfg!(feature = "mpi") {
        Ok(())
    } else {
        Err(CliError::usage(
            "overdecompose needs an MPI build of numabench: cargo build --release -p numabench-cli --features mpi",
        ))
    }
}

/// Where the ranks run: `--hostfile`, `--host`, else the Slurm allocation
/// numabench runs in when it has several nodes, else this host.
fn hosts_of(args: &OverdecomposeArgs) -> Result<Hosts, CliError> {
    let hosts = if let Some(path) = &args.hostfile {
        Hosts::from_hostfile(path)
    } else if let Some(list) = &args.host {
        Hosts::from_list(list)
    } else {
        Hosts::from_slurm(|name| std::env::var(name).ok())
            .map(|slurm| slurm.unwrap_or_else(Hosts::local))
    };
    Ok(hosts?)
}

pub fn run(args: &OverdecomposeArgs) -> Result<Status, CliError> {
    let hosts = hosts_of(args)?;
    let context = context_of(args.repeat, false, &args.planning)?;
    let cores_available = core_cpus(&context.topology);
    let cores = match args.cores {
        Some(cores) if cores as usize > cores_available.len() => {
            return Err(CliError::usage(format!(
                "--cores {cores}: only {} cores are allowed (one CPU each: {:?})",
                cores_available.len(),
                cores_available
            )))
        }
        Some(cores) => cores as usize,
        None => cores_available.len(),
    };
    let program = std::env::current_exe()
        .map_err(|error| CliError::system(format!("cannot find numabench itself: {error}")))?;
    let monitor = if args.planning.plan {
        None
    } else {
        require_mpi_build()?;
        if !on_path("mpirun") {
            return Err(CliError::usage(
                "mpirun is not on PATH (install OpenMPI: openmpi-bin)",
            ));
        }
        Some(find_monitor_library(
            std::env::var_os(MONITOR_LIBRARY_ENV),
            Some(&program),
        )?)
    };
    let config = StudyConfig {
        shares: args.comm_share.0.clone(),
        ranks_per_core: args.ranks_per_core.0.clone(),
        cores,
        core_cpus: cores_available[..cores].to_vec(),
        repeat: args.repeat as usize,
        nx: args.nx as usize,
        omega: DEFAULT_OMEGA,
        iterations: args.iterations.map(|n| n as usize),
        run_seconds: RUN_SECONDS,
        launcher: Launcher {
            hosts,
            ..Launcher::mpirun(program)
        },
        monitor,
    };
    if args.planning.plan {
        if args.output.json {
            crate::plan::print_json(&config.plan());
        } else {
            print!("{}", config.plan_text());
        }
        return Ok(Status::Clean);
    }
    let mut pipeline = pipeline_with_view(&args.output, &context, StdoutView::Quiet)?;
    let mut progress = Progress::new(1 + config.configurations().len() * config.repeat);
    let result = run_overdecompose(&config, &mut pipeline, &mut |label| progress.step(label));
    pipeline.finish()?;
    let outcome = result?;
    if !args.output.json {
        println!(
            "\ncalibration: {:.2} ns per point, {:.2} us per blocking exchange (1 rank per core)",
            outcome.calibration.compute_per_point * 1e9,
            outcome.calibration.exchange_per_half_sweep * 1e6
        );
        if config.hosts().several() {
            println!(
                "hosts: {}; K x {} ranks on each",
                config.hosts(),
                config.cores
            );
        }
        print!("{}", render_sweep(&outcome.summaries, config.all_cores()));
    }
    if outcome.interrupted {
        eprintln!("numabench: warning: interrupted: the summaries cover the runs made");
    }
    let failed: Vec<String> = outcome
        .summaries
        .iter()
        .filter(|summary| !summary.runs.is_empty() && !summary.verified())
        .map(|summary| {
            format!(
                "share {:.0}% K={} (max difference {:.3e})",
                summary.configuration.share * 100.0,
                summary.configuration.ranks_per_core,
                summary.max_abs_diff()
            )
        })
        .collect();
    if failed.is_empty() {
        Ok(Status::Clean)
    } else {
        crate::exit::error_line(format!(
            "the grid differs from the serial run's: {}",
            failed.join(", ")
        ));
        Ok(Status::Warnings)
    }
}

/// The test-only fault injection of
/// [`numabench::overdecompose::SKIP_EXCHANGE_ENV`]: the iteration whose
/// first exchange every rank skips, if set.
#[cfg(feature = "mpi")]
fn skip_exchange() -> Result<Option<usize>, CliError> {
    let name = numabench::overdecompose::SKIP_EXCHANGE_ENV;
    match std::env::var(name) {
        Err(_) => Ok(None),
        Ok(text) => match text.trim().parse() {
            Ok(iteration) => Ok(Some(iteration)),
            Err(_) => Err(CliError::usage(format!(
                "{name}='{text}': not an iteration number (a fault-injection hook for tests)"
            ))),
        },
    }
}

/// One rank: solves its strip; rank 0 prints the report as one JSON line.
pub fn worker(args: &OverdecomposeWorkerArgs) -> Result<Status, CliError> {
    require_mpi_build()?;
    if !(args.omega > 0.0 && args.omega < 2.0) {
        return Err(CliError::usage(format!(
            "--omega {}: SOR converges only for 0 < omega < 2",
            args.omega
        )));
    }
    #[cfg(feature = "mpi")]
    {
        let config = numabench::overdecompose::WorkerConfig {
            nx: args.nx as usize,
            ny: args.ny as usize,
            iterations: args.iterations as usize,
            omega: args.omega,
            ranks_per_core: args.ranks_per_core as usize,
            verify: !args.no_verify,
            skip_exchange: skip_exchange()?,
        };
        match numabench::overdecompose::run_worker(&config) {
            Ok(Some(report)) => {
                let line = serde_json::to_string(&report)?;
                println!("{line}");
            }
            Ok(None) => {}
            Err(error) => return Err(CliError::system(error)),
        }
    }
    Ok(Status::Clean)
}
