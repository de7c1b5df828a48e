//! Records that no section kind draws or tables, as a table: those of
//! benchmarks no kind claims, and those a claiming kind does not show
//! (an unknown metric, a missing parameter).

use super::{records_table, section, Section};
use crate::report::load::Dataset;

/// The records no section shows ([`super::shown`]).
pub fn build(data: &Dataset) -> Option<Section> {
    let rest: Vec<_> = data.records.iter().filter(|r| !super::shown(r)).collect();
    if rest.is_empty() {
        return None;
    }
    Some(section(
        "other",
        "Other records",
        format!(
            "<p>{} of {} records are drawn or tabled by no section above; every one is here.</p>{}",
            rest.len(),
            data.records.len(),
            records_table(
                rest.into_iter(),
                &[
                    "size_bytes",
                    "kernel",
                    "threads",
                    "cpu",
                    "cpu_node",
                    "mem_node"
                ],
            )
            .to_html()
        ),
    ))
}
