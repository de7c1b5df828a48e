//! How many threads each policy's runs had, and the warning when the policies
//! compared ran different numbers: a pinned OpenMP program that ran a
//! smaller team than the unpinned one is a different experiment, not a
//! slower placement.

use super::compare_policies::PolicySummary;
use super::executor::RunOutcome;
use crate::counters::tick_seconds;

/// The threads of a run's process tree the sampler saw (distinct thread ids,
/// main threads included); `None` without counts.
pub fn threads_seen(outcome: &RunOutcome) -> Option<usize> {
    outcome
        .counts
        .as_ref()
        .map(|counts| counts.threads_usage.len())
}

/// The fewest samples a run needs for its threads seen to count towards its
/// policy's team. The sampler asks for one sample a millisecond, but when the
/// program keeps every CPU busy the scheduler can hold it off for 10 ms and
/// more: a 30 ms run of a two-thread team on two CPUs was sampled twice,
/// before the team started and after it ended, and showed one thread.
pub const MIN_SAMPLES_FOR_TEAM: u64 = 10;

/// The share of a run's sampled time a thread that ran less than a clock
/// tick must have been seen alive to count as a member of the team.
pub const TEAM_SPAN_SHARE: f64 = 0.5;

/// The threads of a run's team: those of the process tree that ran at
/// least one clock tick ([`tick_seconds`], 10 ms) of user and system time,
/// or that the sampler saw alive for [`TEAM_SPAN_SHARE`] of the run or
/// more (a team thread a busy machine starved of CPU: a spinning libomp
/// thread pinned to a CPU that other work held ran under 10 ms of a 0.3 s
/// run). Distinct thread ids alone count a job script's helpers as well
/// (the `$(nproc)` in `OMP_NUM_THREADS=$(nproc) exec ./app` lives for a
/// millisecond, a few more on a slow host, and is seen by the sampler when
/// a sample lands in it): a team of one and two then read alike.
/// `None` without counts.
pub fn team_threads(outcome: &RunOutcome) -> Option<usize> {
    let tick = tick_seconds();
    outcome.counts.as_ref().map(|counts| {
        let lasting = (counts.sampled_seconds * TEAM_SPAN_SHARE).max(tick);
        counts
            .threads_usage
            .iter()
            .filter(|usage| {
                usage.user_seconds + usage.system_seconds >= tick * 0.999
                    || counts
                        .seen_seconds
                        .get(&usage.tid)
                        .is_some_and(|&seen| seen >= lasting)
            })
            .count()
    })
}

/// `count` of a run sampled at least [`MIN_SAMPLES_FOR_TEAM`] times.
fn well_sampled(outcome: &RunOutcome, count: fn(&RunOutcome) -> Option<usize>) -> Option<usize> {
    let samples = outcome.counts.as_ref()?.tlp.map_or(0, |tlp| tlp.samples);
    (samples >= MIN_SAMPLES_FOR_TEAM).then(|| count(outcome))?
}

/// The median of `count` over a policy's successful runs that were sampled
/// at least [`MIN_SAMPLES_FOR_TEAM`] times (the lower middle value for an
/// even count); `None` when no such run counted any.
fn policy_median(
    summary: &PolicySummary,
    count: fn(&RunOutcome) -> Option<usize>,
) -> Option<usize> {
    let mut seen: Vec<usize> = summary
        .successful()
        .filter_map(|outcome| well_sampled(outcome, count))
        .filter(|threads| *threads > 0)
        .collect();
    seen.sort_unstable();
    seen.get(seen.len().saturating_sub(1) / 2).copied()
}

/// The median [`threads_seen`] of a policy's well-sampled runs.
pub fn policy_threads(summary: &PolicySummary) -> Option<usize> {
    policy_median(summary, threads_seen)
}

/// The median [`team_threads`] of a policy's well-sampled runs: what the
/// policies' teams are compared by.
pub fn policy_team(summary: &PolicySummary) -> Option<usize> {
    policy_median(summary, team_threads)
}

