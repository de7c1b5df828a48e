//! `stream`, `cg`, `mg` with `--threads 1,2,4` or `--threads-sweep`:
//! thread-count scaling (numabench::experiments::run_thread_scaling), its plan
//! and its table.

use super::app::{app_plan, base_threads, run_config_for};
use super::measuring::pipeline_with_view;
use crate::args::{AppRunArgs, OutputArgs};
use crate::exit::{CliError, Status};
use crate::progress::Progress;
use crate::tables::StdoutView;
use numabench::bench::{Context, PlanStep};
use numabench::experiments::{
    run_thread_scaling, scaling_configs, scaling_order_name, sweep_counts, AppRunConfig, ScalingRow,
};
use numabench::topology::Machine;
use numabench::workloads::AppChoice;

/// The thread counts of a scaling run (`--threads-sweep`, or a `--threads`
/// list of more than one count), each checked against the allowed CPUs;
/// `None` for a run of one count.
pub fn scaling_counts(
    topology: &Machine,
    args: &AppRunArgs,
) -> Result<Option<Vec<usize>>, CliError> {
    let counts = match (&args.threads, args.threads_sweep) {
        (_, true) => sweep_counts(topology.allowed.cpus.len()),
        (Some(list), false) if list.0.len() > 1 => list.0.clone(),
        _ => return Ok(None),
    };
    for &count in &counts {
        checked_threads(topology, count)?;
    }
    Ok(Some(counts))
}

/// `count` threads, refused (exit 2) when more than the allowed CPUs.
pub fn checked_threads(topology: &Machine, count: usize) -> Result<usize, CliError> {
    match u32::try_from(count) {
        Ok(count) => base_threads(topology, Some(count), "--threads-per-core"),
        Err(_) => Err(CliError::usage(format!(
            "--threads {count} is more than the {} allowed CPUs (to run K threads per CPU use --threads-per-core K)",
            topology.allowed.cpus.len()
        ))),
    }
}

/// The configurations: the flags' run with each count, CPUs cores-first.
fn configs(context: &Context, args: &AppRunArgs, counts: &[usize]) -> Vec<AppRunConfig> {
    let base = run_config_for(context, args, 1);
    scaling_configs(&context.topology, &base, counts)
}

/// Plans, or runs and prints the scaling table (unless --json).
pub fn run_scaling(
    context: &Context,
    choice: AppChoice,
    args: &AppRunArgs,
    output: &OutputArgs,
    counts: &[usize],
) -> Result<Status, CliError> {
    let topology = &context.topology;
    let mut configs = configs(context, args, counts);
    let plan = |choice: &AppChoice, configs: &[AppRunConfig]| -> Vec<PlanStep> {
        configs
            .iter()
            .map(|config| {
                let mut step = app_plan(topology, choice, config);
                step.cpu_order = scaling_order_name(config.thread_scheme).map(Into::into);
                let nodes =
                    numabench::experiments::nodes_used(topology, &config.worker_cpus(topology));
                if let Some(nodes) = nodes {
                    step.label = format!("{}, {nodes} node(s)", step.label);
                }
                step
            })
            .collect()
    };
    // Fitted into --budget: fewer runs, then smaller STREAM arrays.
    let (choice, repeat, outcome) = super::app_budget::fit_app_plan(
        topology,
        args.budget,
        choice,
        args.repeat as usize,
        numabench::bench::REPEAT_FLOOR,
        &plan(&choice, &configs),
    );
    for config in &mut configs {
        config.repeat = repeat;
    }
    super::app::validate_placement(topology, &configs[0].placement, choice.memory_bytes())?;
    if args.planning.plan {
        crate::plan::print_budgeted_plan(
            topology,
            &plan(&choice, &configs),
            Some(&outcome),
            output.json,
        );
        return Ok(Status::Clean);
    }
    super::app_budget::say_cuts(&outcome);
    let mut pipeline = pipeline_with_view(output, context, StdoutView::Quiet)?;
    let mut progress = Progress::new(configs.len() * repeat);
    let rows = run_thread_scaling(
        topology,
        &choice,
        &configs,
        repeat,
        &mut pipeline,
        &mut |repetition, config| {
            progress.step(&format!(
                "run {}/{repeat}, {} threads",
                repetition + 1,
                config.threads
            ))
        },
    )?;
    pipeline.finish()?;
    if !output.json {
        print!("{}", render_scaling(&choice, &configs[0], &rows));
    }
    Ok(if rows.iter().all(|row| row.summary.all_verified) {
        Status::Clean
    } else {
        Status::Warnings
    })
}

/// The compact scaling table: threads, nodes, median time, speedup and
/// parallel efficiency against the smallest count, verification.
fn render_scaling(choice: &AppChoice, config: &AppRunConfig, rows: &[ScalingRow]) -> String {
    let class = choice
        .class()
        .map_or(String::new(), |class| format!(" class {class}"));
    let order = scaling_order_name(config.thread_scheme).unwrap_or("unpinned");
    let mut text = format!(
        "\n {}{class} scaling ({}, CPUs {order}, {}), against {} thread(s):\n",
        choice.name().to_uppercase(),
        config.thread_scheme.name(),
        config.placement,
        rows.first().map_or(0, |row| row.threads)
    );
    text.push_str(&format!(
        " {:>7} {:>5} {:>12} {:>8} {:>10}  verified\n",
        "threads", "nodes", "time (s)", "speedup", "efficiency"
    ));
    for row in rows {
        let nodes = row
            .nodes_used
            .map_or("-".to_string(), |nodes| nodes.to_string());
        text.push_str(&format!(
            " {:>7} {:>5} {:>12.6} {:>8.2} {:>10.2}  {}\n",
            row.threads,
            nodes,
            row.summary.time.median(),
            row.speedup,
            row.parallel_efficiency,
            if row.summary.all_verified {
                "yes"
            } else {
                "FAILED"
            }
        ));
    }
    text
}
