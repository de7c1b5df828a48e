//! `numabench placement-study`.

use super::app::{app_plan, base_threads, validate_placement};
use super::measuring::{bench_error, context, pipeline};
use super::stream::stream_elements;
use crate::args::PlacementStudyArgs;
use crate::exit::{CliError, Status};
use crate::plan::print_plan;
use crate::progress::Progress;
use numabench::apps::{
    placement_note, render_study, run_placement_study, AppChoice, AppRunConfig, NpbClass,
    PlacementScheme, ThreadScheme,
};

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
    let context = context(&crate::args::RunArgs {
        repeat: args.repeat,
        hugepages: args.hugepages,
        plan: args.plan,
    })?;
    let topology = &context.topology;
    let mut placements = crate::args::all_items(&args.placements);
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
    for placement in &placements {
        for &thread_scheme in &thread_schemes {
            grid.push(AppRunConfig {
                threads: base_threads,
                thread_scheme,
                placement: placement.clone(),
                threads_per_cpu: 1,
                repeat: args.repeat as usize,
                placement_threshold: context.placement_threshold,
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
            hugepages: args.hugepages,
        });
    }
    if args.plan {
        let plan: Vec<_> = grid
            .iter()
            .map(|config| app_plan(topology, &choice, config))
            .collect();
        print_plan(topology, &plan, args.output.json);
        return Ok(Status::Clean);
    }
    let mut pipeline = pipeline(&args.output, &context)?;
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
