//! Bandwidth: kernel against working-set size, or against thread count,
//! or one row per kernel when neither varies.

use crate::output::tables::cells::{bytes, cv, distinct, figure, placement_note};
use crate::output::tables::{generic, CacheLadder, TableModel};
use crate::output::Record;
use numabench_schema::params::BandwidthParams;

/// A bandwidth record with its params read as `bandwidth`'s.
struct Measured<'a> {
    record: &'a Record,
    params: BandwidthParams,
}

impl<'a> Measured<'a> {
    fn of(record: &'a Record) -> Self {
        Measured {
            record,
            params: record.params_or_default(),
        }
    }

    fn kernel(&self) -> Option<String> {
        self.params.kernel.clone()
    }

    fn size(&self) -> Option<u64> {
        self.params.working_set.size_bytes
    }
}

/// The bandwidth table(s), then any other metric in a plain table.
pub fn tables(records: &[&Record], caches: &CacheLadder) -> Vec<TableModel> {
    let (measured, others): (Vec<&Record>, Vec<&Record>) = records
        .iter()
        .partition(|record| record.metric.ends_with("_bandwidth"));
    let measured_records = measured;
    let measured: Vec<Measured> = measured_records
        .iter()
        .map(|record| Measured::of(record))
        .collect();
    let kernels = distinct(measured.iter().map(Measured::kernel));
    let sizes = distinct(measured.iter().map(Measured::size));
    let threads = distinct(measured.iter().map(|record| record.params.threads));
    let mut tables = Vec::new();
    if !measured.is_empty() {
        let mut table = if sizes.len() > 1 {
            let header: Vec<String> = sizes
                .iter()
                .map(|size| {
                    let example = measured
                        .iter()
                        .find(|record| record.size() == *size)
                        .expect("a size comes from a record");
                    format!(
                        "{} {}",
                        size.map_or("-".to_string(), bytes),
                        caches.level_of(example.record)
                    )
                })
                .collect();
            grid(
                "Bandwidth GB/s by kernel and working-set size",
                &measured,
                &kernels,
                &header,
                |record, index| record.size() == sizes[index],
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
                |record, index| record.params.threads == threads[index],
            )
        } else {
            let mut table = TableModel::new(
                "Bandwidth by kernel",
                &["kernel", "threads", "size", "level", "GB/s", "cv", "simd"],
            );
            for measured in &measured {
                let record = measured.record;
                table.push(vec![
                    measured.kernel().unwrap_or_else(|| record.metric.clone()),
                    measured
                        .params
                        .threads
                        .map_or("-".into(), |count| count.to_string()),
                    measured.size().map_or("-".into(), bytes),
                    caches.level_of(record),
                    figure(record),
                    cv(record),
                    measured
                        .params
                        .simd
                        .simd
                        .clone()
                        .unwrap_or_else(|| "-".into()),
                ]);
            }
            table
        };
        if sizes.len() > 1 || threads.len() > 1 {
            if let [Some(count)] = threads.as_slice() {
                table.note(format!("threads: {count}"));
            }
            if sizes.len() == 1 {
                if let Some(Some(size)) = sizes.first() {
                    table.note(format!("working set: {}", bytes(*size)));
                }
            }
        }
        table.notes.extend(placement_note(&measured_records));
        tables.push(table);
    }
    tables.extend(generic::tables(&others));
    tables
}

/// Kernels as rows, one column per value of the varying axis.
fn grid(
    title: &str,
    measured: &[Measured],
    kernels: &[Option<String>],
    columns: &[String],
    in_column: impl Fn(&Measured, usize) -> bool,
) -> TableModel {
    let mut header = vec!["kernel"];
    header.extend(columns.iter().map(String::as_str));
    let mut table = TableModel::new(title, &header);
    for kernel in kernels {
        let mut row = vec![kernel.clone().unwrap_or_else(|| "-".into())];
        for index in 0..columns.len() {
            let cell = measured
                .iter()
                .find(|record| record.kernel() == *kernel && in_column(record, index))
                .map_or("-".to_string(), |record| figure(record.record));
            row.push(cell);
        }
        table.push(row);
    }
    table
}
