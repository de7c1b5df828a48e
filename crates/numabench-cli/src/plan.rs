//! `--plan`: prints the steps a command would run, as a table or a JSON
//! document (schema in docs/plan.md), and the estimated total.

use crate::progress::clock;
use numabench::bench::{total_seconds, BudgetOutcome, PlanStep};
use numabench::parse::format_in_order;
use numabench::runner::RunPolicy;
use numabench::topology::Machine;
use numabench::units::format_bytes;
use serde_json::json;

/// The plan as the JSON document `--plan --json` prints.
pub fn plan_json(source: &str, plan: &[PlanStep]) -> serde_json::Value {
    json!({
        "topology_source": source,
        "estimated_seconds": total_seconds(plan),
        "steps": plan,
    })
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
        let mut document = plan_json(&topology.source, plan);
        if let Some(budget) = budget {
            document["budget"] = json!(budget);
        }
        println!("{document:#}");
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

/// The plan of `numabench run`: one step per policy, each run `repeat`
/// times after `warmup` unmeasured runs, the policies interleaved round
/// robin. A program's threads, size and duration are its own: `threads`,
/// `size_bytes` and `estimated_seconds` are null.
pub fn run_plan(
    topology: &Machine,
    command: &[String],
    policies: &[RunPolicy],
    repeat: u32,
    warmup: u32,
) -> serde_json::Value {
    let steps: Vec<serde_json::Value> = policies
        .iter()
        .map(|policy| {
            let cpus = policy
                .pin_order
                .clone()
                .or_else(|| policy.affinity.clone())
                .unwrap_or_default();
            json!({
                "benchmark": "run",
                "label": policy.label,
                "command": command,
                "threads": null,
                "cpus": cpus,
                "pinned": policy.pin_order.is_some(),
                "cpu_order": policy.cpu_order.map(|order| order.name()),
                "mem_nodes": policy.memory.as_ref().map(|memory| memory.nodes.clone()).unwrap_or_default(),
                "memory_policy": policy.memory.as_ref().map(|memory| memory.label()),
                "size_bytes": null,
                "repeat": repeat,
                "warmup": warmup,
                "estimated_seconds": null,
            })
        })
        .collect();
    json!({
        "topology_source": topology.source,
        "interleaved": true,
        "steps": steps,
    })
}

/// [`run_plan`] as text.
pub fn run_plan_text(plan: &serde_json::Value) -> String {
    let steps = plan["steps"].as_array().map_or(&[][..], Vec::as_slice);
    let mut out = format!(
        "Plan ({} policies, interleaved round robin) on {}; nothing runs.\n",
        steps.len(),
        plan["topology_source"].as_str().unwrap_or("?")
    );
    let numbers = |value: &serde_json::Value| -> Vec<u32> {
        value
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|n| n.as_u64())
                    .map(|n| n as u32)
                    .collect()
            })
            .unwrap_or_default()
    };
    for (index, step) in steps.iter().enumerate() {
        let cpus = numbers(&step["cpus"]);
        let cpu_text = match (step["pinned"].as_bool(), cpus.is_empty()) {
            (_, true) => "as the program and the kernel choose".to_string(),
            (Some(true), false) => format!(
                "threads pinned in {} order: {}",
                step["cpu_order"].as_str().unwrap_or("?"),
                format_in_order(&cpus)
            ),
            _ => format!("restricted to {}", format_in_order(&cpus)),
        };
        out.push_str(&format!(
            "{:>3}. {} — CPUs: {cpu_text}; memory: {}; {} runs after {} warm-up\n",
            index + 1,
            step["label"].as_str().unwrap_or("?"),
            step["memory_policy"]
                .as_str()
                .unwrap_or("as the program and the kernel choose"),
            step["repeat"],
            step["warmup"],
        ));
    }
    out
}
