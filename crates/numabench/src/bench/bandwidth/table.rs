//! Bandwidth: kernel against working-set size, or against thread count,
//! or one row per kernel when neither varies.

use crate::output::tables::cells::{
    bytes, cv, distinct, figure, placement_note, shared_text, text_param, u64_param,
};
use crate::output::tables::{generic, CacheLadder, TableModel};
use crate::output::Record;

/// The bandwidth table(s), then any other metric in a plain table.
pub fn tables(records: &[&Record], caches: &CacheLadder) -> Vec<TableModel> {
    let (measured, others): (Vec<&Record>, Vec<&Record>) = records
        .iter()
        .partition(|record| record.metric.ends_with("_bandwidth"));
    let kernels = distinct(measured.iter().map(|record| text_param(record, "kernel")));
    let sizes = distinct(
        measured
            .iter()
            .map(|record| u64_param(record, "size_bytes")),
    );
    let threads = distinct(measured.iter().map(|record| u64_param(record, "threads")));
    let mut tables = Vec::new();
    if !measured.is_empty() {
        let mut table = if sizes.len() > 1 {
            let header: Vec<String> = sizes
                .iter()
                .map(|size| {
                    let example = measured
                        .iter()
                        .find(|record| u64_param(record, "size_bytes") == *size)
                        .expect("a size comes from a record");
                    format!(
                        "{} {}",
                        size.map_or("-".to_string(), bytes),
                        caches.level_of(example)
                    )
                })
                .collect();
            grid(
                "Bandwidth GB/s by kernel and working-set size",
                &measured,
                &kernels,
                &header,
                |record, index| u64_param(record, "size_bytes") == sizes[index],
            )
        } else if threads.len() > 1 {
            let header: Vec<String> = threads
                .iter()
                .map(|count| format!("{} thr", count.map_or("-".into(), |c| c.to_string())))
                .collect();
            grid(
                "Bandwidth GB/s by kernel and thread count",
                &measured,
                &kernels,
                &header,
                |record, index| u64_param(record, "threads") == threads[index],
            )
        } else {
            let mut table = TableModel::new(
                "Bandwidth by kernel",
                &["kernel", "threads", "size", "level", "GB/s", "cv", "simd"],
            );
            for record in &measured {
                table.push(vec![
                    text_param(record, "kernel").unwrap_or_else(|| record.metric.clone()),
                    text_param(record, "threads").unwrap_or_else(|| "-".into()),
                    u64_param(record, "size_bytes").map_or("-".into(), bytes),
                    caches.level_of(record),
                    figure(record),
                    cv(record),
                    text_param(record, "simd").unwrap_or_else(|| "-".into()),
                ]);
            }
            table
        };
        if sizes.len() > 1 || threads.len() > 1 {
            if let Some(count) = shared_text(&measured, "threads") {
                table.note(format!("threads: {count}"));
            }
            if sizes.len() == 1 {
                if let Some(Some(size)) = sizes.first() {
                    table.note(format!("working set: {}", bytes(*size)));
                }
            }
        }
        table.notes.extend(placement_note(&measured));
        tables.push(table);
    }
    tables.extend(generic::tables(&others));
    tables
}

/// Kernels as rows, one column per value of the varying axis.
fn grid(
    title: &str,
    measured: &[&Record],
    kernels: &[Option<String>],
    columns: &[String],
    in_column: impl Fn(&Record, usize) -> bool,
) -> TableModel {
    let mut header = vec!["kernel"];
    header.extend(columns.iter().map(String::as_str));
    let mut table = TableModel::new(title, &header);
    for kernel in kernels {
        let mut row = vec![kernel.clone().unwrap_or_else(|| "-".into())];
        for index in 0..columns.len() {
            let cell = measured
                .iter()
                .find(|record| text_param(record, "kernel") == *kernel && in_column(record, index))
                .map_or("-".to_string(), |record| figure(record));
            row.push(cell);
        }
        table.push(row);
    }
    table
}
