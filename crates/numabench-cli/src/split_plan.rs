//! `placement-study --node-splits --plan`: the splits that would run, the
//! ones found equivalent to each by SLIT symmetry, the skipped ones (the
//! JSON plan's `node_splits`: `numabench::experiments::SplitEnumeration::plan`).

use numabench::experiments::{split_text, SplitEnumeration};
use numabench::parse::format_in_order;

/// The listing printed before the plan's steps.
pub fn splits_text(threads: usize, splits: &SplitEnumeration) -> String {
    let mut out = format!(
        "Node splits of {threads} threads (threads per node in node order; {}):\n",
        if splits.symmetry_used {
            "splits mapped onto each other by a node permutation that preserves the SLIT are one"
        } else {
            "no SLIT: no splits deduplicated"
        }
    );
    for (index, split) in splits.splits.iter().enumerate() {
        let equivalent = if split.equivalent_count == 0 {
            String::new()
        } else {
            let shown: Vec<String> = split.equivalent.iter().map(|s| split_text(s)).collect();
            let more = split.equivalent_count - split.equivalent.len();
            format!(
                "; equivalent: {}{}",
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            )
        };
        out.push_str(&format!(
            "  {:>2}. {}  CPUs {}{equivalent}\n",
            index + 1,
            split.text(),
            format_in_order(&split.cpus)
        ));
    }
    for skipped in &splits.skipped {
        out.push_str(&format!(
            "  skipped: {} ({})\n",
            split_text(&skipped.threads_per_node),
            skipped.reason
        ));
    }
    if splits.truncated {
        out.push_str("  (stopped at the limit: more splits may exist; raise --max-splits)\n");
    }
    out
}
