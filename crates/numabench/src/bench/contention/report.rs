//! Contention: serial, contended and local bandwidth as bars, ratios listed.

use crate::report::html::{figure, Table};
use crate::report::load::Dataset;
use crate::report::plot::bars;
use crate::report::sections::{records_table, section};
use crate::report::Section;
use numabench_schema::benchmark;
use numabench_schema::params::ContentionParams;
use numabench_schema::Unit;

pub fn build(data: &Dataset) -> Option<Section> {
    let records: Vec<_> = data.of(benchmark::CONTENTION).collect();
    if records.is_empty() {
        return None;
    }
    let gbs: Vec<_> = records
        .iter()
        .filter(|r| r.unit == Unit::GigabytesPerSecond)
        .collect();
    let labels: Vec<String> = gbs
        .iter()
        .map(|r| {
            format!(
                "{} ({} thr)",
                r.metric.trim_end_matches("_bandwidth"),
                r.params_or_default::<ContentionParams>()
                    .threads
                    .map_or_else(String::new, |threads| threads.to_string())
            )
        })
        .collect();
    let values: Vec<f64> = gbs.iter().map(|r| r.value).collect();
    let mut table = Table::new(&["scenario", "bandwidth (GB/s)"]);
    for (l, v) in labels.iter().zip(&values) {
        table.push(vec![l.clone(), crate::report::html::number(*v)]);
    }
    let mut body = String::new();
    if !gbs.is_empty() {
        body.push_str(&figure(
            &bars(&labels, &values, "bandwidth (GB/s)", "scenario"),
            "Aggregate bandwidth with every thread reading one node (contended), one thread (serial), and each thread its own node (local).",
            &table,
        ));
    }
    body.push_str(
        &records_table(
            records
                .into_iter()
                .filter(|r| r.unit != Unit::GigabytesPerSecond),
            &["meaning"],
        )
        .to_html(),
    );
    Some(section("contention", "Contention", body))
}
