//! `numabench characterize`: topology, then every selected benchmark (the
//! built-ins, then plugins), then a short summary of what this run measured.

use super::measuring::measure_budgeted_steps;
use crate::args::CharacterizeArgs;
use crate::exit::{CliError, Status};
use crate::progress::clock;
use numabench::bench::plugin::{run_plugin, Plugin, PluginRunConfig, PluginRunError};
use numabench::bench::{
    calibrate_cost_model, calibration_estimate_seconds, characterize_plan, fit_budget, registry,
    select, total_seconds, Budget, BudgetOutcome, CostModel, MatrixCut,
};
use numabench::doctor::{run_doctor, SystemFiles};
use numabench::findings::{
    budget_sentences, run_time_sentence, summarize_with_doctor, summary_records, FindingKind,
    Sentence,
};
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

/// What this run cut and took, the doctor's caveats, then the findings and
/// the advice last (the end of the output is what a person reads first, so
/// the answer stays on the last screen however many caveats a machine
/// has), as wrapped headings, each line at most `width` columns.
fn findings_text(sentences: &[Sentence], width: usize) -> String {
    let options = textwrap::Options::new(width.max(40))
        .initial_indent("  - ")
        .subsequent_indent("    ")
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    let mut text = String::new();
    for (heading, group) in [
        ("This run:", Group::Run),
        (
            "Caveats (doctor warnings that bear on the findings):",
            Group::Caveat,
        ),
        ("What this machine's NUMA costs:", Group::Finding),
        ("What to do about it:", Group::Advice),
    ] {
        let list: Vec<&Sentence> = sentences
            .iter()
            .filter(|sentence| Group::of(sentence) == group)
            .collect();
        if list.is_empty() {
            continue;
        }
        text.push_str(&format!("\n{heading}\n"));
        for sentence in list {
            text.push_str(&textwrap::fill(&sentence.text, &options));
            text.push('\n');
        }
    }
    text
}

/// Which list a sentence is printed in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Group {
    Finding,
    /// What the budget cut and how long the run took.
    Run,
    /// A doctor warning and the findings it bears on.
    Caveat,
    Advice,
}

