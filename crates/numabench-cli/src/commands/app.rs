//! `numabench stream` (and cg, mg): one kernel, one configuration, repeated.

use super::app_budget::{fit_app_plan, say_cuts};
use super::measuring::{context_of, pipeline};
use crate::args::AppRunArgs;
use crate::exit::{CliError, Status};
use numabench::bench::{app_plan_step, resolve_node_with_memory, BenchError, Context, PlanStep};
use numabench::experiments::{
    emit_app_records, node_split_of_cpus, placement_note, run_repeated, worker_cpus, AppRunConfig,
};
use numabench::runtime::PlacementScheme;
use numabench::topology::Machine;
use numabench::units::format_bytes;
use numabench::workloads::AppChoice;

/// Checks nodes named by the placement and that the arrays fit in the
/// free memory of the nodes they may use and under this process's memory
/// limit, before anything is allocated.
pub fn validate_placement(
    topology: &Machine,
    placement: &PlacementScheme,
    bytes: u64,
) -> Result<(), BenchError> {
    numabench::bench::check_within_memory_limit(topology, bytes)?;
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
    topology: &Machine,
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
    let base =
        match (&args.cpus, &args.threads) {
            (Some(cpus), threads) => {
                let single =
                    match threads {
                        Some(counts) if counts.0.len() > 1 => {
                            return Err(CliError::usage(format!(
                        "--threads {}: --cpus takes one thread count (its length), not a list",
                        counts.0.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
                    )))
                        }
                        Some(counts) => Some(u32::try_from(counts.0[0]).unwrap_or(u32::MAX)),
                        None => None,
                    };
                crate::cpu_sequence::check_cpus(&context.topology, &cpus.0, single)?
            }
            (None, Some(counts)) => {
                super::app_scaling::checked_threads(&context.topology, counts.0[0])?
            }
            (None, None) => base_threads(&context.topology, None, "--threads-per-core")?,
        };
    Ok(run_config_for(context, args, base))
}

/// The run configuration from the flags with `base` threads (before
/// over-decomposition).
pub fn run_config_for(context: &Context, args: &AppRunArgs, base: usize) -> AppRunConfig {
    let per_cpu = args.threads_per_core as usize;
    AppRunConfig {
        threads: base * per_cpu,
        thread_scheme: args.threads_placement,
        placement: args.placement.clone(),
        threads_per_cpu: per_cpu,
        repeat: args.repeat as usize,
        placement_threshold: context.placement_threshold,
        cpus: args.cpus.as_ref().map(|cpus| cpus.0.clone()),
        one_node_baseline: None,
        hugepages: args.hugepages,
    }
}

/// The plan of an application run: its workers' CPUs in the thread
/// scheme's order or the explicit ones (the team's own
/// [`AppRunConfig::worker_cpus`]), the nodes its placement
/// puts the arrays on, their bytes, the runs.
pub fn app_plan(topology: &Machine, choice: &AppChoice, config: &AppRunConfig) -> PlanStep {
    let cpus: Vec<u32> = config.worker_cpus(topology).into_iter().flatten().collect();
    let mem_nodes = match config.placement.memory_policy() {
        Some(policy) if !policy.nodes.is_empty() => policy.nodes.clone(),
        // First touch and the like: the workers' nodes (unpinned: any CPU node);
        // serial: the node of worker 0, which touches every page.
        _ if cpus.is_empty() => numabench::topology::cpu_nodes(topology),
        _ if config.placement == PlacementScheme::Serial => {
            topology.node_of_cpu(cpus[0]).into_iter().collect()
        }
        _ => topology.nodes_of_cpus(&cpus),
    };
    let class = choice
        .class()
        .map_or(String::new(), |class| format!(" class {class}"));
    app_plan_step(
        topology,
        choice.name(),
        format!(
            "{}{class}, {} threads {}, {}{}",
            choice.name(),
            config.threads,
            match &config.cpus {
                Some(_) => format!(
                    "on chosen CPUs (node split {})",
                    node_split_of_cpus(topology, &worker_cpus(topology, config))
                        .unwrap_or_default()
                ),
                None => config.thread_scheme.name().to_string(),
            },
            config.placement,
            match config.hugepages {
                true =>
                    ", huge pages (hugetlbfs pools where every node holds the arrays, else THP)",
                false => "",
            }
        ),
        config.threads,
        cpus,
        config
            .cpus
            .is_none()
            .then(|| config.thread_scheme.cpu_order())
            .flatten(),
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
    let context = context_of(args.repeat, args.hugepages, &args.planning)?;
    let topology = &context.topology;
    let mut config = run_config(&context, args)?;
    if let Some(counts) = super::app_scaling::scaling_counts(topology, args)? {
        if args.baseline.is_some() {
            return Err(CliError::usage(
                "--baseline one-node with several thread counts: run the baseline per count (one --threads N each)".to_string(),
            ));
        }
        return super::app_scaling::run_scaling(&context, choice, args, output, &counts);
    }
    // The plan, fitted into --budget: fewer runs, then smaller STREAM arrays.
    let mut steps = vec![app_plan(topology, &choice, &config)];
    let baseline = match args.baseline {
        Some(_) => super::baseline::baseline_plan(topology, &choice, &config),
        None => None,
    };
    steps.extend(baseline.clone());
    let (choice, runs, outcome) = fit_app_plan(
        topology,
        args.budget,
        choice,
        config.repeat,
        numabench::bench::REPEAT_FLOOR,
        &steps,
    );
    config.repeat = runs;
    validate_placement(topology, &config.placement, choice.memory_bytes())?;
    if args.planning.plan {
        let mut steps = vec![app_plan(topology, &choice, &config)];
        if baseline.is_some() {
            steps.extend(super::baseline::baseline_plan(topology, &choice, &config));
        }
        crate::plan::print_budgeted_plan(topology, &steps, Some(&outcome), output.json);
        return Ok(Status::Clean);
    }
    say_cuts(&outcome);
    if let Some(note) = placement_note(&config.placement) {
        eprintln!("numabench: note: {note}");
    }
    let mut pipeline = pipeline(output, &context)?;
    let runs = if args.baseline.is_some() {
        let (runs, baseline) =
            numabench::experiments::run_with_one_node_baseline(topology, &config, &|| {
                choice.make()
            })?;
        config.one_node_baseline = Some(baseline);
        runs
    } else {
        run_repeated(topology, &config, &|| choice.make())?
    };
    let class = choice.class().map(|class| class.to_string());
    let summary = emit_app_records(
        topology,
        choice.name(),
        class.as_deref(),
        &config,
        &runs,
        &mut pipeline,
    )?;
    pipeline.finish()?;
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
