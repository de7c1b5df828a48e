//! What every measuring command shares: the topology, the context, and the
//! output pipeline opened before anything is measured.

use crate::args::{MeasureArgs, OutputArgs, PlanArgs};
use crate::exit::{CliError, Status};
use crate::placement_warnings::PlacementWarnings;
use crate::progress::Progress;
use crate::tables::{terminal_width, StdoutView, TablesSink};
use numabench::bench::{
    check_memory_fits, cpus_of_node, fit_measurements, plan_of, resolve_cpu,
    resolve_node_with_memory, working_set_for, BenchError, BudgetOutcome, Context, MatrixCut,
    NodeMatrix, PlanStep, Step, StepRunner,
};
use numabench::interrupt::{install_interrupt_handler, interrupted};
use numabench::output::tables::CacheLadder;
use numabench::output::{
    CollectRunMetadata, CollectSink, OutputConfig, OutputError, Pipeline, Record, RunMetadata,
};
use numabench::threads::CpuOrder;
use numabench::topology::{Machine, Purpose};
use std::cell::RefCell;
use std::path::Path;

/// This machine's topology, to measure on. (`commands::run` has refused a
/// `--topology` file before any measuring command starts; this refuses
/// whatever else makes hwloc describe another machine.)
pub fn this_machine() -> Result<Machine, CliError> {
    super::topology_source::topology_for(None, Purpose::Measure)
}

/// This machine's topology to measure on, or with `plan` the topology to
/// describe (`topology_file`, the `--topology FILE` given, or
/// HWLOC_XMLFILE, ...).
pub fn topology(plan: bool, topology_file: Option<&Path>) -> Result<Machine, CliError> {
    if plan {
        super::topology_source::topology_for(topology_file, Purpose::Describe)
    } else {
        this_machine()
    }
}

/// The benchmark context from the common flags: this machine's topology
/// to measure on, or with `--plan` the topology to describe (a
/// `--topology` file, HWLOC_XMLFILE, ...).
pub fn context(run: &MeasureArgs) -> Result<Context, CliError> {
    let mut context = context_of(run.repeat, run.hugepages, &run.planning)?;
    context.histogram = run.histogram;
    Ok(context)
}

/// [`context`] for the commands whose flags are not [`MeasureArgs`] (run,
/// overdecompose, placement-study, the applications): the same settings.
pub fn context_of(repeat: u32, hugepages: bool, planning: &PlanArgs) -> Result<Context, CliError> {
    let mut context = Context::new(topology(planning.plan, planning.topology.as_deref())?);
    context.repeat = repeat as usize;
    context.hugepages = hugepages;
    Ok(context)
}

/// Opens every requested output (an unwritable file is a usage error) and
/// arms Ctrl-C so the outputs are closed properly.
pub fn pipeline(output: &OutputArgs, context: &Context) -> Result<Pipeline, CliError> {
    pipeline_with_view(output, context, StdoutView::Tables)
}

/// [`pipeline`] with the command's choice of what stdout shows while
/// records arrive, unless `--json` or `--records` say otherwise.
pub fn pipeline_with_view(
    output: &OutputArgs,
    context: &Context,
    view: StdoutView,
) -> Result<Pipeline, CliError> {
    let config = OutputConfig {
        csv: output.csv.clone(),
        delimiter: output.delimiter,
        jsonl: output.jsonl.clone(),
        json_stdout: output.json,
        records: output.records,
    };
    let metadata = RunMetadata::collect(std::env::args().collect(), &context.topology);
    let mut pipeline = Pipeline::open(&config, &metadata)?;
    if !output.json && !output.records && view == StdoutView::Tables {
        pipeline.add_sink(
            Box::new(TablesSink::new(
                std::io::stdout(),
                CacheLadder::of(&context.topology),
                terminal_width(),
            )),
            &metadata,
        )?;
    }
    // Placement not achieved: the records say so, and the user is told on stderr.
    pipeline.add_sink(
        Box::new(PlacementWarnings::new(std::io::stderr())),
        &metadata,
    )?;
    install_interrupt_handler();
    Ok(pipeline)
}

/// The order a single-thread command takes its CPU in when the user
/// does not name one: the first allowed CPU of the object tree (every
/// order starts there), not the lowest CPU number.
pub const FIRST_CPU_ORDER: CpuOrder = CpuOrder::Compact;

/// `--cpu N`, or the first allowed CPU of `--cpu-node` in
/// [`FIRST_CPU_ORDER`], or the first allowed CPU in that order.
pub fn choose_cpu(
    topology: &Machine,
    cpu: Option<u32>,
    cpu_node: Option<u32>,
) -> Result<u32, BenchError> {
    match (cpu, cpu_node) {
        (Some(cpu), _) => resolve_cpu(topology, cpu),
        (None, Some(node)) => {
            Ok(FIRST_CPU_ORDER.arrange(topology, &cpus_of_node(topology, node)?)[0])
        }
        (None, None) => Ok(FIRST_CPU_ORDER.all_allowed(topology)[0]),
    }
}

/// `step` in [`FIRST_CPU_ORDER`] when numabench chose its CPU (no `--cpu`).
pub fn chosen_cpu_step(step: Step, cpu: Option<u32>) -> Step {
    match cpu {
        Some(_) => step,
        None => step.in_order(FIRST_CPU_ORDER),
    }
}

/// `--mem-node`, or the node of `cpu`.
pub fn choose_memory_node(
    topology: &Machine,
    mem_node: Option<u32>,
    cpu: u32,
) -> Result<u32, BenchError> {
    match mem_node {
        Some(node) => resolve_node_with_memory(topology, node),
        None => Ok(topology.node_of_cpu(cpu).unwrap_or(0)),
    }
}