/// One line naming each policy's team ([`policy_team`]) when they differ
/// (policies without a count, every run too short to tell, are left out).
pub fn thread_count_warning(summaries: &[PolicySummary]) -> Option<String> {
    let counts: Vec<(&str, usize)> = summaries
        .iter()
        .filter_map(|summary| Some((summary.policy.as_str(), policy_team(summary)?)))
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
        "the policies ran different numbers of threads (median threads that ran 10 ms or more, or lived half the run, per run: {}): their times compare different experiments",
        list.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::{ThreadUsage, Tlp};
    use crate::runner::ProgramCounts;

    /// A policy's summary from its runs' teams (threads that each ran
    /// 20 ms), each run sampled 100 times.
    fn summary(policy: &str, threads: &[usize]) -> PolicySummary {
        let runs: Vec<(usize, u64)> = threads.iter().map(|&n| (n, 100)).collect();
        sampled_summary(policy, &runs)
    }

    /// A policy's summary from its runs' (threads seen, samples taken).
    fn sampled_summary(policy: &str, runs: &[(usize, u64)]) -> PolicySummary {
        let worked = ThreadUsage {
            user_seconds: 0.02,
            ..ThreadUsage::default()
        };
        let outcomes = runs
            .iter()
            .map(|&(n, samples)| RunOutcome {
                exit_code: Some(0),
                counts: Some(ProgramCounts {
                    threads_usage: vec![worked; n],
                    tlp: Some(Tlp {
                        tlp_1: 0.0,
                        tlp_2: 0.0,
                        tlp_3: 0.0,
                        tlp_4: 0.0,
                        samples,
                        cores: 2,
                        mean_interval_ms: None,
                    }),
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
            adjusted_p_value: None,
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

    /// A job script's helper process (a millisecond of `nproc`) is seen
    /// but is not one of the team.
    #[test]
    fn threads_that_barely_ran_are_not_the_team() {
        let mut with_helper = summary("pin-compact", &[1, 1, 1]);
        for outcome in &mut with_helper.outcomes {
            let counts = outcome.counts.as_mut().unwrap();
            counts.threads_usage.push(ThreadUsage {
                user_seconds: 0.0,
                system_seconds: 0.0,
                ..ThreadUsage::default()
            });
        }
        assert_eq!(policy_threads(&with_helper), Some(2));
        assert_eq!(policy_team(&with_helper), Some(1));
        let warning = thread_count_warning(&[summary("as-is", &[2, 2, 2]), with_helper]).unwrap();
        assert!(warning.contains("as-is 2, pin-compact 1"), "{warning}");
    }

    /// A thread that ran under a clock tick counts when it lived half the
    /// run (starved of CPU by other work), not when it lived a moment (a
    /// job script's helper).
    #[test]
    fn a_starved_team_thread_counts_and_a_passing_helper_does_not() {
        let thread = |tid: u32, user_seconds: f64| ThreadUsage {
            tid,
            user_seconds,
            ..ThreadUsage::default()
        };
        let outcome = |seen: &[(u32, f64)]| RunOutcome {
            exit_code: Some(0),
            counts: Some(ProgramCounts {
                threads_usage: vec![thread(1, 0.3), thread(2, 0.0), thread(3, 0.0)],
                seen_seconds: seen.iter().copied().collect(),
                sampled_seconds: 0.3,
                ..ProgramCounts::default()
            }),
            ..RunOutcome::default()
        };
        // Thread 2 spun for the whole run with under 10 ms of CPU; thread 3
        // lived 20 ms.
        assert_eq!(
            team_threads(&outcome(&[(1, 0.3), (2, 0.29), (3, 0.02)])),
            Some(2)
        );
        assert_eq!(
            team_threads(&outcome(&[(1, 0.3), (2, 0.1), (3, 0.02)])),
            Some(1)
        );
    }

    /// A run sampled too few times (a starved sampler, or a run of a few
    /// milliseconds) does not count: two samples can fall before a team
    /// starts and after it ends.
    #[test]
    fn runs_sampled_too_few_times_do_not_count() {
        let starved = sampled_summary("pin-compact", &[(2, 40), (1, 2), (1, 2)]);
        assert_eq!(policy_threads(&starved), Some(2));
        assert_eq!(
            thread_count_warning(&[summary("as-is", &[2, 2, 2]), starved]),
            None
        );
        let short = sampled_summary("pin-scatter", &[(1, 9), (1, 3)]);
        assert_eq!(policy_threads(&short), None);
        assert_eq!(
            thread_count_warning(&[summary("as-is", &[2, 2]), short]),
            None
        );
        let enough = sampled_summary("pin-scatter", &[(1, MIN_SAMPLES_FOR_TEAM)]);
        assert!(thread_count_warning(&[summary("as-is", &[2]), enough]).is_some());
    }
}
