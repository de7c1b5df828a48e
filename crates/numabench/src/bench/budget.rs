//! A time budget for `characterize`: the plan is estimated, and what does
//! not fit is cut in a fixed order — fewer latency sizes, fewer
//! repetitions down to a floor, sampled CPUs, then the node matrices
//! measured by symmetry class, then working sets capped (see
//! `working_set_cut`) — until it fits or nothing more may be cut. Every
//! cut is returned with what it removed and why, so
//! the plan and the run's summary can name it: nothing is dropped silently.

use super::cell_classes::CLASS_DRAWS;
use super::contention::ContentionWork;
use super::context::Context;
use super::latency::LatencyConfig;
use super::matrix::MatrixSample;
use super::matrix::MatrixWork;
use super::per_cpu::OneCpu;
use super::plan::{plan_of, total_seconds};
use super::scaling::ScalingWork;
use super::scaling::{reader_nodes, scaling_counts, scaling_cpus};
use super::step::Step;
use serde::Serialize;

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

/// `characterize`'s default budget: ten minutes.
pub const DEFAULT_BUDGET_SECONDS: f64 = 600.0;

/// The fewest timed repetitions a budget may leave a measurement.
pub const REPEAT_FLOOR: usize = 3;

/// The fewest latency sizes a budget may leave: the smallest, one
/// between and the DRAM working set.
const MIN_LATENCY_SIZES: usize = 3;

/// One cut a budget made, in the order made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cut {
    /// What was cut: `sizes`, `repetitions`, `cpus`, `matrix-classes` or
    /// `working-sets`.
    pub what: &'static str,
    /// What the cut removed, as a sentence.
    pub text: String,
    /// The plan's estimate before the cut, seconds (above the budget:
    /// the reason for the cut).
    pub before_seconds: f64,
    /// The plan's estimate after it, seconds.
    pub after_seconds: f64,
}

/// What a budget did to a plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
}

impl BudgetOutcome {
    /// One line per cut, and one more where the plan still does not fit:
    /// what the plan and the run's summary print.
    pub fn sentences(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .cuts
            .iter()
            .map(|cut| {
                format!(
                    "budget cut ({}): {} (estimated {}, over the {} budget; {} after this cut)",
                    cut.what,
                    cut.text,
                    seconds_text(cut.before_seconds),
                    seconds_text(self.budget_seconds.unwrap_or(0.0)),
                    seconds_text(cut.after_seconds)
                )
            })
            .collect();
        if let (false, Some(budget)) = (self.fits, self.budget_seconds) {
            lines.push(format!(
                "over budget: estimated {} after every cut against a budget of {}; \
                 nothing more may be cut",
                seconds_text(self.estimated_seconds),
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
/// latency sizes, repetitions to [`REPEAT_FLOOR`], then CPUs sampled
/// (contention's threads alone in turn, the per-CPU steps), halving each
/// until the estimate fits or the cut reaches its floor; then, unless
/// `matrix` forbids it, the node matrices by symmetry class, the costliest
/// first, until the estimate fits; last, the working sets halved together
/// down to their floor (`working_set_cut`).
pub fn fit_budget(
    context: &mut Context,
    steps: &mut Vec<Step>,
    budget: Budget,
    matrix: MatrixCut,
) -> BudgetOutcome {
    let uncut = estimate(context, steps);
    let limit = match budget {
        Budget::Seconds(seconds) => seconds,
        Budget::Unlimited => {
            return BudgetOutcome {
                budget_seconds: None,
                uncut_seconds: uncut,
                estimated_seconds: uncut,
                cuts: Vec::new(),
                fits: true,
            }
        }
    };
    // Every cut in its order, each made only while the plan is over.
    let matrix_classes = |context: &mut Context, steps: &mut Vec<Step>, limit: f64| match matrix {
        MatrixCut::Seeded(seed) => {
            cut_matrices(context, steps, limit, seed).map(|text| ("matrix-classes", text))
        }
        MatrixCut::Never => None,
    };
    let working_sets = |context: &mut Context, steps: &mut Vec<Step>, limit: f64| {
        super::working_set_cut::cut_working_sets(context, steps, limit, estimate)
    };
    let stages: [Stage; 5] = [
        &cut_sizes,
        &cut_repetitions,
        &cut_cpus,
        &matrix_classes,
        &working_sets,
    ];
    let mut cuts = Vec::new();
    let mut current = uncut;
    for stage in stages {
        if current <= limit {
            break;
        }
        if let Some((what, text)) = stage(context, steps, limit) {
            let after = estimate(context, steps);
            cuts.push(Cut {
                what,
                text,
                before_seconds: current,
                after_seconds: after,
            });
            current = after;
        }
    }
    BudgetOutcome {
        budget_seconds: Some(limit),
        uncut_seconds: uncut,
        estimated_seconds: current,
        cuts,
        fits: current <= limit,
    }
}

/// Indices of characterize's latency sweep (one size per step).
fn latency_sweep(steps: &[Step]) -> Vec<usize> {
    steps
        .iter()
        .enumerate()
        .filter(|(_, step)| {
            step.work::<LatencyConfig>()
                .is_some_and(|config| config.sizes.len() == 1)
                && step.benchmark == "latency"
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

/// Halves one group of per-CPU steps (spread evenly, the ratios emitted by
/// the new last one); false where it is at its floor.
fn halve_per_cpu_group(
    context: &Context,
    steps: &mut Vec<Step>,
    group: std::ops::Range<usize>,
) -> bool {
    let cpus: Vec<u32> = steps[group.clone()]
        .iter()
        .filter_map(|step| step.work::<OneCpu>().map(|one| one.cpu))
        .collect();
    let floor = cpu_floor(context, &cpus);
    let keep_count = cpus.len().div_ceil(2).max(floor);
    if keep_count >= cpus.len() {
        return false;
    }
    let positions = spread(&(0..cpus.len()).collect::<Vec<_>>(), keep_count);
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
                    let rule =
                        format!("{rule}; then every other CPU dropped to fit the time budget");
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
        for group in per_cpu_groups(steps).into_iter().rev() {
            changed |= halve_per_cpu_group(context, steps, group);
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
            "{}: {} of {cells} cells measured ({} classes, each at its representative and {CLASS_DRAWS} \
             members drawn with seed {seed}), the rest inferred",
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
