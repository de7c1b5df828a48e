//! How often the findings name a planted fault, and how often they name
//! one that is not there: many seeded simulated characterizations of one
//! machine (`scripts/simulate-findings`).

use super::faults::{names_any_fault, Fault, FaultKind};
use super::run::{simulate_run, simulated_plan, simulation_metadata};
use crate::bench::{BenchError, Budget};
use crate::topology::Machine;
use serde::Serialize;

/// One fault kind's detection rate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FaultRate {
    /// The fault's name ([`FaultKind::name`]).
    pub fault: &'static str,
    /// The share of seeds whose findings named it (the right node, CPU
    /// or pair); `None` where the machine has no place for it.
    pub detected: Option<f64>,
}

/// What [`simulate_findings`] found on one machine.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FindingsReport {
    /// The topology's source (the fixture's path).
    pub topology: String,
    pub seeds: u64,
    pub faults: Vec<FaultRate>,
    /// The share of seeds with no fault planted whose findings named one.
    pub false_alarm: f64,
    /// What the budgeted plan says it cannot find (the plan's own lines).
    pub cannot_find: Vec<String>,
}

/// For seeds `0..seeds`: one run with no fault (a false alarm if any
/// fault is named) and one run per fault kind, planted at a place the
/// seed draws (detected if its place is named), each planned under
/// `budget` with the seed's matrix draws.
pub fn simulate_findings(
    topology: &Machine,
    seeds: u64,
    budget: Budget,
) -> Result<FindingsReport, BenchError> {
    let metadata = simulation_metadata(topology);
    let mut named = [0u64; FaultKind::ALL.len()];
    let mut possible = [false; FaultKind::ALL.len()];
    let mut false_alarms = 0;
    let mut cannot_find = Vec::new();
    for seed in 0..seeds {
        let plan = simulated_plan(topology, budget, seed);
        if seed == 0 {
            cannot_find = plan.outcome.blind_spots.clone();
        }
        let run = simulate_run(&plan, &[], seed, &metadata)?;
        if names_any_fault(&run.sentences) {
            false_alarms += 1;
        }
        for (index, kind) in FaultKind::ALL.into_iter().enumerate() {
            let Some(fault) = Fault::plant(kind, topology, seed) else {
                continue;
            };
            possible[index] = true;
            // A missing DIMM changes the machine, so its plan (the size
            // classes) is the one of the changed machine.
            let run = match fault {
                Fault::MissingDimm { .. } => {
                    let changed = super::MachineModel::new(topology, &[fault], seed);
                    let plan = simulated_plan(changed.topology(), budget, seed);
                    simulate_run(&plan, &[fault], seed, &metadata)?
                }
                _ => simulate_run(&plan, &[fault], seed, &metadata)?,
            };
            if fault.named_by(&run.sentences) {
                named[index] += 1;
            }
        }
    }
    let share = |count: u64| count as f64 / seeds.max(1) as f64;
    Ok(FindingsReport {
        topology: topology.source.clone(),
        seeds,
        faults: FaultKind::ALL
            .into_iter()
            .enumerate()
            .map(|(index, kind)| FaultRate {
                fault: kind.name(),
                detected: possible[index].then(|| share(named[index])),
            })
            .collect(),
        false_alarm: share(false_alarms),
        cannot_find,
    })
}
