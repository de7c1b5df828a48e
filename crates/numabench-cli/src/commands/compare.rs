//! `numabench compare A B [...]`: reads result sets, prints them side by
//! side (or, with --json, the comparison records) and writes the records
//! to --csv/--jsonl. Measures nothing and never looks at this machine.

use crate::args::CompareArgs;
use crate::exit::{CliError, Status};
use numabench::compare::{compare, comparison_records, render_table, ResultSet};
use numabench::output::{
    check_distinct_files, read_results, CsvSink, JsonDocumentSink, JsonLinesSink, OutputError,
    Pipeline, RunMetadata, Sink,
};
use std::fs::File;
use std::io::BufWriter;
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
    let comparison = compare(&sets);
    let mut pipeline = open_outputs(args)?;
    if !args.output.json {
        print!("{}", render_table(&comparison));
    }
    for record in comparison_records(&comparison) {
        pipeline.emit(&record).map_err(CliError::system)?;
    }
    pipeline.finish().map_err(CliError::system)?;
    Ok(Status::Clean)
}

/// One results file, or the one line saying why it cannot be compared.
fn read_set(path: &Path) -> Result<ResultSet, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| CliError::usage(format!("cannot read '{}': {error}", path.display())))?;
    let records = read_results(&text)
        .map_err(|error| CliError::usage(format!("'{}': {error}", path.display())))?;
    Ok(ResultSet {
        name: path.display().to_string(),
        records,
    })
}

/// The JSON document (--json) and the --csv/--jsonl files, none of them
/// one of the results files read.
fn open_outputs(args: &CompareArgs) -> Result<Pipeline, CliError> {
    let output = &args.output;
    let mut outputs: Vec<(&'static str, &Path)> = Vec::new();
    outputs.extend(output.csv.as_deref().map(|path| ("--csv", path)));
    outputs.extend(output.jsonl.as_deref().map(|path| ("--jsonl", path)));
    check_distinct_files(&outputs).map_err(CliError::usage)?;
    for input in &args.files {
        for &(flag, path) in &outputs {
            check_distinct_files(&[("RESULTS", input), (flag, path)]).map_err(CliError::usage)?;
        }
    }
    let create = |path: &Path| {
        File::create(path).map(BufWriter::new).map_err(|source| {
            CliError::usage(OutputError::Unwritable {
                path: path.to_path_buf(),
                source,
            })
        })
    };
    let mut sinks: Vec<Box<dyn Sink>> = Vec::new();
    if output.json {
        sinks.push(Box::new(JsonDocumentSink::new(std::io::stdout())));
    }
    if let Some(path) = &output.csv {
        sinks.push(Box::new(CsvSink::new(
            create(path)?,
            output.delimiter.unwrap_or(b','),
        )));
    }
    if let Some(path) = &output.jsonl {
        sinks.push(Box::new(JsonLinesSink::new(create(path)?)));
    }
    let metadata = RunMetadata::collect_described(
        std::env::args().collect(),
        format!("compares {} result sets", args.files.len()),
    );
    Pipeline::with_sinks(sinks, &metadata).map_err(CliError::system)
}
