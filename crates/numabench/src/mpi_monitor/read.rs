//! JSON Lines back into records: the metadata line is skipped, every
//! `{"type":"record",...}` line becomes a [`Record`].

use crate::output::Record;
use serde_json::Value;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// A line that is not a record of the results schema.
#[derive(Debug, Error)]
pub enum ReadError {
    #[error("line {line}: not JSON: {source}")]
    Json {
        line: usize,
        source: serde_json::Error,
    },
    #[error("line {line}: not a record of the results schema: {source}")]
    Record {
        line: usize,
        source: serde_json::Error,
    },
    #[error("line {line}: no \"type\" (metadata or record)")]
    Untyped { line: usize },
}

/// The records of a JSON Lines results file, in file order.
pub fn read_records(text: &str) -> Result<Vec<Record>, ReadError> {
    let mut records = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        let mut value: Value = serde_json::from_str(line).map_err(|source| ReadError::Json {
            line: line_number,
            source,
        })?;
        let kind = value
            .as_object_mut()
            .and_then(|object| object.remove("type"))
            .ok_or(ReadError::Untyped { line: line_number })?;
        if kind == "record" {
            records.push(
                serde_json::from_value(value).map_err(|source| ReadError::Record {
                    line: line_number,
                    source,
                })?,
            );
        }
    }
    Ok(records)
}

/// The partial files the monitor leaves beside `out` when the job did not
/// reach MPI_Finalize (`<out>.partial-<rank>`), in rank order.
pub fn partial_files(out: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (out.parent(), out.file_name()) else {
        return Vec::new();
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let prefix = format!("{}.partial-", name.to_string_lossy());
    let mut ranked: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|entry| {
                    let entry = entry.ok()?;
                    let file_name = entry.file_name().into_string().ok()?;
                    let rank = file_name.strip_prefix(&prefix)?.parse().ok()?;
                    Some((rank, entry.path()))
                })
                .collect()
        })
        .unwrap_or_default();
    ranked.sort();
    ranked.into_iter().map(|(_, path)| path).collect()
}

/// What the monitor left for one run.
#[derive(Debug)]
pub struct MonitorOutput {
    pub records: Vec<Record>,
    /// True when the job did not reach MPI_Finalize: the records are the
    /// ranks' last partial snapshots (per-rank records only, each with
    /// `params.partial: true`).
    pub partial: bool,
    /// Every file read (the complete file, or the partial ones).
    pub files: Vec<PathBuf>,
}

/// The monitor's records for `out`: the complete file when it exists,
/// else the partial files beside it; `None` when there is neither.
pub fn read_monitor_output(out: &Path) -> Option<Result<MonitorOutput, ReadError>> {
    if let Ok(text) = std::fs::read_to_string(out) {
        return Some(read_records(&text).map(|records| MonitorOutput {
            records,
            partial: false,
            files: vec![out.to_path_buf()],
        }));
    }
    let files = partial_files(out);
    if files.is_empty() {
        return None;
    }
    let mut records = Vec::new();
    for file in &files {
        // A file removed in between (the run finished after all) is skipped.
        if let Ok(text) = std::fs::read_to_string(file) {
            match read_records(&text) {
                Ok(more) => records.extend(more),
                Err(error) => return Some(Err(error)),
            }
        }
    }
    Some(Ok(MonitorOutput {
        records,
        partial: true,
        files,
    }))
}
