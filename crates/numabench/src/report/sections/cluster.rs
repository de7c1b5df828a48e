//! `numabench cluster`: every unit's compared figure against the cluster
//! median, outliers marked (one strip per cluster key), with the verdict,
//! outlier, differing-setting and failure records as a table and every
//! record collapsible.

use super::{records_table, section, Section};
use crate::output::ReadRecord;
use crate::report::html::{self, figure, Table};
use crate::report::load::Dataset;
use crate::report::strip_plot::{key, strips, Strip};
use numabench_schema::benchmark;
use numabench_schema::params::{key, ClusterLabels, ClusterOutlierParams};
use std::collections::BTreeMap;

/// The median of some values (mean of the middle two for an even count).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// One strip per compared figure (`params.cluster_key`, per file): each
/// unit's value, the median of the units' values, and the records the
/// cluster's `outlier` records name for that key marked: by unit and, as a
/// unit may have several records of a key (`--per numa`: one per target,
/// `params.cluster_target`), by target too.
pub fn cluster_strips(data: &Dataset) -> Vec<Strip> {
    type Named = (String, String, String, Option<String>);
    let outliers: Vec<Named> = data
        .of(benchmark::CLUSTER)
        .filter(|r| r.metric == "outlier")
        .filter_map(|r| {
            let outlier = r.params_or_default::<ClusterOutlierParams>();
            Some((r.file.clone(), outlier.key?, outlier.unit?, outlier.target))
        })
        .collect();
    // Each compared record with its unit and target, by key and file.
    type Compared<'a> = (&'a ReadRecord, String, Option<String>);
    let mut groups: BTreeMap<(String, String), Vec<Compared>> = BTreeMap::new();
    let first_file = data.records.first().map(|f| &f.file);
    let mut several_files = false;
    for r in &data.records {
        let labels = r.params_or_default::<ClusterLabels>();
        several_files |= labels.cluster_key.is_some() && Some(&r.file) != first_file;
        if let (Some(key), Some(unit)) = (labels.cluster_key, labels.unit) {
            groups
                .entry((key, r.file.clone()))
                .or_default()
                .push((r, unit, labels.cluster_target));
        }
    }
    groups
        .into_iter()
        .map(|((key, file), records)| {
            let mut values: Vec<f64> = records.iter().map(|(r, ..)| r.value).collect();
            let units = records
                .iter()
                .map(|(r, unit, target)| {
                    let named = (file.clone(), key.clone(), unit.clone(), target.clone());
                    let outlier = outliers.contains(&named);
                    (unit.clone(), r.value, outlier)
                })
                .collect();
            Strip {
                label: match several_files {
                    true => format!("{key} ({file})"),
                    false => format!("{key} ({})", records[0].0.unit.as_str()),
                },
                median: median(&mut values),
                units,
            }
        })
        .collect()
}

/// The strips' data: key, unit, value, median, ratio, outlier.
fn strips_table(groups: &[Strip]) -> Table {
    let mut table = Table::new(&[
        "figure",
        "unit",
        "value",
        "median",
        "value / median",
        "outlier",
    ]);
    for g in groups {
        for (unit, value, outlier) in &g.units {
            table.push(vec![
                g.label.clone(),
                unit.clone(),
                html::number(*value),
                html::number(g.median),
                html::number(if g.median == 0.0 {
                    1.0
                } else {
                    value / g.median
                }),
                if *outlier { "yes" } else { "" }.to_string(),
            ]);
        }
    }
    table
}

pub fn build(data: &Dataset) -> Option<Section> {
    let all: Vec<&ReadRecord> = data
        .records
        .iter()
        .filter(|r| benchmark::CLUSTER_BENCHMARKS.contains(&r.benchmark.as_str()))
        .collect();
    let groups = cluster_strips(data);
    if all.is_empty() && groups.is_empty() {
        return None;
    }
    let mut body = String::new();
    if !groups.is_empty() {
        let outliers = groups.iter().flat_map(|g| &g.units).filter(|u| u.2).count();
        body.push_str(&figure(
            &strips(&groups, "compared figure"),
            &format!(
                "Every unit's figure over the cluster median of that figure (1 = the median); {outliers} outlier(s), as the cluster's outlier records name them, drawn as orange crosses with the unit's name.{}",
                key(&groups).map(|k| format!(" Figures: {k}.")).unwrap_or_default()
            ),
            &strips_table(&groups),
        ));
    }
    let findings: Vec<&ReadRecord> = data.of(benchmark::CLUSTER).collect();
    if !findings.is_empty() {
        body.push_str("<h3>Verdict, outliers, differing settings, failures</h3>");
        body.push_str(
            &records_table(
                findings.into_iter(),
                &[
                    "unit",
                    "host",
                    "key",
                    "direction",
                    "median",
                    "relative",
                    "robust_z",
                    "outliers",
                    "failed",
                ],
            )
            .to_html(),
        );
    }
    body.push_str(&format!(
        "<details><summary>every cluster record ({})</summary>{}</details>",
        all.len(),
        records_table(
            all.into_iter(),
            &[
                key::HOST,
                "rank",
                "part",
                key::SIZE_BYTES,
                key::KERNEL,
                "message_bytes"
            ],
        )
        .to_html()
    ));
    Some(section("cluster", "Cluster", body))
}
