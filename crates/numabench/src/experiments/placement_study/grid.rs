//! The configurations of a placement study (`numabench placement-study`)
//! from what the user asked: every placement under every thread scheme,
//! or every node split of the threads (`--node-splits`), then the
//! over-decomposed runs (`--oversubscribe K`); and the one-node baselines
//! the grid needs (`--baseline one-node`), one per distinct thread count
//! and node, shared by every configuration that has it.

use crate::experiments::baseline::{one_node_config, run_one_node_baseline};
use crate::experiments::execute::placement_note;
use crate::experiments::execute::AppRunConfig;
use crate::experiments::splits::{enumerate_node_splits, SplitEnumeration};
use crate::runtime::{PlacementScheme, TeamError, ThreadScheme};
use crate::topology::Machine;
use crate::workloads::AppChoice;

/// A placement study's request, validated.
#[derive(Debug, Clone)]
pub struct StudyGridRequest {
    /// The placements (from [`study_placements`]).
    pub placements: Vec<PlacementScheme>,
    /// The thread schemes; empty: compact, scatter and unpinned.
    pub thread_schemes: Vec<ThreadScheme>,
    /// `--node-splits`: at most this many splits of the threads over the
    /// nodes replace the thread schemes.
    pub node_splits: Option<usize>,
    /// Threads per CPU of the over-decomposed first-touch runs.
    pub oversubscribe: Vec<usize>,
    /// Threads of every configuration (times its threads per CPU).
    pub threads: usize,
    pub repeat: usize,
    pub placement_threshold: f64,
    pub hugepages: bool,
}

/// The study's configurations, in the order they run in each repetition.
#[derive(Debug, Clone)]
pub struct StudyGrid {
    pub configurations: Vec<AppRunConfig>,
    /// The node splits, with `--node-splits`.
    pub splits: Option<SplitEnumeration>,
}

/// The placements a study compares: those asked for; with none,
/// first-touch alone for `--node-splits`, else the study set and AutoNUMA
/// where it can run.
pub fn study_placements(asked: Vec<PlacementScheme>, node_splits: bool) -> Vec<PlacementScheme> {
    if !asked.is_empty() {
        return asked;
    }
    if node_splits {
        return vec![PlacementScheme::FirstTouch];
    }
    let mut placements = PlacementScheme::study_set();
    if placement_note(&PlacementScheme::AutoNuma).is_none() {
        placements.push(PlacementScheme::AutoNuma);
    }
    placements
}

/// `--node-splits` found no split of the threads that fits the nodes.
///
/// Fault: the user's (the thread count asked for).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--node-splits: no split of {threads} threads fits on this machine's nodes")]
pub struct NoSplitFits {
    /// The threads to split.
    pub threads: usize,
}

crate::error::all_faulty!(Usage: NoSplitFits);

/// The grid: per placement, each node split or each thread scheme; then
/// one first-touch, compact configuration per `--oversubscribe` K. Fails
/// when `--node-splits` finds no split that fits the nodes.
pub fn study_grid(
    topology: &Machine,
    request: &StudyGridRequest,
) -> Result<StudyGrid, NoSplitFits> {
    let thread_schemes = match request.thread_schemes.is_empty() {
        true => vec![
            ThreadScheme::Compact,
            ThreadScheme::Scatter,
            ThreadScheme::Unpinned,
        ],
        false => request.thread_schemes.clone(),
    };
    let splits = request
        .node_splits
        .map(|max| enumerate_node_splits(topology, request.threads, max));
    if splits
        .as_ref()
        .is_some_and(|splits| splits.splits.is_empty())
    {
        return Err(NoSplitFits {
            threads: request.threads,
        });
    }
    let config = |thread_scheme, placement: &PlacementScheme, cpus, per_cpu| AppRunConfig {
        threads: request.threads * per_cpu,
        thread_scheme,
        placement: placement.clone(),
        threads_per_cpu: per_cpu,
        repeat: request.repeat,
        placement_threshold: request.placement_threshold,
        cpus,
        one_node_baseline: None,
        hugepages: request.hugepages,
    };
    let mut configurations = Vec::new();
    for placement in &request.placements {
        match &splits {
            Some(splits) => configurations.extend(splits.splits.iter().map(|split| {
                config(
                    ThreadScheme::Compact,
                    placement,
                    Some(split.cpus.clone()),
                    1,
                )
            })),
            None => configurations.extend(
                thread_schemes
                    .iter()
                    .map(|&scheme| config(scheme, placement, None, 1)),
            ),
        }
    }
    for &per_cpu in &request.oversubscribe {
        configurations.push(config(
            ThreadScheme::Compact,
            &PlacementScheme::FirstTouch,
            None,
            per_cpu,
        ));
    }
    Ok(StudyGrid {
        configurations,
        splits,
    })
}

