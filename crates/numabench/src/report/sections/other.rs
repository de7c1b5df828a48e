//! Records of benchmarks that no section kind draws, as a table.

use super::{records_table, section, Section};
use crate::report::load::Dataset;

/// The records whose benchmark is not in `claimed`.
pub fn build(data: &Dataset, claimed: &[&str]) -> Option<Section> {
    let rest: Vec<_> = data
        .records
        .iter()
        .filter(|r| !claimed.contains(&r.benchmark.as_str()))
        .collect();
    if rest.is_empty() {
        return None;
    }
    Some(section(
        "other",
        "Other records",
        records_table(rest.into_iter()).to_html(),
    ))
}
