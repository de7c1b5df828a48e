//! A time budget for `characterize` (and, with fewer cuts, every other
//! measuring command: [`fit_measurements`]): the plan is estimated, and what does
//! not fit is cut in a fixed order — fewer latency sizes, the node
//! matrices measured by symmetry class, sampled CPUs, fewer repetitions
//! down to a floor, then working sets capped (see `working_set_cut`) —
//! until it fits or nothing more may be cut; a cut that would save under
//! 1% is not made. What the cuts leave is spent (per-cpu's CPUs given
//! back, more class members, an allowance for classes that disagree), and
//! what the cut plan cannot find is said. Every cut is returned with what
//! it removed and why, so the plan and the run's summary can name it:
//! nothing is dropped silently.

use super::contention::ContentionWork;
use super::context::Context;
use super::latency::LatencyConfig;
use super::matrix::MatrixSample;
use super::matrix::MatrixWork;
use super::per_cpu::OneCpu;
use super::plan::PlanStep;
use super::plan::{plan_of, total_seconds};
use super::scaling::ScalingWork;
use super::scaling::{reader_nodes, scaling_counts, scaling_cpus};
use super::step::Step;
use numabench_schema::benchmark;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Whether a budget may measure the node matrices by symmetry class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatrixCut {
    /// Never: every cell is measured (`--full-matrix`).
    Never,
    /// As the last cut, each class's members drawn with this seed.
    Seeded(u64),
}

/// How long a characterization may take.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Budget {
    /// At most this many seconds by the plan's estimate.
    Seconds(f64),
    /// Everything runs (`--budget none`).
    Unlimited,
}

impl Budget {
    /// What is left of this budget once `seconds` are spent (the
    /// calibration of the estimate's rates, before the plan is fitted);
    /// at least one second.
    pub fn less(self, seconds: f64) -> Budget {
        match self {
            Budget::Seconds(budget) => Budget::Seconds((budget - seconds.max(0.0)).max(1.0)),
            Budget::Unlimited => Budget::Unlimited,
        }
    }
}

/// `characterize`'s default budget: ten minutes.
pub const DEFAULT_BUDGET_SECONDS: f64 = 600.0;

/// The fewest timed repetitions a budget may leave a measurement.
pub const REPEAT_FLOOR: usize = 3;

/// The fewest latency sizes a budget may leave: the smallest, one
/// between and the DRAM working set.
const MIN_LATENCY_SIZES: usize = 3;

/// One cut a budget made, in the order made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cut {
    /// What was cut: `sizes`, `repetitions`, `cpus`, `matrix-classes` or
    /// `working-sets` (borrowed where cut; owned where a plan is read back).
    pub what: Cow<'static, str>,
    /// What the cut removed, as a sentence.
    pub text: String,
    /// The plan's estimate before the cut, seconds (above the budget:
    /// the reason for the cut).
    pub before_seconds: f64,
    /// The plan's estimate after it, seconds.
    pub after_seconds: f64,
}

/// What a budget did to a plan (`budget` of a plan document,
/// [`super::PlanDocument`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetOutcome {
    /// The budget, seconds; `None`: unlimited.
    pub budget_seconds: Option<f64>,
    /// The plan's estimate before any cut, seconds.
    pub uncut_seconds: f64,
    /// The plan's estimate after the cuts, seconds.
    pub estimated_seconds: f64,
    /// Every cut, in the order made.
    pub cuts: Vec<Cut>,
    /// The estimate fits the budget (after the cuts).
    pub fits: bool,
    /// What the budget the cuts left was spent on (more members of the
    /// sampled matrices' classes, and the allowance for classes whose
    /// members disagree), as a sentence; `None` where nothing was sampled.
    pub leftover: Option<String>,
    /// What the cut plan cannot find, each as a sentence naming what
    /// `--budget` buys it back (a slow CPU among CPUs not measured, a
    /// slow pair among cells inferred).
    pub blind_spots: Vec<String>,
    /// Seconds of the budget the calibration of the estimate's rates
    /// takes before the steps (characterize: measured in a run, estimated
    /// by `--plan`); the steps were fitted into the rest. `None`: none.
    pub calibration_seconds: Option<f64>,
}

