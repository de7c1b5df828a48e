//! Results of the cluster, over-decomposition and MPI monitor commands as
//! tables (and the over-decomposition K sweep as curves).

use super::{curves, curves_table, records_table, section, Section};
use crate::report::html::figure;
use crate::report::load::{Dataset, Rec};
use crate::report::plot::lines;

fn table_of(data: &Dataset, benchmarks: &[&str], keep: impl Fn(&Rec) -> bool) -> Option<String> {
    let rows: Vec<&Rec> = data
        .records
        .iter()
        .filter(|r| benchmarks.contains(&r.benchmark.as_str()) && keep(r))
        .collect();
    if rows.is_empty() {
        None
    } else {
        Some(records_table(rows.into_iter()).to_html())
    }
}

/// Cluster verdicts, outliers, differing settings and failed hosts first,
/// then every measured record.
pub fn cluster(data: &Dataset) -> Option<Section> {
    let all = table_of(data, &["cluster", "cluster-topo", "mpi-pingpong"], |_| true)?;
    let mut body = String::new();
    if let Some(findings) = table_of(data, &["cluster"], |_| true) {
        body.push_str("<h3>Verdict, outliers, differing settings, failures</h3>");
        body.push_str(&findings);
    }
    body.push_str(&format!(
        "<details><summary>every cluster record</summary>{all}</details>"
    ));
    Some(section("cluster", "Cluster", body))
}

/// The over-decomposition sweep: speedup against K per target share, and
/// every record.
pub fn overdecompose(data: &Dataset) -> Option<Section> {
    let all = table_of(data, &["overdecompose"], |_| true)?;
    let series = curves(
        data.of("overdecompose").filter(|r| r.metric == "speedup"),
        "ranks_per_core",
        |r| {
            format!(
                "target share {}",
                r.text("target_comm_share").unwrap_or_default()
            )
        },
    );
    let mut body = String::new();
    if !series.is_empty() {
        body.push_str(&figure(
            &lines(&series, "ranks per core (K)", "speedup over K = 1 (ratio)", false, &[]),
            "Over-decomposition: speedup of K ranks per core against one, per target communication share.",
            &curves_table(&series, "K", "speedup"),
        ));
    }
    body.push_str(&all);
    Some(section("overdecompose", "Over-decomposition", body))
}

/// MPI monitor: per-host TLP records, then per-rank records.
pub fn mpi_monitor(data: &Dataset) -> Option<Section> {
    let mut body = String::new();
    if let Some(hosts) = table_of(data, &["mpi-monitor"], |r| r.metric.starts_with("tlp_")) {
        body.push_str("<h3>Per host: TLP</h3>");
        body.push_str(&hosts);
    }
    if let Some(ranks) = table_of(data, &["mpi-monitor"], |r| !r.metric.starts_with("tlp_")) {
        body.push_str("<h3>Per rank</h3>");
        body.push_str(&ranks);
    }
    if body.is_empty() {
        return None;
    }
    Some(section("mpi-monitor", "MPI monitor", body))
}
