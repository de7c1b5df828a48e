//! The verdict of a placement study: which configuration is fastest, named
//! only when the runs support it, and which has the lowest coefficient of
//! variation (descriptive: no test is made, see [`repeatability`]). Run
//! times are noisy, so "lowest median" alone would name a winner among
//! configurations that are really equal; the fastest must beat every
//! other one by a rank test, as `numabench run` judges its policies.

use super::table::StudyRow;
use crate::stats::Sample;
pub use crate::study::{smallest_p_value, Fastest, SIGNIFICANCE};
use numabench_schema::params::SlowestParams;

/// The fewest runs a configuration needs before its coefficient of
/// variation is compared: with two runs the CV is one difference.
pub const MIN_RUNS_FOR_REPEATABILITY: usize = 3;

/// Why a configuration may not be named fastest or most repeatable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exclusion {
    /// A run's result failed the kernel's verification.
    VerificationFailed,
    /// The pages did not sit where the scheme asks (`placement.verified.achieved` false).
    PlacementNotAchieved,
}

impl Exclusion {
    /// As written in records and the table's notes.
    pub fn reason(self) -> &'static str {
        match self {
            Exclusion::VerificationFailed => "verification failed",
            Exclusion::PlacementNotAchieved => "placement not achieved",
        }
    }
}

/// Why `row` cannot be named, or `None` when it can. A configuration no
/// placement check applies to, or whose check could not see the pages
/// (`placement_achieved()` = `None`), can be.
pub fn exclusion(row: &StudyRow) -> Option<Exclusion> {
    if !row.summary.all_verified {
        Some(Exclusion::VerificationFailed)
    } else if row.summary.placement_achieved() == Some(false) {
        Some(Exclusion::PlacementNotAchieved)
    } else {
        None
    }
}

/// Names the fastest eligible configuration when the runs support it
/// ([`crate::study::fastest`] of the rows [`exclusion`] lets through).
pub fn fastest(rows: &[StudyRow]) -> Fastest {
    let times: Vec<Option<&Sample>> = rows
        .iter()
        .map(|row| exclusion(row).is_none().then_some(&row.summary.time))
        .collect();
    crate::study::fastest(&times)
}

/// The most and least repeatable configurations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repeatability {
    /// Lowest coefficient of variation of the run times.
    pub most: usize,
    /// Highest coefficient of variation.
    pub least: usize,
    /// How many configurations were compared.
    pub compared: usize,
}

/// The rule: among eligible configurations with at least
/// [`MIN_RUNS_FOR_REPEATABILITY`] runs, the lowest and highest CV of run
/// times (ties: the earlier configuration). `None` when no configuration
/// qualifies. Descriptive only: a CV of 3 to 5 runs is too uncertain for
/// the lowest one to show a steadier configuration, and no test of the
/// dispersions is made, so outputs call it "lowest cv (descriptive, not
/// tested)" and never "most repeatable".
pub fn repeatability(rows: &[StudyRow]) -> Option<Repeatability> {
    let qualified: Vec<usize> = (0..rows.len())
        .filter(|&index| {
            exclusion(&rows[index]).is_none()
                && rows[index].summary.time.len() >= MIN_RUNS_FOR_REPEATABILITY
        })
        .collect();
    let cv = |index: &&usize| rows[**index].summary.time.cv();
    let most = *qualified.iter().min_by(|a, b| cv(a).total_cmp(&cv(b)))?;
    let least = *qualified
        .iter()
        .rev()
        .max_by(|a, b| cv(a).total_cmp(&cv(b)))?;
    Some(Repeatability {
        most,
        least,
        compared: qualified.len(),
    })
}

/// The "slowest" verdict: [`fastest`] of the rows with their run times
/// negated (the rank test is symmetric), so the slowest is named only when
/// its runs are significantly slower than every other eligible row's.
pub fn slowest(rows: &[StudyRow]) -> Fastest {
    let negated: Vec<StudyRow> = rows
        .iter()
        .map(|row| {
            let mut row = row.clone();
            let times: Vec<f64> = row.summary.time.values().iter().map(|t| -t).collect();
            row.summary.time = Sample::new(times).expect("finite times");
            row
        })
        .collect();
    fastest(&negated)
}

/// `params.slowest`, `params.significantly_slowest`, `params.slowest_p_value`
/// and `params.slowest_closest` of a node-split study's verdict record.
pub fn slowest_params(rows: &[StudyRow]) -> SlowestParams {
    let (worst, closest, p_value, significant) = match slowest(rows) {
        Fastest::Significant {
            fastest,
            closest,
            p_value,
        } => (Some(fastest), Some(closest), Some(p_value), true),
        Fastest::NotSignificant {
            best,
            closest,
            p_value,
        } => (Some(best), Some(closest), Some(p_value), false),
        Fastest::TooFew { best } => (best, None, None, false),
    };
    SlowestParams {
        slowest: worst.map(|index| rows[index].label()),
        significantly_slowest: significant,
        slowest_closest: closest.map(|index| rows[index].label()),
        slowest_p_value: p_value,
    }
}

