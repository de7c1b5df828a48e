//! A comparison matched by role as a table model (the command line renders
//! it to the terminal's width): one row per role, each set's figure and
//! its ratio to the first set's; and the sets' findings side by side.

use super::matching::{Comparison, ResultSet};
use crate::output::tables::TableModel;
use crate::units::format_value;
use numabench_schema::benchmark;
use numabench_schema::params::key;
use serde_json::Value;

/// The table: role, unit, then per set its figure (and, after the first,
/// the ratio to the first); notes count what no role matched, per set.
pub fn role_table(comparison: &Comparison) -> TableModel {
    let mut header = vec!["role".to_string(), "unit".into()];
    for index in 0..comparison.sets.len() {
        header.push(format!("set {}", index + 1));
        if index > 0 {
            header.push(format!("{}/1", index + 1));
        }
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut model = TableModel::new(
        "matched by role (cache level or DRAM, kernel, threads, local or remote by distance \
         rank); a role of several records: their median",
        &header,
    );
    for matched in &comparison.matched {
        let role = matched
            .key
            .params
            .iter()
            .find(|(name, _)| name == "role")
            .and_then(|(_, value)| value.as_str())
            .unwrap_or(&matched.key.metric);
        let mut row = vec![role.to_string(), matched.key.unit.clone()];
        for (index, figure) in matched.figures.iter().enumerate() {
            row.push(format_value(figure.value));
            if index > 0 {
                row.push(matched.ratio_text(index, 2));
            }
        }
        model.push(row);
    }
    for (index, unmatched) in comparison.unmatched.iter().enumerate() {
        let listed: Vec<String> = unmatched
            .keys
            .iter()
            .map(|(key, count)| format!("{} {} x{count}", key.benchmark, key.metric))
            .collect();
        let mut note = format!(
            "unmatched in set {}: {} record(s)",
            index + 1,
            unmatched.records
        );
        if !listed.is_empty() {
            note.push_str(&format!(" ({})", listed.join(", ")));
        }
        model.note(note);
    }
    model
}

/// The findings (`summary` records' sentences) of every set by kind, in
/// the first appearance order over the sets: per kind, each set's
/// sentences (empty where a set has none of that kind).
pub fn findings_side_by_side(sets: &[ResultSet]) -> Vec<(String, Vec<Vec<String>>)> {
    let mut kinds: Vec<(String, Vec<Vec<String>>)> = Vec::new();
    for (index, set) in sets.iter().enumerate() {
        for record in set
            .records
            .iter()
            .filter(|r| r.benchmark == benchmark::SUMMARY)
        {
            let Some(sentence) = record.params.get(key::SENTENCE).and_then(Value::as_str) else {
                continue;
            };
            let position = match kinds.iter().position(|(kind, _)| *kind == record.metric) {
                Some(position) => position,
                None => {
                    kinds.push((record.metric.clone(), vec![Vec::new(); sets.len()]));
                    kinds.len() - 1
                }
            };
            kinds[position].1[index].push(sentence.to_string());
        }
    }
    kinds
}
