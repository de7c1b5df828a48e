//! Finding what the monitor left for one run: its complete file, or the
//! ranks' partial files when the job did not reach MPI_Finalize. Each file
//! is read by the one results reader ([`crate::output::read`]).

use crate::output::{read_results_file, Mode, ReadError, Record};
use std::path::{Path, PathBuf};

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
    if out.exists() {
        return Some(
            read_results_file(out, Mode::Strict).map(|results| MonitorOutput {
                records: results.into_records(),
                partial: false,
                files: vec![out.to_path_buf()],
            }),
        );
    }
    let files = partial_files(out);
    if files.is_empty() {
        return None;
    }
    let mut records = Vec::new();
    for file in &files {
        // A file removed in between (the run finished after all) is skipped.
        if file.exists() {
            match read_results_file(file, Mode::Strict) {
                Ok(more) => records.extend(more.into_records()),
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
