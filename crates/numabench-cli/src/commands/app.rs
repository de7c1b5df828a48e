//! `numabench stream` (and cg, mg): one kernel, one configuration, repeated.

use super::measuring::{context, pipeline};
use crate::args::AppRunArgs;
use crate::exit::{CliError, Status};
use numabench::apps::plan_cpus;
use numabench::apps::{
    emit_app_records, placement_note, run_repeated, AppChoice, AppRunConfig, PlacementScheme,
};
use numabench::bench::{app_plan_step, resolve_node_with_memory, BenchError, Context, PlanStep};
use numabench::topology::TopologyReport;
use numabench::units::format_bytes;

/// Checks nodes named by the placement and that the arrays fit in the
/// free memory of the nodes they may use, before anything is allocated.
pub fn validate_placement(
    topology: &TopologyReport,
    placement: &PlacementScheme,
    bytes: u64,
) -> Result<(), BenchError> {
    let nodes: Vec<u32> = match placement.memory_policy() {
        Some(policy) if !policy.nodes.is_empty() => policy
            .nodes
            .iter()
            .map(|&node| resolve_node_with_memory(topology, node))
            .collect::<Result<_, _>>()?,
        _ => topology.allowed.nodes.clone(),
    };
    let free: u64 = nodes
        .iter()
        .filter_map(|node| topology.node(*node).and_then(|info| info.memory_free_bytes))
        .sum();
    if free > 0 && bytes > free / 10 * 9 {
        return Err(BenchError::Invalid(format!(
            "this problem needs {} but node(s) {} have {} free",
            format_bytes(bytes),
            numabench::parse::format_id_list(&nodes),
            format_bytes(free)
        )));
    }
    Ok(())
}

/// Worker threads before over-decomposition: `--threads`, or every allowed
/// CPU. More than the allowed CPUs is refused (exit 2) before anything
/// runs: each of the N x K workers (`--threads-per-core K`) must have a CPU
/// to share with at most K-1 others, and a huge N would only fail later,
/// when the threads cannot be started. Over-decomposition on purpose is
/// `--threads-per-core` (or placement-study's `--oversubscribe`).
pub fn base_threads(
    topology: &TopologyReport,
    threads: Option<u32>,
    over_decomposition: &str,
) -> Result<usize, CliError> {
    let allowed = topology.allowed.cpus.len();
    let Some(threads) = threads else {
        return Ok(allowed);
    };
    if threads as usize > allowed {
        return Err(CliError::usage(format!(
            "--threads {threads} is more than the {allowed} allowed CPUs (to run K threads per CPU use {over_decomposition} K)"
        )));
    }
    Ok(threads as usize)
}

/// The run configuration from the flags.
pub fn run_config(context: &Context, args: &AppRunArgs) -> Result<AppRunConfig, CliError> {
    let base = base_threads(&context.topology, args.threads, "--threads-per-core")?;
    let per_cpu = args.threads_per_core as usize;
    Ok(AppRunConfig {
        threads: base * per_cpu,
        thread_scheme: args.threads_placement,
        placement: args.placement.clone(),
        threads_per_cpu: per_cpu,
        repeat: args.repeat as usize,
        placement_threshold: context.placement_threshold,
        hugepages: args.hugepages,
    })
}

