//! The one-node baseline (`--baseline one-node`, the migration study's
//! reference): the same thread count with every thread and every page on
//! one node, cores first on the node of the first worker's CPU, memory
//! bound there. Each app record then gives its time relative to it. Also
//! the record parameters that say which CPUs and node split a run used.

use super::execute::{
    run_once, run_repeated, worker_cpus, AppRun, AppRunConfig, BaselineNotRun, OneNodeBaseline,
};
use super::splits::{node_split_of_cpus, one_node_cpus};
use crate::runtime::{PlacementScheme, TeamError};
use crate::stats::Sample;
use crate::study::{run_study, FinishWhen, Interrupt, Schedule};
use crate::threads::CpuOrder;
use crate::topology::Machine;
use crate::workloads::AppKernel;
use numabench_schema::params::{OneNodeParams, SplitParams};
use std::ops::ControlFlow;

/// The baseline's configuration for `config`, or why it cannot run (the
/// threads do not fit on one node).
pub fn one_node_config(
    topology: &Machine,
    config: &AppRunConfig,
) -> Result<AppRunConfig, BaselineNotRun> {
    let per_cpu = config.threads_per_cpu.max(1);
    let base = config.threads.div_ceil(per_cpu);
    let first = worker_cpus(topology, config)
        .first()
        .copied()
        .flatten()
        .or_else(|| CpuOrder::Compact.all_allowed(topology).first().copied())
        .ok_or(BaselineNotRun::NoCpu)?;
    match one_node_cpus(topology, first, base) {
        Ok((node, cpus)) => Ok(AppRunConfig {
            cpus: Some(cpus),
            placement: PlacementScheme::bind(node),
            one_node_baseline: None,
            ..config.clone()
        }),
        Err(max) => Err(BaselineNotRun::DoesNotFit { threads: base, max }),
    }
}

/// Runs the baseline of `config` (its `repeat` runs) when the threads fit
/// on one node; says why not otherwise.
pub fn run_one_node_baseline(
    topology: &Machine,
    config: &AppRunConfig,
    make: &dyn Fn() -> Box<dyn AppKernel>,
) -> Result<OneNodeBaseline, TeamError> {
    let baseline = match one_node_config(topology, config) {
        Ok(baseline) => baseline,
        Err(reason) => return Ok(OneNodeBaseline::NotRun(reason)),
    };
    let runs = run_repeated(topology, &baseline, make)?;
    baseline_outcome(&baseline, &runs)
}

/// `config`'s runs interleaved with its baseline's: repetition by
/// repetition, one run of each, the baseline first in odd repetitions and
/// second in even ones, so a change of load on a shared machine touches
/// both alike (as `scripts/bench-npb` interleaves numabench and the
/// reference). Without a baseline (the threads do not fit on one node)
/// just `config`'s runs. Stops early on Ctrl-C after a whole repetition
/// ([`Schedule::rotated`], [`Interrupt::BetweenRepetitions`]).
pub fn run_with_one_node_baseline(
    topology: &Machine,
    config: &AppRunConfig,
    make: &dyn Fn() -> Box<dyn AppKernel>,
) -> Result<(Vec<AppRun>, OneNodeBaseline), TeamError> {
    let baseline = match one_node_config(topology, config) {
        Ok(baseline) => baseline,
        Err(reason) => {
            return Ok((
                run_repeated(topology, config, make)?,
                OneNodeBaseline::NotRun(reason),
            ));
        }
    };
    // Configuration 0 is the baseline, 1 the run; rotated, the baseline
    // goes first in repetitions 0, 2, ...
    let pair = [&baseline, config];
    let finished = run_study(
        Schedule::rotated(2, config.repeat.max(1)).interrupted_at(Interrupt::BetweenRepetitions),
        FinishWhen::AtTheEnd,
        |slot, _| {
            let run = run_once(topology, pair[slot.configuration], make().as_mut())?;
            Ok::<_, TeamError>(ControlFlow::Continue(run))
        },
        |_, _| Ok(None::<()>),
    )?;
    let mut runs = finished.runs.into_iter();
    let (baseline_runs, runs) = (
        runs.next().unwrap_or_default(),
        runs.next().unwrap_or_default(),
    );
    Ok((runs, baseline_outcome(&baseline, &baseline_runs)?))
}

/// The baseline's median time, node and CPUs from its runs.
fn baseline_outcome(
    baseline: &AppRunConfig,
    runs: &[AppRun],
) -> Result<OneNodeBaseline, TeamError> {
    let time = Sample::new(runs.iter().map(|run| run.total_seconds))
        .map_err(|_| TeamError::NoBaselineTime)?;
    let cpus = baseline.cpus.clone().unwrap_or_default();
    let node = match &baseline.placement {
        PlacementScheme::Policy(policy) => policy.nodes.first().copied().unwrap_or(0),
        _ => 0,
    };
    Ok(OneNodeBaseline::Ran {
        seconds: time.median(),
        node,
        cpus,
    })
}