/// The `slowest:` line of a node-split study.
pub fn write_slowest(out: &mut String, rows: &[StudyRow]) {
    use std::fmt::Write;
    let median = |index: usize| crate::units::format_value(rows[index].summary.time.median());
    let _ = match slowest(rows) {
        Fastest::Significant { fastest, closest, p_value } => writeln!(
            out,
            "slowest: {} ({} s median), significantly slower than every other eligible configuration (Mann-Whitney p = {p_value:.3} against the closest, {}, {} s)",
            rows[fastest].label(), median(fastest), rows[closest].label(), median(closest)
        ),
        Fastest::NotSignificant { best, closest, p_value } => writeln!(
            out,
            "slowest: no configuration was significantly slowest: {} has the highest median ({} s), but {} ({} s) is not significantly faster (Mann-Whitney p = {p_value:.3}, needs < {SIGNIFICANCE})",
            rows[best].label(), median(best), rows[closest].label(), median(closest)
        ),
        Fastest::TooFew { .. } => writeln!(out, "slowest: none named (fewer than two eligible configurations to compare)"),
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::AppSummary;
    use crate::memory::PlacementStatus;
    use crate::runtime::{PlacementScheme, ThreadScheme};

    fn row(times: &[f64], verified: bool, achieved: Option<bool>) -> StudyRow {
        StudyRow {
            placement: PlacementScheme::FirstTouch,
            thread_scheme: ThreadScheme::Compact,
            threads: 2,
            threads_per_cpu: 1,
            summary: AppSummary {
                time: Sample::new(times.iter().copied()).unwrap(),
                all_verified: verified,
                system_seconds: 0.0,
                context_switches: 0.0,
                placement: achieved.map(|achieved| match achieved {
                    true => PlacementStatus::Verified,
                    false => PlacementStatus::Misplaced("test".into()),
                }),
            },
            node_split: None,
        }
    }

    fn placed(times: &[f64]) -> StudyRow {
        row(times, true, Some(true))
    }

    /// Structural: a configuration whose check saw no page is not refuted
    /// (still eligible, unlike a misplaced one) and the study table marks it
    /// `?` with a line giving the reason; before, it read `-` like a
    /// configuration no check applies to.
    #[test]
    fn an_unverifiable_placement_is_marked_but_not_excluded() {
        let mut unseen = placed(&[1.0, 1.1, 1.2]);
        unseen.summary.placement = Some(PlacementStatus::Unverifiable(
            "all 96 pages not present when read".into(),
        ));
        assert_eq!(unseen.summary.placement_achieved(), None);
        assert_eq!(exclusion(&unseen), None);
        let misplaced = row(&[1.0, 1.1, 1.2], true, Some(false));
        assert_eq!(exclusion(&misplaced), Some(Exclusion::PlacementNotAchieved));
        let text = crate::experiments::render_study("cg", &[unseen, placed(&[2.0, 2.1, 2.2])]);
        let first_row = text
            .lines()
            .find(|line| line.starts_with("first-touch"))
            .unwrap();
        assert!(first_row.contains(" ?  "), "{text}");
        assert!(
            text.contains("1 configuration(s) whose placement could not be verified (placed = ?; first: all 96 pages not present when read)"),
            "{text}"
        );
    }

    #[test]
    fn overlapping_samples_name_no_fastest() {
        let rows = [
            placed(&[1.00, 1.10, 1.20, 1.30, 1.40]),
            placed(&[1.05, 1.15, 1.25, 1.35, 1.45]),
        ];
        match fastest(&rows) {
            Fastest::NotSignificant {
                best,
                closest,
                p_value,
            } => {
                assert_eq!((best, closest), (0, 1));
                assert!(p_value >= SIGNIFICANCE, "{p_value}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn clearly_separated_samples_name_the_fastest() {
        let rows = [
            placed(&[2.0, 2.1, 2.2, 2.3, 2.4]),
            placed(&[1.0, 1.1, 1.2, 1.3, 1.4]),
            placed(&[3.0, 3.1, 3.2, 3.3, 3.4]),
        ];
        match fastest(&rows) {
            Fastest::Significant {
                fastest,
                closest,
                p_value,
            } => {
                assert_eq!(fastest, 1);
                assert!(p_value < SIGNIFICANCE, "{p_value}");
                // Both rivals are beaten equally clearly: either may be the closest.
                assert!(closest == 0 || closest == 2);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_fastest_must_beat_every_rival_not_only_the_runner_up() {
        // Runner-up by median (index 1) is clearly slower, but index 2 has
        // a higher median and overlaps the best: no fastest.
        let rows = [
            placed(&[1.0, 1.1, 1.2, 1.3, 1.4]),
            placed(&[2.0, 2.1, 2.2, 2.3, 2.4]),
            placed(&[0.9, 1.15, 3.0, 3.1, 3.2]),
        ];
        assert!(
            matches!(
                fastest(&rows),
                Fastest::NotSignificant {
                    best: 0,
                    closest: 2,
                    ..
                }
            ),
            "{:?}",
            fastest(&rows)
        );
    }

    #[test]
    fn unplaced_or_unverified_configurations_are_never_named() {
        let rows = [
            row(&[0.1, 0.11, 0.12, 0.13, 0.14], true, Some(false)),
            row(&[0.2, 0.21, 0.22, 0.23, 0.24], false, Some(true)),
            placed(&[1.0, 1.1, 1.2, 1.3, 1.4]),
            placed(&[2.0, 2.1, 2.2, 2.3, 2.4]),
        ];
        assert_eq!(exclusion(&rows[0]), Some(Exclusion::PlacementNotAchieved));
        assert_eq!(exclusion(&rows[1]), Some(Exclusion::VerificationFailed));
        assert!(matches!(
            fastest(&rows),
            Fastest::Significant {
                fastest: 2,
                closest: 3,
                ..
            }
        ));
        // The excluded ones are the steadiest (cv 0) yet not named.
        let steady = [
            row(&[1.0, 1.0, 1.0], true, Some(false)),
            placed(&[1.0, 1.5, 2.0]),
            placed(&[1.0, 1.1, 1.2]),
        ];
        assert_eq!(
            repeatability(&steady),
            Some(Repeatability {
                most: 2,
                least: 1,
                compared: 2
            })
        );
    }

    #[test]
    fn no_check_is_not_a_failed_check() {
        let rows = [
            row(&[1.0, 1.1, 1.2, 1.3, 1.4], true, None),
            placed(&[2.0, 2.1, 2.2, 2.3, 2.4]),
        ];
        assert!(matches!(
            fastest(&rows),
            Fastest::Significant { fastest: 0, .. }
        ));
    }

    #[test]
    fn the_slowest_is_named_only_when_significantly_slower() {
        let rows = [
            placed(&[2.0, 2.1, 2.2, 2.3, 2.4]),
            placed(&[1.0, 1.1, 1.2, 1.3, 1.4]),
            placed(&[3.0, 3.1, 3.2, 3.3, 3.4]),
        ];
        assert!(matches!(
            slowest(&rows),
            Fastest::Significant { fastest: 2, .. }
        ));
        let overlapping = [
            placed(&[1.00, 1.10, 1.20, 1.30, 1.40]),
            placed(&[1.05, 1.15, 1.25, 1.35, 1.45]),
        ];
        assert!(matches!(
            slowest(&overlapping),
            Fastest::NotSignificant {
                best: 1,
                closest: 0,
                ..
            }
        ));
    }

    #[test]
    fn fewer_than_two_candidates_name_no_fastest() {
        assert_eq!(fastest(&[]), Fastest::TooFew { best: None });
        let rows = [
            placed(&[1.0, 1.1, 1.2]),
            row(&[2.0, 2.1, 2.2], true, Some(false)),
        ];
        assert_eq!(fastest(&rows), Fastest::TooFew { best: Some(0) });
    }

    /// The lowest cv is described, never claimed: the study's line says
    /// it is descriptive and untested, and no line names a "most
    /// repeatable" configuration. Before (#34 item 18): "most repeatable:
    /// first-touch + compact (cv ...)" from the CVs of three runs each.
    #[test]
    fn the_lowest_cv_is_called_descriptive_not_most_repeatable() {
        let rows = [placed(&[1.0, 1.01, 1.02]), placed(&[2.0, 2.5, 3.0])];
        let text = crate::experiments::render_study("stream", &rows);
        let line = text
            .lines()
            .find(|line| line.starts_with("lowest cv (descriptive, not tested): "))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            line.contains("first-touch + compact (cv ")
                && line.contains("a lower cv over so few runs is no evidence"),
            "{line}"
        );
        assert!(!text.to_lowercase().contains("most repeatable"), "{text}");
        let none = crate::experiments::render_study("stream", &[placed(&[1.0, 1.1])]);
        assert!(
            none.contains("lowest cv (descriptive, not tested): none"),
            "{none}"
        );
    }

    #[test]
    fn repeatability_needs_enough_runs() {
        let rows = [placed(&[1.0, 1.0]), placed(&[1.0, 1.5]), placed(&[1.0])];
        assert_eq!(repeatability(&rows), None);
        let rows = [placed(&[1.0, 1.0]), placed(&[1.0, 1.5, 2.0])];
        assert_eq!(
            repeatability(&rows),
            Some(Repeatability {
                most: 1,
                least: 1,
                compared: 1
            })
        );
    }

    #[test]
    fn the_smallest_p_value_shows_when_too_few_runs_can_never_differ() {
        // Three runs against three can never reach 5% (p = 0.081), five
        // against five can (p = 0.012, scipy's documented value).
        assert!(smallest_p_value(3, 3) >= SIGNIFICANCE);
        assert!((smallest_p_value(5, 5) - 0.012_185_780_355_344_9).abs() < 1e-6);
        let three = [placed(&[1.0, 1.1, 1.2]), placed(&[5.0, 5.1, 5.2])];
        assert!(matches!(
            fastest(&three),
            Fastest::NotSignificant { best: 0, .. }
        ));
    }
}
