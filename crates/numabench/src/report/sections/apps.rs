//! Application runs (stream, cg, mg, placement-study): per-iteration times
//! of the median run (first-iteration cost visible), run-to-run variability
//! per configuration (every run as a dot, min/median/max labelled) and the
//! study's verdict.

use super::{records_table, section, Section};
use crate::output::ReadRecord;
use crate::report::html::{self, figure, Table};
use crate::report::load::Dataset;
use crate::report::plot::{lines, range_key, ranges, Range3, Series};
use numabench_schema::benchmark;
use numabench_schema::params::{key, AppParams};

/// An app record's params, read leniently: every app record (a run's, a
/// scaling ratio's, a verdict's) names its configuration with the same keys.
fn app_params(r: &ReadRecord) -> AppParams {
    r.params_or_default()
}

/// A configuration's label: placement + thread scheme (x threads per CPU).
pub fn configuration(r: &ReadRecord) -> String {
    let configuration = app_params(r).run.configuration;
    let per_cpu = configuration
        .threads
        .threads_per_cpu
        .filter(|k| *k > 1)
        .map(|k| format!(" x{k}/cpu"))
        .unwrap_or_default();
    format!(
        "{} + {}{per_cpu}",
        configuration.scheme.placement.as_deref().unwrap_or("?"),
        configuration.threads_placement.as_deref().unwrap_or("?")
    )
}

/// Per-iteration time lines of one kernel's `time` records (iteration 1..N).
pub fn iteration_series(data: &Dataset, kernel: &str) -> Vec<Series> {
    data.of(kernel)
        .filter(|r| r.metric == "time")
        .filter_map(|r| {
            let times = app_params(r).run.iteration_seconds?;
            Some(Series {
                label: configuration(r),
                points: times
                    .into_iter()
                    .enumerate()
                    .map(|(i, t)| ((i + 1) as f64, t))
                    .collect(),
            })
        })
        .collect()
}

/// Every repetition's run time of a `time` record (`params.run_seconds`;
/// empty for records written before it existed).
pub fn run_seconds(r: &ReadRecord) -> Vec<f64> {
    app_params(r).run.run_seconds.unwrap_or_default()
}

/// Run-time spread of each configuration, from its `time` record's stats,
/// with every repetition as a point when the record lists them.
pub fn variability(data: &Dataset, kernel: &str) -> Vec<Range3> {
    data.of(kernel)
        .filter(|r| r.metric == "time")
        .filter_map(|r| {
            Some(Range3 {
                label: configuration(r),
                min: r.stat("min")?,
                median: r.stat("median")?,
                max: r.stat("max")?,
                points: run_seconds(r),
            })
        })
        .collect()
}

pub fn build(data: &Dataset) -> Option<Section> {
    let mut body = String::new();
    for kernel in benchmark::APP_KERNELS {
        if data.of(kernel).next().is_none() {
            continue;
        }
        body.push_str(&format!("<h3>{kernel}</h3>"));
        let series = iteration_series(data, kernel);
        if !series.is_empty() {
            body.push_str(&figure(
                &lines(&series, "iteration", "iteration time (s)", false, &[]),
                "Time of each iteration of the median run, per configuration: the first iteration carries the placement and migration cost.",
                &super::curves_table(&series, "iteration", "time (s)"),
            ));
        }
        let spread = variability(data, kernel);
        if !spread.is_empty() {
            let mut table = Table::new(&[
                "configuration",
                "runs",
                "min (s)",
                "median (s)",
                "max (s)",
                "cv",
                "every run (s)",
            ]);
            for r in data.of(kernel).filter(|r| r.metric == "time") {
                let stat = |k| r.stat(k).map(html::number).unwrap_or_default();
                table.push(vec![
                    configuration(r),
                    stat("n"),
                    stat("min"),
                    stat("median"),
                    stat("max"),
                    stat("cv"),
                    run_seconds(r)
                        .into_iter()
                        .map(html::number)
                        .collect::<Vec<_>>()
                        .join(" "),
                ]);
            }
            let each_run = if spread.iter().all(|g| !g.points.is_empty()) {
                "every run is a dot"
            } else if spread.iter().any(|g| !g.points.is_empty()) {
                "every run is a dot where the records list the runs"
            } else {
                "the records keep these statistics, not each run"
            };
            body.push_str(&figure(
                &ranges(&spread, "run time (s)", "placement + thread scheme"),
                &format!(
                    "Run-to-run variability: min, median and max run time over each configuration's runs ({each_run}).{}",
                    range_key(&spread).map(|k| format!(" Configurations: {k}.")).unwrap_or_default()
                ),
                &table,
            ));
        }
        let verdict: Vec<&ReadRecord> = data
            .of(kernel)
            .filter(|r| r.metric == "best_median_time")
            .collect();
        if !verdict.is_empty() {
            body.push_str("<h4>Verdict</h4>");
            body.push_str(
                &records_table(
                    verdict.into_iter(),
                    &[
                        "configuration",
                        "placement",
                        "threads_placement",
                        key::THREADS,
                        "significantly_fastest",
                        "p_value",
                    ],
                )
                .to_html(),
            );
        }
        let rest: Vec<&ReadRecord> = data
            .of(kernel)
            .filter(|r| r.metric != "time" && r.metric != "best_median_time")
            .collect();
        let mut summary = Table::new(&["configuration", "metric", "value", "unit", "file"]);
        for r in rest {
            summary.push(vec![
                configuration(r),
                r.metric.clone(),
                html::number(r.value),
                r.unit.as_str().to_string(),
                r.file.clone(),
            ]);
        }
        body.push_str(&format!(
            "<details><summary>other figures ({} rows)</summary>{}</details>",
            summary.rows.len(),
            summary.to_html()
        ));
    }
    if body.is_empty() {
        return None;
    }
    Some(section("apps", "Application runs", body))
}
