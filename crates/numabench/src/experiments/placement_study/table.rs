//! `placement-study`'s table: the grid of placement schemes x thread schemes (and
//! over-decomposition levels), side by side, with the fastest configuration
//! named when the runs support it and the lowest coefficient of variation
//! given as a description, untested (the rules are in
//! [`super::verdict`]).

use super::verdict::{
    fastest, repeatability, smallest_p_value, Exclusion, Fastest, MIN_RUNS_FOR_REPEATABILITY,
    SIGNIFICANCE,
};
use crate::experiments::execute::AppSummary;
use crate::memory::PlacementStatus;
use crate::runtime::{PlacementScheme, ThreadScheme};
use crate::units::{format_percent, format_value};
use std::fmt::Write;

/// One cell of the study.
#[derive(Debug, Clone)]
pub struct StudyRow {
    pub placement: PlacementScheme,
    pub thread_scheme: ThreadScheme,
    pub threads: usize,
    pub threads_per_cpu: usize,
    pub summary: AppSummary,
    /// The node split of a `--node-splits` configuration ("2/2/0/0").
    pub node_split: Option<String>,
}

impl StudyRow {
    /// `placement + thread scheme`, with ` xK/cpu` when over-decomposed.
    pub fn label(&self) -> String {
        if let Some(split) = &self.node_split {
            return format!("{} + split {split}", self.placement);
        }
        let mut label = format!("{} + {}", self.placement, self.thread_scheme.name());
        if self.threads_per_cpu > 1 {
            label.push_str(&format!(" x{}/cpu", self.threads_per_cpu));
        }
        label
    }
}

/// The side-by-side table and the verdict.
pub fn render_study(kernel: &str, rows: &[StudyRow]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nPlacement study of {kernel}: time over repetitions (s)"
    );
    let _ = writeln!(
        out,
        "{:<34} {:>7} {:>10} {:>10} {:>10} {:>8} {:>9} {:>10}  {:<6}  verified",
        "placement + threads", "threads", "median", "min", "max", "cv", "sys s", "ctx sw", "placed"
    );
    for row in rows {
        let time = &row.summary.time;
        let _ = writeln!(
            out,
            "{:<34} {:>7} {:>10} {:>10} {:>10} {:>8} {:>9} {:>10}  {:<6}  {}",
            row.label(),
            row.threads,
            format_value(time.median()),
            format_value(time.min()),
            format_value(time.max()),
            format_percent(time.cv()),
            format_value(row.summary.system_seconds),
            // A mean count over runs: whole switches are precise enough.
            format!("{:.0}", row.summary.context_switches),
            match &row.summary.placement {
                Some(PlacementStatus::Verified) => "yes",
                Some(PlacementStatus::Misplaced(_)) => "NO",
                Some(PlacementStatus::Unverifiable(_)) => "?",
                None => "-",
            },
            if row.summary.all_verified {
                "yes"
            } else {
                "FAILED"
            }
        );
    }
    write_fastest(&mut out, rows);
    write_repeatability(&mut out, rows);
    if rows.iter().any(|row| row.node_split.is_some()) {
        super::verdict::write_slowest(&mut out, rows);
    }
    for (exclusion, what) in [
        (Exclusion::VerificationFailed, "FAILED verification"),
        (
            Exclusion::PlacementNotAchieved,
            "did not achieve their placement (placed = NO)",
        ),
    ] {
        let count = rows
            .iter()
            .filter(|row| super::verdict::exclusion(row) == Some(exclusion))
            .count();
        if count > 0 {
            let _ = writeln!(
                out,
                "{count} configuration(s) {what}: never named fastest or lowest cv"
            );
        }
    }
    let unverifiable: Vec<&str> = rows
        .iter()
        .filter_map(|row| match &row.summary.placement {
            Some(PlacementStatus::Unverifiable(reason)) => Some(reason.as_str()),
            _ => None,
        })
        .collect();
    if let Some(reason) = unverifiable.first() {
        let _ = writeln!(
            out,
            "{} configuration(s) whose placement could not be verified (placed = ?; first: {reason}): not refuted, so still eligible",
            unverifiable.len()
        );
    }
    out
}

