//! `numabench report`: reads results files and writes the HTML report.

use crate::args::ReportArgs;
use crate::exit::{CliError, Status};
use numabench::report::{self, Dataset};
use std::fs;
use std::path::{Path, PathBuf};

/// The path as compared with others: canonical when it exists, else made
/// absolute (its folder canonical) so `./a` and `a` match.
fn comparable(path: &Path) -> PathBuf {
    if let Ok(path) = fs::canonicalize(path) {
        return path;
    }
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let parent = fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
    parent.join(path.file_name().unwrap_or_default())
}

pub fn run(args: &ReportArgs) -> Result<Status, CliError> {
    let output = comparable(&args.output);
    let mut texts = Vec::new();
    for input in &args.inputs {
        if comparable(input) == output {
            return Err(CliError::usage(format!(
                "report: the output {} is one of the inputs; choose another -o FILE",
                args.output.display()
            )));
        }
        let text = fs::read_to_string(input).map_err(|error| {
            CliError::usage(format!("cannot read {}: {error}", input.display()))
        })?;
        if text.trim().is_empty() {
            return Err(CliError::usage(format!(
                "{} is empty: no records to report",
                input.display()
            )));
        }
        texts.push((input.display().to_string(), text));
    }
    let mut data = Dataset::default();
    for (name, text) in &texts {
        data.load(name, text);
    }
    if data.records.is_empty() && data.topologies.is_empty() && data.doctors.is_empty() {
        return Err(CliError::usage(format!(
            "no records, topology or doctor findings in {}",
            texts
                .iter()
                .map(|t| t.0.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    for note in &data.notes {
        eprintln!("numabench: note: {note}");
    }
    let built = report::build(&data);
    super::write_whole(&args.output, built.html.as_bytes())?;
    let summary = format!(
        "report: {} ({} records: {} drawn or tabled, {} under Other records)\n  {} sections: {}",
        args.output.display(),
        data.records.len(),
        built.shown,
        built.other,
        built.section_ids.len(),
        built.section_ids.join(", ")
    );
    let width = usize::from(crate::tables::terminal_width());
    print!("{}", crate::tables::wrap_lines(&summary, width));
    Ok(Status::Clean)
}
