//! `placement-study`: the grid of placement schemes x thread schemes (and
//! over-decomposition levels), side by side, with the fastest and the most
//! repeatable configuration named.

use super::execute::AppSummary;
use super::placement::{PlacementScheme, ThreadScheme};
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
}

impl StudyRow {
    fn label(&self) -> String {
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
        "{:<34} {:>7} {:>10} {:>10} {:>10} {:>8} {:>9} {:>10}  verified",
        "placement + threads", "threads", "median", "min", "max", "cv", "sys s", "ctx sw"
    );
    for row in rows {
        let time = &row.summary.time;
        let _ = writeln!(
            out,
            "{:<34} {:>7} {:>10} {:>10} {:>10} {:>8} {:>9} {:>10}  {}",
            row.label(),
            row.threads,
            format_value(time.median()),
            format_value(time.min()),
            format_value(time.max()),
            format_percent(time.cv()),
            format_value(row.summary.system_seconds),
            // A mean count over runs: whole switches are precise enough.
            format!("{:.0}", row.summary.context_switches),
            if row.summary.all_verified {
                "yes"
            } else {
                "FAILED"
            }
        );
    }
    let verified: Vec<&StudyRow> = rows.iter().filter(|row| row.summary.all_verified).collect();
    let fastest = verified
        .iter()
        .min_by(|a, b| a.summary.time.median().total_cmp(&b.summary.time.median()));
    let slowest = verified
        .iter()
        .max_by(|a, b| a.summary.time.median().total_cmp(&b.summary.time.median()));
    let steadiest = verified
        .iter()
        .min_by(|a, b| a.summary.time.cv().total_cmp(&b.summary.time.cv()));
    let shakiest = verified
        .iter()
        .max_by(|a, b| a.summary.time.cv().total_cmp(&b.summary.time.cv()));
    if let (Some(fastest), Some(slowest)) = (fastest, slowest) {
        let _ = writeln!(
            out,
            "\nfastest: {} ({} s median), {:.2}x faster than the slowest, {} ({} s)",
            fastest.label(),
            format_value(fastest.summary.time.median()),
            slowest.summary.time.median() / fastest.summary.time.median(),
            slowest.label(),
            format_value(slowest.summary.time.median())
        );
    }
    if let (Some(steadiest), Some(shakiest)) = (steadiest, shakiest) {
        let spread = |row: &StudyRow| row.summary.time.max() / row.summary.time.min() - 1.0;
        let _ = writeln!(
            out,
            "most repeatable: {} (cv {}, slowest run {} above fastest); least: {} (cv {}, {})",
            steadiest.label(),
            format_percent(steadiest.summary.time.cv()),
            format_percent(spread(steadiest)),
            shakiest.label(),
            format_percent(shakiest.summary.time.cv()),
            format_percent(spread(shakiest))
        );
    }
    if verified.len() < rows.len() {
        let _ = writeln!(
            out,
            "{} configuration(s) FAILED verification",
            rows.len() - verified.len()
        );
    }
    out
}
