//! `numabench run` as one call: which policies run by default, whether the
//! programs exist, and the study itself, plain (every policy) or a
//! `--param` scan (every value of the parameters under every policy). The
//! command line only validates its flags into a [`RunCommand`] and prints
//! what [`run_command`] returns.

use super::compare_policies::{run_policies, PolicySummary, RunStudyConfig, StudyError};
use super::executor::Executor;
use super::scan::{run_scan, Efficiency, ScanConfig};
use super::scan_params::{scan_points, ScanParam};
use crate::output::Pipeline;
use crate::topology::Machine;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The policies `run` compares when none is given.
pub const DEFAULT_POLICIES: [&str; 4] = ["as-is", "pin-compact", "pin-scatter", "interleave:all"];

/// The policies to run: those asked for; else `as-is` alone for a scan or
/// under the MPI monitor, [`DEFAULT_POLICIES`] otherwise.
pub fn policy_texts(asked: &[String], scan: bool, mpi_monitor: bool) -> Vec<String> {
    match (asked.is_empty(), scan || mpi_monitor) {
        (false, _) => asked.to_vec(),
        (true, true) => vec!["as-is".to_string()],
        (true, false) => DEFAULT_POLICIES.iter().map(|p| p.to_string()).collect(),
    }
}

/// Finds the program as exec would (a path, or a name on PATH).
pub fn find_program(program: &str) -> Option<PathBuf> {
    let executable = |path: &Path| {
        std::fs::metadata(path).is_ok_and(|meta| {
            meta.is_file()
                && std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o111 != 0
        })
    };
    if program.contains('/') {
        return executable(Path::new(program)).then(|| PathBuf::from(program));
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|path| executable(path))
    })
}

/// The distinct programs the runs of `command` will start (a scan's
/// placeholder may name one).
pub fn programs(scan: Option<&[ScanParam]>, command: &[String]) -> Vec<String> {
    let mut programs: Vec<String> = match scan {
        Some(params) => scan_points(params, command)
            .into_iter()
            .map(|point| point.command[0].clone())
            .collect(),
        None => command.first().cloned().into_iter().collect(),
    };
    let mut seen = BTreeSet::new();
    programs.retain(|program| seen.insert(program.clone()));
    programs
}

/// A validated `numabench run`: the study, and the scan's parameters
/// with `--param`.
#[derive(Debug, Clone)]
pub struct RunCommand {
    pub study: RunStudyConfig,
    pub scan: Option<Vec<ScanParam>>,
}

/// What `run` gives: one summary per configuration, and with a scan of
/// one numeric parameter its speedups and parallel efficiencies.
#[derive(Debug, Clone)]
pub struct RunCommandResult {
    pub summaries: Vec<PolicySummary>,
    pub efficiencies: Vec<Efficiency>,
}

impl RunCommand {
    /// The distinct programs the runs will start ([`programs`]).
    pub fn programs(&self) -> Vec<String> {
        programs(self.scan.as_deref(), &self.study.command)
    }

    /// How many configurations run: the policies, times the points of a scan.
    pub fn configurations(&self) -> usize {
        let points = self.scan.as_ref().map_or(1, |params| {
            params.iter().map(|param| param.values.len()).product()
        });
        points * self.study.policies.len()
    }

    /// The efficiency note under the comparison table (empty when the scan
    /// computed none).
    pub fn efficiency_note(&self, efficiencies: &[Efficiency]) -> String {
        let (Some(param), false) = (
            self.scan.as_ref().and_then(|params| params.first()),
            efficiencies.is_empty(),
        ) else {
            return String::new();
        };
        let mut note = format!(
            "\nparallel efficiency (speedup against the smallest {} / ({} / smallest), taking it as a worker count):\n",
            param.name, param.name
        );
        for efficiency in efficiencies {
            note.push_str(&format!(
                "  {}: speedup {:.3}x, efficiency {:.1}%\n",
                efficiency.configuration,
                efficiency.speedup,
                efficiency.efficiency * 100.0
            ));
        }
        note
    }
}

/// Runs the study or the scan. `progress` is told about each run before
/// it starts.
pub fn run_command(
    executor: &mut dyn Executor,
    command: &RunCommand,
    topology: &Machine,
    pipeline: &mut Pipeline,
    progress: &mut dyn FnMut(&str),
) -> Result<RunCommandResult, StudyError> {
    match &command.scan {
        Some(params) => {
            let config = ScanConfig {
                study: command.study.clone(),
                params: params.clone(),
            };
            let result = run_scan(executor, &config, topology, pipeline, progress)?;
            Ok(RunCommandResult {
                summaries: result.summaries,
                efficiencies: result.efficiencies,
            })
        }
        None => Ok(RunCommandResult {
            summaries: run_policies(executor, &command.study, topology, pipeline, progress)?,
            efficiencies: Vec::new(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_policies_and_programs() {
        assert_eq!(policy_texts(&[], false, false), DEFAULT_POLICIES);
        assert_eq!(policy_texts(&[], true, false), ["as-is"]);
        assert_eq!(policy_texts(&[], false, true), ["as-is"]);
        assert_eq!(
            policy_texts(&["membind:0".into()], true, true),
            ["membind:0"]
        );
        assert!(find_program("sh").is_some());
        assert!(find_program("/nonexistent/numabench-no-such").is_none());
    }
}
