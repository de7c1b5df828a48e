//! SVG plots drawn with plotters: line charts (linear or log x), annotated
//! heatmaps, bars and min/median/max range plots. Colours are the Okabe-Ito
//! palette (readable by colour-blind readers), and every series also differs
//! by marker and dash pattern so the plots survive greyscale printing.

use plotters::coord::ranged1d::{AsRangedCoord, SegmentValue, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::colors::colormaps::ViridisRGB;
use std::ops::Range;

/// One curve: a label for the legend and its (x, y) points.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// Okabe-Ito colours, yellow left out (too pale on white).
const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 0, 0),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 158, 115),
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(204, 121, 167),
];

/// The colour of series `index`.
pub fn colour(index: usize) -> RGBColor {
    PALETTE[index % PALETTE.len()]
}

const WIDTH: u32 = 760;
/// Width of the legend beside line charts, and the height of one of its rows.
const LEGEND_WIDTH: u32 = 290;
const LEGEND_ROW: usize = 18;
pub(crate) const HEIGHT: u32 = 420;
pub(crate) const FONT: &str = "sans-serif";

pub(crate) type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

pub(crate) fn failed(error: &dyn std::fmt::Display) -> String {
    format!(
        "<p>plot could not be drawn: {}</p>",
        super::html::escape(&error.to_string())
    )
}

pub(crate) fn span(values: impl Iterator<Item = f64>, log: bool) -> Range<f64> {
    let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
    for value in values.filter(|v| v.is_finite() && (!log || *v > 0.0)) {
        low = low.min(value);
        high = high.max(value);
    }
    if !low.is_finite() {
        return if log { 1.0..10.0 } else { 0.0..1.0 };
    }
    if log {
        (low / 1.3)..(high * 1.3)
    } else {
        let low = low.min(0.0);
        let pad = ((high - low) * 0.08).max(high.abs() * 0.05).max(1e-9);
        low..(high + pad)
    }
}

fn marker<DB: DrawingBackend>(
    index: usize,
    at: (i32, i32),
    style: ShapeStyle,
) -> DynElement<'static, DB, (i32, i32)> {
    match index % 4 {
        0 => Circle::new(at, 4, style.filled()).into_dyn(),
        1 => TriangleMarker::new(at, 5, style.filled()).into_dyn(),
        2 => Rectangle::new([(at.0 - 4, at.1 - 4), (at.0 + 4, at.1 + 4)], style).into_dyn(),
        _ => Cross::new(at, 5, style.stroke_width(2)).into_dyn(),
    }
}

/// A line chart: one curve per series, a legend, axis labels (with units),
/// optionally a log x axis and labelled vertical marks (cache sizes).
pub fn lines(
    series: &[Series],
    x_label: &str,
    y_label: &str,
    log_x: bool,
    marks: &[(f64, String)],
) -> String {
    let x = span(
        series.iter().flat_map(|s| s.points.iter().map(|p| p.0)),
        log_x,
    );
    let y = span(
        series.iter().flat_map(|s| s.points.iter().map(|p| p.1)),
        false,
    );
    // Marks outside the data's range would be drawn at the plot's edge.
    let marks: Vec<(f64, String)> = marks.iter().filter(|m| x.contains(&m.0)).cloned().collect();
    let marks = marks.as_slice();
    let mut svg = String::new();
    let result = if log_x {
        draw_lines(
            &mut svg,
            x.log_scale(),
            y,
            series,
            (x_label, y_label, true),
            marks,
        )
    } else {
        draw_lines(&mut svg, x, y, series, (x_label, y_label, false), marks)
    };
    match result {
        Ok(()) => svg,
        Err(error) => failed(&error),
    }
}

