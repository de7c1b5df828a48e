//! How many threads each policy's runs had, and the warning when the policies
//! compared ran different numbers: a pinned OpenMP program that ran a
//! smaller team than the unpinned one is a different experiment, not a
//! slower placement.

use super::executor::RunOutcome;
use super::study::PolicySummary;

/// The threads of a run's process tree the sampler saw (distinct thread ids,
/// main threads included); `None` without counts.
pub fn threads_seen(outcome: &RunOutcome) -> Option<usize> {
    outcome
        .counts
        .as_ref()
        .map(|counts| counts.threads_usage.len())
}

/// The median threads seen over a policy's successful runs (the lower
/// middle value for an even count); `None` when no run saw any.
pub fn policy_threads(summary: &PolicySummary) -> Option<usize> {
    let mut seen: Vec<usize> = summary
        .successful()
        .filter_map(threads_seen)
        .filter(|threads| *threads > 0)
        .collect();
    seen.sort_unstable();
    seen.get(seen.len().saturating_sub(1) / 2).copied()
}

/// One line naming each policy's thread count when they differ.
pub fn thread_count_warning(summaries: &[PolicySummary]) -> Option<String> {
    let counts: Vec<(&str, usize)> = summaries
        .iter()
        .filter_map(|summary| Some((summary.policy.as_str(), policy_threads(summary)?)))
        .collect();
    let first = counts.first()?.1;
    if counts.iter().all(|(_, threads)| *threads == first) {
        return None;
    }
    let list: Vec<String> = counts
        .iter()
        .map(|(policy, threads)| format!("{policy} {threads}"))
        .collect();
    Some(format!(
        "the policies ran different numbers of threads (median threads seen per run: {}): their times compare different experiments",
        list.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::ThreadUsage;
    use crate::runner::ProgramCounts;

    fn summary(policy: &str, threads: &[usize]) -> PolicySummary {
        let outcomes = threads
            .iter()
            .map(|&n| RunOutcome {
                exit_code: Some(0),
                counts: Some(ProgramCounts {
                    threads_usage: vec![ThreadUsage::default(); n],
                    ..ProgramCounts::default()
                }),
                ..RunOutcome::default()
            })
            .collect();
        PolicySummary {
            policy: policy.into(),
            outcomes,
            failures: 0,
            wall: None,
            speedup: None,
            p_value: None,
        }
    }

    #[test]
    fn different_thread_counts_are_named_per_policy() {
        let warning = thread_count_warning(&[
            summary("as-is", &[2, 2, 3]),
            summary("pin-compact", &[1, 1, 2]),
        ])
        .unwrap();
        assert!(warning.contains("as-is 2, pin-compact 1"), "{warning}");
        assert_eq!(
            thread_count_warning(&[summary("as-is", &[2, 3]), summary("pin-scatter", &[2, 2])]),
            None
        );
    }
}