/// The configurations whose one-node baselines the study needs: one per
/// distinct (threads, threads per CPU, first worker's node), each the
/// first of the grid that has it.
pub fn study_baselines(topology: &Machine, grid: &[AppRunConfig]) -> Vec<AppRunConfig> {
    let mut chosen: Vec<AppRunConfig> = Vec::new();
    for config in grid {
        if !chosen
            .iter()
            .any(|known| same_baseline(topology, known, config))
        {
            chosen.push(config.clone());
        }
    }
    chosen
}

/// Runs the one-node baselines of `grid` ([`study_baselines`]) and gives
/// each configuration its own.
pub fn run_study_baselines(
    topology: &Machine,
    choice: &AppChoice,
    grid: &mut [AppRunConfig],
) -> Result<(), TeamError> {
    for config in study_baselines(topology, grid) {
        let outcome = run_one_node_baseline(topology, &config, &|| choice.make())?;
        for entry in grid.iter_mut() {
            if same_baseline(topology, entry, &config) {
                entry.one_node_baseline = Some(outcome.clone());
            }
        }
    }
    Ok(())
}

/// Whether two configurations share their one-node baseline.
fn same_baseline(topology: &Machine, a: &AppRunConfig, b: &AppRunConfig) -> bool {
    let node = |config: &AppRunConfig| {
        one_node_config(topology, config)
            .ok()
            .and_then(|baseline| baseline.cpus)
    };
    a.threads == b.threads && a.threads_per_cpu == b.threads_per_cpu && node(a) == node(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(placements: Vec<PlacementScheme>) -> StudyGridRequest {
        StudyGridRequest {
            placements,
            thread_schemes: Vec::new(),
            node_splits: None,
            oversubscribe: vec![2],
            threads: 2,
            repeat: 3,
            placement_threshold: 0.9,
            hugepages: false,
        }
    }

    /// Placement-major, the default thread schemes in their order, the
    /// over-decomposed runs last; splits replace the thread schemes; the
    /// baselines are shared by configurations of the same thread count.
    #[test]
    fn the_grid_is_placement_major_with_oversubscription_last() {
        let topology = crate::topology::synthetic("pack:2 [numa(memory=1GiB)] core:2 pu:1");
        let placements = vec![PlacementScheme::FirstTouch, PlacementScheme::Serial];
        let grid = study_grid(&topology, &request(placements.clone())).unwrap();
        let shape: Vec<(String, &str, usize)> = grid
            .configurations
            .iter()
            .map(|c| (c.placement.to_string(), c.thread_scheme.name(), c.threads))
            .collect();
        assert_eq!(
            shape,
            [
                ("first-touch".to_string(), "compact", 2),
                ("first-touch".to_string(), "scatter", 2),
                ("first-touch".to_string(), "unpinned", 2),
                ("serial".to_string(), "compact", 2),
                ("serial".to_string(), "scatter", 2),
                ("serial".to_string(), "unpinned", 2),
                ("first-touch".to_string(), "compact", 4),
            ]
        );
        assert!(grid.configurations.iter().all(|c| c.repeat == 3));
        let split = study_grid(
            &topology,
            &StudyGridRequest {
                node_splits: Some(8),
                oversubscribe: Vec::new(),
                ..request(vec![PlacementScheme::FirstTouch])
            },
        )
        .unwrap();
        let splits = split.splits.unwrap().splits.len();
        assert!(splits >= 2, "2 threads over 2 nodes: 2/0, 1/1 at least");
        assert_eq!(split.configurations.len(), splits);
        assert!(split.configurations.iter().all(|c| c.cpus.is_some()));
        let threes = study_grid(
            &topology,
            &StudyGridRequest {
                node_splits: Some(8),
                threads: 5,
                ..request(Vec::new())
            },
        );
        assert!(threes
            .unwrap_err()
            .to_string()
            .contains("no split of 5 threads"));
        let baselines = study_baselines(&topology, &grid.configurations);
        assert!(baselines.len() < grid.configurations.len());
        assert_eq!(
            study_placements(Vec::new(), true),
            [PlacementScheme::FirstTouch]
        );
    }
}