fn draw_lines<XR>(
    svg: &mut String,
    x: XR,
    y: Range<f64>,
    series: &[Series],
    (x_label, y_label, log_x): (&str, &str, bool),
    marks: &[(f64, String)],
) -> Result<()>
where
    XR: AsRangedCoord<Value = f64>,
    XR::CoordDescType: ValueFormatter<f64>,
{
    // Counts (threads, chains, ranks) are integers: their axis labels only
    // integer ticks, never 0.2 or 1.5.
    let integer_x = !log_x
        && series
            .iter()
            .flat_map(|s| s.points.iter())
            .all(|p| p.0.fract() == 0.0);
    let root = SVGBackend::with_string(svg, (WIDTH + LEGEND_WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let (plot_area, legend_area) = root.split_horizontally(WIDTH);
    let (y_low, y_high) = (y.start, y.end);
    let mut chart = ChartBuilder::on(&plot_area)
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(70)
        .build_cartesian_2d(x, y)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .x_label_formatter(&|v: &f64| {
            if log_x {
                decimal_bytes(*v)
            } else if integer_x && (v - v.round()).abs() > 1e-9 {
                String::new()
            } else {
                super::html::number(*v)
            }
        })
        .y_label_formatter(&|v: &f64| super::html::number(*v))
        .axis_desc_style((FONT, 15))
        .label_style((FONT, 12))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    for (at, label) in marks {
        let grey = RGBColor(120, 120, 120);
        chart.draw_series(DashedLineSeries::new(
            vec![(*at, y_low), (*at, y_high)],
            4,
            4,
            grey.stroke_width(1),
        ))?;
        chart.draw_series(std::iter::once(Text::new(
            label.clone(),
            (*at, y_high),
            (FONT, 12).into_font().color(&grey),
        )))?;
    }
    for (index, curve) in series.iter().enumerate() {
        let style = colour(index).stroke_width(2);
        let points = curve.points.clone();
        match index / PALETTE.len() % 3 {
            0 if index % 3 != 1 => {
                chart.draw_series(LineSeries::new(points.clone(), style))?;
            }
            _ => {
                let (size, gap) = if index % 2 == 0 { (8, 4) } else { (3, 3) };
                chart.draw_series(DashedLineSeries::new(points.clone(), size, gap, style))?;
            }
        }
        chart.draw_series(points.iter().map(|&p| {
            EmptyElement::at(p) + marker::<SVGBackend>(index, (0, 0), colour(index).into())
        }))?;
    }
    legend(&legend_area, series)?;
    root.present()?;
    Ok(())
}

/// Bytes in decimal units for the ticks of a log axis, which fall on
/// powers of ten (`100 kB`, `1 MB`).
fn decimal_bytes(value: f64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB"];
    let mut amount = value;
    let mut unit = 0;
    while amount >= 999.5 && unit + 1 < units.len() {
        amount /= 1000.0;
        unit += 1;
    }
    format!("{} {}", super::html::number(amount), units[unit])
}

/// The integer range of a segmented axis with `n` categories: plotters'
/// integer ranges include their end, so `0..n-1` holds n segments; one
/// category keeps `0..1` (a range of one point draws nothing).
pub(crate) fn slots(n: usize) -> Range<i32> {
    if n >= 2 {
        0..n as i32 - 1
    } else {
        0..1
    }
}

/// Draws the mesh of a chart whose x axis is named categories (one per
/// segment, labelled by `name`) in the report's style.
pub(crate) fn draw_category_mesh<X, Y>(
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, Y>>,
    (x_label, y_label): (&str, &str),
    categories: usize,
    name: &dyn Fn(&X::ValueType) -> String,
) -> Result<()>
where
    X: Ranged<FormatOption = plotters::coord::ranged1d::NoDefaultFormatting>
        + ValueFormatter<X::ValueType>,
    Y: Ranged + ValueFormatter<Y::ValueType>,
{
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .x_labels(categories)
        .x_label_formatter(name)
        .axis_desc_style((FONT, 14))
        .label_style((FONT, 12))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    Ok(())
}

/// The legend, beside the plot so it never hides data: each series' colour,
/// line and marker with its label.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    series: &[Series],
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let rows = ((HEIGHT as usize - 20) / LEGEND_ROW).max(1);
    for (index, curve) in series.iter().enumerate().take(rows) {
        let y = 20 + (index * LEGEND_ROW) as i32;
        let style = colour(index).stroke_width(2);
        area.draw(&PathElement::new(vec![(4, y), (30, y)], style))?;
        area.draw(
            &(EmptyElement::at((17, y)) + marker::<DB>(index, (0, 0), colour(index).into())),
        )?;
        let mut label = curve.label.clone();
        if label.chars().count() > 40 {
            label = label.chars().take(39).collect::<String>() + "…";
        }
        area.draw(&Text::new(label, (38, y - 7), (FONT, 12).into_font()))?;
    }
    if series.len() > rows {
        let more = format!("(+{} more in the data table)", series.len() - rows);
        area.draw(&Text::new(
            more,
            (4, (20 + rows * LEGEND_ROW) as i32),
            (FONT, 12).into_font(),
        ))?;
    }
    Ok(())
}

/// An annotated heatmap: `values[row][column]` (None: not measured), each
/// cell printed, colours from viridis (lightness rises with the value, so it
/// reads in greyscale too).
pub fn heatmap(
    rows: &[String],
    columns: &[String],
    values: &[Vec<Option<f64>>],
    row_label: &str,
    column_label: &str,
    unit: &str,
) -> String {
    hatched_heatmap(rows, columns, values, &[], row_label, column_label, unit)
}

/// [`heatmap`] with the cells where `hatched[row][column]` is true drawn
/// hatched (diagonal lines over the colour): figures not measured but
/// inferred (a matrix measured by symmetry class). Missing rows or
/// columns of `hatched` are not hatched.
pub fn hatched_heatmap(
    rows: &[String],
    columns: &[String],
    values: &[Vec<Option<f64>>],
    hatched: &[Vec<bool>],
    row_label: &str,
    column_label: &str,
    unit: &str,
) -> String {
    let mut svg = String::new();
    match draw_heatmap(
        &mut svg,
        rows,
        columns,
        values,
        hatched,
        (row_label, column_label),
        unit,
    ) {
        Ok(()) => svg,
        Err(error) => failed(&error),
    }
}

/// Lines of a cell's hatching: diagonals from its lower left, a fifth of a
/// cell apart, clipped to the cell (`c`, `y`: its lower-left corner).
fn hatch_lines(c: f64, y: f64) -> Vec<[(f64, f64); 2]> {
    (1..10)
        .map(|step| {
            let offset = step as f64 / 5.0;
            if offset <= 1.0 {
                [(c, y + offset), (c + offset, y)]
            } else {
                let over = offset - 1.0;
                [(c + over, y + 1.0), (c + 1.0, y + over)]
            }
        })
        .collect()
}

fn draw_heatmap(
    svg: &mut String,
    rows: &[String],
    columns: &[String],
    values: &[Vec<Option<f64>>],
    hatched: &[Vec<bool>],
    (row_label, column_label): (&str, &str),
    unit: &str,
) -> Result<()> {
    let height = (80 + 34 * rows.len() as u32).clamp(200, 900);
    let width = (130 + 80 * columns.len() as u32).clamp(320, WIDTH);
    let root = SVGBackend::with_string(svg, (width, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let all: Vec<f64> = values.iter().flatten().flatten().copied().collect();
    let low = all.iter().copied().fold(f64::INFINITY, f64::min);
    let high = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let n_rows = rows.len();
    // Plain coordinates, one unit per cell, and the labels drawn at the
    // cells' centres by hand: plotters' segmented axes drew a one-category
    // axis with zero length (a 1 x 1 map had a cell of height 0 and no row
    // label).
    let mut chart = ChartBuilder::on(&root)
        .margin(10)
        .x_label_area_size(44)
        .y_label_area_size(90)
        .build_cartesian_2d(
            0.0..columns.len().max(1) as f64,
            0.0..rows.len().max(1) as f64,
        )?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(column_label)
        .y_desc(row_label)
        .x_labels(0)
        .y_labels(0)
        .set_all_tick_mark_size(0)
        .axis_desc_style((FONT, 14))
        .label_style((FONT, 12))
        .draw()?;
    let centred = |h, ink: &RGBColor| {
        (FONT, 12)
            .into_font()
            .color(ink)
            .pos(plotters::style::text_anchor::Pos::new(
                h,
                plotters::style::text_anchor::VPos::Center,
            ))
    };
    for (c, name) in columns.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(c as f64 + 0.5, 0.0));
        root.draw(&Text::new(
            name.clone(),
            (x, y + 12),
            centred(plotters::style::text_anchor::HPos::Center, &BLACK),
        ))?;
    }
    for (r, name) in rows.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(0.0, (n_rows - 1 - r) as f64 + 0.5));
        root.draw(&Text::new(
            name.clone(),
            (x - 6, y),
            centred(plotters::style::text_anchor::HPos::Right, &BLACK),
        ))?;
    }
    for (r, row) in values.iter().enumerate() {
        let y = (n_rows - 1 - r) as f64;
        for (c, cell) in row.iter().enumerate() {
            let c = c as f64;
            let corners = [(c, y), (c + 1.0, y + 1.0)];
            let (fill, text) = match cell {
                Some(value) => {
                    let share = if high > low {
                        (value - low) / (high - low)
                    } else {
                        0.5
                    };
                    let ink = if share < 0.55 { WHITE } else { BLACK };
                    (
                        ViridisRGB::get_color(share.clamp(0.0, 1.0)),
                        (format!("{} {unit}", super::html::number(*value)), ink),
                    )
                }
                None => (RGBColor(230, 230, 230), ("-".to_string(), BLACK)),
            };
            chart.draw_series(std::iter::once(Rectangle::new(corners, fill.filled())))?;
            let hatch = hatched
                .get(r)
                .and_then(|row| row.get(c as usize))
                .copied()
                .unwrap_or(false);
            if hatch {
                let ink = RGBColor(128, 128, 128).stroke_width(2);
                chart.draw_series(
                    hatch_lines(c, y)
                        .into_iter()
                        .map(|line| PathElement::new(line.to_vec(), ink)),
                )?;
            }
            chart.draw_series(std::iter::once(Text::new(
                text.0,
                (c + 0.5, y + 0.5),
                centred(plotters::style::text_anchor::HPos::Center, &text.1),
            )))?;
        }
    }
    root.present()?;
    Ok(())
}

