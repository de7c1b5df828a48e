//! "What this machine's NUMA costs": characterize's findings (`summary`
//! records, each with its text in `params.sentence`), first on the page and
//! in the words the terminal printed, then what the run cut and took, then
//! "What to do about it" (the `advice` records); the figures behind them in
//! a collapsible table.

use super::{records_table, section, Section};
use crate::findings::FindingKind;
use crate::output::ReadRecord;
use crate::report::html::escape;
use crate::report::load::Dataset;
use numabench_schema::benchmark;

/// The sentence of each summary record, with the file it came from when
/// several files hold summaries (records without a sentence are left out).
pub fn sentences(data: &Dataset) -> Vec<String> {
    sentences_where(data, |_| true)
}

/// [`sentences`] of the summary records whose kind `keep` accepts (`None`:
/// a metric this version does not know).
fn sentences_where(data: &Dataset, keep: impl Fn(Option<FindingKind>) -> bool) -> Vec<String> {
    let records: Vec<&ReadRecord> = data.of(benchmark::SUMMARY).collect();
    let several_files = records.iter().any(|r| r.file != records[0].file);
    records
        .iter()
        .filter(|r| keep(FindingKind::of_metric(&r.metric)))
        .filter_map(|r| {
            let sentence = r.typed_params().sentence()?.to_string();
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
    // The lists the terminal prints, in its order and words.
    let run = |kind: Option<FindingKind>| kind.is_some_and(FindingKind::is_about_the_run);
    let advice = |kind: Option<FindingKind>| kind == Some(FindingKind::Advice);
    let mut body = String::new();
    for (heading, list) in [
        (
            None,
            sentences_where(data, |kind| !advice(kind) && !run(kind)),
        ),
        (Some("This run"), sentences_where(data, run)),
        (Some("What to do about it"), sentences_where(data, advice)),
    ] {
        if list.is_empty() {
            continue;
        }
        if let Some(heading) = heading {
            body.push_str(&format!("<h3>{heading}</h3>"));
        }
        body.push_str("<ul class=\"findings\">");
        for sentence in &list {
            body.push_str(&format!("<li>{}</li>", escape(sentence)));
        }
        body.push_str("</ul>");
    }
    body.push_str(&format!(
        "<details><summary>the figures behind them ({} records)</summary>{}</details>",
        data.of(benchmark::SUMMARY).count(),
        records_table(
            data.of(benchmark::SUMMARY),
            &[
                "kernel",
                "cpu_node",
                "mem_node",
                "threads_measured",
                "peak_gbs"
            ],
        )
        .to_html()
    ));
    Some(section("summary", "What this machine's NUMA costs", body))
}
