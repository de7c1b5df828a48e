//! The simulated machine: a second answer to the measurements
//! ([`crate::bench::Backend`]) from a model of any topology with planted
//! faults, so that characterize's plan, budget cuts, class sampling, step
//! order and findings are proven on machines that are not here (a
//! 24-node server, a slow DIMM). For tests and `scripts/simulate-findings`
//! only: no command measures with it, and no user's figure comes from it.

mod faults;
mod findings;
mod model;
mod run;

pub use faults::{names_any_fault, Fault, FaultKind, FAULT_FINDINGS};
pub use findings::{simulate_findings, FaultRate, FindingsReport};
pub use model::{MachineModel, BANDWIDTH_NOISE, CPU_SPREAD, LATENCY_NOISE, NODE_SPREAD};
pub use run::{
    simulate_run, simulated_plan, simulation_metadata, SimulatedPlan, SimulatedRun, SIMULATED,
};

#[cfg(test)]
mod tests;
