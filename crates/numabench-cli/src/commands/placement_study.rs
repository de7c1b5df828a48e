//! `numabench placement-study`.

use super::app::{app_plan, base_threads, validate_placement};
use super::app_budget::{fit_app_plan, say_cuts};
use super::measuring::{context_of, pipeline_with_view};
use super::stream::stream_elements;
use crate::args::PlacementStudyArgs;
use crate::exit::{CliError, Status};
use crate::progress::Progress;
use crate::tables::StdoutView;
use numabench::bench::PlanDocument;
use numabench::experiments::AppRunConfig;
use numabench::experiments::{
    render_study, run_placement_study, run_study_baselines, study_baselines, study_grid,
    study_placements, StudyGrid, StudyGridRequest,
};
use numabench::runtime::PlacementScheme;
use numabench::workloads::{AppChoice, NpbClass};

/// The fewest runs per configuration `--budget` may leave a study: its
/// point is the runs' spread, which 3 runs barely show.
const STUDY_RUNS_FLOOR: usize = 5;

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
                elements: stream_elements(
                    args.size,
                    args.planning.plan,
                    args.planning.topology.as_deref(),
                )?,
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
    let context = context_of(args.repeat, args.hugepages, &args.planning)?;
    let topology = &context.topology;
    let placements = study_placements(crate::args::all_items(&args.placements), args.node_splits);
    let base_threads = base_threads(topology, args.threads, "--oversubscribe")?;
    let StudyGrid {
        configurations: mut grid,
        splits,
    } = study_grid(
        topology,
        &StudyGridRequest {
            placements,
            thread_schemes: args.threads_placements.clone(),
            node_splits: args.node_splits.then_some(args.max_splits as usize),
            oversubscribe: args.oversubscribe.iter().map(|&k| k as usize).collect(),
            threads: base_threads,
            repeat: args.repeat as usize,
            placement_threshold: context.placement_threshold,
            hugepages: args.hugepages,
        },
    )?;
    let plan_of = |choice: &AppChoice, grid: &[AppRunConfig]| {
        let mut plan: Vec<_> = grid
            .iter()
            .map(|config| app_plan(topology, choice, config))
            .collect();
        if args.baseline.is_some() {
            for config in study_baselines(topology, grid) {
                plan.extend(super::baseline::baseline_plan(topology, choice, &config));
            }
        }
        plan
    };
    // Fitted into --budget: fewer runs (not below STUDY_RUNS_FLOOR), then
    // smaller STREAM arrays; every configuration stays.
    let (choice, repeat, outcome) = fit_app_plan(
        topology,
        args.budget,
        choice,
        args.repeat as usize,
        STUDY_RUNS_FLOOR,
        &plan_of(&choice, &grid),
    );
    for config in &mut grid {
        config.repeat = repeat;
    }
    // Each placement once (the grid repeats it per thread scheme).
    let mut checked: Vec<&PlacementScheme> = Vec::new();
    for placement in grid.iter().map(|config| &config.placement) {
        if !checked.contains(&placement) {
            validate_placement(topology, placement, choice.memory_bytes())?;
            checked.push(placement);
        }
    }
    if args.planning.plan {
        let plan = plan_of(&choice, &grid);
        match (&splits, args.output.json) {
            (Some(splits), true) => crate::plan::print_json(&PlanDocument {
                node_splits: Some(splits.plan(base_threads)),
                budget: Some(outcome),
                ..PlanDocument::new(&topology.source, plan)
            }),
            (Some(splits), false) => {
                print!("{}", crate::split_plan::splits_text(base_threads, splits));
                crate::plan::print_budgeted_plan(topology, &plan, Some(&outcome), false);
            }
            (None, json) => crate::plan::print_budgeted_plan(topology, &plan, Some(&outcome), json),
        }
        return Ok(Status::Clean);
    }
    say_cuts(&outcome);
    let mut pipeline = pipeline_with_view(&args.output, &context, StdoutView::Quiet)?;
    if args.baseline.is_some() {
        run_study_baselines(topology, &choice, &mut grid)?;
    }
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
    )?;
    pipeline.finish()?;
    if !args.output.json {
        print!("{}", render_study(choice.name(), &rows));
    }
    Ok(if rows.iter().all(|row| row.summary.all_verified) {
        Status::Clean
    } else {
        Status::Warnings
    })
}