/// The slowest eligible configuration (highest median).
fn slowest(rows: &[StudyRow]) -> Option<&StudyRow> {
    rows.iter()
        .filter(|row| super::verdict::exclusion(row).is_none())
        .max_by(|a, b| a.summary.time.median().total_cmp(&b.summary.time.median()))
}

/// The `fastest:` line.
fn write_fastest(out: &mut String, rows: &[StudyRow]) {
    let median = |index: usize| format_value(rows[index].summary.time.median());
    match fastest(rows) {
        Fastest::Significant {
            fastest,
            closest,
            p_value,
        } => {
            let slowest = slowest(rows).expect("two eligible rows");
            let _ = writeln!(
                out,
                "\nfastest: {} ({} s median), significantly faster than every other eligible configuration (Mann-Whitney p = {:.3} against the closest, {}, {} s); {:.2}x faster than the slowest, {} ({} s)",
                rows[fastest].label(),
                median(fastest),
                p_value,
                rows[closest].label(),
                median(closest),
                slowest.summary.time.median() / rows[fastest].summary.time.median(),
                slowest.label(),
                format_value(slowest.summary.time.median()),
            );
        }
        Fastest::NotSignificant {
            best,
            closest,
            p_value,
        } => {
            let floor = smallest_p_value(
                rows[best].summary.time.len(),
                rows[closest].summary.time.len(),
            );
            let too_few = if floor >= SIGNIFICANCE {
                format!(
                    "; with {} and {} runs the test cannot go below p = {floor:.3}",
                    rows[best].summary.time.len(),
                    rows[closest].summary.time.len()
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "\nfastest: no configuration was significantly fastest: {} has the lowest median ({} s), but {} ({} s) is not significantly slower (Mann-Whitney p = {:.3}, needs < {SIGNIFICANCE}{too_few})",
                rows[best].label(),
                median(best),
                rows[closest].label(),
                median(closest),
                p_value,
            );
        }
        Fastest::TooFew { .. } => {
            let _ = writeln!(
                out,
                "\nfastest: none named (fewer than two eligible configurations to compare; eligible: verified, placement not failed)"
            );
        }
    }
}

/// The lowest-CV line. Descriptive: with the 3 to 5 runs a study makes, a
/// coefficient of variation is itself so uncertain that a lower one is no
/// evidence of a steadier configuration, and no test is made, so the line
/// says so rather than naming a "most repeatable" one.
fn write_repeatability(out: &mut String, rows: &[StudyRow]) {
    let Some(found) = repeatability(rows) else {
        let _ = writeln!(
            out,
            "{LOWEST_CV}: none (needs an eligible configuration — verified, placement not failed — with at least {MIN_RUNS_FOR_REPEATABILITY} runs)"
        );
        return;
    };
    let spread = |row: &StudyRow| row.summary.time.max() / row.summary.time.min() - 1.0;
    let (most, least) = (&rows[found.most], &rows[found.least]);
    let _ = writeln!(
        out,
        "{LOWEST_CV}: {} (cv {}, slowest run {} above fastest); highest: {} (cv {}, {}) — among {} eligible configuration(s) (verified, placement not failed) with at least {MIN_RUNS_FOR_REPEATABILITY} runs; a lower cv over so few runs is no evidence of a steadier configuration",
        most.label(),
        format_percent(most.summary.time.cv()),
        format_percent(spread(most)),
        least.label(),
        format_percent(least.summary.time.cv()),
        format_percent(spread(least)),
        found.compared,
    );
}

/// How the study names its lowest coefficient of variation.
const LOWEST_CV: &str = "lowest cv (descriptive, not tested)";
