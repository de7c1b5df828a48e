//! Strips of units against their group's median: one column per compared
//! figure (a cluster key), each unit's value over the median as a dot, the
//! median the line at 1, outliers drawn apart (a large orange cross with
//! the unit's name) so they read in greyscale too.

use super::plot::{colour, draw_category_mesh, failed, slots, span, Result, FONT, HEIGHT};
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

/// One column: its label, the median the values are divided by, and each
/// unit's (name, value, outlier) .
#[derive(Debug, Clone, PartialEq)]
pub struct Strip {
    pub label: String,
    pub median: f64,
    pub units: Vec<(String, f64, bool)>,
}

/// Pixels along x for each strip.
const STRIP_WIDTH: u32 = 120;

/// The strips as SVG: y is value / median (ratio), x the strips (numbered
/// when their labels do not fit; `key` names them).
pub fn strips(groups: &[Strip], x_label: &str) -> String {
    let mut svg = String::new();
    match draw(&mut svg, groups, x_label) {
        Ok(()) => svg,
        Err(error) => failed(&error),
    }
}

/// Whether the axis shows numbers instead of the strips' labels.
fn numbered(groups: &[Strip]) -> bool {
    groups
        .iter()
        .any(|g| g.label.chars().count() as u32 * 7 > STRIP_WIDTH - 10)
}

/// The key of numbered strips (`1: label; 2: ...`), for the caption.
pub fn key(groups: &[Strip]) -> Option<String> {
    numbered(groups).then(|| {
        groups
            .iter()
            .enumerate()
            .map(|(i, g)| format!("{}: {}", i + 1, g.label))
            .collect::<Vec<_>>()
            .join("; ")
    })
}

fn ratio(value: f64, median: f64) -> f64 {
    if median == 0.0 {
        1.0
    } else {
        value / median
    }
}

fn draw(svg: &mut String, groups: &[Strip], x_label: &str) -> Result<()> {
    let width = (180 + STRIP_WIDTH * groups.len() as u32).clamp(420, 1100);
    let root = SVGBackend::with_string(svg, (width, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let y = span(
        groups
            .iter()
            .flat_map(|g| g.units.iter().map(|u| ratio(u.1, g.median)))
            .chain([1.0]),
        false,
    );
    let mut chart = ChartBuilder::on(&root)
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(slots(groups.len()).into_segmented(), y)?;
    let as_numbers = numbered(groups);
    let name = |v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(i) if (*i as usize) < groups.len() => match as_numbers {
            true => format!("{}", i + 1),
            false => groups[*i as usize].label.clone(),
        },
        _ => String::new(),
    };
    draw_category_mesh(
        &mut chart,
        (x_label, "value / cluster median (ratio)"),
        groups.len(),
        &name,
    )?;
    let orange = colour(5);
    for (i, group) in groups.iter().enumerate() {
        let at = SegmentValue::CenterOf(i as i32);
        chart.draw_series(std::iter::once(
            EmptyElement::at((at.clone(), 1.0))
                + Rectangle::new([(-30, -1), (30, 1)], colour(4).filled())
                + Text::new(
                    format!("median {}", super::html::number(group.median)),
                    (-30, 4),
                    (FONT, 10).into_font(),
                ),
        ))?;
        for (name, value, outlier) in &group.units {
            let y = ratio(*value, group.median);
            let element = EmptyElement::at((at.clone(), y));
            if *outlier {
                chart.draw_series(std::iter::once(
                    element
                        + Cross::new((0, 0), 7, orange.stroke_width(3))
                        + Text::new(
                            format!("{name} (outlier)"),
                            (10, -6),
                            (FONT, 11).into_font(),
                        ),
                ))?;
            } else {
                chart.draw_series(std::iter::once(
                    element + Circle::new((0, 0), 3, colour(0).filled()),
                ))?;
            }
        }
    }
    root.present()?;
    Ok(())
}