/// `params.cpus` (the workers' CPUs, each once, in worker order) and
/// `params.node_split` ("2/2/0/0": workers per node in node order), when
/// the workers are pinned.
pub fn split_params(
    topology: &Machine,
    config: &AppRunConfig,
    workers: &[Option<u32>],
) -> SplitParams {
    if workers.iter().any(Option::is_none) {
        return SplitParams::default();
    }
    let cpus: Vec<u32> = match &config.cpus {
        Some(cpus) => cpus.clone(),
        None => {
            let mut seen = Vec::new();
            for cpu in workers.iter().flatten() {
                if !seen.contains(cpu) {
                    seen.push(*cpu);
                }
            }
            seen
        }
    };
    SplitParams {
        cpus: Some(cpus),
        node_split: node_split_of_cpus(topology, workers),
    }
}

/// `params.one_node_seconds` and `params.relative_to_one_node` (this
/// median / the baseline's), or `params.one_node_baseline` saying why
/// there is none.
pub fn one_node_params(baseline: &OneNodeBaseline, median: f64) -> OneNodeParams {
    match baseline {
        OneNodeBaseline::Ran {
            seconds,
            node,
            cpus,
        } => OneNodeParams {
            one_node_baseline: format!("ran on node {node}"),
            one_node_cpus: Some(cpus.clone()),
            one_node_seconds: Some(*seconds),
            relative_to_one_node: Some(median / seconds),
        },
        OneNodeBaseline::NotRun(reason) => OneNodeParams {
            one_node_baseline: reason.to_string(),
            ..OneNodeParams::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::ThreadScheme;

    fn config(threads: usize) -> (Machine, AppRunConfig) {
        let topology = crate::topology::synthetic("pack:2 [numa(memory=1GiB)] core:2 pu:1");
        let config = AppRunConfig::new(threads, ThreadScheme::Scatter, PlacementScheme::FirstTouch);
        (topology, config)
    }

    /// Scatter puts worker 0 on node 0: the baseline takes node 0's two
    /// cores and binds the data there; three threads cannot fit.
    #[test]
    fn the_baseline_takes_the_first_workers_node_or_says_why_not() {
        let (topology, two) = config(2);
        let baseline = one_node_config(&topology, &two).unwrap();
        assert_eq!(baseline.cpus, Some(topology.nodes[0].cpus.clone()));
        assert_eq!(baseline.placement, PlacementScheme::bind(0));
        let (_, three) = config(3);
        assert_eq!(
            one_node_config(&topology, &three).unwrap_err().to_string(),
            "not run: 3 threads do not fit on one node (max 2)"
        );
    }

    #[test]
    fn the_ratio_is_this_median_over_the_baselines() {
        let ran = OneNodeBaseline::Ran {
            seconds: 2.0,
            node: 1,
            cpus: vec![2, 3],
        };
        let params = one_node_params(&ran, 3.0);
        assert_eq!(params.relative_to_one_node, Some(1.5));
        assert_eq!(params.one_node_seconds, Some(2.0));
        assert_eq!(params.one_node_baseline, "ran on node 1");
        let params = one_node_params(&OneNodeBaseline::NotRun(BaselineNotRun::NoCpu), 3.0);
        assert_eq!(params.one_node_baseline, "not run: no allowed CPU");
        assert_eq!(params.relative_to_one_node, None);
    }
}

#[cfg(test)]
mod interleave_tests {
    use super::*;
    use crate::runtime::{Team, ThreadScheme};
    use crate::topology::discover_this_system;
    use crate::workloads::Verification;
    use std::sync::{Arc, Mutex};

    /// A kernel that only notes, at setup, whether its team is the
    /// baseline's (memory bound to a node) or the run's.
    struct Recorder(Arc<Mutex<Vec<&'static str>>>);

    impl AppKernel for Recorder {
        fn name(&self) -> &'static str {
            "recorder"
        }
        fn memory_bytes(&self) -> u64 {
            0
        }
        fn setup(&mut self, team: &Team) -> Result<(), TeamError> {
            let which = match team.scheme() {
                PlacementScheme::Policy(_) => "baseline",
                _ => "run",
            };
            self.0.lock().unwrap().push(which);
            Ok(())
        }
        fn iterations(&self) -> usize {
            1
        }
        fn iterate(&mut self, _team: &Team, _iteration: usize) {}
        fn verify(&mut self, _team: &Team) -> Verification {
            Verification {
                quantity: "nothing",
                computed: 0.0,
                reference: None,
                epsilon: 0.0,
                passed: true,
            }
        }
        fn operations(&self) -> f64 {
            0.0
        }
    }

    /// Repetition by repetition, one baseline run beside each run, the
    /// baseline first in odd repetitions (counting from 1) and second in
    /// even ones; the outcome is the baseline's.
    #[test]
    fn baseline_runs_alternate_with_the_runs() {
        let topology = discover_this_system().unwrap();
        let config = AppRunConfig {
            repeat: 3,
            placement_threshold: 0.9,
            ..AppRunConfig::new(1, ThreadScheme::Compact, PlacementScheme::FirstTouch)
        };
        let order = Arc::new(Mutex::new(Vec::new()));
        let make = || Box::new(Recorder(Arc::clone(&order))) as Box<dyn AppKernel>;
        let (runs, baseline) = run_with_one_node_baseline(&topology, &config, &make).unwrap();
        assert_eq!(runs.len(), 3);
        assert_eq!(
            *order.lock().unwrap(),
            ["baseline", "run", "run", "baseline", "baseline", "run"]
        );
        assert!(
            matches!(baseline, OneNodeBaseline::Ran { .. }),
            "{baseline:?}"
        );
    }
}
