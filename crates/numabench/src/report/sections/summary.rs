//! "What this run found": characterize's summary sentences (`summary`
//! records, each with its text in `params.sentence`), as a list near the top
//! of the page, with the figures behind them in a collapsible table.

use super::{records_table, section, Section};
use crate::report::html::escape;
use crate::report::load::{Dataset, Rec};

/// The sentence of each summary record, with the file it came from when
/// several files hold summaries (records without a sentence are left out).
pub fn sentences(data: &Dataset) -> Vec<String> {
    let records: Vec<&Rec> = data.of("summary").collect();
    let several_files = records.iter().any(|r| r.file != records[0].file);
    records
        .iter()
        .filter_map(|r| {
            let sentence = r.text("sentence")?;
            Some(if several_files {
                format!("{sentence} ({})", r.file)
            } else {
                sentence
            })
        })
        .collect()
}

pub fn build(data: &Dataset) -> Option<Section> {
    let list = sentences(data);
    if list.is_empty() {
        return None;
    }
    let mut body = String::from("<ul class=\"findings\">");
    for sentence in &list {
        body.push_str(&format!("<li>{}</li>", escape(sentence)));
    }
    body.push_str("</ul>");
    body.push_str(&format!(
        "<details><summary>the figures behind them ({} records)</summary>{}</details>",
        data.of("summary").count(),
        records_table(data.of("summary")).to_html()
    ));
    Some(section("summary", "What this run found", body))
}
