//! `numabench run`: every run's wall time per policy (or configuration),
//! speedups and p-values, scan speedup and efficiency.

use super::{curves_of, curves_table, observe, section, Section};
use crate::output::ReadRecord;
use crate::report::html::{self, figure, Table};
use crate::report::load::Dataset;
use crate::report::plot::{lines, range_key, ranges, Range3};
use numabench_schema::benchmark;
use numabench_schema::params::{
    RunParams, RunSummaryParams, ScanRatioParams, RUN_SUMMARY, RUN_WALL_TIME, SCAN_RATIOS,
};
use std::collections::BTreeMap;

/// The group a run belongs to: its configuration (scans) or policy.
pub fn group_of(r: &ReadRecord) -> String {
    let group = match r.metric.as_str() {
        RUN_SUMMARY => match r.params_or_default::<RunSummaryParams>() {
            RunSummaryParams::Scan(scan) => scan.labels.configuration.or(scan.labels.policy),
            RunSummaryParams::Policies(policies) => policies.policy,
        },
        _ => {
            let run = r.params_or_default::<RunParams>();
            run.configuration.or(run.policy)
        }
    };
    group.unwrap_or_else(|| "?".into())
}

/// Every run's wall time, grouped, with min/median/max.
pub fn run_strips(data: &Dataset) -> Vec<Range3> {
    let mut groups: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for r in data
        .of(benchmark::RUN)
        .filter(|r| r.metric == RUN_WALL_TIME)
    {
        groups.entry(group_of(r)).or_default().push(r.value);
    }
    groups
        .into_iter()
        .map(|(label, mut points)| {
            points.sort_by(f64::total_cmp);
            let n = points.len();
            let median = if n % 2 == 1 {
                points[n / 2]
            } else {
                (points[n / 2 - 1] + points[n / 2]) / 2.0
            };
            Range3 {
                label,
                min: points[0],
                median,
                max: points[n - 1],
                points,
            }
        })
        .collect()
}

pub fn build(data: &Dataset) -> Option<Section> {
    data.of(benchmark::RUN).next()?;
    let mut body = String::new();
    let strips = run_strips(data);
    if !strips.is_empty() {
        let mut table = Table::new(&["policy / configuration", "wall time (s)"]);
        for s in &strips {
            for p in &s.points {
                table.push(vec![s.label.clone(), crate::report::html::number(*p)]);
            }
        }
        body.push_str(&figure(
            &ranges(&strips, "wall time (s)", "policy / configuration"),
            &format!(
                "Every run's wall time (dots), with min, median and max labelled.{}",
                range_key(&strips)
                    .map(|k| format!(" Groups: {k}."))
                    .unwrap_or_default()
            ),
            &table,
        ));
    }
    let summaries: Vec<&ReadRecord> = data
        .of(benchmark::RUN)
        .filter(|r| r.metric == RUN_SUMMARY)
        .collect();
    if !summaries.is_empty() {
        let mut table = Table::new(&[
            "policy / configuration",
            "median (s)",
            "speedup",
            "p-value",
            "Holm p",
            "significant",
            "failures",
        ]);
        let number_or_dash = |figure: Option<f64>| figure.map_or_else(|| "-".into(), html::number);
        for r in summaries {
            let params = r.params_or_default::<RunSummaryParams>();
            let comparison = params.comparison();
            table.push(vec![
                group_of(r),
                html::number(r.value),
                number_or_dash(comparison.speedup),
                number_or_dash(comparison.p_value),
                number_or_dash(comparison.p_value_holm),
                comparison
                    .significant
                    .map_or_else(|| "-".into(), |significant| significant.to_string()),
                params
                    .failures()
                    .map_or_else(|| "-".into(), |failures| failures.to_string()),
            ]);
        }
        body.push_str("<h3>Speedups against the baseline (two-sided Mann-Whitney U; Holm p: adjusted for every policy compared, significant where below 0.05)</h3>");
        body.push_str(&table.to_html());
    }
    for metric in SCAN_RATIOS {
        let series = curves_of(
            data.of(benchmark::RUN).filter(|r| r.metric == metric),
            |r| Some((r.params_or_default::<ScanRatioParams>().workers?, r.value)),
            |r| {
                let labels = r.params_or_default::<ScanRatioParams>().labels;
                labels.policy.unwrap_or_else(|| "?".into())
            },
        );
        if !series.is_empty() {
            body.push_str(&figure(
                &lines(
                    &series,
                    "workers (scan value)",
                    &format!("{metric} (ratio)"),
                    false,
                    &[],
                ),
                &format!("{metric} of the parameter scan against the worker count."),
                &curves_table(&series, "workers", metric),
            ));
        }
    }
    // The first observed run of each policy or configuration.
    let mut shown: Vec<String> = Vec::new();
    for r in data
        .of(benchmark::RUN)
        .filter(|r| r.metric == RUN_WALL_TIME)
        .filter(|r| r.params_or_default::<RunParams>().observation.is_some())
    {
        let group = group_of(r);
        if shown.contains(&group) {
            continue;
        }
        shown.push(group.clone());
        let repetition = r.params_or_default::<RunParams>().repetition;
        let run = format!(
            "{group}, repetition {}",
            repetition
                .map(|repetition| repetition.to_string())
                .unwrap_or_default()
        );
        body.push_str(&format!("<h3>Observed: {}</h3>", html::escape(&run)));
        let memory = observe::memory_series(r);
        if !memory.is_empty() {
            body.push_str(&figure(
                &lines(
                    &memory,
                    "time since start (s)",
                    "resident anonymous memory (MiB)",
                    false,
                    &[],
                ),
                &format!(
                    "Resident anonymous memory per node over time ({run}; numa_maps samples)."
                ),
                &curves_table(&memory, "t (s)", "MiB"),
            ));
        }
        let threads = observe::thread_series(r);
        if !threads.is_empty() {
            body.push_str(&figure(
                &lines(
                    &threads,
                    "time since start (s)",
                    "CPU the thread last ran on",
                    false,
                    &[],
                ),
                &format!(
                    "Thread-to-CPU timeline ({run}): a step is a migration seen between samples."
                ),
                &curves_table(&threads, "t (s)", "CPU"),
            ));
        }
    }
    if !shown.is_empty() {
        body.push_str("<p>Later repetitions' observations stay in the records.</p>");
    }
    Some(section("run", "Program runs (numabench run)", body))
}
