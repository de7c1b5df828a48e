//! Runs a placement study interleaved: repetition r of every configuration
//! before repetition r + 1 of any, repetition r starting with configuration
//! r mod n (so no configuration always runs first, or always after the
//! same one's caches and clock), so a drift in the machine's speed (a
//! neighbour starting, the clock warming) spreads over all configurations
//! instead of favouring the ones that happened to run first. Each
//! configuration's records are emitted once its last run is done; the
//! verdict record comes last.

use super::table::StudyRow;
use super::verdict::{exclusion, fastest, repeatability, Fastest};
use crate::experiments::execute::{emit_app_records, run_once, worker_cpus, AppRun, AppRunConfig};
use crate::experiments::splits::node_split_of_cpus;
use crate::output::{OutputError, Pipeline, Placement, Record, Unit};
use crate::runtime::TeamError;
use crate::study::{run_study, FinishWhen, Schedule, Slot};
use crate::topology::Machine;
use crate::workloads::AppChoice;
use numabench_schema::params::{to_params, ExcludedConfiguration, StudyVerdictParams};
use std::ops::ControlFlow;
use thiserror::Error;

/// Why a placement study stopped.
///
/// Fault: the team's or the outputs'.
#[derive(Debug, Error)]
pub enum PlacementStudyError {
    #[error(transparent)]
    Team(#[from] TeamError),
    #[error(transparent)]
    Output(#[from] OutputError),
}

impl crate::error::Faulty for PlacementStudyError {
    fn fault(&self) -> crate::error::Fault {
        match self {
            PlacementStudyError::Team(error) => error.fault(),
            PlacementStudyError::Output(error) => error.fault(),
        }
    }
}

/// Runs every configuration of `grid` `repeat` times (at least once),
/// interleaved, the order rotated every repetition ([`Schedule::rotated`]),
/// with a fresh kernel each run.
/// `before_run` is told about each run before it starts. Ctrl-C stops the schedule; configurations
/// with at least one run still get their records. Returns one row per
/// configuration that ran, in grid order.
pub fn run_placement_study(
    topology: &Machine,
    choice: &AppChoice,
    grid: &[AppRunConfig],
    repeat: usize,
    pipeline: &mut Pipeline,
    before_run: &mut dyn FnMut(Slot, &AppRunConfig),
) -> Result<Vec<StudyRow>, PlacementStudyError> {
    let repeat = repeat.max(1);
    let class = choice.class().map(|class| class.to_string());
    let rows = run_study(
        Schedule::rotated(grid.len(), repeat),
        FinishWhen::ItsLastRun,
        |slot, _| {
            before_run(slot, &grid[slot.configuration]);
            let run = run_once(topology, &grid[slot.configuration], choice.make().as_mut())?;
            Ok::<_, PlacementStudyError>(ControlFlow::Continue(run))
        },
        |index, runs| Ok(study_row(topology, choice, &grid[index], runs, pipeline)?),
    )?
    .into_results();
    if let Some(record) = verdict_record(choice.name(), class.as_deref(), &rows) {
        pipeline.emit(&record)?;
    }
    Ok(rows)
}

/// Emits one configuration's records over its runs and returns its row.
fn study_row(
    topology: &Machine,
    choice: &AppChoice,
    config: &AppRunConfig,
    runs: &[AppRun],
    pipeline: &mut Pipeline,
) -> Result<Option<StudyRow>, OutputError> {
    let class = choice.class().map(|class| class.to_string());
    let summary = emit_app_records(
        topology,
        choice.name(),
        class.as_deref(),
        config,
        runs,
        pipeline,
    )?;
    Ok(summary.map(|summary| StudyRow {
        placement: config.placement.clone(),
        thread_scheme: config.thread_scheme,
        threads: config.threads,
        threads_per_cpu: config.threads_per_cpu,
        summary,
        node_split: config
            .cpus
            .as_ref()
            .and_then(|_| node_split_of_cpus(topology, &worker_cpus(topology, config))),
    }))
}

/// The verdict as a record (`docs/results.md`): `best_median_time`, the
/// lowest median of an eligible configuration, with the verdict in
/// `params`; `None` when no configuration is eligible.
pub fn verdict_record(kernel: &str, class: Option<&str>, rows: &[StudyRow]) -> Option<Record> {
    let verdict = fastest(rows);
    let (best, closest, p_value, significant) = match verdict {
        Fastest::Significant {
            fastest,
            closest,
            p_value,
        } => (fastest, Some(closest), Some(p_value), true),
        Fastest::NotSignificant {
            best,
            closest,
            p_value,
        } => (best, Some(closest), Some(p_value), false),
        Fastest::TooFew { best } => (best?, None, None, false),
    };
    let row = &rows[best];
    let repeatable = repeatability(rows);
    let params = to_params(&StudyVerdictParams {
        class: class.map(str::to_string),
        configuration: Some(row.label()),
        scheme: row.placement.scheme_params(),
        threads_placement: Some(row.thread_scheme.name().to_string()),
        threads: Some(row.threads as u64),
        threads_per_cpu: Some(row.threads_per_cpu as u64),
        significantly_fastest: Some(significant),
        closest: closest.map(|index| rows[index].label()),
        p_value,
        most_repeatable: repeatable.map(|found| rows[found.most].label()),
        most_repeatable_cv: repeatable.map(|found| rows[found.most].summary.time.cv()),
        configurations: Some(rows.len() as u64),
        node_split: row.node_split.clone(),
        slowest: row
            .node_split
            .as_ref()
            .map(|_| super::verdict::slowest_params(rows)),
        excluded: Some(
            rows.iter()
                .filter_map(|row| {
                    exclusion(row).map(|why| ExcludedConfiguration {
                        configuration: row.label(),
                        reason: why.reason().to_string(),
                    })
                })
                .collect(),
        ),
    });
    Some(Record {
        benchmark: kernel.to_string(),
        metric: "best_median_time".into(),
        value: row.summary.time.median(),
        unit: Unit::Seconds,
        params,
        placement: Placement::default(),
        stats: row.summary.time.summary(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::{CollectRunMetadata, RunMetadata};
    use crate::runtime::{PlacementScheme, ThreadScheme};
    use crate::topology::discover_this_system;

    /// Real runs of a small STREAM: configurations run interleaved, the
    /// order rotated each repetition, each
    /// configuration's records come after its last run and cover all of
    /// its runs, and the verdict record comes last.
    #[test]
    fn a_study_runs_configurations_interleaved_and_rotated() {
        let topology = discover_this_system().unwrap();
        let config = |placement: PlacementScheme| AppRunConfig {
            repeat: 3,
            ..AppRunConfig::new(1, ThreadScheme::Compact, placement)
        };
        let grid = [
            config(PlacementScheme::FirstTouch),
            config(PlacementScheme::Serial),
        ];
        let choice = AppChoice::Stream {
            elements: 1 << 12,
            iterations: 2,
            simd: None,
        };
        let collected = crate::output::CollectSink::default();
        let metadata = RunMetadata::collect(vec!["test".into()], &topology);
        let mut pipeline =
            Pipeline::with_sinks(vec![Box::new(collected.clone())], &metadata).unwrap();
        // (repetition, configuration, records emitted before the run)
        let mut started = Vec::new();
        let rows = run_placement_study(
            &topology,
            &choice,
            &grid,
            3,
            &mut pipeline,
            &mut |run, _| {
                started.push((run.repetition, run.configuration, collected.records().len()));
            },
        )
        .unwrap();
        let order: Vec<(usize, usize)> = started.iter().map(|&(r, c, _)| (r, c)).collect();
        assert_eq!(order, [(0, 0), (0, 1), (1, 1), (1, 0), (2, 0), (2, 1)]);
        // Nothing was emitted before the first configuration's last run.
        assert!(started[..5].iter().all(|&(_, _, emitted)| emitted == 0));
        assert!(
            started[5].2 > 0,
            "configuration 0's records before the last run"
        );
        assert_eq!(rows.len(), 2);
        let records = collected.records();
        let times: Vec<&Record> = records
            .iter()
            .filter(|record| record.metric == "time")
            .collect();
        assert_eq!(times.len(), 2);
        assert!(times.iter().all(|time| time.stats.n == 3));
        assert_eq!(times[0].params["placement"], "first-touch");
        assert_eq!(times[1].params["placement"], "serial");
        let last = records.last().unwrap();
        assert_eq!(last.metric, "best_median_time");
        assert_eq!(last.benchmark, "stream");
    }
}
