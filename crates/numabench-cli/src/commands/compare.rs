//! `numabench compare A B [...]`: reads result sets, prints them side by
//! side (or, with --json, the comparison records) and writes the records
//! to --csv/--jsonl. Measures nothing and never looks at this machine.

use crate::args::{CompareArgs, MatchByArg};
use crate::exit::{CliError, Status};
use crate::tables::{render, terminal_width, wrapped};
use numabench::compare::{
    compare, compare_by_role, comparison_records, findings_side_by_side, render_table, role_table,
    MatchBy, ResultSet,
};
use numabench::output::{
    check_distinct_files, read_results_file, CollectRunMetadata, Mode, OutputConfig, Pipeline,
    RunMetadata,
};
use serde_json::Value;
use std::path::Path;

pub fn run(args: &CompareArgs) -> Result<Status, CliError> {
    if args.files.len() < 2 {
        return Err(CliError::usage(format!(
            "compare needs two or more results files, got {}",
            args.files.len()
        )));
    }
    let sets = args
        .files
        .iter()
        .map(|path| read_set(path))
        .collect::<Result<Vec<_>, _>>()?;
    let by = match args.by {
        MatchByArg::Auto => MatchBy::choose(&sets),
        MatchByArg::Exact => MatchBy::Exact,
        MatchByArg::Role => MatchBy::Role,
    };
    let comparison = match by {
        MatchBy::Exact => compare(&sets),
        MatchBy::Role => compare_by_role(&sets),
    };
    let mut pipeline = open_outputs(args)?;
    if !args.output.json {
        match by {
            MatchBy::Exact => print!("{}", render_table(&comparison)),
            MatchBy::Role => print!("{}", by_role_text(&sets, &comparison)),
        }
    }
    for record in comparison_records(&comparison) {
        pipeline.emit(&record)?;
    }
    pipeline.finish()?;
    Ok(Status::Clean)
}

/// The sets named, the role table fitted to the terminal, then the
/// findings side by side, every line within the width.
fn by_role_text(sets: &[ResultSet], comparison: &numabench::compare::Comparison) -> String {
    let width = terminal_width();
    let mut text = String::new();
    for (index, set) in sets.iter().enumerate() {
        let baseline = if index == 0 { " (baseline)" } else { "" };
        let machine = set.machine.as_deref().unwrap_or("machine not named");
        let line = format!("set {}: {}{baseline}: {machine}", index + 1, set.name);
        text.push_str(&wrapped(&line, width));
        text.push('\n');
    }
    if comparison.matched.is_empty() {
        text.push_str("no role is in every set\n");
    }
    text.push_str(&render(&role_table(comparison), width));
    let findings = findings_side_by_side(sets);
    if !findings.is_empty() {
        text.push_str("\nFindings side by side:\n");
        for (kind, per_set) in findings {
            text.push_str(&format!("{kind}:\n"));
            for (index, sentences) in per_set.iter().enumerate() {
                let said = if sentences.is_empty() {
                    "(none)".to_string()
                } else {
                    sentences.join("; ")
                };
                let line = wrapped(&format!("set {}: {said}", index + 1), width - 2);
                for part in line.lines() {
                    text.push_str(&format!("  {part}\n"));
                }
            }
        }
    }
    text
}

/// The machine a results file's metadata names: host, CPU model and
/// topology (None without metadata).
fn machine(metadata: &serde_json::Map<String, Value>) -> String {
    let field = |name: &str| metadata.get(name).and_then(Value::as_str).unwrap_or("?");
    format!(
        "{}, {}, {}",
        field("host"),
        field("cpu_model"),
        field("topology")
    )
}

/// One results file (read strictly), or the one line saying why it cannot
/// be compared.
fn read_set(path: &Path) -> Result<ResultSet, CliError> {
    let results = read_results_file(path, Mode::Strict)?;
    if results.records.is_empty() {
        return Err(CliError::usage(format!("{}: no records", path.display())));
    }
    Ok(ResultSet {
        name: path.display().to_string(),
        machine: results
            .metadata
            .first()
            .map(|(_, metadata)| machine(metadata)),
        records: results.into_records(),
    })
}

/// The JSON document (--json) and the --csv/--jsonl files, none of them
/// one of the results files read.
fn open_outputs(args: &CompareArgs) -> Result<Pipeline, CliError> {
    let output = &args.output;
    let mut outputs: Vec<(&'static str, &Path)> = Vec::new();
    outputs.extend(output.csv.as_deref().map(|path| ("--csv", path)));
    outputs.extend(output.jsonl.as_deref().map(|path| ("--jsonl", path)));
    check_distinct_files(&outputs)?;
    for input in &args.files {
        for &(flag, path) in &outputs {
            check_distinct_files(&[("RESULTS", input), (flag, path)])?;
        }
    }
    let metadata = RunMetadata::collect_described(
        std::env::args().collect(),
        format!("compares {} result sets", args.files.len()),
    );
    let config = OutputConfig {
        csv: output.csv.clone(),
        delimiter: output.delimiter,
        jsonl: output.jsonl.clone(),
        json_stdout: output.json,
        records: false,
    };
    Ok(Pipeline::open(&config, &metadata)?)
}
