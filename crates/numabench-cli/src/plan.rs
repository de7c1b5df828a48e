//! `--plan`: prints the steps a command would run, as a table or a JSON
//! document (schema in docs/plan.md), and the estimated total.

use crate::progress::clock;
use numabench::bench::{total_seconds, BudgetOutcome, PlanDocument, PlanStep};
use numabench::parse::format_in_order;
use numabench::runner::RunPlan;
use numabench::topology::Machine;
use numabench::units::format_bytes;
use serde::Serialize;

/// Prints a plan document as `--plan --json` does: pretty JSON, its keys
/// in the order of its type's fields.
pub fn print_json(document: &impl Serialize) {
    let text = serde_json::to_string_pretty(document)
        .expect("a plan document has string keys and serializes");
    println!("{text}");
}

/// Prints a plan as `--plan` does (a JSON document with `json`), with what
/// its time budget cut (`budget` in the JSON document; lines before the
/// total in the table).
pub fn print_budgeted_plan(
    topology: &Machine,
    plan: &[PlanStep],
    budget: Option<&BudgetOutcome>,
    json: bool,
) {
    if json {
        print_json(&PlanDocument {
            budget: budget.cloned(),
            ..PlanDocument::new(&topology.source, plan.to_vec())
        });
    } else {
        // The budget's lines before the total, which stays the last line.
        let text = plan_text(&topology.source, plan);
        let (steps, total) = text
            .trim_end()
            .rsplit_once('\n')
            .unwrap_or(("", text.trim_end()));
        print!(
            "{steps}\n{}{total}\n",
            budget.map(budget_text).unwrap_or_default()
        );
    }
}

/// What a time budget did, as `--plan` and the run's summary say it.
pub fn budget_text(budget: &BudgetOutcome) -> String {
    let mut out = match budget.budget_seconds {
        Some(seconds) if budget.cuts.is_empty() && budget.fits => format!(
            "Budget: {} (--budget); the plan fits, nothing cut\n",
            clock(seconds)
        ),
        Some(seconds) => format!(
            "Budget: {} (--budget); {} before cuts, {} after\n",
            clock(seconds),
            clock(budget.uncut_seconds),
            clock(budget.estimated_seconds)
        ),
        None => "Budget: none (--budget none): nothing cut\n".to_string(),
    };
    for line in budget.sentences() {
        out.push_str(&format!("  - {line}\n"));
    }
    // characterize's budget rests on its estimate: how far off it was.
    if budget.calibration_seconds.is_some() {
        out.push_str(&format!(
            "  - the estimate's measured error: {}\n",
            numabench::bench::MEASURED_ERROR
        ));
    }
    out
}

/// The plan as a table, one block per step, ending with the total.
pub fn plan_text(source: &str, plan: &[PlanStep]) -> String {
    let mut out = format!("Plan ({} steps) on {source}; nothing runs.\n", plan.len());
    for (index, step) in plan.iter().enumerate() {
        let order = step
            .cpu_order
            .as_ref()
            .map_or(String::new(), |order| format!(" ({order} order)"));
        let sizes: Vec<String> = step.sizes.iter().map(|&size| format_bytes(size)).collect();
        let sampled = step
            .sample_rule
            .as_ref()
            .map_or(String::new(), |rule| format!("\n     sampled: {rule}"));
        out.push_str(&format!(
            "{:>3}. {} — {}\n     threads {}, CPUs{order}: {}\n     memory nodes: {}\n     \
             working set {} against {} of caches in front{}\n     \
             {} measurement(s) x {} repetitions, estimated {}{sampled}\n",
            index + 1,
            step.benchmark,
            step.label,
            step.threads,
            format_in_order(&step.cpus),
            if step.mem_nodes.is_empty() {
                "none (cache lines between cores)".to_string()
            } else {
                format_in_order(&step.mem_nodes)
            },
            sizes.join(", "),
            format_bytes(step.cache_bytes_in_front),
            if step.cache_affected {
                " (cache-affected)"
            } else {
                ""
            },
            step.measurements,
            step.repeat,
            clock(step.estimated_seconds),
        ));
    }
    out.push_str(&format!(
        "Estimated total: {} (a rough estimate; see docs/plan.md)\n",
        clock(total_seconds(plan))
    ));
    out
}

/// A plan of `numabench run` ([`RunPlan`]) as text.
pub fn run_plan_text(plan: &RunPlan) -> String {
    let mut out = format!(
        "Plan ({} policies, interleaved round robin) on {}; nothing runs.\n",
        plan.steps.len(),
        plan.topology_source
    );
    for (index, step) in plan.steps.iter().enumerate() {
        let cpu_text = match (step.pinned, step.cpus.is_empty()) {
            (_, true) => "as the program and the kernel choose".to_string(),
            (true, false) => format!(
                "threads pinned in {} order: {}",
                step.cpu_order.as_deref().unwrap_or("?"),
                format_in_order(&step.cpus)
            ),
            (false, false) => format!("restricted to {}", format_in_order(&step.cpus)),
        };
        out.push_str(&format!(
            "{:>3}. {} — CPUs: {cpu_text}; memory: {}; {} runs after {} warm-up\n",
            index + 1,
            step.label,
            step.memory_policy
                .as_deref()
                .unwrap_or("as the program and the kernel choose"),
            step.repeat,
            step.warmup,
        ));
    }
    out
}