/// One group of a range plot: every repetition's value if known, and the
/// min/median/max that are labelled.
#[derive(Debug, Clone, PartialEq)]
pub struct Range3 {
    pub label: String,
    pub min: f64,
    pub median: f64,
    pub max: f64,
    /// Individual repetitions, drawn as a strip (may be empty).
    pub points: Vec<f64>,
}

/// Vertical min-max bars with the median marked and the three figures
/// labelled, plus every repetition as a dot when the records have them.
pub fn ranges(groups: &[Range3], y_label: &str, x_label: &str) -> String {
    let mut svg = String::new();
    match draw_ranges(&mut svg, groups, y_label, x_label) {
        Ok(()) => svg,
        Err(error) => failed(&error),
    }
}

fn draw_ranges(svg: &mut String, groups: &[Range3], y_label: &str, x_label: &str) -> Result<()> {
    let width = (160 + GROUP_WIDTH * groups.len() as u32).clamp(400, 1100);
    let root = SVGBackend::with_string(svg, (width, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let y = span(
        groups
            .iter()
            .flat_map(|g| [g.min, g.max].into_iter().chain(g.points.iter().copied())),
        false,
    );
    let mut chart = ChartBuilder::on(&root)
        .margin(12)
        // Room for the last group's labels, written right of its bar.
        .margin_right(80)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(slots(groups.len()).into_segmented(), y)?;
    let numbered = crowded(groups);
    let name = |v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(i) if numbered && (*i as usize) < groups.len() => {
            format!("{}", i + 1)
        }
        SegmentValue::CenterOf(i) => groups
            .get(*i as usize)
            .map(|g| g.label.clone())
            .unwrap_or_default(),
        _ => String::new(),
    };
    draw_category_mesh(&mut chart, (x_label, y_label), groups.len(), &name)?;
    let ink = colour(4);
    for (i, group) in groups.iter().enumerate() {
        let at = SegmentValue::CenterOf(i as i32);
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(at.clone(), group.min), (at.clone(), group.max)],
            ink.stroke_width(2),
        )))?;
        for (value, text) in [
            (group.min, "min"),
            (group.median, "med"),
            (group.max, "max"),
        ] {
            let style = if text == "med" {
                colour(5).filled()
            } else {
                ink.stroke_width(2)
            };
            chart.draw_series(std::iter::once(
                EmptyElement::at((at.clone(), value))
                    + Rectangle::new([(-10, -2), (10, 2)], style)
                    + Text::new(
                        format!("{text} {}", super::html::number(value)),
                        (13, -6),
                        (FONT, 11).into_font(),
                    ),
            ))?;
        }
        chart.draw_series(group.points.iter().map(|&value| {
            EmptyElement::at((at.clone(), value)) + Circle::new((-16, 0), 3, colour(0).filled())
        }))?;
    }
    root.present()?;
    Ok(())
}

