//! A comparison as a terminal table: each matched measurement on one line,
//! every set's value side by side with its ratio to the first set and the
//! Mann-Whitney p-value (`n/a` without repetitions in both sets).

use super::matching::Comparison;
use crate::units::format_value;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The table, the sets named first, unmatched records counted last.
pub fn render_table(comparison: &Comparison) -> String {
    let mut text = String::new();
    for (index, name) in comparison.sets.iter().enumerate() {
        let role = if index == 0 { " (baseline)" } else { "" };
        let _ = writeln!(text, "set {}: {name}{role}", index + 1);
    }
    let mut rows: Vec<Vec<String>> = vec![{
        let mut header = vec!["benchmark".to_string(), "metric".into(), "unit".into()];
        for index in 0..comparison.sets.len() {
            header.push(format!("set {}", index + 1));
            if index > 0 {
                header.push("ratio".into());
                header.push("p".into());
            }
        }
        header.push("params".into());
        header
    }];
    for matched in &comparison.matched {
        let mut row = vec![
            matched.key.benchmark.clone(),
            matched.key.metric.clone(),
            matched.key.unit.clone(),
        ];
        for (index, figure) in matched.figures.iter().enumerate() {
            row.push(format_value(figure.value));
            if index > 0 {
                row.push(matched.ratio_text(index, 3));
                row.push(
                    matched
                        .p_value(index)
                        .map_or("n/a".into(), |p| format!("{p:.3}")),
                );
            }
        }
        row.push(matched.key.params_text());
        rows.push(row);
    }
    if comparison.matched.is_empty() {
        text.push_str("no measurement is in every set\n");
    } else {
        let columns = rows[0].len();
        let widths: Vec<usize> = (0..columns)
            .map(|column| rows.iter().map(|row| row[column].len()).max().unwrap_or(0))
            .collect();
        for row in &rows {
            let mut line = String::new();
            for (column, cell) in row.iter().enumerate() {
                let width = widths[column];
                if column + 1 == columns {
                    line.push_str(cell);
                } else if column < 3 {
                    let _ = write!(line, "{cell:<width$}  ");
                } else {
                    let _ = write!(line, "{cell:>width$}  ");
                }
            }
            let _ = writeln!(text, "{}", line.trim_end());
        }
    }
    for (index, unmatched) in comparison.unmatched.iter().enumerate() {
        let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
        for (key, count) in &unmatched.keys {
            *kinds
                .entry(format!("{} {}", key.benchmark, key.metric))
                .or_default() += count;
        }
        let listed: Vec<String> = kinds
            .iter()
            .map(|(kind, count)| format!("{kind} x{count}"))
            .collect();
        let _ = write!(
            text,
            "unmatched in set {}: {} record(s)",
            index + 1,
            unmatched.records
        );
        if listed.is_empty() {
            text.push('\n');
        } else {
            let _ = writeln!(text, " ({})", listed.join(", "));
        }
    }
    text
}
