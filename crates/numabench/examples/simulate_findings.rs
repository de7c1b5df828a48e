//! `scripts/simulate-findings`: how often characterize's findings name a
//! fault planted in a simulated machine, and how often they name one that
//! is not there, on hwloc XML topologies (default: every fixture of
//! `crates/numabench/tests/fixtures`).
//!
//! ```text
//! simulate_findings [--topology FILE]... [--seeds N] [--budget SECONDS|none] [--json]
//! ```
//!
//! Bad input: one line naming the value, exit status 2.

use numabench::bench::{Budget, DEFAULT_BUDGET_SECONDS};
use numabench::simulate::{simulate_findings, FindingsReport};
use numabench::topology::discover_from_xml;
use std::path::PathBuf;
use std::process::ExitCode;

struct Options {
    topologies: Vec<PathBuf>,
    seeds: u64,
    budget: Budget,
    json: bool,
}

fn usage(message: String) -> ExitCode {
    eprintln!("simulate-findings: {message}");
    ExitCode::from(2)
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        topologies: Vec::new(),
        seeds: 100,
        budget: Budget::Seconds(DEFAULT_BUDGET_SECONDS),
        json: false,
    };
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--topology" => options.topologies.push(PathBuf::from(value("--topology")?)),
            "--seeds" => {
                let text = value("--seeds")?;
                options.seeds = match text.parse::<u64>() {
                    Ok(seeds) if seeds > 0 => seeds,
                    _ => return Err(format!("--seeds '{text}' is not a positive whole number")),
                };
            }
            "--budget" => {
                let text = value("--budget")?;
                options.budget = match text.as_str() {
                    "none" => Budget::Unlimited,
                    _ => match text.parse::<f64>() {
                        Ok(seconds) if seconds > 0.0 && seconds.is_finite() => {
                            Budget::Seconds(seconds)
                        }
                        _ => return Err(format!("--budget '{text}' is not seconds or 'none'")),
                    },
                };
            }
            "--json" => options.json = true,
            other => {
                return Err(format!(
                "unknown argument '{other}' (use --topology FILE, --seeds N, --budget S, --json)"
            ))
            }
        }
    }
    if options.topologies.is_empty() {
        // Every fixture of the tests (crates/numabench/tests/fixtures/*.xml).
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
        let entries =
            std::fs::read_dir(fixtures).map_err(|error| format!("{fixtures}: {error}"))?;
        options.topologies = entries
            .filter_map(|entry| Some(entry.ok()?.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "xml"))
            .collect();
        options.topologies.sort();
    }
    Ok(options)
}

/// The table of one machine: a line per fault, then false alarms and what
/// the plan says it cannot find.
fn table(report: &FindingsReport) -> String {
    let name = report
        .topology
        .rsplit('/')
        .next()
        .unwrap_or(&report.topology)
        .trim_end_matches(".xml");
    let mut text = format!("{name} ({} seeds)\n", report.seeds);
    for rate in &report.faults {
        let detected = rate
            .detected
            .map_or("n/a".to_string(), |share| format!("{:.0}%", share * 100.0));
        text.push_str(&format!("  {:<24} detected {detected:>5}\n", rate.fault));
    }
    text.push_str(&format!(
        "  {:<24} {:>14.0}%\n",
        "false alarms",
        report.false_alarm * 100.0
    ));
    for line in &report.cannot_find {
        text.push_str(&format!("  plan: {line}\n"));
    }
    text
}

fn main() -> ExitCode {
    let options = match parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => return usage(message),
    };
    let mut topologies = Vec::new();
    for path in &options.topologies {
        match discover_from_xml(path) {
            Ok(topology) => topologies.push(topology),
            Err(error) => return usage(error.to_string()),
        }
    }
    let mut reports = Vec::new();
    for topology in &topologies {
        match simulate_findings(topology, options.seeds, options.budget) {
            Ok(report) => {
                if !options.json {
                    println!("{}", table(&report));
                }
                reports.push(report);
            }
            Err(error) => {
                eprintln!("simulate-findings: {}: {error}", topology.source);
                return ExitCode::FAILURE;
            }
        }
    }
    if options.json {
        let document = match reports.as_slice() {
            [one] => serde_json::to_value(one),
            all => serde_json::to_value(all),
        }
        .expect("reports serialize");
        println!("{document:#}");
    }
    ExitCode::SUCCESS
}
