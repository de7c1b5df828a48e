//! `numabench placement-study`.

use super::app::{app_plan, base_threads, validate_placement};
use super::measuring::{bench_error, context, pipeline_with_view};
use super::stream::stream_elements;
use crate::args::PlacementStudyArgs;
use crate::exit::{CliError, Status};
use crate::plan::print_plan;
use crate::progress::Progress;
use crate::tables::StdoutView;
use numabench::apps::{
    one_node_config, placement_note, render_study, run_placement_study, AppChoice, AppRunConfig,
    NpbClass, PlacementScheme, ThreadScheme,
};
use numabench::topology::Machine;

/// The kernel and its size from `KERNEL`, `--class` and `--size` (a class
/// for STREAM or a size for CG/MG is a usage error, not silently ignored).
fn study_kernel(args: &PlacementStudyArgs) -> Result<AppChoice, CliError> {
    let class = args.class.unwrap_or(NpbClass::W);
    match args.kernel.as_str() {
        "stream" => {
            if let Some(class) = args.class {
                return Err(CliError::usage(format!(
                    "--class {class} applies to cg and mg, not stream (use --size)"
                )));
            }
            Ok(AppChoice::Stream {
                elements: stream_elements(args.size, args.plan)?,
                iterations: 10,
                simd: None,
            })
        }
        npb => {
            if args.size.is_some() {
                return Err(CliError::usage(format!(
                    "--size applies to stream, not {npb} (use --class)"
                )));
            }
            Ok(match npb {
                "mg" => AppChoice::Mg { class },
                "cg" => AppChoice::Cg { class },
                other => return Err(CliError::usage(format!("unknown kernel '{other}'"))),
            })
        }
    }
}