/// Pixels along x for each group of a range plot.
const GROUP_WIDTH: u32 = 110;

/// True when the groups' labels do not fit under them: the axis then shows
/// numbers, explained by [`range_key`].
fn crowded(groups: &[Range3]) -> bool {
    groups
        .iter()
        .map(|g| g.label.chars().count() as u32 * 7)
        .max()
        .unwrap_or(0)
        > GROUP_WIDTH - 10
}

/// The key of a range plot whose axis shows numbers (`1: label; 2: ...`),
/// for its caption; None when the labels themselves are on the axis.
pub fn range_key(groups: &[Range3]) -> Option<String> {
    crowded(groups).then(|| {
        groups
            .iter()
            .enumerate()
            .map(|(i, g)| format!("{}: {}", i + 1, g.label))
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// A bar chart of labelled values.
pub fn bars(labels: &[String], values: &[f64], y_label: &str, x_label: &str) -> String {
    let mut svg = String::new();
    match draw_bars(&mut svg, labels, values, y_label, x_label) {
        Ok(()) => svg,
        Err(error) => failed(&error),
    }
}

fn draw_bars(
    svg: &mut String,
    labels: &[String],
    values: &[f64],
    y_label: &str,
    x_label: &str,
) -> Result<()> {
    let root = SVGBackend::with_string(svg, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let y: RangedCoordf64 = span(values.iter().copied(), false).into();
    let mut chart = ChartBuilder::on(&root)
        .margin(12)
        .x_label_area_size(60)
        .y_label_area_size(70)
        .build_cartesian_2d(slots(labels.len()).into_segmented(), y)?;
    let name = |v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(i) => labels.get(*i as usize).cloned().unwrap_or_default(),
        _ => String::new(),
    };
    draw_category_mesh(&mut chart, (x_label, y_label), labels.len(), &name)?;
    for (i, value) in values.iter().enumerate() {
        let i = i as i32;
        chart.draw_series(std::iter::once(Rectangle::new(
            [
                (SegmentValue::Exact(i), 0.0),
                (SegmentValue::Exact(i + 1), *value),
            ],
            colour(1 + i as usize).filled(),
        )))?;
        chart.draw_series(std::iter::once(Text::new(
            super::html::number(*value),
            (SegmentValue::CenterOf(i), *value),
            (FONT, 12).into_font(),
        )))?;
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Widths of the filled rectangles of `fill` in an SVG.
    fn widths(svg: &str, fill: &str) -> Vec<f64> {
        rect_attribute(svg, fill, "width")
    }

    #[test]
    fn heatmap_cells_are_drawn_for_one_and_several_categories() {
        // One value: the middle of viridis; drawn as a real cell, not a line.
        let one = heatmap(
            &["n0".into()],
            &["n0".into()],
            &[vec![Some(5.0)]],
            "r",
            "c",
            "ns",
        );
        let cells = widths(&one, "#23918C");
        assert_eq!(cells.len(), 1, "{one}");
        // It fills the plot area: the width less the row labels and margins.
        // (320 px wide at least, 90 px of row labels, 10 px margins)
        let area = 320.0 - 90.0 - 2.0 * 10.0;
        assert!(cells[0] > 0.95 * area, "{}: {one}", cells[0]);
        let labels: Vec<String> = (0..3).map(|i| format!("n{i}")).collect();
        let values = vec![vec![Some(1.0), Some(2.0), Some(3.0)]; 3];
        let three = heatmap(&labels, &labels, &values, "r", "c", "ns");
        let total: usize = ["#440154", "#FEE825"]
            .iter()
            .map(|f| widths(&three, f).len())
            .sum();
        assert_eq!(total, 6, "lowest and highest columns drawn: {three}");
        // No empty extra column: the cells of one row fill the plot's width.
        let low = widths(&three, "#440154")[0];
        assert!(
            low * 3.0 > 0.9 * (WIDTH.min(130 + 80 * 3) - 100) as f64,
            "{low}"
        );
    }

    /// An attribute of the filled rectangles of `fill` in an SVG.
    fn rect_attribute(svg: &str, fill: &str, attribute: &str) -> Vec<f64> {
        svg.split("<rect ")
            .skip(1)
            .filter(|rect| rect.contains(&format!("fill=\"{fill}\"")))
            .filter_map(|rect| {
                rect.split(&format!(" {attribute}=\""))
                    .nth(1)?
                    .split('"')
                    .next()?
                    .parse()
                    .ok()
            })
            .collect()
    }

    /// A 1 x 1 heatmap (one NUMA node: most laptops and VMs) was blank: its
    /// cell had height 0 and the y axis had no node label. The cell must
    /// have positive area filling the plot, and the label must be on both
    /// axes.
    #[test]
    fn a_one_by_one_heatmap_has_an_area_and_both_labels() {
        let one = heatmap(
            &["node 0".into()],
            &["node 0".into()],
            &[vec![Some(5.0)]],
            "CPU node",
            "memory node",
            "ns",
        );
        let heights = rect_attribute(&one, "#23918C", "height");
        assert_eq!(heights.len(), 1, "{one}");
        // 200 px high at least, 44 px of column labels, 10 px margins.
        let area = 200.0 - 44.0 - 2.0 * 10.0;
        assert!(heights[0] > 0.9 * area, "{}: {one}", heights[0]);
        assert_eq!(one.matches("\nnode 0\n").count(), 2, "{one}");
    }

    /// The texts of an SVG's tick labels (one per `<text>`).
    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text ")
            .skip(1)
            .filter_map(|t| {
                Some(
                    t.split_once('>')?
                        .1
                        .split("</text>")
                        .next()?
                        .trim()
                        .to_string(),
                )
            })
            .collect()
    }

    /// Thread counts are integers: an axis of 1 and 2 threads showed ticks
    /// at 1.2, 1.4, ...; every x tick of an integer axis is now an integer.
    #[test]
    fn integer_axes_have_integer_ticks() {
        let series = [Series {
            label: "s".into(),
            points: vec![(1.0, 10.0), (2.0, 18.0)],
        }];
        let svg = lines(&series, "threads", "bandwidth (GB/s)", false, &[]);
        let labels = texts(&svg);
        assert!(labels.iter().any(|t| t == "2"), "{labels:?}");
        for fraction in ["1.2", "1.4", "1.5", "1.6", "1.8"] {
            assert!(!labels.iter().any(|t| t == fraction), "{labels:?}");
        }
        // A real-valued axis keeps its fractional ticks.
        let series = [Series {
            label: "s".into(),
            points: vec![(1.0, 10.0), (2.5, 18.0)],
        }];
        let labels = texts(&lines(&series, "x", "y", false, &[]));
        assert!(labels.iter().any(|t| t.contains('.')), "{labels:?}");
    }

    #[test]
    fn log_ticks_read_as_decimal_bytes() {
        assert_eq!(decimal_bytes(100_000.0), "100 kB");
        assert_eq!(decimal_bytes(1e6), "1 MB");
        assert_eq!(decimal_bytes(512.0), "512 B");
    }

    #[test]
    fn plots_are_svg_with_labels_and_legends() {
        let series = vec![Series {
            label: "node <0>".into(),
            points: vec![(1024.0, 1.0), (1048576.0, 80.0)],
        }];
        let svg = lines(
            &series,
            "working set (bytes)",
            "latency (ns)",
            true,
            &[(32768.0, "L1".into())],
        );
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains("latency (ns)") && svg.contains("working set (bytes)"));
        assert!(svg.contains("node &lt;0&gt;"), "legend text escaped");
        let map = heatmap(
            &["0".into()],
            &["0".into(), "1".into()],
            &[vec![Some(1.0), None]],
            "CPU node",
            "memory node",
            "ns",
        );
        assert!(
            map.contains(">1 ns") || map.contains("\n1 ns") && map.contains("memory node"),
            "{map}"
        );
    }
}
