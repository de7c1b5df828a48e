//! Contention: each scenario's bandwidth (one thread alone, every thread
//! on one node as after a serial initialisation, every thread on its own
//! node), then the ratios between them with what each means.

use crate::output::tables::cells::{distinct, figure, placement_note, ratio};
use crate::output::tables::{generic, CacheLadder, TableModel};
use crate::output::Record;
use crate::units::format_value;
use numabench_schema::params::{ContentionParams, ContentionRatioParams};

/// The scenarios table; the ratios go to its notes in full.
pub fn tables(records: &[&Record], _caches: &CacheLadder) -> Vec<TableModel> {
    let (scenarios, rest): (Vec<&Record>, Vec<&Record>) = records.iter().partition(|record| {
        record.metric.ends_with("_bandwidth")
            && record
                .params_or_default::<ContentionParams>()
                .scenario
                .is_some()
    });
    let (ratios, others): (Vec<&Record>, Vec<&Record>) = rest.into_iter().partition(|record| {
        record
            .params_or_default::<ContentionRatioParams>()
            .meaning
            .is_some()
    });
    let mut tables = Vec::new();
    if !scenarios.is_empty() {
        let mut table = TableModel::new(
            "Contention: all threads on one node's memory against each on its own",
            &["scenario", "threads", "GB/s", "per thread"],
        );
        for record in &scenarios {
            let params: ContentionParams = record.params_or_default();
            let threads = params.threads.unwrap_or(1).max(1);
            table.push(vec![
                params.scenario.unwrap_or_else(|| record.metric.clone()),
                threads.to_string(),
                figure(record),
                format_value(record.value / threads as f64),
            ]);
        }
        for record in &ratios {
            table.note(format!(
                "{} = {}: {}",
                record.metric,
                ratio(record.value),
                record
                    .params_or_default::<ContentionRatioParams>()
                    .meaning
                    .unwrap_or_default()
            ));
        }
        let kernels = distinct(
            scenarios
                .iter()
                .map(|record| record.params_or_default::<ContentionParams>().kernel),
        );
        if let [Some(kernel)] = kernels.as_slice() {
            table.note(format!("kernel: {kernel}"));
        }
        table.notes.extend(placement_note(&scenarios));
        tables.push(table);
    } else if !ratios.is_empty() {
        tables.extend(generic::tables(&ratios));
    }
    tables.extend(generic::tables(&others));
    tables
}
