//! Results of the over-decomposition and MPI monitor commands: the
//! over-decomposition K sweep as curves, and tables.

use super::{curves, curves_table, records_table, section, Section};
use crate::output::ReadRecord;
use crate::report::html::{self, figure};
use crate::report::load::Dataset;
use crate::report::plot::{lines, Series};
use numabench_schema::benchmark;
use numabench_schema::params::OverdecomposeParams;

/// The records of `benchmarks` that `keep` accepts, `keys` as columns.
fn table_of(
    data: &Dataset,
    benchmarks: &[&str],
    keys: &[&str],
    keep: impl Fn(&ReadRecord) -> bool,
) -> Option<String> {
    let rows: Vec<&ReadRecord> = data
        .records
        .iter()
        .filter(|r| benchmarks.contains(&r.benchmark.as_str()) && keep(r))
        .collect();
    if rows.is_empty() {
        None
    } else {
        Some(records_table(rows.into_iter(), keys).to_html())
    }
}

/// The over-decomposition table's columns: the sweep's coordinates.
const OVERDECOMPOSE_KEYS: &[&str] = &[
    "phase",
    "ranks_per_core",
    "cores",
    "ranks",
    "target_comm_share",
    "predicted_comm_share",
    "verified",
];

/// The MPI monitor tables' columns: where each rank ran.
const MONITOR_KEYS: &[&str] = &["host", "rank", "local_rank", "ranks", "program"];

/// The K sweep's curves of one metric: (K, median) per target share (and
/// per metric when several are asked, as for the TLP figures).
pub fn sweep_curves(data: &Dataset, metrics: &[&str]) -> Vec<Series> {
    curves(
        data.of(benchmark::OVERDECOMPOSE)
            .filter(|r| metrics.contains(&r.metric.as_str())),
        "ranks_per_core",
        |r| {
            let share = r
                .params_or_default::<OverdecomposeParams>()
                .point
                .target_comm_share
                .map(|s| format!("target share {}%", html::number(100.0 * s)))
                .unwrap_or_else(|| "target share ?".into());
            match metrics.len() {
                1 => share,
                _ => format!("{}, {share}", r.metric),
            }
        },
    )
}

/// The over-decomposition sweep against K per target share: time, speedup
/// and TLP_1..4, and every record.
pub fn overdecompose(data: &Dataset) -> Option<Section> {
    let all = table_of(
        data,
        &[benchmark::OVERDECOMPOSE],
        OVERDECOMPOSE_KEYS,
        |_| true,
    )?;
    let mut body = String::new();
    let plots: [(&[&str], &str, &str); 3] = [
        (
            &["time"],
            "time of the iterations (s, median over runs)",
            "Over-decomposition: the slowest rank's time for the iterations against K ranks per core, per target communication share.",
        ),
        (
            &["speedup"],
            "speedup over K = 1 (ratio)",
            "Over-decomposition: speedup of K ranks per core against one, per target communication share.",
        ),
        (
            &["tlp_1", "tlp_2", "tlp_3", "tlp_4"],
            "TLP (ratio of the host's wall time)",
            "Thread-level parallelism from the MPI monitor: tlp_N is the share of the time at least N ranks per core were outside blocking MPI calls, against K.",
        ),
    ];
    for (metrics, y_label, caption) in plots {
        let series = sweep_curves(data, metrics);
        if !series.is_empty() {
            body.push_str(&figure(
                &lines(&series, "ranks per core (K)", y_label, false, &[]),
                caption,
                &curves_table(&series, "K", y_label),
            ));
        }
    }
    body.push_str(&format!(
        "<details><summary>every over-decomposition record</summary>{all}</details>"
    ));
    Some(section("overdecompose", "Over-decomposition", body))
}

/// MPI monitor: per-host TLP records, then per-rank records.
pub fn mpi_monitor(data: &Dataset) -> Option<Section> {
    let mut body = String::new();
    if let Some(hosts) = table_of(data, &[benchmark::MPI_MONITOR], MONITOR_KEYS, |r| {
        r.metric.starts_with("tlp_")
    }) {
        body.push_str("<h3>Per host: TLP</h3>");
        body.push_str(&hosts);
    }
    let pop = |r: &ReadRecord| crate::mpi_monitor::POP_METRICS.contains(&r.metric.as_str());
    let pop_keys = &["scope", "host", "ranks", "policy", "repetition"];
    if let Some(efficiencies) = table_of(data, &[benchmark::MPI_MONITOR], pop_keys, pop) {
        body.push_str("<h3>POP efficiencies (job, and per host)</h3>");
        body.push_str(&efficiencies);
    }
    if let Some(ranks) = table_of(data, &[benchmark::MPI_MONITOR], MONITOR_KEYS, |r| {
        !r.metric.starts_with("tlp_") && !pop(r)
    }) {
        body.push_str("<h3>Per rank</h3>");
        body.push_str(&ranks);
    }
    if body.is_empty() {
        return None;
    }
    Some(section("mpi-monitor", "MPI monitor", body))
}

/// The node health check's table columns: the metric, its reference and
/// bounds, the verdict and every attempt.
const CHECK_KEYS: &[&str] = &[
    "check",
    "reference",
    "tolerance",
    "ratio",
    "verdict",
    "attempts",
];

/// `numabench check`: each metric against its baseline, then how the node
/// differs from its baseline's fingerprint.
pub fn check(data: &Dataset) -> Option<Section> {
    let metrics = table_of(data, &[benchmark::CHECK], CHECK_KEYS, |r| {
        r.metric != "node_type_differences"
    });
    let differences = table_of(data, &[benchmark::CHECK], &["differences"], |r| {
        r.metric == "node_type_differences"
    });
    if metrics.is_none() && differences.is_none() {
        return None;
    }
    let mut body = String::new();
    if let Some(metrics) = metrics {
        body.push_str("<h3>Each metric against its baseline</h3>");
        body.push_str(&metrics);
    }
    if let Some(differences) = differences {
        body.push_str("<h3>How the node differs from its baseline's fingerprint</h3>");
        body.push_str(&differences);
    }
    Some(section("check", "Node health check", body))
}
