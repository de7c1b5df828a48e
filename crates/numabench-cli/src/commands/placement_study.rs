//! `numabench placement-study`.

use super::app::{base_threads, validate_placement};
use super::measuring::{bench_error, context, pipeline};
use super::stream::stream_elements;
use crate::args::PlacementStudyArgs;
use crate::exit::{CliError, Status};
use crate::progress::Progress;
use numabench::apps::{
    emit_app_records, placement_note, render_study, run_repeated, AppChoice, AppRunConfig,
    NpbClass, PlacementScheme, StudyRow, ThreadScheme,
};
use numabench::bench::interrupted;

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
                elements: stream_elements(args.size)?,
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
        hugepages: false,
    })?;
    let topology = &context.topology;
    let mut placements = args.placements.clone();
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
    let base_threads = base_threads(topology, args.threads);
    let mut grid: Vec<AppRunConfig> = Vec::new();
    for placement in &placements {
        for &thread_scheme in &thread_schemes {
            grid.push(AppRunConfig {
                threads: base_threads,
                thread_scheme,
                placement: placement.clone(),
                threads_per_cpu: 1,
                repeat: args.repeat as usize,
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
        });
    }
    let mut pipeline = pipeline(&args.output, &context)?;
    let mut progress = Progress::new(grid.len());
    let mut rows = Vec::new();
    for config in grid {
        if interrupted() {
            break;
        }
        progress.step(&format!(
            "{} + {} x{}",
            config.placement,
            config.thread_scheme.name(),
            config.threads_per_cpu
        ));
        let runs = run_repeated(topology, &config, &|| choice.make()).map_err(CliError::system)?;
        let class = choice.class().map(|class| class.to_string());
        if let Some(summary) = emit_app_records(
            topology,
            choice.name(),
            class.as_deref(),
            &config,
            &runs,
            &mut pipeline,
        )
        .map_err(CliError::system)?
        {
            rows.push(StudyRow {
                placement: config.placement.clone(),
                thread_scheme: config.thread_scheme,
                threads: config.threads,
                threads_per_cpu: config.threads_per_cpu,
                summary,
            });
        }
    }
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