impl BudgetOutcome {
    /// A budget of `limit` seconds that cut `cuts` from a plan of `uncut`
    /// seconds to one of `estimated`; nothing spent or missed yet.
    pub fn fitted(limit: f64, uncut: f64, estimated: f64, cuts: Vec<Cut>) -> Self {
        Self {
            budget_seconds: Some(limit),
            uncut_seconds: uncut,
            estimated_seconds: estimated,
            cuts,
            fits: estimated <= limit,
            leftover: None,
            blind_spots: Vec::new(),
            calibration_seconds: None,
        }
    }

    /// No budget (`--budget none`): nothing cut, the plan as estimated.
    pub fn unlimited(estimated_seconds: f64) -> Self {
        Self {
            budget_seconds: None,
            uncut_seconds: estimated_seconds,
            estimated_seconds,
            cuts: Vec::new(),
            fits: true,
            leftover: None,
            blind_spots: Vec::new(),
            calibration_seconds: None,
        }
    }

    /// One line per cut, and one more where the plan still does not fit:
    /// what the plan and the run's summary print.
    pub fn sentences(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .calibration_seconds
            .filter(|_| self.budget_seconds.is_some())
            .map(|seconds| {
                format!(
                    "the estimate's calibration: {} of the budget; the steps get the rest",
                    seconds_text(seconds)
                )
            })
            .into_iter()
            .collect();
        lines.extend(self.cuts.iter().map(|cut| {
            format!(
                "budget cut ({}): {} (estimated {}, over the {} budget; {} after this cut)",
                cut.what,
                cut.text,
                seconds_text(cut.before_seconds),
                seconds_text(self.budget_seconds.unwrap_or(0.0)),
                seconds_text(cut.after_seconds)
            )
        }));
        if let Some(leftover) = &self.leftover {
            lines.push(format!("budget left by the cuts: {leftover}"));
        }
        for spot in &self.blind_spots {
            lines.push(format!("cannot find at this budget: {spot}"));
        }
        if let (false, Some(budget)) = (self.fits, self.budget_seconds) {
            let (total, with) = match self.calibration_seconds {
                Some(calibration) => (
                    self.estimated_seconds + calibration,
                    " with the calibration",
                ),
                None => (self.estimated_seconds, ""),
            };
            lines.push(format!(
                "over budget: estimated {}{with} after every cut against a budget of {}; \
                 nothing more may be cut",
                seconds_text(total),
                seconds_text(budget)
            ));
        }
        lines
    }
}