/// The plan of an application run: its workers' CPUs in the thread
/// scheme's order (the team's own [`plan_cpus`]), the nodes its placement
/// puts the arrays on, their bytes, the runs.
pub fn app_plan(topology: &TopologyReport, choice: &AppChoice, config: &AppRunConfig) -> PlanStep {
    let cpus: Vec<u32> = plan_cpus(
        topology,
        config.thread_scheme,
        config.threads,
        config.threads_per_cpu,
    )
    .into_iter()
    .flatten()
    .collect();
    let mem_nodes = match config.placement.memory_policy() {
        Some(policy) if !policy.nodes.is_empty() => policy.nodes.clone(),
        // First touch and the like: the workers' nodes (unpinned: any CPU node);
        // serial: the node of worker 0, which touches every page.
        _ if cpus.is_empty() => numabench::bench::cpu_nodes(topology),
        _ if config.placement == PlacementScheme::Serial => {
            topology.node_of_cpu(cpus[0]).into_iter().collect()
        }
        _ => {
            let mut nodes: Vec<u32> = cpus
                .iter()
                .filter_map(|&cpu| topology.node_of_cpu(cpu))
                .collect();
            nodes.sort_unstable();
            nodes.dedup();
            nodes
        }
    };
    let class = choice
        .class()
        .map_or(String::new(), |class| format!(" class {class}"));
    app_plan_step(
        topology,
        choice.name(),
        format!(
            "{}{class}, {} threads {}, {}",
            choice.name(),
            config.threads,
            config.thread_scheme.name(),
            config.placement
        ),
        config.threads,
        cpus,
        config.thread_scheme.cpu_order(),
        mem_nodes,
        choice.memory_bytes(),
        config.repeat,
    )
}

/// Runs the kernel and prints NPB-style lines (unless --json).
pub fn run_app(
    choice: AppChoice,
    args: &AppRunArgs,
    output: &crate::args::OutputArgs,
) -> Result<Status, CliError> {
    let context = context(&crate::args::RunArgs {
        repeat: args.repeat,
        hugepages: args.hugepages,
        plan: args.plan,
    })?;
    let topology = &context.topology;
    let config = run_config(&context, args)?;
    validate_placement(topology, &config.placement, choice.memory_bytes())
        .map_err(super::measuring::bench_error)?;
    if args.plan {
        let step = app_plan(topology, &choice, &config);
        crate::plan::print_plan(topology, &[step], output.json);
        return Ok(Status::Clean);
    }
    if let Some(note) = placement_note(&config.placement) {
        eprintln!("numabench: note: {note}");
    }
    let mut pipeline = pipeline(output, &context)?;
    let runs = run_repeated(topology, &config, &|| choice.make()).map_err(CliError::system)?;
    let class = choice.class().map(|class| class.to_string());
    let summary = emit_app_records(
        topology,
        choice.name(),
        class.as_deref(),
        &config,
        &runs,
        &mut pipeline,
    )
    .map_err(CliError::system)?;
    pipeline.finish().map_err(CliError::system)?;
    let Some(summary) = summary else {
        return Ok(Status::Clean);
    };
    if !output.json {
        let median = runs
            .iter()
            .min_by(|a, b| {
                (a.total_seconds - summary.time.median())
                    .abs()
                    .total_cmp(&(b.total_seconds - summary.time.median()).abs())
            })
            .expect("runs");
        let verification = &median.verification;
        println!();
        println!(" {} Benchmark Completed.", choice.name().to_uppercase());
        if let Some(class) = &class {
            println!(" Class            = {class}");
        }
        println!(
            " Threads          = {} ({}, {})",
            config.threads,
            config.thread_scheme.name(),
            config.placement
        );
        println!(
            " Time in seconds  = {:.6} (median of {})",
            summary.time.median(),
            runs.len()
        );
        println!(
            " Mop/s total      = {:.2}",
            median.operations / summary.time.median() / 1e6
        );
        println!(
            " {:<16} = {:.15e}",
            verification.quantity, verification.computed
        );
        if let Some(reference) = verification.reference {
            println!(" reference        = {reference:.15e}");
        }
        println!(
            " Verification     = {}",
            if summary.all_verified {
                "SUCCESSFUL"
            } else {
                "FAILED"
            }
        );
        println!(
            " VERIFICATION {}",
            if summary.all_verified {
                "SUCCESSFUL"
            } else {
                "FAILED"
            }
        );
    }
    Ok(if summary.all_verified {
        Status::Clean
    } else {
        Status::Warnings
    })
}
