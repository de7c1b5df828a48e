//! `numabench cluster`: validated here, before MPI starts (bad input: one
//! line and status 2 on every rank alike); then rank 0 opens the outputs
//! and every rank runs [`numabench::cluster::ClusterSession::run`].

use crate::args::{ClusterArgs, PairingArg};
use crate::exit::{CliError, Status};

/// The parts to run: `--only`/`--skip`, with the check part when a
/// baseline is compared with or written (named in `--only` if that is
/// given).
fn parts(args: &ClusterArgs) -> Result<Vec<numabench::cluster::Part>, CliError> {
    use numabench::cluster::{select_parts, Part};
    let mut parts = select_parts(&args.only, &args.skip)?;
    let baseline = args.baseline.is_some() || args.write_baseline.is_some();
    if baseline && !parts.contains(&Part::Check) {
        if !args.only.is_empty() || args.skip.iter().any(|name| name.trim() == "check") {
            return Err(CliError::usage(
                "--baseline and --write-baseline need the check part: name it in --only (or do not skip it)",
            ));
        }
        let at = parts
            .iter()
            .position(|part| *part > Part::Check)
            .unwrap_or(parts.len());
        parts.insert(at, Part::Check);
    }
    Ok(parts)
}

/// `cluster --plan`: what a run on `--hosts N` hosts costs, without MPI.
fn plan(args: &ClusterArgs) -> Result<Status, CliError> {
    use numabench::cluster::{
        pingpong_cost, ClusterPlan, Part, ASSUMED_LINK_BYTES_PER_SECOND,
        ASSUMED_LINK_LATENCY_SECONDS, PINGPONG_BUDGET_SECONDS,
    };
    let parts = parts(args)?;
    let hosts = args
        .hosts
        .ok_or_else(|| CliError::usage("cluster --plan needs --hosts N: the hosts to plan for"))?
        as usize;
    let message_bytes = pingpong_bytes(args.pingpong_size)?;
    let cost = pingpong_cost(
        hosts,
        message_bytes,
        args.repeat as usize,
        LATENCY_ROUND_TRIPS,
        bandwidth_round_trips(message_bytes),
    );
    let pingpong = parts.contains(&Part::Pingpong);
    let rounds = match args.pairing {
        PairingArg::Auto => cost.over_budget,
        PairingArg::Serial => false,
        PairingArg::Rounds => true,
    };
    if args.output.json {
        crate::plan::print_json(&ClusterPlan::new(
            hosts,
            &parts,
            args.sequential,
            cost,
            rounds,
        ));
        return Ok(Status::Clean);
    }
    let names: Vec<&str> = parts.iter().map(|part| part.name()).collect();
    println!(
        "cluster plan for {hosts} host(s): parts {}",
        names.join(", ")
    );
    if parts.contains(&Part::Check) {
        println!(
            "check part: at most {:.0} s a host, and again for each suspect (`numabench check --plan`:\n  its baseline entry's plan, else check's own; --size sets every working set)",
            numabench::check::DEFAULT_BUDGET_SECONDS
        );
    }
    let host_parts = parts.iter().any(|&part| part != Part::Pingpong);
    if host_parts {
        if args.sequential {
            println!(
                "host parts: one host after another (--sequential): {hosts} x one host's time"
            );
        } else {
            println!("host parts: every host at once: about one host's time");
        }
    }
    if !pingpong {
        return Ok(Status::Clean);
    }
    println!(
        "ping-pong, every pair one at a time: {} pair(s); {:.0} MiB a pair, about {:.2} s a pair at an assumed {:.2} GB/s and {:.0} us: about {}",
        cost.pairs,
        cost.bytes_per_pair / f64::from(1u32 << 20),
        cost.seconds_per_pair,
        ASSUMED_LINK_BYTES_PER_SECOND / 1e9,
        ASSUMED_LINK_LATENCY_SECONDS * 1e6,
        duration(cost.seconds)
    );
    if rounds {
        println!(
            "ping-pong as run (--pairing {}): {} rounds of disjoint pairs at once, about {}, then each suspect measured again with 2 fresh partners, one pair at a time (about {} a suspect)",
            if args.pairing == PairingArg::Auto { "auto: serial pairs are over the budget of 10 min" } else { "rounds" },
            cost.rounds,
            duration(cost.rounds_seconds),
            duration(2.0 * cost.seconds_per_pair)
        );
    } else if cost.over_budget {
        println!(
            "warning: the ping-pong is over the budget of {} ({}) with --pairing serial; {} rounds of disjoint pairs (--pairing auto or rounds) would take about {}",
            duration(PINGPONG_BUDGET_SECONDS),
            duration(cost.seconds),
            cost.rounds,
            duration(cost.rounds_seconds)
        );
    }
    Ok(Status::Clean)
}