/// One kind of cut: it changes the steps or the context while the
/// estimate is over the limit and says what it cut (`None`: nothing).
type Stage<'a> = &'a dyn Fn(&mut Context, &mut Vec<Step>, f64) -> Option<(&'static str, String)>;

/// Seconds as the sentences write them: a tenth below 10 s, else whole.
fn seconds_text(seconds: f64) -> String {
    if seconds < 10.0 {
        format!("{seconds:.1} s")
    } else {
        format!("{seconds:.0} s")
    }
}

fn estimate(context: &Context, steps: &[Step]) -> f64 {
    total_seconds(&plan_of(context, steps))
}

/// `count` of `items`, spread evenly from the first (in their order).
fn spread<T: Clone>(items: &[T], count: usize) -> Vec<T> {
    let count = count.clamp(1, items.len().max(1));
    (0..count.min(items.len()))
        .map(|index| items[index * items.len() / count].clone())
        .collect()
}

/// Fits `steps` (and `context.repeat`) into `budget`, cutting in order:
/// latency sizes; unless `matrix` forbids it, the node matrices by
/// symmetry class, the costliest first; CPUs sampled (contention's
/// threads alone in turn, per-cpu's CPUs within each node down to two,
/// scaling's counts); repetitions to [`REPEAT_FLOOR`]; last, the working
/// sets halved together down to their floor (`working_set_cut`). A stage
/// that saves under 1% of the estimate (and does not make it fit) is not
/// made. Then per-cpu gets back what now fits, the sampled matrices draw
/// more members with half the rest and keep the other half as their
/// allowance, and the outcome names the blind spots.
pub fn fit_budget(
    context: &mut Context,
    steps: &mut Vec<Step>,
    budget: Budget,
    matrix: MatrixCut,
) -> BudgetOutcome {
    let uncut = estimate(context, steps);
    let Budget::Seconds(limit) = budget else {
        return BudgetOutcome::unlimited(uncut);
    };
    // Every cut in its order, each made only while the plan is over.
    let matrix_classes = matrix_stage(matrix);
    // Matrices by class before CPUs: a class's members repeat what its
    // representative says (the topology cannot tell them apart), where a
    // CPU left out is a CPU a slow one may hide among.
    // Repetitions after both: fewer repetitions blur every figure (a
    // bandwidth's 3% noise over 3 repetitions hides a node 8% slow).
    let stages: [Stage; 5] = [
        &cut_sizes,
        &matrix_classes,
        &cut_cpus,
        &cut_repetitions,
        &working_sets_stage,
    ];
    let original_per_cpu: Vec<Vec<Step>> = per_cpu_groups(steps)
        .into_iter()
        .map(|group| steps[group].to_vec())
        .collect();
    let (mut cuts, mut current) = run_stages(context, steps, limit, uncut, &stages);
    if let Some(text) = restore_cpus(context, steps, &original_per_cpu, limit) {
        let after = estimate(context, steps);
        if let Some(cut) = cuts.iter_mut().find(|cut| cut.what == "cpus") {
            cut.text
                .push_str(&format!("; then {text} with what the later cuts left"));
            cut.after_seconds = after;
        }
        current = after;
    }
    spend_and_say(context, steps, limit, uncut, current, cuts)
}

/// The stage that measures the node matrices by symmetry class, where
/// `matrix` allows it.
fn matrix_stage(
    matrix: MatrixCut,
) -> impl Fn(&mut Context, &mut Vec<Step>, f64) -> Option<(&'static str, String)> {
    move |context: &mut Context, steps: &mut Vec<Step>, limit: f64| match matrix {
        MatrixCut::Seeded(seed) => {
            cut_matrices(context, steps, limit, seed).map(|text| (super::matrix::CLASSES_CUT, text))
        }
        MatrixCut::Never => None,
    }
}

/// The last cut: working sets halved together (`working_set_cut`).
fn working_sets_stage(
    context: &mut Context,
    steps: &mut Vec<Step>,
    limit: f64,
) -> Option<(&'static str, String)> {
    super::working_set_cut::cut_working_sets(context, steps, limit, estimate)
}

/// After the cuts: what they left spent on the sampled matrices, and the
/// outcome with the plan's blind spots.
fn spend_and_say(
    context: &mut Context,
    steps: &mut [Step],
    limit: f64,
    uncut: f64,
    mut current: f64,
    cuts: Vec<Cut>,
) -> BudgetOutcome {
    let leftover = spend_leftover(context, steps, limit);
    if leftover.is_some() {
        current = estimate(context, steps);
    }
    BudgetOutcome {
        leftover,
        blind_spots: blind_spots(context, steps),
        ..BudgetOutcome::fitted(limit, uncut, current, cuts)
    }
}

/// Makes each of `stages` in order while the estimate (`current` to
/// start with) is over `limit`; a stage is tried on a copy and not made
/// where it saves under [`MIN_STAGE_SAVING`] of the estimate without
/// bringing it within the limit. Returns the cuts made and the estimate
/// after them.
fn run_stages(
    context: &mut Context,
    steps: &mut Vec<Step>,
    limit: f64,
    mut current: f64,
    stages: &[Stage],
) -> (Vec<Cut>, f64) {
    let mut cuts = Vec::new();
    for stage in stages {
        if current <= limit {
            break;
        }
        // Tried on a copy: a stage that saves under MIN_STAGE_SAVING of
        // the estimate loses figures for nothing and is not made (the L2
        // and L3 latency sizes cost 0.03-0.3% of a big server's plan).
        let (mut tried_context, mut tried_steps) = (context.clone(), steps.clone());
        if let Some((what, text)) = stage(&mut tried_context, &mut tried_steps, limit) {
            let after = estimate(&tried_context, &tried_steps);
            if current - after < MIN_STAGE_SAVING * current && after > limit {
                continue;
            }
            *context = tried_context;
            *steps = tried_steps;
            cuts.push(Cut {
                what: Cow::Borrowed(what),
                text,
                before_seconds: current,
                after_seconds: after,
            });
            current = after;
        }
    }
    (cuts, current)
}

/// Fits the steps of one measuring command (everything but
/// `characterize`) into `budget`: a node matrix measured by symmetry class
/// where `matrix` allows it (the `matrix` command, unless --full-matrix:
/// every cell still has its record, inferred ones marked), contention's
/// reference threads alone in turn (its own choice, not the user's)
/// sampled, repetitions down to [`REPEAT_FLOOR`], then the working sets
/// halved together down to their floor (`working_set_cut`). What the cuts
/// leave draws more class members; the blind spots are named. A plan
/// still over says so (`fits` false).
pub fn fit_measurements(
    context: &mut Context,
    steps: &mut Vec<Step>,
    budget: Budget,
    matrix: MatrixCut,
) -> BudgetOutcome {
    let uncut = estimate(context, steps);
    let Budget::Seconds(limit) = budget else {
        return BudgetOutcome::unlimited(uncut);
    };
    let matrix_classes = matrix_stage(matrix);
    let stages: [Stage; 4] = [
        &matrix_classes,
        &cut_alone_threads,
        &cut_repetitions,
        &working_sets_stage,
    ];
    let (cuts, current) = run_stages(context, steps, limit, uncut, &stages);
    spend_and_say(context, steps, limit, uncut, current, cuts)
}

/// Gives per-cpu back as many of the CPUs the "cpus" cut dropped as the
/// budget now allows (the cuts after it may have left room: the cut is
/// made while contention and scaling are still whole), the same share of
/// each node's; says how many it measures then.
fn restore_cpus(
    context: &Context,
    steps: &mut Vec<Step>,
    original: &[Vec<Step>],
    limit: f64,
) -> Option<String> {
    let current = per_cpu_groups(steps);
    if current.len() != original.len()
        || current
            .iter()
            .zip(original)
            .all(|(now, all)| now.len() == all.len())
        || estimate(context, steps) >= limit
    {
        return None;
    }
    let with_share = |share: f64| {
        let mut tried = steps.clone();
        for (group, all) in per_cpu_groups(&tried).into_iter().zip(original).rev() {
            let start = group.start;
            tried.splice(group, all.iter().cloned());
            if share < 1.0 {
                trim_per_cpu_group(context, &mut tried, start..start + all.len(), share);
            }
        }
        tried
    };
    let before: usize = current.iter().map(|group| group.len()).sum();
    let mut best = None;
    for step in (1..=20).rev() {
        let share = step as f64 / 20.0;
        let tried = with_share(share);
        let kept: usize = per_cpu_groups(&tried).iter().map(|group| group.len()).sum();
        if kept > before && estimate(context, &tried) <= limit {
            best = Some((tried, kept));
            break;
        }
    }
    let (tried, kept) = best?;
    *steps = tried;
    let all: usize = original.iter().map(Vec::len).sum();
    Some(format!("per-cpu measures {kept} of its {all} CPU steps"))
}

/// A cut stage that saves less than this share of the estimate is not
/// made (unless it alone brings the plan within the budget).
const MIN_STAGE_SAVING: f64 = 0.01;

/// The sampled matrices among `steps` (indices), with each one's seconds
/// per measured cell by the estimate.
fn sampled_matrices(context: &Context, steps: &[Step]) -> Vec<(usize, f64)> {
    steps
        .iter()
        .enumerate()
        .filter_map(|(index, step)| {
            let sample = step.work::<MatrixWork>()?.sample.as_ref()?;
            let seconds = step.plan(context).estimated_seconds;
            Some((index, seconds / sample.cells().len().max(1) as f64))
        })
        .collect()
}

/// What the cuts left of the budget, spent on the sampled matrices: half
/// on more members of their classes (round robin over the matrices, the
/// least measured class of each first), the rest as the allowance of
/// further cells for classes whose members disagree. Says what it added.
fn spend_leftover(context: &Context, steps: &mut [Step], limit: f64) -> Option<String> {
    let sampled = sampled_matrices(context, steps);
    let spare = limit - estimate(context, steps);
    if sampled.is_empty() || spare <= 0.0 {
        return None;
    }
    let mut spent = 0.0;
    let mut added = 0;
    loop {
        let mut progress = false;
        for &(index, per_cell) in &sampled {
            if spent + per_cell > spare / 2.0 {
                continue;
            }
            let sample = steps[index]
                .work_mut::<MatrixWork>()
                .and_then(|work| work.sample.as_mut())?;
            if sample.draw_more() {
                spent += per_cell;
                added += 1;
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }
    let rest = spare - spent;
    let mut allowances = Vec::new();
    for &(index, per_cell) in &sampled {
        let label = steps[index].label.clone();
        let sample = steps[index]
            .work_mut::<MatrixWork>()
            .and_then(|work| work.sample.as_mut())?;
        sample.allowance = (rest / sampled.len() as f64 / per_cell).floor() as usize;
        if sample.cells().len() == sample.total_cells() {
            // Every member drawn: the matrix is measured whole.
            allowances.push(format!("{label}: every cell"));
            if let Some(work) = steps[index].work_mut::<MatrixWork>() {
                work.sample = None;
            }
            continue;
        }
        allowances.push(format!(
            "{label}: {} of {} cells, up to {} more where a class's members disagree",
            sample.cells().len(),
            sample.total_cells(),
            sample.allowance
        ));
    }
    Some(format!(
        "{} spent on the sampled matrices: {added} more class members drawn; {}",
        seconds_text(spare),
        allowances.join("; ")
    ))
}

/// What the cut plan cannot find, and what buys it back: a slow CPU
/// among the CPUs per-cpu does not measure, a slow node pair among the
/// cells a sampled matrix infers.
fn blind_spots(context: &Context, steps: &[Step]) -> Vec<String> {
    let plan: Vec<PlanStep> = plan_of(context, steps);
    let total = total_seconds(&plan);
    let mut spots = Vec::new();
    let allowed = context.topology.allowed.cpus.len();
    let groups = per_cpu_groups(steps);
    if let Some(group) = groups.first() {
        let measured = group.len();
        if measured < allowed {
            let seconds: f64 = groups
                .iter()
                .flat_map(|group| group.clone())
                .map(|index| plan[index].estimated_seconds)
                .sum::<f64>()
                / groups.iter().map(|g| g.len()).sum::<usize>().max(1) as f64;
            let mut per_node: std::collections::BTreeMap<u32, usize> = Default::default();
            for step in &steps[group.clone()] {
                if let Some(node) = step
                    .work::<OneCpu>()
                    .and_then(|one| context.topology.node_of_cpu(one.cpu))
                {
                    *per_node.entry(node).or_default() += 1;
                }
            }
            let fewest = per_node.values().min().copied().unwrap_or(0);
            spots.push(format!(
                "a slow CPU is found only among the {measured} of {allowed} CPUs per-cpu measures (at least {fewest} per node); every CPU would add about {} to the {} of this plan (a --budget that much larger at this plan's working sets; --budget none measures every CPU)",
                seconds_text(seconds * ((allowed - measured) * groups.len()) as f64),
                seconds_text(total)
            ));
        }
    }
    for (index, per_cell) in sampled_matrices(context, steps) {
        let Some(sample) = steps[index]
            .work::<MatrixWork>()
            .and_then(|work| work.sample.as_ref())
        else {
            continue;
        };
        let (measured, cells) = (sample.cells().len(), sample.total_cells());
        spots.push(format!(
            "{}: a slow node pair is found only among the {measured} of {cells} cells measured (each node's own cell always; the rest sampled by symmetry class); --full-matrix measures every cell, about {} more",
            steps[index].label,
            seconds_text(per_cell * (cells - measured) as f64)
        ));
    }
    spots
}

/// Indices of characterize's latency sweep (one size per step).
fn latency_sweep(steps: &[Step]) -> Vec<usize> {
    steps
        .iter()
        .enumerate()
        .filter(|(_, step)| {
            step.work::<LatencyConfig>()
                .is_some_and(|config| config.sizes.len() == 1)
                && step.benchmark == benchmark::LATENCY
        })
        .map(|(index, _)| index)
        .collect()
}

/// Fewer latency sizes: every other size between the smallest and the
/// largest dropped, again while over `limit`, down to [`MIN_LATENCY_SIZES`].
fn cut_sizes(
    context: &mut Context,
    steps: &mut Vec<Step>,
    limit: f64,
) -> Option<(&'static str, String)> {
    let before = latency_sweep(steps).len();
    let size_of = |step: &Step| {
        step.work::<LatencyConfig>()
            .map_or(0, |config| config.sizes[0])
    };
    let mut dropped: Vec<u64> = Vec::new();
    while estimate(context, steps) > limit {
        let sweep = latency_sweep(steps);
        if sweep.len() <= MIN_LATENCY_SIZES {
            break;
        }
        // Keep positions 0, 2, 4, ... and the last.
        let drop: Vec<usize> = sweep
            .iter()
            .enumerate()
            .filter(|&(position, _)| position % 2 == 1 && position + 1 < sweep.len())
            .map(|(_, &index)| index)
            .take(sweep.len() - MIN_LATENCY_SIZES)
            .collect();
        for &index in drop.iter().rev() {
            dropped.push(size_of(&steps[index]));
            steps.remove(index);
        }
    }
    if dropped.is_empty() {
        return None;
    }
    dropped.sort_unstable();
    let names: Vec<String> = dropped
        .iter()
        .map(|&size| crate::units::format_bytes(size))
        .collect();
    Some((
        "sizes",
        format!(
            "latency measured at {} of {before} sizes; not measured: {}",
            before - dropped.len(),
            names.join(", ")
        ),
    ))
}

/// Fewer repetitions: one fewer at a time while over `limit`, down to
/// [`REPEAT_FLOOR`] (never raised where the run asked for fewer).
#[allow(clippy::ptr_arg)] // a Stage: every cut takes the same arguments
fn cut_repetitions(
    context: &mut Context,
    steps: &mut Vec<Step>,
    limit: f64,
) -> Option<(&'static str, String)> {
    let before = context.repeat;
    while context.repeat > REPEAT_FLOOR && estimate(context, steps) > limit {
        context.repeat -= 1;
    }
    (context.repeat < before).then(|| {
        (
            "repetitions",
            format!(
                "{} timed repetitions per measurement instead of {before} (floor {REPEAT_FLOOR})",
                context.repeat
            ),
        )
    })
}

/// The fewest CPUs a sample of `cpus` keeps: one per node they span, at
/// least two (or all, where fewer).
fn cpu_floor(context: &Context, cpus: &[u32]) -> usize {
    let mut nodes: Vec<u32> = cpus
        .iter()
        .filter_map(|&cpu| context.topology.node_of_cpu(cpu))
        .collect();
    nodes.sort_unstable();
    nodes.dedup();
    nodes.len().max(2).min(cpus.len())
}

/// Groups of consecutive per-CPU steps, each ending at the step that emits
/// the ratios (`last`): index ranges into `steps`.
fn per_cpu_groups(steps: &[Step]) -> Vec<std::ops::Range<usize>> {
    let mut groups = Vec::new();
    let mut start = None;
    for (index, step) in steps.iter().enumerate() {
        if let Some(one) = step.work::<OneCpu>() {
            let first = *start.get_or_insert(index);
            if one.last {
                groups.push(first..index + 1);
                start = None;
            }
        } else {
            start = None;
        }
    }
    groups
}

/// The fewest thread counts a budget leaves a scaling curve.
const MIN_SCALING_COUNTS: usize = 4;

/// The longest curve of a scaling step: its reader nodes' CPU counts.
fn scaling_curve(context: &Context, step: &Step) -> usize {
    let Some(work) = step.work::<ScalingWork>() else {
        return 0;
    };
    reader_nodes(&context.topology, work.node)
        .into_iter()
        .filter_map(|reader| scaling_cpus(&context.topology, reader, work.order).ok())
        .map(|cpus| cpus.len())
        .max()
        .unwrap_or(0)
}

/// The suffix the last per-CPU step's label carries.
const RATIO_SUFFIX: &str = ", then every CPU's ratio to its node's median";

/// The fewest CPUs per node a per-CPU sample keeps: two (or all, where
/// a node has fewer), so every node is covered and a CPU can be compared
/// with another of its node.
const PER_NODE_FLOOR: usize = 2;

/// Trims one group of per-CPU steps within each node (each node keeps
/// `keep_share` of its CPUs, rounded up, spread evenly in their order, at
/// least [`PER_NODE_FLOOR`]; the ratios emitted by the new last one);
/// false where every node is at its floor.
fn trim_per_cpu_group(
    context: &Context,
    steps: &mut Vec<Step>,
    group: std::ops::Range<usize>,
    keep_share: f64,
) -> bool {
    let mut by_node: std::collections::BTreeMap<Option<u32>, Vec<usize>> = Default::default();
    for position in 0..group.len() {
        if let Some(one) = steps[group.start + position].work::<OneCpu>() {
            by_node
                .entry(context.topology.node_of_cpu(one.cpu))
                .or_default()
                .push(position);
        }
    }
    let mut positions: Vec<usize> = Vec::new();
    for members in by_node.values() {
        let keep = ((members.len() as f64 * keep_share).ceil() as usize)
            .min(members.len().saturating_sub(1))
            .max(PER_NODE_FLOOR.min(members.len()));
        positions.extend(spread(members, keep));
    }
    if positions.len() >= group.len() {
        return false;
    }
    positions.sort_unstable();
    let mut kept: Vec<Step> = positions
        .iter()
        .map(|&position| steps[group.start + position].clone())
        .collect();
    let count = kept.len();
    for (index, step) in kept.iter_mut().enumerate() {
        if let Some(one) = step.work.downcast_mut::<OneCpu>() {
            one.last = index + 1 == count;
            if let Some(rule) = one.labels.get("sample_rule").and_then(|r| r.as_str()) {
                if !rule.contains("time budget") {
                    let rule = format!(
                        "{rule}; then each node's CPUs cut (spread evenly, at least {PER_NODE_FLOOR} per node) to fit the time budget"
                    );
                    one.labels
                        .insert("sample_rule".into(), serde_json::json!(rule));
                }
            }
            let base = step.label.trim_end_matches(RATIO_SUFFIX).to_string();
            step.label = if one.last {
                format!("{base}{RATIO_SUFFIX}")
            } else {
                base
            };
        }
    }
    steps.splice(group, kept);
    true
}

/// Sampled CPUs: contention's threads alone in turn and the per-CPU
/// steps, each halved (spread evenly) while over `limit`, down to one CPU
/// per node they span; and scaling's thread counts, every other one
/// dropped (1 and all kept), down to [`MIN_SCALING_COUNTS`].
fn cut_cpus(
    context: &mut Context,
    steps: &mut Vec<Step>,
    limit: f64,
) -> Option<(&'static str, String)> {
    let alone_before: Vec<usize> = steps
        .iter()
        .filter_map(|step| step.work::<ContentionWork>().map(|work| work.alone.len()))
        .collect();
    let per_cpu_before = per_cpu_groups(steps)
        .iter()
        .map(|group| group.len())
        .sum::<usize>();
    while estimate(context, steps) > limit {
        let mut changed = false;
        for step in steps.iter_mut() {
            if let Some(work) = step.work_mut::<ContentionWork>() {
                let floor = cpu_floor(context, &work.cpus);
                let target = work.alone.len().div_ceil(2).max(floor);
                if target < work.alone.len() {
                    work.alone = spread(&work.cpus, target);
                    changed = true;
                }
            }
        }
        // Per-CPU steps: halved while far over; near the budget, only as
        // many dropped as the excess needs (halving overshot: a 128-CPU
        // server kept 32 CPUs where 100 fitted).
        let plan = plan_of(context, steps);
        let groups = per_cpu_groups(steps);
        let per_cpu_seconds: f64 = groups
            .iter()
            .flat_map(|group| group.clone())
            .map(|index| plan[index].estimated_seconds)
            .sum();
        let excess = total_seconds(&plan) - limit;
        let keep_share = if per_cpu_seconds > 0.0 && excess < per_cpu_seconds / 2.0 {
            (per_cpu_seconds - excess) / per_cpu_seconds
        } else {
            0.5
        };
        for group in groups.into_iter().rev() {
            changed |= trim_per_cpu_group(context, steps, group, keep_share);
        }
        for step in steps.iter_mut() {
            let curve = scaling_curve(context, step);
            if let Some(ScalingWork { stride, .. }) = step.work_mut::<ScalingWork>() {
                // Doubled only where that measures fewer counts and keeps
                // the floor (a curve of 2 or 3 has nothing to cut).
                let doubled = stride.saturating_mul(2);
                let fewer = scaling_counts(curve, doubled).len();
                if fewer < scaling_counts(curve, *stride).len()
                    && fewer >= MIN_SCALING_COUNTS.min(curve)
                {
                    *stride = doubled;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let alone_after: Vec<usize> = steps
        .iter()
        .filter_map(|step| step.work::<ContentionWork>().map(|work| work.alone.len()))
        .collect();
    let per_cpu_after = per_cpu_groups(steps)
        .iter()
        .map(|group| group.len())
        .sum::<usize>();
    let mut parts = Vec::new();
    for (before, after) in alone_before.iter().zip(&alone_after) {
        if after < before {
            parts.push(format!(
                "contention measures {after} of {before} threads alone in turn (spread evenly over the CPUs)"
            ));
        }
    }
    for step in steps.iter() {
        if let Some(ScalingWork { stride, .. }) = step.work::<ScalingWork>() {
            if *stride > 1 {
                let curve = scaling_curve(context, step);
                parts.push(format!(
                    "{} measures {} of its {curve} thread counts (1, the multiples of {stride}, all)",
                    step.label,
                    scaling_counts(curve, *stride).len()
                ));
            }
        }
    }
    if per_cpu_after < per_cpu_before {
        parts.push(format!(
            "per-cpu measures {per_cpu_after} of its {per_cpu_before} sampled CPU steps"
        ));
    }
    (!parts.is_empty()).then(|| ("cpus", parts.join("; ")))
}

/// Contention's threads measured alone in turn, sampled (spread evenly
/// over its CPUs, at least one per node): the largest common share of them
/// that brings the plan within `limit`, or the floor where none does.
fn cut_alone_threads(
    context: &mut Context,
    steps: &mut Vec<Step>,
    limit: f64,
) -> Option<(&'static str, String)> {
    let original: Vec<(usize, Vec<u32>, usize)> = steps
        .iter()
        .enumerate()
        .filter_map(|(index, step)| {
            let work = step.work::<ContentionWork>()?;
            Some((index, work.cpus.clone(), work.alone.len()))
        })
        .collect();
    if original.is_empty() {
        return None;
    }
    let with_share = |share: f64| {
        let mut tried = steps.clone();
        for (index, cpus, alone) in &original {
            if let Some(work) = tried[*index].work_mut::<ContentionWork>() {
                let target = ((*alone as f64 * share).ceil() as usize)
                    .max(cpu_floor(context, cpus))
                    .min(*alone);
                if target < *alone {
                    work.alone = spread(cpus, target);
                }
            }
        }
        tried
    };
    // The estimate grows with the share: bisect for the largest that fits.
    let (mut low, mut high) = (0.0_f64, 1.0_f64);
    if estimate(context, &with_share(low)) <= limit {
        for _ in 0..24 {
            let middle = (low + high) / 2.0;
            if estimate(context, &with_share(middle)) <= limit {
                low = middle;
            } else {
                high = middle;
            }
        }
    }
    *steps = with_share(low);
    let parts: Vec<String> = original
        .iter()
        .filter_map(|(index, _, before)| {
            let after = steps[*index].work::<ContentionWork>()?.alone.len();
            (after < *before).then(|| {
                format!(
                    "contention measures {after} of {before} threads alone in turn (spread evenly over the CPUs)"
                )
            })
        })
        .collect();
    (!parts.is_empty()).then(|| ("cpus", parts.join("; ")))
}

/// Node matrices by symmetry class: the costliest full matrix first,
/// while over `limit`; says which, and how many cells each measures.
fn cut_matrices(context: &Context, steps: &mut [Step], limit: f64, seed: u64) -> Option<String> {
    let mut parts = Vec::new();
    // Where every class has a single cell (an asymmetric SLIT, or a matrix
    // of 1 or 2 cells) a sample is every cell: nothing to cut, nothing said.
    let whole = MatrixSample::new(&context.topology, seed);
    if whole.cells().len()
        >= whole
            .classes
            .iter()
            .map(|class| class.cells.len())
            .sum::<usize>()
    {
        return None;
    }
    while estimate(context, steps) > limit {
        let costliest = steps
            .iter()
            .enumerate()
            .filter(|(_, step)| {
                step.work::<MatrixWork>()
                    .is_some_and(|work| work.sample.is_none())
            })
            .map(|(index, step)| (index, step.plan(context).estimated_seconds))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let Some((index, _)) = costliest else {
            break;
        };
        let sample = MatrixSample::new(&context.topology, seed);
        let cells: usize = sample.classes.iter().map(|class| class.cells.len()).sum();
        parts.push(format!(
            "{}: {} of {cells} cells measured ({} classes: every node's own cell, each other \
             class at its representative and about sqrt(n) members drawn with seed {seed}), the \
             rest inferred",
            steps[index].label,
            sample.cells().len(),
            sample.classes.len()
        ));
        if let Some(work) = steps[index].work_mut::<MatrixWork>() {
            work.sample = Some(sample);
        }
    }
    (!parts.is_empty()).then(|| format!("{}; --full-matrix measures every cell", parts.join("; ")))
}

#[cfg(test)]
#[path = "budget_tests.rs"]
mod tests;
