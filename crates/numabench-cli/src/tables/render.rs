//! A table model as terminal text: its title, the table fitted to the
//! width (cells wrap, nothing is cut), then its notes wrapped to the width.

use comfy_table::{CellAlignment, ColumnConstraint, ContentArrangement, Table, Width};
use numabench::output::tables::TableModel;

/// Whether a column holds figures (right-aligned): every non-empty cell
/// starts with a digit, a sign or a dash.
fn numeric(model: &TableModel, column: usize) -> bool {
    column > 0
        && model.rows.iter().all(|row| {
            row.get(column)
                .and_then(|cell| cell.chars().next())
                .is_none_or(|first| first.is_ascii_digit() || "+-".contains(first))
        })
}

/// Text wrapped to `width` by comfy-table (a borderless one-column table),
/// so words, not characters, break and Unicode widths count right.
pub fn wrapped(text: &str, width: u16) -> String {
    let mut table = Table::new();
    table
        .load_preset(comfy_table::presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(width)
        .add_row(vec![text]);
    // The preset keeps one space of padding on each side: drop the left one.
    table
        .lines()
        .map(|line| {
            line.strip_prefix(' ')
                .unwrap_or(&line)
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The model as lines no wider than `width`.
pub fn render(model: &TableModel, width: u16) -> String {
    let mut table = Table::new();
    table
        .load_preset(comfy_table::presets::ASCII_MARKDOWN)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(width)
        .set_header(model.header.clone());
    for row in &model.rows {
        table.add_row(row.clone());
    }
    // Cells keep their content whole where the width allows (headers
    // wrap first): each column at least as wide as its widest cell.
    let widest: Vec<usize> = (0..model.header.len())
        .map(|index| {
            model
                .rows
                .iter()
                .filter_map(|row| row.get(index))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    // Each column: its content, one space either side, one border; a grid
    // too wide for that drops the spaces (a 16-CPU c2c grid fits 100).
    let needed = |padding: usize| -> usize {
        widest
            .iter()
            .map(|cells| cells + padding + 1)
            .sum::<usize>()
            + 1
    };
    let fits = |padding: usize| needed(padding) <= width as usize;
    let padding: u16 = if !fits(2) && fits(0) { 0 } else { 1 };
    let keep_cells_whole = fits(2 * padding as usize);
    for (index, cells) in widest.iter().enumerate() {
        if let Some(column) = table.column_mut(index) {
            if numeric(model, index) {
                column.set_cell_alignment(CellAlignment::Right);
            }
            column.set_padding((padding, padding));
            if keep_cells_whole {
                column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(
                    *cells as u16 + 2 * padding,
                )));
            }
        }
    }
    let mut text = String::new();
    if !model.title.is_empty() {
        text.push_str(&wrapped(&model.title, width));
        text.push('\n');
    }
    text.push_str(&table.to_string());
    text.push('\n');
    for note in &model.notes {
        text.push_str(&wrapped(note, width));
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long_model() -> TableModel {
        let mut model = TableModel::new("A title", &["metric", "value", "params"]);
        model.push(vec![
            "latency".into(),
            "90.14".into(),
            "size_bytes=16777216 cache_bytes_in_front=34111488 cache_affected=true cpu=0 order=tlb-block".into(),
        ]);
        model.note(
            "chase: idle memory latency: random within L1-dTLB-sized blocks, so the figure is the memory's and not the page walker's"
                .repeat(2),
        );
        model
    }

    /// Every line fits, and every word of every cell and note is still
    /// there (wrapped, not cut).
    #[test]
    fn lines_fit_the_width_and_nothing_is_cut() {
        let model = long_model();
        for width in [40u16, 60, 100] {
            let text = render(&model, width);
            for line in text.lines() {
                assert!(line.chars().count() <= width as usize, "{width}: {line}");
            }
            let words: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
            for word in model.notes[0]
                .split_whitespace()
                .chain(["cache_affected=true"])
            {
                assert!(
                    words.contains(word) || text.replace(['\n', '|', ' '], "").contains(word),
                    "{width}: '{word}' missing from\n{text}"
                );
            }
        }
    }

    /// Long headers over short cells (`cluster`'s host table): the cells
    /// stay whole on one line, the headers wrap.
    #[test]
    fn short_cells_stay_whole_and_headers_wrap() {
        let mut header = vec!["host"];
        let long = "a metric with a long name node 0->0 GB/s";
        header.extend([long; 5]);
        header.push("flags");
        let mut model = TableModel::new("Hosts", &header);
        for host in ["nbh0-24271-h1", "nbh0-24271-h0"] {
            let mut row = vec![host.to_string()];
            row.extend(std::iter::repeat_n("97792 !".to_string(), 5));
            row.push("5 outlier(s)".into());
            model.push(row);
        }
        let text = render(&model, 100);
        for line in text.lines() {
            assert!(line.chars().count() <= 100, "{text}");
        }
        for host in ["| nbh0-24271-h1 ", "| nbh0-24271-h0 "] {
            let row = text.lines().find(|line| line.starts_with(host));
            let row = row.unwrap_or_else(|| panic!("{host} cut in\n{text}"));
            assert!(
                row.contains("5 outlier(s)") && row.contains("97792 !"),
                "{text}"
            );
        }
    }

    /// A 16-CPU c2c grid (17 columns of up to 4 digits) fits 100
    /// characters with every figure whole.
    #[test]
    fn a_sixteen_cpu_grid_fits_one_hundred_columns() {
        let mut header = vec!["cpu".to_string()];
        header.extend((0..16).map(|cpu| cpu.to_string()));
        let header: Vec<&str> = header.iter().map(String::as_str).collect();
        let mut model = TableModel::new("Core-to-core latency, ns", &header);
        for a in 0..16 {
            let mut row = vec![a.to_string()];
            row.extend((0..16).map(|b| {
                if a == b {
                    "-".into()
                } else {
                    "1234".to_string()
                }
            }));
            model.push(row);
        }
        let text = render(&model, 100);
        for line in text.lines() {
            assert!(line.chars().count() <= 100, "{text}");
        }
        let row = text
            .lines()
            .find(|line| line.starts_with("|15"))
            .expect(&text);
        assert_eq!(row.matches("1234").count(), 15, "{text}");
    }

    #[test]
    fn figures_are_right_aligned() {
        let mut model = TableModel::new("", &["size", "ns"]);
        model.push(vec!["16 KiB".into(), "1.20".into()]);
        model.push(vec!["1 GiB".into(), "95.25".into()]);
        let text = render(&model, 100);
        assert!(text.contains("|  1.20 |"), "{text}");
    }
}
