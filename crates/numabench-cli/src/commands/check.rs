//! `numabench check`: a node health check against a baseline. Healthy:
//! nothing printed, status 0; problems: one line each, status 1; could not
//! check: one line, status 2 (NHC's and node-problem-detector's contract).

use crate::args::{CheckArgs, CheckFormat};
use crate::exit::{CliError, Status};
use numabench::bench::Context;
use numabench::check::{
    figure, measure_baseline, node_type_record, outcome_record, plan_check, run_check, slurm,
    this_node_fingerprint, with_repeat, with_size, Baseline, BaselineEntry, CheckPlan,
    CheckPlanEntry, CheckReport, Fingerprint, Problem, Tolerances, Written,
};
use numabench::doctor::{run_doctor, SystemFiles};
use numabench::interrupt::install_interrupt_handler;
use numabench::kernels::SimdLevel;
use numabench::output::{CollectRunMetadata, OutputConfig, Pipeline, RunMetadata};
use numabench::topology::{Machine, Purpose};
use std::path::Path;
use std::time::Instant;

/// The most a check's measurements take with their retries: Slurm ends a
/// health check program at 60 s, and draining (scontrol) comes after.
const DEADLINE_SECONDS: f64 = 50.0;

pub fn run(args: &CheckArgs) -> Result<Status, CliError> {
    let tolerances = parse_tolerances(&args.tolerance)?;
    if args.planning.plan {
        return plan(args, args.planning.topology.as_deref());
    }
    let format = if args.json {
        CheckFormat::Json
    } else {
        args.format
    };
    if let Some(path) = &args.write_baseline {
        return write_baseline(args, path, &tolerances);
    }
    let path = args.baseline.as_deref().expect("clap requires --baseline");
    match check(args, path, format) {
        Err(error) => {
            let message = error.message().to_string();
            if format == CheckFormat::Npd {
                println!("numabench: cannot check: {message}");
            }
            // Could not check: status 2, whoever is at fault.
            Err(CliError::usage(format!("cannot check: {message}")))
        }
        ok => ok,
    }
}

/// `--tolerance bandwidth=8%,latency=15%,node1.triad_bandwidth=6%`.
pub(crate) fn parse_tolerances(specs: &[String]) -> Result<Tolerances, CliError> {
    let mut tolerances = Tolerances::default();
    for spec in specs {
        let bad = || {
            CliError::usage(format!(
                "--tolerance '{spec}': expected KIND=PERCENT (bandwidth=8%, latency=15%, node1.triad_bandwidth=6%), a bandwidth's under 100%"
            ))
        };
        let (kind, percent) = spec.split_once('=').ok_or_else(bad)?;
        let Ok(number) = percent.trim().trim_end_matches('%').parse::<f64>() else {
            return Err(bad());
        };
        // A bandwidth can fall by less than all of it; a latency can grow by any factor.
        let kind = kind.trim();
        let latency = kind == "latency" || kind.contains(".latency");
        if !(number > 0.0 && (number < 100.0 || latency && number <= 100_000.0)) {
            return Err(bad());
        }
        let fraction = number / 100.0;
        match kind {
            "bandwidth" => tolerances.bandwidth = Some(fraction),
            "latency" => tolerances.latency = Some(fraction),
            key if key.starts_with("node") && key.contains('.') => {
                tolerances.by_key.insert(key.to_string(), fraction);
            }
            _ => return Err(bad()),
        }
    }
    Ok(tolerances)
}

/// `--budget`: seconds, 1 s to 50 s.
fn budget_seconds(args: &CheckArgs) -> Result<f64, CliError> {
    let text = args.budget.trim();
    let number = text.strip_suffix('s').unwrap_or(text);
    match number.parse::<f64>() {
        Ok(seconds) if (1.0..=DEADLINE_SECONDS).contains(&seconds) => Ok(seconds),
        _ => Err(CliError::usage(format!(
            "--budget '{}': a check's budget is 1s to {DEADLINE_SECONDS:.0}s (Slurm ends a health check at 60 s)",
            args.budget
        ))),
    }
}

fn plan(args: &CheckArgs, topology_file: Option<&Path>) -> Result<Status, CliError> {
    let plans: Vec<(String, CheckPlan)> = match &args.baseline {
        Some(path) => {
            let baseline = Baseline::read(path)?;
            baseline
                .entries
                .into_iter()
                .map(|entry| (entry.fingerprint.node_type(), entry.plan))
                .collect()
        }
        None => {
            let topology = super::topology_source::topology_for(topology_file, Purpose::Describe)?;
            let mut plan = plan_check(&topology, budget_seconds(args)?);
            if let Some(size) = args.size {
                plan = with_size(plan, &topology, size);
            }
            if args.repeat as usize != plan.repeat {
                plan = with_repeat(plan, args.repeat as usize);
            }
            vec![(
                format!("{} ({})", topology.source, summary(&topology)),
                plan,
            )]
        }
    };
    if args.json || args.format == CheckFormat::Json {
        let entries: Vec<CheckPlanEntry> = plans
            .into_iter()
            .map(|(node_type, plan)| CheckPlanEntry { node_type, plan })
            .collect();
        crate::plan::print_json(&entries);
        return Ok(Status::Clean);
    }
    for (what, plan) in &plans {
        println!("check plan for {what}:");
        print!("{}", plan_table(plan));
        println!(
            "{} metric(s), {} repetitions each, about {:.1} s (budget {:.0} s; retries of failing metrics stop before {DEADLINE_SECONDS:.0} s)",
            plan.items.len(),
            plan.repeat,
            plan.estimated_seconds,
            plan.budget_seconds
        );
        if plan.items.iter().any(|item| item.cache_affected) {
            println!("(cache): a working set under twice the memory-side cache in front of its node, which this budget cannot fill: the figure is partly that cache's");
        }
    }
    Ok(Status::Clean)
}

