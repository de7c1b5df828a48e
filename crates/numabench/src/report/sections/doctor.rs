//! `doctor --json` findings, warnings first.

use super::{section, Section};
use crate::report::html::Table;
use crate::report::load::Dataset;

/// Severity order: warnings, then what was not checked, then the rest.
fn rank(severity: &str) -> u8 {
    match severity {
        "warning" => 0,
        "unknown" | "not_checked" => 1,
        _ => 2,
    }
}

/// The findings of every doctor document, warnings first.
pub fn findings_table(data: &Dataset) -> Table {
    let mut rows: Vec<(u8, Vec<String>)> = Vec::new();
    for (file, doc) in &data.doctors {
        for f in &doc.findings {
            let severity = f.severity.name().to_string();
            rows.push((
                rank(&severity),
                vec![
                    severity,
                    f.check.to_string(),
                    f.found.clone(),
                    f.advice.clone(),
                    f.why.clone(),
                    file.clone(),
                ],
            ));
        }
    }
    rows.sort_by_key(|(rank, _)| *rank);
    let mut table = Table::new(&["severity", "check", "found", "advice", "why", "file"]);
    // Long findings wrap inside their cells (issue 23): the table fits the page.
    table.class = "doctor";
    for (_, row) in rows {
        table.push(row);
    }
    table
}

pub fn build(data: &Dataset) -> Option<Section> {
    if data.doctors.is_empty() {
        return None;
    }
    let table = findings_table(data);
    let warnings = table.rows.iter().filter(|r| r[0] == "warning").count();
    Some(section(
        "doctor",
        "Doctor findings",
        format!(
            "<p class=\"warning\">{warnings} warning(s)</p>{}",
            table.to_html()
        ),
    ))
}