pub fn run(args: &PlacementStudyArgs) -> Result<Status, CliError> {
    let choice = study_kernel(args)?;
    let context = context(&crate::args::MeasureArgs {
        repeat: args.repeat,
        hugepages: args.hugepages,
        plan: args.plan,
    })?;
    let topology = &context.topology;
    let mut placements = crate::args::all_items(&args.placements);
    if placements.is_empty() && args.node_splits {
        placements = vec![PlacementScheme::FirstTouch];
    }
    if placements.is_empty() {
        placements = PlacementScheme::study_set();
        if placement_note(&PlacementScheme::AutoNuma).is_none() {
            placements.push(PlacementScheme::AutoNuma);
        }
    }
    let thread_schemes = if args.threads_placements.is_empty() {
        vec![
            ThreadScheme::Compact,
            ThreadScheme::Scatter,
            ThreadScheme::Unpinned,
        ]
    } else {
        args.threads_placements.clone()
    };
    for placement in &placements {
        validate_placement(topology, placement, choice.memory_bytes()).map_err(bench_error)?;
    }
    let base_threads = base_threads(topology, args.threads, "--oversubscribe")?;
    let mut grid: Vec<AppRunConfig> = Vec::new();
    let splits = args.node_splits.then(|| {
        numabench::apps::enumerate_node_splits(topology, base_threads, args.max_splits as usize)
    });
    if let Some(splits) = &splits {
        if splits.splits.is_empty() {
            return Err(CliError::usage(format!(
                "--node-splits: no split of {base_threads} threads fits on this machine's nodes"
            )));
        }
    }
    for placement in &placements {
        for split in splits.iter().flat_map(|splits| &splits.splits) {
            grid.push(AppRunConfig {
                threads: base_threads,
                thread_scheme: ThreadScheme::Compact,
                placement: placement.clone(),
                threads_per_cpu: 1,
                repeat: args.repeat as usize,
                placement_threshold: context.placement_threshold,
                cpus: Some(split.cpus.clone()),
                one_node_baseline: None,
                hugepages: args.hugepages,
            });
        }
        if splits.is_some() {
            continue;
        }
        for &thread_scheme in &thread_schemes {
            grid.push(AppRunConfig {
                threads: base_threads,
                thread_scheme,
                placement: placement.clone(),
                threads_per_cpu: 1,
                repeat: args.repeat as usize,
                placement_threshold: context.placement_threshold,
                cpus: None,
                one_node_baseline: None,
                hugepages: args.hugepages,
            });
        }
    }
    for &per_cpu in &args.oversubscribe {
        let per_cpu = per_cpu as usize;
        grid.push(AppRunConfig {
            threads: base_threads * per_cpu,
            thread_scheme: ThreadScheme::Compact,
            placement: PlacementScheme::FirstTouch,
            threads_per_cpu: per_cpu,
            repeat: args.repeat as usize,
            placement_threshold: context.placement_threshold,
            cpus: None,
            one_node_baseline: None,
            hugepages: args.hugepages,
        });
    }
    if args.plan {
        let mut plan: Vec<_> = grid
            .iter()
            .map(|config| app_plan(topology, &choice, config))
            .collect();
        if args.baseline.is_some() {
            for config in study_baselines(topology, &grid) {
                plan.extend(super::baseline::baseline_plan(topology, &choice, &config));
            }
        }
        match (&splits, args.output.json) {
            (Some(splits), true) => {
                let mut document = crate::plan::plan_json(&topology.source, &plan);
                document["node_splits"] = crate::split_plan::splits_json(base_threads, splits);
                println!("{document:#}");
            }
            (Some(splits), false) => {
                print!("{}", crate::split_plan::splits_text(base_threads, splits));
                print_plan(topology, &plan, false);
            }
            (None, json) => print_plan(topology, &plan, json),
        }
        return Ok(Status::Clean);
    }
    let mut pipeline = pipeline_with_view(&args.output, &context, StdoutView::Quiet)?;
    if args.baseline.is_some() {
        for config in study_baselines(topology, &grid) {
            let outcome =
                numabench::apps::run_one_node_baseline(topology, &config, &|| choice.make())
                    .map_err(CliError::system)?;
            for entry in grid.iter_mut() {
                if same_baseline(topology, entry, &config) {
                    entry.one_node_baseline = Some(outcome.clone());
                }
            }
        }
    }
    let repeat = args.repeat as usize;
    let mut progress = Progress::new(grid.len() * repeat);
    let rows = run_placement_study(
        topology,
        &choice,
        &grid,
        repeat,
        &mut pipeline,
        &mut |run, config| {
            progress.step(&format!(
                "run {}/{repeat}, {} + {} x{}",
                run.repetition + 1,
                config.placement,
                config.thread_scheme.name(),
                config.threads_per_cpu
            ))
        },
    )
    .map_err(CliError::system)?;
    pipeline.finish().map_err(CliError::system)?;
    if !args.output.json {
        print!("{}", render_study(choice.name(), &rows));
    }
    Ok(if rows.iter().all(|row| row.summary.all_verified) {
        Status::Clean
    } else {
        Status::Warnings
    })
}

/// The configurations whose one-node baselines the study needs: one per
/// distinct (threads, threads per CPU, first worker's node), each the
/// first of the grid that has it.
fn study_baselines(topology: &Machine, grid: &[AppRunConfig]) -> Vec<AppRunConfig> {
    let mut chosen: Vec<AppRunConfig> = Vec::new();
    for config in grid {
        if !chosen
            .iter()
            .any(|known| same_baseline(topology, known, config))
        {
            chosen.push(config.clone());
        }
    }
    chosen
}

/// Whether two configurations share their one-node baseline.
fn same_baseline(topology: &Machine, a: &AppRunConfig, b: &AppRunConfig) -> bool {
    let node = |config: &AppRunConfig| {
        one_node_config(topology, config)
            .ok()
            .and_then(|baseline| baseline.cpus)
    };
    a.threads == b.threads && a.threads_per_cpu == b.threads_per_cpu && node(a) == node(b)
}
