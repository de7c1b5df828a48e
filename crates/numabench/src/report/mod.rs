//! `numabench report`: one self-contained HTML page (inline SVG and CSS, no
//! script, no network) of plots and tables built from results files only,
//! never from the machine the report is made on.
//!
//! Sections are independent: a benchmark's section lives in its folder
//! (`bench/<name>/report.rs`) and is listed in its registry entry, the
//! others in their own files under [`sections`]; [`sections::kinds`] lists
//! them all. A kind shows only when the records it draws exist.

pub mod diagram;
pub mod html;
pub mod load;
pub mod plot;
pub mod sections;
pub mod strip_plot;

pub use load::Dataset;

/// A section of the page: an anchor id, a heading and its HTML body.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub id: String,
    pub heading: String,
    pub body: String,
}

/// The report of a dataset: the HTML page and the ids of the sections in it.
#[derive(Debug, Clone)]
pub struct Report {
    pub html: String,
    pub section_ids: Vec<String>,
    /// Records drawn or tabled by a section.
    pub shown: usize,
    /// Records listed under "Other records" (`shown + other` is every record).
    pub other: usize,
}

/// Builds the page from everything read.
pub fn build(data: &Dataset) -> Report {
    let mut built: Vec<Section> = Vec::new();
    for kind in sections::kinds() {
        if let Some(section) = (kind.build)(data) {
            built.push(section);
        }
    }
    let mut notes = data.notes.clone();
    let (shown, other) = sections::accounted(data);
    if let Some(other) = sections::other::build(data) {
        notes.push("records no plot or table here shows are listed under \"Other records\"".into());
        built.push(other);
    }
    let parts: Vec<(String, String, String)> = built
        .iter()
        .map(|s| (s.id.clone(), s.heading.clone(), s.body.clone()))
        .collect();
    Report {
        html: html::page("numabench report", &notes, &parts),
        section_ids: built.into_iter().map(|s| s.id).collect(),
        shown,
        other,
    }
}