/// `--size`, or the DRAM-sized working set of threads on `cpus` measuring
/// `nodes` ([`working_set_for`]); either must fit in `nodes`.
pub fn size_or_dram(
    topology: &Machine,
    size: Option<u64>,
    cpus: &[u32],
    nodes: &[u32],
) -> Result<u64, BenchError> {
    let size = size.unwrap_or_else(|| working_set_for(topology, cpus, nodes).bytes);
    check_memory_fits(topology, nodes, size)?;
    Ok(size)
}

/// Runs a command made of steps: `build` validates the flags into steps
/// (nothing allocated, no file created on bad input), which `--budget`
/// then fits ([`fit_measurements`]: fewer repetitions, smaller working
/// sets, no measurement dropped); with `--plan` their plan and the cuts
/// are printed and nothing runs, else the cuts go to stderr, `before` sees
/// the plan, the outputs are opened and the very same steps run, each
/// one's result (a matrix, for matrix steps) handed to `after`.
pub fn measure_steps(
    run: &MeasureArgs,
    output: &OutputArgs,
    build: impl FnOnce(&mut Context) -> Result<Vec<Step>, BenchError>,
    before: impl FnOnce(&Context, &[PlanStep]),
    after: impl FnMut(&Context, Option<NodeMatrix>),
) -> Result<Status, CliError> {
    measure_sampled_steps(run, output, MatrixCut::Never, build, before, after)
}

/// [`measure_steps`] whose node matrices the budget may measure by
/// symmetry class (`matrix`: the `matrix` command).
pub fn measure_sampled_steps(
    run: &MeasureArgs,
    output: &OutputArgs,
    matrix: MatrixCut,
    build: impl FnOnce(&mut Context) -> Result<Vec<Step>, BenchError>,
    before: impl FnOnce(&Context, &[PlanStep]),
    after: impl FnMut(&Context, Option<NodeMatrix>),
) -> Result<Status, CliError> {
    let outcome: RefCell<Option<BudgetOutcome>> = RefCell::new(None);
    run_steps(
        run,
        output,
        |context| {
            let mut steps = build(context)?;
            *outcome.borrow_mut() = Some(fit_measurements(context, &mut steps, run.budget, matrix));
            Ok(steps)
        },
        |context, plan| {
            if let Some(outcome) = outcome.borrow().as_ref() {
                super::app_budget::say_cuts(outcome);
            }
            before(context, plan)
        },
        after,
        None::<fn(&[Record], &mut Pipeline) -> _>,
        &|| outcome.borrow().clone(),
    )
}

/// [`measure_steps`], then, once every step has run (or Ctrl-C stopped
/// them), `closing` gets every record emitted and the pipeline to emit
/// more, before the outputs are closed; for a command whose `build` fitted
/// its steps into a time budget: `budget` says what the budget cut, for
/// `--plan`.
pub fn measure_budgeted_steps(
    run: &MeasureArgs,
    output: &OutputArgs,
    build: impl FnOnce(&mut Context) -> Result<Vec<Step>, BenchError>,
    before: impl FnOnce(&Context, &[PlanStep]),
    after: impl FnMut(&Context, Option<NodeMatrix>),
    closing: impl FnOnce(&[Record], &mut Pipeline) -> Result<(), OutputError>,
    budget: &dyn Fn() -> Option<BudgetOutcome>,
) -> Result<Status, CliError> {
    run_steps(run, output, build, before, after, Some(closing), budget)
}

/// Both of the above: the records are kept in memory only when there is a
/// `closing` to hand them to.
fn run_steps(
    run: &MeasureArgs,
    output: &OutputArgs,
    build: impl FnOnce(&mut Context) -> Result<Vec<Step>, BenchError>,
    before: impl FnOnce(&Context, &[PlanStep]),
    mut after: impl FnMut(&Context, Option<NodeMatrix>),
    closing: Option<impl FnOnce(&[Record], &mut Pipeline) -> Result<(), OutputError>>,
    budget: &dyn Fn() -> Option<BudgetOutcome>,
) -> Result<Status, CliError> {
    let mut context = context(run)?;
    let steps = build(&mut context)?;
    let plan = plan_of(&context, &steps);
    if run.planning.plan {
        let budget = budget();
        crate::plan::print_budgeted_plan(&context.topology, &plan, budget.as_ref(), output.json);
        return Ok(Status::Clean);
    }
    before(&context, &plan);
    let mut pipeline = pipeline(output, &context)?;
    let collected = match &closing {
        Some(_) => {
            let collected = CollectSink::default();
            pipeline.add_sink(
                Box::new(collected.clone()),
                &RunMetadata::collect(Vec::new(), &context.topology),
            )?;
            Some(collected)
        }
        None => None,
    };
    let mut progress = Progress::new(steps.len());
    let mut runner = StepRunner::new();
    let mut result = Ok(());
    for step in &steps {
        if interrupted() {
            break;
        }
        if steps.len() > 1 {
            progress.step(&step.label);
        }
        match runner.run(&context, step, &mut pipeline) {
            Ok(outcome) => after(&context, outcome),
            Err(error) => {
                result = Err(error);
                break;
            }
        }
    }
    if let (Ok(()), Some(closing), Some(collected)) = (&result, closing, collected) {
        closing(&collected.records(), &mut pipeline)?;
    }
    // Close the outputs even when the run failed midway: finished records stay valid.
    pipeline.finish()?;
    result?;
    Ok(Status::Clean)
}
