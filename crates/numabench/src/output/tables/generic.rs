//! Any other records: metric, value, unit, cv, and the params that tell
//! the rows apart as columns; params every row shares go to a note, and a
//! value too long for a cell to a numbered note.

use super::cells::{cv, distinct, figure, placement_note, value_text};
use super::TableModel;
use crate::output::{params_text, Record};
use serde_json::{Map, Value};

/// Longest param value shown in a cell; a longer one becomes a note.
const CELL_CHARS: usize = 24;

/// Most param columns; the rest of the differing params go to notes.
const PARAM_COLUMNS: usize = 4;

/// A command's own table (when it has rows of its own) followed by the
/// table of the records it does not draw (none when there are none).
pub fn followed_by_others(own: Option<TableModel>, others: &[&Record]) -> Vec<TableModel> {
    own.into_iter().chain(tables(others)).collect()
}

/// One table of every record given (none for no records).
pub fn tables(records: &[&Record]) -> Vec<TableModel> {
    let Some(first) = records.first() else {
        return Vec::new();
    };
    let keys = distinct(
        records
            .iter()
            .flat_map(|record| record.params.keys().cloned()),
    );
    let (varying, shared): (Vec<String>, Vec<String>) = keys
        .into_iter()
        .partition(|key| distinct(records.iter().map(|record| record.params.get(key))).len() > 1);
    let columns: Vec<&String> = varying.iter().take(PARAM_COLUMNS).collect();
    let mut header = vec!["metric", "value", "unit", "cv"];
    header.extend(columns.iter().map(|key| key.as_str()));
    let mut table = TableModel::new(format!("{} results", first.benchmark), &header);
    let mut long_values = Vec::new();
    for record in records {
        let mut row = vec![
            record.metric.clone(),
            figure(record),
            record.unit.as_str().to_string(),
            cv(record),
        ];
        for key in &columns {
            let text = record.params.get(*key).map_or("".to_string(), value_text);
            if text.chars().count() > CELL_CHARS {
                long_values.push(format!("[{}] {key}={text}", long_values.len() + 1));
                row.push(format!("[{}]", long_values.len()));
            } else {
                row.push(text);
            }
        }
        let rest: Map<String, Value> = varying
            .iter()
            .skip(PARAM_COLUMNS)
            .filter_map(|key| Some((key.clone(), record.params.get(key)?.clone())))
            .collect();
        if !rest.is_empty() {
            long_values.push(format!(
                "[{}] {} {}",
                long_values.len() + 1,
                record.metric,
                params_text(&rest)
            ));
            let last = row.last_mut().expect("a row has cells");
            last.push_str(&format!(" [{}]", long_values.len()));
        }
        table.push(row);
    }
    let common: Map<String, Value> = shared
        .iter()
        .filter_map(|key| Some((key.clone(), first.params.get(key)?.clone())))
        .collect();
    if !common.is_empty() {
        table.note(format!("every row: {}", params_text(&common)));
    }
    table.notes.extend(long_values);
    table.notes.extend(placement_note(records));
    vec![table]
}