fn summary(topology: &Machine) -> String {
    format!(
        "{} package(s), {} CPU(s), {} NUMA node(s)",
        topology.packages.len(),
        topology.cpu_count,
        topology.node_count
    )
}

/// The plan as a table: metric, CPUs, working set, estimate.
fn plan_table(plan: &CheckPlan) -> String {
    let mut rows = vec![[
        "metric".to_string(),
        "CPUs".to_string(),
        "working set".to_string(),
        "estimate".to_string(),
    ]];
    for item in &plan.items {
        rows.push([
            item.key.clone(),
            numabench::parse::format_id_list(&item.cpus),
            if item.cache_affected {
                format!("{} (cache)", numabench::units::format_bytes(item.size))
            } else {
                numabench::units::format_bytes(item.size)
            },
            format!("{:.2} s", numabench::check::item_seconds(item, plan.repeat)),
        ]);
    }
    let widths: Vec<usize> = (0..4)
        .map(|column| {
            rows.iter()
                .map(|row| row[column].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut text = String::new();
    for row in rows {
        text.push_str(&format!(
            "  {:<w0$}  {:<w1$}  {:>w2$}  {:>w3$}\n",
            row[0],
            row[1],
            row[2],
            row[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3]
        ));
    }
    text
}

/// This node's topology, fingerprint and the context checks measure with:
/// the plain loops at this CPU's widest SIMD level (no calibration, so a
/// baseline and every later check run the same instructions).
fn this_node() -> Result<(Context, Fingerprint), CliError> {
    let topology = super::measuring::this_machine()?;
    let doctor = run_doctor(&SystemFiles::real(), &topology);
    let fingerprint = this_node_fingerprint(&topology, &doctor);
    let mut context = Context::new(topology);
    context.simd = Some(SimdLevel::detect());
    context.fixed_repetitions = true;
    install_interrupt_handler();
    Ok((context, fingerprint))
}

/// `--write-baseline FILE`, before anything is measured: an existing file
/// must be a baseline (it is added to, never clobbered), and the place
/// must be writable.
pub(crate) fn baseline_to_extend(path: &Path) -> Result<Baseline, CliError> {
    let baseline = if path.exists() {
        Baseline::read(path)?
    } else {
        Baseline::new()
    };
    let probe = path.with_extension("tmp-numabench");
    std::fs::write(&probe, b"")
        .and_then(|_| std::fs::remove_file(&probe))
        .map_err(|error| {
            CliError::usage(format!("--write-baseline {}: {error}", path.display()))
        })?;
    Ok(baseline)
}

fn write_baseline(
    args: &CheckArgs,
    path: &Path,
    tolerances: &Tolerances,
) -> Result<Status, CliError> {
    let budget = budget_seconds(args)?;
    let mut baseline = baseline_to_extend(path)?;
    let _lock = numabench::check::lock_checks()?;
    let (mut context, fingerprint) = this_node()?;
    let mut plan = plan_check(&context.topology, budget);
    if let Some(size) = args.size {
        numabench::bench::check_memory_fits(
            &context.topology,
            &numabench::topology::memory_nodes(&context.topology),
            size,
        )?;
        plan = with_size(plan, &context.topology, size);
    }
    if args.repeat as usize != plan.repeat {
        plan = with_repeat(plan, args.repeat as usize);
    }
    context.repeat = plan.repeat;
    let written = Written::now(args.runs as usize);
    eprintln!(
        "numabench: measuring {} metric(s) {} times (about {:.0} s)",
        plan.items.len(),
        args.runs,
        plan.estimated_seconds * args.runs as f64
    );
    let entry = measure_baseline(
        &context,
        &plan,
        args.runs as usize,
        tolerances,
        fingerprint,
        written,
        &mut |_, _, _| {},
    )?;
    print_entry(&entry);
    baseline.put(entry);
    baseline.write(path)?;
    println!("wrote {}", path.display());
    Ok(Status::Clean)
}

fn print_entry(entry: &BaselineEntry) {
    println!("baseline for {}:", entry.fingerprint.node_type());
    for item in &entry.plan.items {
        let reference = &entry.metrics[&item.key];
        println!(
            "  {:<30} {:>12}  tolerance {:>5}  (runs within {:.1}%)",
            item.key,
            figure(reference.value, item.quantity),
            reference.tolerance_text(),
            reference.spread.unwrap_or(0.0) * 100.0
        );
    }
}

fn check(args: &CheckArgs, path: &Path, format: CheckFormat) -> Result<Status, CliError> {
    let started = Instant::now();
    let baseline = Baseline::read(path)?;
    let _lock = numabench::check::lock_checks()?;
    let (mut context, fingerprint) = this_node()?;
    let entry = baseline.entry_for(&fingerprint).ok_or_else(|| {
        CliError::usage(numabench::check::BaselineError::NoEntry {
            path: path.display().to_string(),
            node_type: fingerprint.node_type(),
            held: baseline.held(),
        })
    })?;
    for item in &entry.plan.items {
        if let Some(cpu) = item
            .cpus
            .iter()
            // Online but not allowed (a cpuset, an affinity): run outside
            // jobs. An offline CPU is the check's to report.
            .find(|&&cpu| {
                context.topology.node_of_cpu(cpu).is_some()
                    && !context.topology.allowed.cpus.contains(&cpu)
            })
        {
            return Err(CliError::usage(format!(
                "{} needs CPU {cpu}, which this process may not use (cpuset or affinity): run the check outside jobs",
                item.key
            )));
        }
    }
    context.repeat = entry.plan.repeat;
    let mut pipeline = records_pipeline(args, format, &context)?;
    let deadline = started + std::time::Duration::from_secs_f64(DEADLINE_SECONDS);
    let report = run_check(
        &context,
        entry,
        &fingerprint,
        args.retries as usize,
        deadline,
        &mut |outcome| {
            if let Some(pipeline) = pipeline.as_mut() {
                let _ = pipeline.emit(&outcome_record(outcome));
            }
        },
    )?;
    if let Some(pipeline) = pipeline.as_mut() {
        pipeline
            .emit(&node_type_record(&report.differences))
            .and_then(|_| pipeline.finish())?;
    }
    if report.interrupted {
        return Err(CliError::system(
            "interrupted before every metric was measured",
        ));
    }
    match format {
        CheckFormat::Nhc => {
            for problem in &report.problems {
                println!("{}", problem.nhc_line());
            }
        }
        CheckFormat::Npd => println!("{}", npd_message(&report)),
        CheckFormat::Json => {}
    }
    // Flushed before scontrol runs: the lines are the check's answer.
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    match slurm_actions(args, &report) {
        Ok(Some(note)) => eprintln!("numabench: {note}"),
        Ok(None) => {}
        // Healthy but not resumed as asked: that is not a clean check.
        Err(error) if report.healthy() => return Err(error),
        Err(error) => crate::exit::error_line(error.message()),
    }
    Ok(if report.healthy() {
        Status::Clean
    } else {
        Status::Warnings
    })
}

/// The records' outputs: `--json` on stdout, `--jsonl FILE`; `None` when
/// neither is asked for.
fn records_pipeline(
    args: &CheckArgs,
    format: CheckFormat,
    context: &Context,
) -> Result<Option<Pipeline>, CliError> {
    let json = format == CheckFormat::Json;
    if !json && args.jsonl.is_none() {
        return Ok(None);
    }
    let config = OutputConfig {
        csv: None,
        delimiter: None,
        jsonl: args.jsonl.clone(),
        json_stdout: json,
        records: false,
    };
    let metadata = RunMetadata::collect(std::env::args().collect(), &context.topology);
    Ok(Some(Pipeline::open(&config, &metadata)?))
}

/// node-problem-detector's one message line.
fn npd_message(report: &CheckReport) -> String {
    match report.problems.as_slice() {
        [] => format!(
            "numabench: {} metric(s) within their baseline",
            report.outcomes.len()
        ),
        [only] => format!("numabench: {}", only.reason()),
        [first, rest @ ..] => format!("numabench: {} (and {} more)", first.reason(), rest.len()),
    }
}

/// `--drain` when unhealthy, `--undrain` when healthy; what was done, in
/// words (on stderr: stdout is the check's).
fn slurm_actions(args: &CheckArgs, report: &CheckReport) -> Result<Option<String>, CliError> {
    let wanted = (args.drain && !report.healthy()) || (args.undrain && report.healthy());
    if !wanted {
        return Ok(None);
    }
    let node = match &args.node_name {
        Some(name) => name.clone(),
        None => slurm::node_name()?,
    };
    let action = match report.problems.first() {
        Some(first) => slurm::drain(&node, &first_reason(first, report.problems.len())),
        None => slurm::undrain(&node),
    }?;
    Ok(Some(action.describe(&node)))
}

/// The drain reason's text: the first problem, and how many others.
fn first_reason(first: &Problem, count: usize) -> String {
    if count > 1 {
        format!("{} (+{} more)", first.reason(), count - 1)
    } else {
        first.reason()
    }
}
