//! `--plan`: prints the steps a command would run, as a table or a JSON
//! document (schema in docs/plan.md), and the estimated total.

use crate::progress::clock;
use numabench::bench::{total_seconds, PlanStep};
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

/// `cpus` in their order, runs of consecutive numbers written `a-b`.
pub fn cpu_list_text(cpus: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut index = 0;
    while index < cpus.len() {
        let start = cpus[index];
        let mut end = index;
        while end + 1 < cpus.len() && cpus[end + 1] == cpus[end] + 1 {
            end += 1;
        }
        parts.push(if end == index {
            start.to_string()
        } else {
            format!("{start}-{}", cpus[end])
        });
        index = end + 1;
    }
    parts.join(",")
}

/// The plan as a table, one block per step, ending with the total.
pub fn plan_text(source: &str, plan: &[PlanStep]) -> String {
    let mut out = format!("Plan ({} steps) on {source}; nothing runs.\n", plan.len());
    for (index, step) in plan.iter().enumerate() {
        let order = step
            .cpu_order
            .map_or(String::new(), |order| format!(" ({order} order)"));
        let sizes: Vec<String> = step.sizes.iter().map(|&size| format_bytes(size)).collect();
        out.push_str(&format!(
            "{:>3}. {} — {}\n     threads {}, CPUs{order}: {}\n     memory nodes: {}\n     \
             working set {} against {} of caches in front{}\n     \
             {} measurement(s) x {} repetitions, estimated {}\n",
            index + 1,
            step.benchmark,
            step.label,
            step.threads,
            cpu_list_text(&step.cpus),
            if step.mem_nodes.is_empty() {
                "none (cache lines between cores)".to_string()
            } else {
                cpu_list_text(&step.mem_nodes)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_keep_their_order_and_fold_runs() {
        assert_eq!(cpu_list_text(&[0, 64, 1, 65]), "0,64,1,65");
        assert_eq!(cpu_list_text(&[0, 1, 2, 3, 8, 9]), "0-3,8-9");
        assert_eq!(cpu_list_text(&[]), "");
    }
}