/// Round trips per ping-pong latency sample.
const LATENCY_ROUND_TRIPS: usize = 1000;

/// Round trips per ping-pong bandwidth sample: about 64 MiB each way.
fn bandwidth_round_trips(message_bytes: usize) -> usize {
    (64 << 20) / message_bytes.max(1) + 1
}

/// Seconds in words: `42 s`, `12 min`, `1.5 h`.
fn duration(seconds: f64) -> String {
    if seconds < 120.0 {
        format!("{seconds:.1} s")
    } else if seconds < 7200.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

/// What a numabench built without the `mpi` feature says (`--plan` works).
#[cfg(not(feature = "mpi"))]
pub fn run(args: &ClusterArgs) -> Result<Status, CliError> {
    if args.planning.plan {
        return plan(args);
    }
    Err(CliError::usage(
        "this numabench was built without MPI: build it with `cargo build --release -p numabench-cli --features mpi` (needs OpenMPI and libclang) to run cluster",
    ))
}

#[cfg(feature = "mpi")]
pub use with_mpi::run;

#[cfg(feature = "mpi")]
mod with_mpi {
    use super::super::measuring::{pipeline_with_view, this_machine};
    use super::drain_text;
    use super::{bandwidth_round_trips, parts, plan, LATENCY_ROUND_TRIPS};
    use crate::args::{ClusterArgs, PairingArg, PerArg};
    use crate::exit::{CliError, Status};
    use crate::tables::StdoutView;
    use numabench::bench::{check_node_memory_fits, Context};
    use numabench::check::{Baseline, Tolerances};
    use numabench::cluster::{ClusterConfig, ClusterSession, OutlierRule, Pairing, Per};
    use numabench::topology::memory_nodes;

    /// Flags into a configuration; nothing has started yet.
    fn validate(args: &ClusterArgs, context: &Context) -> Result<ClusterConfig, CliError> {
        let parts = parts(args)?;
        let baseline = match &args.baseline {
            Some(path) => Some(Baseline::read(path)?),
            None => None,
        };
        if let Some(size) = args.size {
            let nodes = memory_nodes(&context.topology);
            // The nodes' memory only: a rank whose own memory limit cannot
            // hold the size fails its parts when they place their buffers,
            // named by rank 0, rather than ending the whole job here.
            check_node_memory_fits(&context.topology, &nodes, size)?;
        }
        if args.timeout < std::time::Duration::from_secs(1) {
            return Err(CliError::usage(format!(
                "--timeout {:?} is under a second: a rank measuring would be left behind (write e.g. 600s)",
                args.timeout
            )));
        }
        let pingpong_bytes = super::pingpong_bytes(args.pingpong_size)?;
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
            latency_round_trips: LATENCY_ROUND_TRIPS,
            bandwidth_round_trips: bandwidth_round_trips(pingpong_bytes),
            pairing: match args.pairing {
                PairingArg::Auto => Pairing::Auto,
                PairingArg::Serial => Pairing::Serial,
                PairingArg::Rounds => Pairing::Rounds,
            },
            baseline,
        })
    }

    /// Rank 0, after the verdict: the baseline of every node type measured,
    /// added to `baseline` and written; one line says what was written.
    fn write_baseline(
        path: &std::path::Path,
        mut baseline: Baseline,
        records: &[numabench::output::Record],
        tolerances: &Tolerances,
        verdict: &numabench::cluster::ClusterVerdict,
    ) -> Result<String, CliError> {
        let entries = numabench::cluster::baseline_from_records(records, tolerances)?;
        let mut text = String::new();
        for entry in entries {
            text.push_str(&format!(
                "baseline for {}: {} metric(s), the medians of {} host(s): {}\n",
                entry.fingerprint.node_type(),
                entry.metrics.len(),
                entry.written.runs,
                entry.written.host
            ));
            baseline.put(entry);
        }
        let flagged: Vec<String> = verdict
            .drain_reasons()
            .into_iter()
            .map(|(host, _)| host)
            .collect();
        if !flagged.is_empty() {
            text.push_str(&format!(
                "warning: flagged hosts are among those the medians were taken over: {}\n",
                flagged.join(", ")
            ));
        }
        // Its place was found writable before the run (`baseline_to_extend`):
        // failing now is the system's fault, not the user's.
        baseline.write(path).map_err(CliError::system)?;
        text.push_str(&format!("wrote {}\n", path.display()));
        Ok(text)
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
        if args.planning.plan {
            return plan(args);
        }
        let mut context = Context::new(this_machine()?);
        context.repeat = args.repeat as usize;
        context.hugepages = args.hugepages;
        let config = validate(args, &context)?;
        let tolerances = super::super::check::parse_tolerances(&args.tolerance)?;
        let session = ClusterSession::start()?;
        let mut outputs = None;
        let mut to_write = None;
        if session.rank() == 0 {
            if let Some(path) = &args.write_baseline {
                match super::super::check::baseline_to_extend(path) {
                    Ok(baseline) => to_write = Some((path, baseline)),
                    Err(error) => {
                        crate::exit::error_line(error.message());
                        session.abort(2);
                    }
                }
            }
            match pipeline_with_view(&args.output, &context, StdoutView::Quiet) {
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
        let outcome = session.run(&context, &config, outputs.as_mut())?;
        let Some(verdict) = outcome.verdict else {
            return Ok(Status::Clean);
        };
        if let Some(mut outputs) = outputs {
            outputs.finish()?;
        }
        let mut text = verdict.render_text();
        text.push_str(&drain_text(args, &verdict));
        if let Some((path, baseline)) = to_write {
            text.push_str(&write_baseline(
                path,
                baseline,
                &outcome.records,
                &tolerances,
                &verdict,
            )?);
        }
        // The host table last: flagged hosts first, a column per metric.
        let hosts = numabench::cluster::host_table(&outcome.records, &verdict);
        text.push('\n');
        text.push_str(&crate::tables::render(
            &hosts,
            crate::tables::terminal_width(),
        ));
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
        Ok(if verdict.problems() == 0 {
            Status::Clean
        } else {
            Status::Warnings
        })
    }
}

/// The flagged hosts as drain commands ready to run, or with `--drain` what
/// was done to each (a host Slurm does not know, or a failed scontrol, is
/// said and the others are still drained).
#[cfg(feature = "mpi")]
fn drain_text(args: &ClusterArgs, verdict: &numabench::cluster::ClusterVerdict) -> String {
    use numabench::check::slurm;
    let reasons = verdict.drain_reasons();
    if reasons.is_empty() {
        return String::new();
    }
    let mut text = String::new();
    if !args.drain {
        text.push_str("to drain the flagged hosts (or run with --drain):\n");
        for (host, reason) in &reasons {
            let reason = slurm::reason_for(reason).replace('"', "'");
            text.push_str(&format!(
                "  scontrol update NodeName={host} State=DRAIN Reason=\"{reason}\"\n"
            ));
        }
        return text;
    }
    for (host, reason) in &reasons {
        let done = slurm::node_for_host(host)
            .and_then(|node| slurm::drain(&node, reason).map(|action| action.describe(&node)));
        match done {
            Ok(done) => text.push_str(&format!("{done}\n")),
            Err(error) => text.push_str(&format!("not drained: {host}: {error}\n")),
        }
    }
    text
}

/// `--pingpong-size` as a message size: 8 bytes to 1 GiB.
fn pingpong_bytes(size: u64) -> Result<usize, CliError> {
    usize::try_from(size)
        .ok()
        .filter(|&bytes| (8..=1 << 30).contains(&bytes))
        .ok_or_else(|| {
            CliError::usage(format!(
                "--pingpong-size {size} must be between 8 bytes and 1 GiB"
            ))
        })
}
