//! `numabench characterize`: topology, then every selected benchmark (the
//! built-ins, then plugins), then a short summary of what this run measured.

use super::measuring::measure_budgeted_steps;
use crate::args::CharacterizeArgs;
use crate::exit::{CliError, Status};
use crate::progress::clock;
use numabench::bench::plugin::{run_plugin, Plugin, PluginRunConfig, PluginRunError};
use numabench::bench::{
    characterize_plan, fit_budget, registry, select, total_seconds, BenchError, BudgetOutcome,
    MatrixCut,
};
use numabench::summary::{budget_sentences, run_time_sentence, summarize, summary_records};
use numabench::threads::CpuOrder;
use numabench::topology::render_table;
use std::cell::{Cell, RefCell};
use std::time::Instant;

/// `characterize`'s plugins stop after an hour, as `plugin --timeout`'s default.
const PLUGIN_TIMEOUT_DEFAULT: std::time::Duration = std::time::Duration::from_secs(3600);

/// Bytes of the buffer a plugin's thread gets under characterize.
const PLUGIN_BYTES: usize = 64 << 20;

/// Splits `--only`/`--skip` names into built-ins and plugins; an unknown
/// name is refused, listing both.
fn split_names<'a>(
    names: &'a [String],
    plugins: &[Plugin],
) -> Result<(Vec<String>, Vec<&'a str>), CliError> {
    let mut builtins = Vec::new();
    let mut plugin_names = Vec::new();
    for name in names {
        if registry().iter().any(|info| info.name == name) {
            builtins.push(name.clone());
        } else if plugins.iter().any(|plugin| plugin.name == *name) {
            plugin_names.push(name.as_str());
        } else {
            let valid: Vec<&str> = registry()
                .iter()
                .map(|info| info.name)
                .chain(plugins.iter().map(|plugin| plugin.name.as_str()))
                .collect();
            return Err(CliError::usage(format!(
                "unknown benchmark '{name}' (valid: {})",
                valid.join(", ")
            )));
        }
    }
    Ok((builtins, plugin_names))
}

/// A seed for the matrix classes' draws when none is given: the clock's
/// nanoseconds, so repeated runs draw different members.
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos() as u64 % 1_000_000)
}

pub fn run(args: &CharacterizeArgs) -> Result<Status, CliError> {
    let plugins = super::plugin::load_plugins(&args.plugin)?;
    let (only_builtins, only_plugins) = split_names(&args.only, &plugins)?;
    let (skip_builtins, skip_plugins) = split_names(&args.skip, &plugins)?;
    let selected_plugins: Vec<&Plugin> = plugins
        .iter()
        .filter(|plugin| args.only.is_empty() || only_plugins.contains(&plugin.name.as_str()))
        .filter(|plugin| !skip_plugins.contains(&plugin.name.as_str()))
        .collect();
    // --only naming plugins alone runs no built-in.
    let no_builtins = !args.only.is_empty() && only_builtins.is_empty();
    if no_builtins && selected_plugins.is_empty() {
        return Err(CliError::usage(
            "--only and --skip leave no benchmark to run",
        ));
    }
    let show_topology = !args.output.json;
    let plugin_failed = Cell::new(false);
    let budget: RefCell<Option<BudgetOutcome>> = RefCell::new(None);
    let started = Cell::new(None::<Instant>);
    let estimated = Cell::new(0.0);
    let status = measure_budgeted_steps(
        &args.run,
        &args.output,
        |context| {
            if no_builtins {
                return Ok(Vec::new());
            }
            let selected = select(&only_builtins, &skip_builtins)
                .map_err(|error| BenchError::Invalid(error.to_string()))?;
            let mut steps = characterize_plan(context, &selected);
            let matrix = match args.full_matrix {
                true => MatrixCut::Never,
                false => MatrixCut::Seeded(args.class_seed.unwrap_or_else(clock_seed)),
            };
            *budget.borrow_mut() = Some(fit_budget(context, &mut steps, args.budget, matrix));
            Ok(steps)
        },
        |context, plan| {
            started.set(Some(Instant::now()));
            estimated.set(total_seconds(plan));
            // The estimate first, on stderr: stdout keeps only the results.
            eprintln!(
                "characterize: {} steps and {} plugins, estimated {} (see --plan)",
                plan.len(),
                selected_plugins.len(),
                clock(total_seconds(plan))
            );
            if let Some(outcome) = budget.borrow().as_ref() {
                for line in outcome.sentences() {
                    eprintln!("characterize: {line}");
                }
            }
            if show_topology {
                println!("{}", render_table(&context.topology));
            }
        },
        |_, _| {},
        |records, pipeline| {
            if !selected_plugins.is_empty() {
                if let Ok(context) = super::measuring::context(&args.run) {
                    let config = PluginRunConfig {
                        cpus: CpuOrder::CoresFirst
                            .all_allowed(&context.topology)
                            .into_iter()
                            .take(1)
                            .collect(),
                        size: PLUGIN_BYTES,
                        mem_node: None,
                        params: Vec::new(),
                        timeout: PLUGIN_TIMEOUT_DEFAULT,
                    };
                    for plugin in &selected_plugins {
                        if let Err(error) = run_plugin(&context, plugin, &config, pipeline) {
                            eprintln!("numabench: warning: {error}");
                            plugin_failed.set(true);
                            if matches!(error, PluginRunError::Interrupted { .. }) {
                                break;
                            }
                        }
                    }
                }
            }
            // Sentences from this run's records only: as records (in every
            // output), then as plain lines after the table.
            let mut sentences = summarize(records);
            if let Some(outcome) = budget.borrow().as_ref() {
                sentences.extend(budget_sentences(outcome));
            }
            if let Some(started) = started.get() {
                let elapsed = started.elapsed().as_secs_f64();
                sentences.push(run_time_sentence(estimated.get(), elapsed));
            }
            for record in summary_records(&sentences) {
                pipeline.emit(&record)?;
            }
            if show_topology && !sentences.is_empty() {
                println!("\nSummary:");
                for sentence in &sentences {
                    println!("  - {}", sentence.text);
                }
            }
            if let Some(started) = started.get() {
                eprintln!(
                    "characterize: estimated {}, took {} (built-ins and plugins; \
                     the run_time summary record has both)",
                    clock(estimated.get()),
                    clock(started.elapsed().as_secs_f64())
                );
            }
            Ok(())
        },
        &|| budget.borrow().clone(),
    )?;
    Ok(match plugin_failed.get() {
        true => Status::Warnings,
        false => status,
    })
}