impl Group {
    fn of(sentence: &Sentence) -> Self {
        match sentence.kind {
            FindingKind::Advice => Group::Advice,
            kind if kind.is_about_the_run() => Group::Run,
            FindingKind::DoctorWarning => Group::Caveat,
            _ => Group::Finding,
        }
    }
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
    // The doctor's audit of the machine measured, for the findings it
    // bears on (read only; a few /proc and /sys files).
    let doctor = RefCell::new(Vec::new());
    let budget: RefCell<Option<BudgetOutcome>> = RefCell::new(None);
    let started = Cell::new(None::<Instant>);
    let estimated = Cell::new(0.0);
    let calibrated = Cell::new(0.0);
    let rates = Cell::new(CostModel::ASSUMED);
    let status = measure_budgeted_steps(
        &args.run,
        &args.output,
        |context| {
            if no_builtins {
                return Ok(Vec::new());
            }
            let selected = select(&only_builtins, &skip_builtins)?;
            // A run is estimated with this machine's rates (a short
            // calibration); --plan measures nothing and keeps the assumed.
            if !args.run.planning.plan {
                started.set(Some(Instant::now()));
                context.cost_model = match calibrate_cost_model(context) {
                    Ok(model) => model,
                    Err(error) => {
                        eprintln!(
                            "numabench: warning: the estimate's rates could not be calibrated \
                             ({error}); estimating with the assumed ones"
                        );
                        CostModel::ASSUMED
                    }
                };
            }
            let mut steps = characterize_plan(context, &selected);
            let matrix = match args.full_matrix {
                true => MatrixCut::Never,
                false => {
                    MatrixCut::Seeded(args.class_seed.unwrap_or(crate::args::DEFAULT_CLASS_SEED))
                }
            };
            // The calibration counts against the budget: as it took in a
            // run, as estimated with the assumed rates for --plan.
            let calibration = match started.get() {
                Some(at) => at.elapsed().as_secs_f64(),
                None => calibration_estimate_seconds(context),
            };
            let mut outcome = fit_budget(
                context,
                &mut steps,
                args.run.budget.less(calibration),
                matrix,
            );
            if let (Some(_), Budget::Seconds(seconds)) = (outcome.budget_seconds, args.run.budget) {
                outcome.budget_seconds = Some(seconds);
                outcome.calibration_seconds = Some(calibration);
            }
            *budget.borrow_mut() = Some(outcome);
            Ok(steps)
        },
        |context, plan| {
            // The run's clock started before the calibration, which the
            // estimate counts as it took.
            let calibration = started.get().map_or(0.0, |at| at.elapsed().as_secs_f64());
            calibrated.set(calibration);
            if started.get().is_none() {
                started.set(Some(Instant::now()));
            }
            estimated.set(calibration + total_seconds(plan));
            rates.set(context.cost_model);

            // The estimate first, on stderr: stdout keeps only the results.
            eprintln!(
                "characterize: {} steps and {} plugins, estimated {} (see --plan)",
                plan.len(),
                selected_plugins.len(),
                clock(estimated.get())
            );
            if let Some(outcome) = budget.borrow().as_ref() {
                for line in outcome.sentences() {
                    eprintln!("characterize: {line}");
                }
            }
            if show_topology {
                println!("{}", render_table(&context.topology));
            }
            *doctor.borrow_mut() = run_doctor(&SystemFiles::real(), &context.topology).findings;
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
            // Findings from this run's records (and its doctor warnings),
            // then what the budget cut and the run's time: as records (in
            // every output), then as lines after the tables.
            let mut sentences = summarize_with_doctor(records, &doctor.borrow());
            if let Some(outcome) = budget.borrow().as_ref() {
                sentences.extend(budget_sentences(outcome));
            }
            if let Some(started) = started.get() {
                let elapsed = started.elapsed().as_secs_f64();
                sentences.push(run_time_sentence(
                    estimated.get(),
                    elapsed,
                    calibrated.get(),
                    &rates.get(),
                ));
            }
            // Records in the order the lists print them (findings, this
            // run, advice), so both read alike.
            sentences.sort_by_key(|sentence| Group::of(sentence) as u8);
            for record in summary_records(&sentences) {
                pipeline.emit(&record)?;
            }
            if show_topology && !sentences.is_empty() {
                print!(
                    "{}",
                    findings_text(&sentences, usize::from(crate::tables::terminal_width()))
                );
            }
            if let Some(started) = started.get() {
                eprintln!(
                    "characterize: estimated {}, took {} (both in the run_time record)",
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

#[cfg(test)]
mod tests {
    use super::*;
    use numabench::output::Unit;

    fn sentence(kind: FindingKind, text: &str) -> Sentence {
        Sentence {
            kind,
            text: text.into(),
            value: 1.0,
            unit: Unit::Ratio,
            params: Default::default(),
        }
    }

    /// The run's cuts and the caveats first, then the findings and the
    /// advice last, each under its heading, every line within the width,
    /// and the words unchanged once the wrapping is undone.
    #[test]
    fn findings_wrap_to_the_width_under_their_headings() {
        let long = "latency-bound code: keep data on the node of the threads that read it (bind:NODE, or first touch by that thread): remote memory costs up to 1.90x local latency";
        let text = findings_text(
            &[
                sentence(FindingKind::MemoryLatency, "memory latency: local 100 ns"),
                sentence(FindingKind::DoctorWarning, "doctor: SMT on"),
                sentence(FindingKind::RunTime, "the run took 1 s"),
                sentence(FindingKind::Advice, long),
            ],
            60,
        );
        let (before, text) = text
            .split_once("\nWhat this machine's NUMA costs:")
            .unwrap();
        assert_eq!(
            before,
            "\nThis run:\n  - the run took 1 s\n\nCaveats (doctor warnings that bear on the findings):\n  - doctor: SMT on\n"
        );
        let text = format!("\nWhat this machine's NUMA costs:{text}");
        assert!(
            text.lines().all(|line| line.chars().count() <= 60),
            "{text}"
        );
        let (findings, advice) = text.split_once("What to do about it:\n").unwrap();
        assert_eq!(
            findings,
            "\nWhat this machine's NUMA costs:\n  - memory latency: local 100 ns\n\n"
        );
        let unwrapped: Vec<&str> = advice.split_whitespace().collect();
        assert_eq!(unwrapped[0], "-");
        assert_eq!(unwrapped[1..].join(" "), long);
    }
}
