//! Writing records' figures and values into cells.

use crate::output::Record;
use crate::units::{format_bytes, format_percent, format_value};
use serde_json::Value;

/// A JSON value as cell text (strings unquoted, null as `-`).
pub fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => "-".to_string(),
        other => other.to_string(),
    }
}

/// A figure with its significant digits, marked `!` when the placement
/// the record asked for was not achieved.
pub fn figure(record: &Record) -> String {
    let mark = match &record.placement.verified {
        Some(check) if !check.achieved => " !",
        _ => "",
    };
    format!("{}{mark}", format_value(record.value))
}

/// The note that explains [`figure`]'s mark, when a record carries it.
pub fn placement_note(records: &[&Record]) -> Option<String> {
    records
        .iter()
        .any(|record| matches!(&record.placement.verified, Some(check) if !check.achieved))
        .then(|| "! the placement asked for was not achieved (see --records or --json)".to_string())
}

/// A byte count as `16 KiB`.
pub fn bytes(value: u64) -> String {
    format_bytes(value)
}

/// A ratio as `1.23x`.
pub fn ratio(value: f64) -> String {
    format!("{value:.2}x")
}

/// A fraction as a percentage.
pub fn percent(value: f64) -> String {
    format_percent(value)
}

/// The record's coefficient of variation over its repetitions.
pub fn cv(record: &Record) -> String {
    format_percent(record.stats.cv)
}

/// Distinct values in first-seen order.
pub fn distinct<T: PartialEq + Clone>(values: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut seen = Vec::new();
    for value in values {
        if !seen.contains(&value) {
            seen.push(value);
        }
    }
    seen
}

/// The footnote under a node matrix with `inferred` of its `cells` cells
/// inferred (marked `*`): one wording for the tables and the matrix
/// commands' grids.
pub fn inferred_note(inferred: usize, cells: usize) -> String {
    format!(
        "* inferred from its symmetry class's representative, not measured ({inferred} of {cells} cells; --full-matrix measures every cell)"
    )
}
