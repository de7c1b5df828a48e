//! One simulated characterization: `characterize`'s real plan on a
//! model of the machine, cut by the real budget with the real class
//! sampling, its steps run in their order by the real step runner on the
//! model's answers, and the real findings computed from the records.

use super::faults::Fault;
use super::model::MachineModel;
use crate::bench::{
    calibration_estimate_seconds, characterize_plan, fit_budget, select, Budget, BudgetOutcome,
    Context, MatrixCut, Step, StepRunner,
};
use crate::findings::{summarize, Sentence};
use crate::output::{CollectRunMetadata, CollectSink, Pipeline, Record, RunMetadata};
use crate::topology::Machine;
use numabench_schema::benchmark;
use std::sync::Arc;

/// The benchmarks the model answers: every measurement of theirs goes
/// through [`crate::bench::Backend`]. The others (`loaded-latency`, `mlp`,
/// `c2c`) run their own loops; a simulation plans and budgets them like
/// any step but does not run them (no finding about a fault rests on them).
pub const SIMULATED: [&str; 7] = [
    benchmark::LATENCY,
    benchmark::BANDWIDTH,
    benchmark::MATRIX_LATENCY,
    benchmark::MATRIX_BANDWIDTH,
    benchmark::CONTENTION,
    benchmark::SCALING,
    benchmark::PER_CPU,
];

/// A characterization planned for a machine: its steps after the budget,
/// and what the budget did. The plan depends on the seed only through the
/// matrix classes' draws.
#[derive(Debug, Clone)]
pub struct SimulatedPlan {
    pub context: Context,
    pub steps: Vec<Step>,
    pub outcome: BudgetOutcome,
}

/// `characterize`'s default plan for `topology` under `budget`, its matrix
/// classes drawn with `seed`, as `--plan` makes it (with the assumed
/// rates: nothing is calibrated; the calibration's estimated time taken
/// from the budget first).
pub fn simulated_plan(topology: &Machine, budget: Budget, seed: u64) -> SimulatedPlan {
    let mut context = Context::new(topology.clone());
    let selected = select(&[], &[]).expect("the default selection is valid");
    let mut steps = characterize_plan(&context, &selected);
    let calibration = calibration_estimate_seconds(&context);
    let outcome = fit_budget(
        &mut context,
        &mut steps,
        budget.less(calibration),
        MatrixCut::Seeded(seed),
    );
    SimulatedPlan {
        context,
        steps,
        outcome,
    }
}

/// What one simulated characterization gave.
#[derive(Debug, Clone)]
pub struct SimulatedRun {
    pub records: Vec<Record>,
    pub sentences: Vec<Sentence>,
}

/// Runs `plan` on the model of its machine with `faults`, noise drawn
/// with `seed`: every step of a [`SIMULATED`] benchmark, in order, then
/// the findings.
pub fn simulate_run(
    plan: &SimulatedPlan,
    faults: &[Fault],
    seed: u64,
    metadata: &RunMetadata,
) -> Result<SimulatedRun, crate::bench::BenchError> {
    let model = MachineModel::new(&plan.context.topology, faults, seed);
    let mut context = plan.context.clone();
    context.topology = model.topology().clone();
    context.backend = Some(Arc::new(model));
    let collected = CollectSink::default();
    let mut pipeline = Pipeline::with_sinks(vec![Box::new(collected.clone())], metadata)?;
    let mut runner = StepRunner::new();
    for step in &plan.steps {
        if SIMULATED.contains(&step.benchmark) {
            runner.run(&context, step, &mut pipeline)?;
        }
    }
    let records = collected.records();
    let sentences = summarize(&records);
    Ok(SimulatedRun { records, sentences })
}

/// The metadata simulated records carry (this host's, the command line
/// naming the simulation).
pub fn simulation_metadata(topology: &Machine) -> RunMetadata {
    RunMetadata::collect_described(
        vec!["simulate-findings".into(), topology.source.clone()],
        topology.source.clone(),
    )
}
