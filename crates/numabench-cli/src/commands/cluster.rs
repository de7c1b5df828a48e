//! `numabench cluster`: validated here, before MPI starts (bad input: one
//! line and status 2 on every rank alike); then rank 0 opens the outputs
//! and every rank runs [`numabench::cluster::ClusterSession::run`].

/// What a numabench built without the `mpi` feature says.
#[cfg(not(feature = "mpi"))]
pub fn run(_: &crate::args::ClusterArgs) -> Result<crate::exit::Status, crate::exit::CliError> {
    Err(crate::exit::CliError::usage(
        "this numabench was built without MPI: build it with `cargo build --release -p numabench-cli --features mpi` (needs OpenMPI and libclang) to run cluster",
    ))
}

#[cfg(feature = "mpi")]
pub use with_mpi::run;

#[cfg(feature = "mpi")]
mod with_mpi {
    use super::super::measuring::{bench_error, pipeline, this_machine};
    use crate::args::{ClusterArgs, PerArg};
    use crate::exit::{CliError, Status};
    use numabench::bench::{check_memory_fits, memory_nodes, Context};
    use numabench::cluster::{select_parts, ClusterConfig, ClusterSession, OutlierRule, Per};

    /// Flags into a configuration; nothing has started yet.
    fn validate(args: &ClusterArgs, context: &Context) -> Result<ClusterConfig, CliError> {
        let parts = select_parts(&args.only, &args.skip).map_err(CliError::usage)?;
        if let Some(size) = args.size {
            let nodes = memory_nodes(&context.topology);
            check_memory_fits(&context.topology, &nodes, size).map_err(bench_error)?;
        }
        if args.timeout < std::time::Duration::from_secs(1) {
            return Err(CliError::usage(format!(
                "--timeout {:?} is under a second: a rank measuring would be left behind (write e.g. 600s)",
                args.timeout
            )));
        }
        let pingpong_bytes = usize::try_from(args.pingpong_size)
            .ok()
            .filter(|&bytes| (8..=1 << 30).contains(&bytes))
            .ok_or_else(|| {
                CliError::usage(format!(
                    "--pingpong-size {} must be between 8 bytes and 1 GiB",
                    args.pingpong_size
                ))
            })?;
        Ok(ClusterConfig {
            parts,
            per: match args.per {
                PerArg::Node => Per::Node,
                PerArg::Numa => Per::Numa,
                PerArg::Rank => Per::Rank,
            },
            sequential: args.sequential,
            rule: OutlierRule {
                k: args.mad_k,
                min_deviation: args.min_deviation,
            },
            size: args.size,
            timeout: args.timeout,
            pingpong_bytes,
            latency_round_trips: 1000,
            // About 64 MiB each way per sample.
            bandwidth_round_trips: (64 << 20) / pingpong_bytes.max(1) + 1,
        })
    }

    /// Rank 0 on SIGTERM (a batch system ending the job, mpirun passing on
    /// its own SIGTERM) or SIGINT: the ranks wait in MPI calls that no flag
    /// check reaches, so a thread watching the flag (woken ten times a
    /// second, no spinning) ends rank 0 with 143 or 130 and one stderr
    /// line. Every sink flushes each record as it is emitted, so the
    /// `--jsonl` and `--csv` files hold every record measured so far (a
    /// `--json` document is left unclosed); mpirun then ends the other ranks.
    fn end_on_signal() {
        std::thread::spawn(|| loop {
            if let Some(code) = numabench::interrupt::exit_status() {
                crate::exit::error_line(format!(
                    "cluster: interrupted (signal {}): the records measured so far are in the outputs",
                    i32::from(code) - 128
                ));
                // Not MPI's exit handlers: they would wait for the ranks still measuring.
                numabench::interrupt::exit_now(i32::from(code));
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        });
    }

    pub fn run(args: &ClusterArgs) -> Result<Status, CliError> {
        let mut context = Context::new(this_machine()?);
        context.repeat = args.repeat as usize;
        context.hugepages = args.hugepages;
        let config = validate(args, &context)?;
        let session = ClusterSession::start().map_err(CliError::system)?;
        let mut outputs = None;
        if session.rank() == 0 {
            match pipeline(&args.output, &context) {
                Ok(opened) => outputs = Some(opened),
                Err(error) => {
                    // The other ranks have started: end them all with this status.
                    let (message, code) = match &error {
                        CliError::Usage(message) => (message, 2),
                        CliError::System(message) => (message, 3),
                    };
                    crate::exit::error_line(message);
                    session.abort(code);
                }
            }
        }
        if session.rank() == 0 {
            end_on_signal();
        }
        let outcome = session
            .run(&context, &config, outputs.as_mut())
            .map_err(CliError::system)?;
        let Some(report) = outcome.report else {
            return Ok(Status::Clean);
        };
        if let Some(mut outputs) = outputs {
            outputs.finish().map_err(CliError::system)?;
        }
        let text = report.render_text();
        if args.output.json {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
        if outcome.abandoned {
            // MPI_Finalize would wait for the rank left behind.
            use std::io::Write;
            let _ = std::io::stdout().flush();
            session.abort(1);
        }
        Ok(if report.problems() == 0 {
            Status::Clean
        } else {
            Status::Warnings
        })
    }
}
