//! Bandwidth against threads, and parallel efficiency.

use crate::report::html::figure;
use crate::report::load::Dataset;
use crate::report::plot::{lines, Series};
use crate::report::sections::{curves, curves_table, memory_of, section};
use crate::report::Section;
use numabench_schema::benchmark;
use numabench_schema::params::{key, ScalingParams};

/// Bandwidth (GB/s) against threads, one curve per kernel and locality.
pub fn scaling_curves(data: &Dataset) -> Vec<Series> {
    curves(
        data.of(benchmark::SCALING)
            .filter(|r| r.metric.ends_with("_bandwidth")),
        key::THREADS,
        |r| {
            format!(
                "{} {}, {}",
                r.metric.trim_end_matches("_bandwidth"),
                r.params_or_default::<ScalingParams>()
                    .labels
                    .locality
                    .unwrap_or_default(),
                memory_of(r)
            )
        },
    )
}

/// Parallel efficiency of each curve: bw(n) / (n / n0 x bw(n0)), n0 the
/// first point's threads.
pub fn efficiency(series: &[Series]) -> Vec<Series> {
    series
        .iter()
        .filter_map(|s| {
            let &(n0, b0) = s.points.first()?;
            if n0 <= 0.0 || b0 <= 0.0 {
                return None;
            }
            Some(Series {
                label: s.label.clone(),
                points: s
                    .points
                    .iter()
                    .map(|&(n, b)| (n, b / (n / n0 * b0)))
                    .collect(),
            })
        })
        .collect()
}

pub fn build(data: &Dataset) -> Option<Section> {
    let series = scaling_curves(data);
    if series.is_empty() {
        return None;
    }
    let efficiency = efficiency(&series);
    let mut body = figure(
        &lines(&series, "threads", "bandwidth (GB/s)", false, &[]),
        "Best-repetition bandwidth as threads are added cores-first.",
        &curves_table(&series, "threads", "bandwidth (GB/s)"),
    );
    body.push_str(&figure(
        &lines(&efficiency, "threads", "parallel efficiency (ratio)", false, &[]),
        "Parallel efficiency: bandwidth over (threads / first point's threads x first point's bandwidth); 1 is perfect scaling.",
        &curves_table(&efficiency, "threads", "efficiency (ratio)"),
    ));
    Some(section("scaling", "Scaling", body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sections::tests::{lines, record};

    #[test]
    fn efficiency_is_bandwidth_over_linear_scaling() {
        let data = lines(&[
            record(
                "scaling",
                "read_bandwidth",
                10.0,
                "GB/s",
                r#"{"threads":1,"locality":"local","mem_node":0}"#,
            ),
            record(
                "scaling",
                "read_bandwidth",
                15.0,
                "GB/s",
                r#"{"threads":2,"locality":"local","mem_node":0}"#,
            ),
            record(
                "scaling",
                "read_bandwidth",
                20.0,
                "GB/s",
                r#"{"threads":4,"locality":"local","mem_node":0}"#,
            ),
        ]);
        let series = scaling_curves(&data);
        assert_eq!(
            series[0].points,
            vec![(1.0, 10.0), (2.0, 15.0), (4.0, 20.0)]
        );
        let efficiency = efficiency(&series);
        assert_eq!(
            efficiency[0].points,
            vec![(1.0, 1.0), (2.0, 0.75), (4.0, 0.5)]
        );
    }
}
