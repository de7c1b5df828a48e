//! Records as a table shaped for its section: the parameters that matter
//! there (size, kernel, threads, node...) each a column of its own, the
//! figure and its statistics, and every other parameter in a last "notes"
//! cell that wraps, so that a table fits the page instead of scrolling
//! sideways with `key=value` dumps.

use crate::output::ReadRecord;
use crate::report::html::{self, Table};
use serde_json::Value;

/// The CSS class of record tables (their notes cell wraps anywhere).
pub const CLASS: &str = "records";

/// A parameter's value for a cell: byte counts (`*_bytes`) in binary
/// units, numbers as [`html::number`] writes them, lists comma-separated,
/// text as it is.
pub fn cell(key: &str, value: &Value) -> String {
    match value {
        Value::Number(n) if key.ends_with("_bytes") => {
            n.as_f64().map(html::bytes).unwrap_or_else(|| n.to_string())
        }
        Value::Number(n) if n.is_f64() => n.as_f64().map(html::number).unwrap_or_default(),
        Value::String(text) => text.clone(),
        Value::Array(items) if items.iter().all(|i| !i.is_object() && !i.is_array()) => items
            .iter()
            .map(|i| cell(key, i))
            .collect::<Vec<_>>()
            .join(","),
        other => other.to_string(),
    }
}

/// The records as a table: benchmark and file columns only when they
/// differ between rows, then metric, a column for each of `keys` that some
/// record has (underscores shown as spaces so headers wrap), value, unit,
/// n, the median when some record's differs from its value, the range
/// (`min to max`), and the remaining parameters as `key=value` in a
/// "notes" cell.
pub fn records_table<'a>(records: impl Iterator<Item = &'a ReadRecord>, keys: &[&str]) -> Table {
    let records: Vec<&ReadRecord> = records.collect();
    let varies = |of: fn(&ReadRecord) -> &str| records.iter().any(|r| of(r) != of(records[0]));
    let benchmark = varies(|r| r.benchmark.as_str());
    let file = varies(|r| r.file.as_str());
    let keys: Vec<&str> = keys
        .iter()
        .copied()
        .filter(|k| records.iter().any(|r| r.params.contains_key(*k)))
        .collect();
    let mut header: Vec<String> = Vec::new();
    if file {
        header.push("file".into());
    }
    if benchmark {
        header.push("benchmark".into());
    }
    header.push("metric".into());
    // A parameter named `unit` (a cluster's unit: host and rank) is not
    // the figure's unit column.
    header.extend(keys.iter().map(|k| match *k {
        "unit" => "cluster unit".to_string(),
        k => k.replace('_', " "),
    }));
    let median = records.iter().any(|r| {
        r.stat("median")
            .is_some_and(|m| html::number(m) != html::number(r.value))
    });
    header.extend(["value".into(), "unit".into(), "n".into()]);
    if median {
        header.push("median".into());
    }
    header.extend(["range".into(), "notes".into()]);
    let mut table = Table {
        header,
        rows: Vec::new(),
        class: CLASS,
    };
    for r in records {
        let stat = |key| r.stat(key).map(html::number).unwrap_or_default();
        let mut row: Vec<String> = Vec::new();
        if file {
            row.push(r.file.clone());
        }
        if benchmark {
            row.push(r.benchmark.clone());
        }
        row.push(r.metric.clone());
        row.extend(
            keys.iter()
                .map(|k| r.params.get(*k).map(|v| cell(k, v)).unwrap_or_default()),
        );
        let notes = r
            .params
            .iter()
            .filter(|(k, _)| !keys.contains(&k.as_str()))
            .map(|(k, v)| format!("{k}={}", cell(k, v)))
            .collect::<Vec<_>>()
            .join("; ");
        row.extend([
            html::number(r.value),
            r.unit.as_str().to_string(),
            stat("n"),
        ]);
        if median {
            row.push(stat("median"));
        }
        row.push(match (r.stat("min"), r.stat("max")) {
            (Some(min), Some(max)) => format!("{} to {}", html::number(min), html::number(max)),
            _ => String::new(),
        });
        row.push(notes);
        table.push(row);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::load::Dataset;

    fn data(lines: &[&str]) -> Dataset {
        let mut data = Dataset::default();
        data.load("t.jsonl", &lines.join("\n"));
        data
    }

    const A: &str = r#"{"type":"record","benchmark":"per-cpu","metric":"latency_vs_node_median","value":1.2,"unit":"ratio","params":{"cpu":3,"cpu_node":1,"size_bytes":268435456,"sample_rule":"every CPU, long text that wraps","simd_calibration":{"avx2":0.7}},"placement":{"requested":{},"verified":null},"stats":{"n":3,"min":1.1,"median":1.2,"mean":1.2,"max":1.3,"stddev":0.1,"cv":0.1,"p90":1.3,"p99":1.3}}"#;

    #[test]
    fn params_that_matter_are_columns_and_the_rest_notes() {
        let data = data(&[A]);
        let table = records_table(
            data.records.iter(),
            &["cpu", "cpu_node", "size_bytes", "kernel"],
        );
        assert_eq!(
            table.header,
            [
                "metric",
                "cpu",
                "cpu node",
                "size bytes",
                "value",
                "unit",
                "n",
                "range",
                "notes"
            ],
            "no kernel column: no record has one; one benchmark and file: no columns for them; \
             no median column: it is the value"
        );
        let row = &table.rows[0];
        assert_eq!(row[..4], ["latency_vs_node_median", "3", "1", "256 MiB"]);
        assert_eq!(row[7], "1.1 to 1.3");
        assert_eq!(
            row[8],
            "sample_rule=every CPU, long text that wraps; simd_calibration={\"avx2\":0.7}"
        );
        assert!(!row[..8].iter().any(|c| c.contains('=')), "{row:?}");
        assert_eq!(table.class, CLASS);
    }

    #[test]
    fn benchmark_and_file_columns_only_when_they_differ() {
        let other = A.replace("\"per-cpu\"", "\"latency\"");
        let data = data(&[A, &other]);
        let table = records_table(data.records.iter(), &[]);
        assert_eq!(table.header[..2], ["benchmark", "metric"]);
    }
}
