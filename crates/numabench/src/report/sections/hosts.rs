//! One row per host across `cluster`, `check` and the MPI monitor, so that
//! a slow rank can be traced to a slow node: what the cluster said of the
//! host, its health check's verdict, and its ranks' MPI share, TLP and
//! where their buffers were. Shown when the inputs hold at least two of
//! the three; a line names the rank that computed longest (the one the
//! others waited for) and whether its host was flagged.

use super::{section, Section};
use crate::output::ReadRecord;
use crate::report::html::{self, Table};
use crate::report::load::Dataset;
use numabench_schema::benchmark;
use numabench_schema::params::{
    BaselineProblemParams, CheckItemParams, ClusterLabels, ClusterOutlierParams,
    DifferingSettingParams, MonitorPopParams, MonitorRankParams, BUFFER_LOCAL_SHARE,
};
use std::collections::BTreeMap;

/// What one host's records say, source by source.
#[derive(Debug, Default)]
struct HostRow {
    /// Cluster records tagged with the host (it took part).
    cluster_seen: bool,
    /// The cluster's problems with it, in words (first few).
    cluster_flags: Vec<String>,
    /// Check metrics: (outside the baseline, measured).
    check: Option<(usize, usize)>,
    /// Per rank: (rank, MPI share, buffer local share).
    ranks: Vec<(i64, f64, Option<f64>)>,
    tlp_1: Option<f64>,
    parallel_efficiency: Option<f64>,
}

/// The host a record belongs to: its `params.host`, else its file's run
/// metadata host (`numabench check` records carry none of their own).
fn host_of(
    record: &ReadRecord,
    labels: &ClusterLabels,
    file_hosts: &BTreeMap<String, String>,
) -> Option<String> {
    labels
        .host
        .clone()
        .or_else(|| file_hosts.get(&record.file).cloned())
}

/// A cluster record's problem with its host, in words.
fn cluster_flag(record: &ReadRecord) -> Option<String> {
    match record.metric.as_str() {
        "outlier" => {
            let outlier = record.params_or_default::<ClusterOutlierParams>();
            let direction = outlier.direction.unwrap_or_default();
            outlier.key.map(|key| format!("{key} {direction}"))
        }
        "baseline_problem" => record.params_or_default::<BaselineProblemParams>().problem,
        "differing_setting" => record
            .params_or_default::<DifferingSettingParams>()
            .setting
            .map(|setting| format!("{setting} differs")),
        "failed" => Some("failed".to_string()),
        _ => None,
    }
}

/// The hosts' rows, by host name.
fn rows(data: &Dataset) -> BTreeMap<String, HostRow> {
    let mut job_efficiency = None;
    let file_hosts: BTreeMap<String, String> = data
        .metadata
        .iter()
        .map(|(file, metadata)| (file.clone(), metadata.host.clone()))
        .collect();
    let mut rows: BTreeMap<String, HostRow> = BTreeMap::new();
    for record in &data.records {
        let labels = record.params_or_default::<ClusterLabels>();
        let Some(host) = host_of(record, &labels, &file_hosts) else {
            continue;
        };
        match record.benchmark.as_str() {
            benchmark::CLUSTER => {
                let row = rows.entry(host).or_default();
                row.cluster_seen = true;
                row.cluster_flags.extend(cluster_flag(record));
            }
            benchmark::CHECK => {
                if let Some(outcome) = record.params_or_default::<CheckItemParams>().outcome {
                    let row = rows.entry(host).or_default();
                    let (outside, measured) = row.check.get_or_insert((0, 0));
                    *measured += 1;
                    if outcome.verdict != "ok" {
                        *outside += 1;
                    }
                }
            }
            benchmark::MPI_MONITOR => {
                let row = rows.entry(host).or_default();
                match record.metric.as_str() {
                    "mpi_share" => {
                        if let Some(rank) = record.params_or_default::<MonitorRankParams>().rank {
                            row.ranks.push((rank, record.value, None));
                        }
                    }
                    BUFFER_LOCAL_SHARE => {
                        let rank = record.params_or_default::<MonitorRankParams>().rank;
                        if let Some(entry) = row.ranks.iter_mut().find(|(r, ..)| Some(*r) == rank) {
                            entry.2 = Some(record.value);
                        }
                    }
                    "tlp_1" => row.tlp_1 = Some(record.value),
                    "parallel_efficiency"
                        if record
                            .params_or_default::<MonitorPopParams>()
                            .scope
                            .as_deref()
                            == Some("host") =>
                    {
                        row.parallel_efficiency = Some(record.value);
                    }
                    "parallel_efficiency" => job_efficiency = Some(record.value),
                    _ => {}
                }
            }
            _ => {}
        }
        // Other records tagged by a cluster run count as taking part.
        if labels.cluster_key.is_some() || labels.unit.is_some() {
            if let Some(host) = labels.host {
                rows.entry(host).or_default().cluster_seen = true;
            }
        }
    }
    // A job on one host has its efficiency for the job only: that host's.
    let mut with_ranks = rows.values_mut().filter(|row| !row.ranks.is_empty());
    if let (Some(row), None) = (with_ranks.next(), with_ranks.next()) {
        row.parallel_efficiency = row.parallel_efficiency.or(job_efficiency);
    }
    rows
}

/// The section summarises records the cluster, check and MPI monitor
/// sections table: it claims none of its own.
pub fn shows(_: &ReadRecord) -> bool {
    false
}

/// The "Hosts" section, when at least two of cluster, check and the MPI
/// monitor are in the inputs.
pub fn build(data: &Dataset) -> Option<Section> {
    let rows = rows(data);
    let sources = [
        rows.values().any(|row| row.cluster_seen),
        rows.values().any(|row| row.check.is_some()),
        rows.values().any(|row| !row.ranks.is_empty()),
    ];
    if sources.iter().filter(|&&present| present).count() < 2 {
        return None;
    }
    let percent = |value: f64| format!("{:.1}%", value * 100.0);
    let mut table = Table::new(&[
        "host",
        "cluster",
        "health check",
        "ranks",
        "MPI share (least .. most)",
        "TLP_1",
        "parallel efficiency",
        "buffers on the rank's node (least)",
    ]);
    for (host, row) in &rows {
        let cluster = match (row.cluster_seen, row.cluster_flags.as_slice()) {
            (false, _) => "-".to_string(),
            (true, []) => "ok".to_string(),
            (true, flags) => format!("flagged: {}", flags.join("; ")),
        };
        let check = match row.check {
            None => "-".to_string(),
            Some((0, measured)) => format!("healthy ({measured} metrics)"),
            Some((outside, measured)) => format!("{outside} of {measured} metrics outside"),
        };
        let shares: Vec<f64> = row.ranks.iter().map(|(_, share, _)| *share).collect();
        let share = if shares.is_empty() {
            "-".to_string()
        } else {
            let least = shares.iter().copied().fold(f64::INFINITY, f64::min);
            let most = shares.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            format!("{} .. {}", percent(least), percent(most))
        };
        let buffers = row
            .ranks
            .iter()
            .filter_map(|(_, _, local)| *local)
            .fold(None, |least: Option<f64>, share| {
                Some(least.map_or(share, |least| least.min(share)))
            });
        table.push(vec![
            host.clone(),
            cluster,
            check,
            if row.ranks.is_empty() {
                "-".to_string()
            } else {
                row.ranks.len().to_string()
            },
            share,
            row.tlp_1.map_or("-".to_string(), percent),
            row.parallel_efficiency.map_or("-".to_string(), percent),
            buffers.map_or("-".to_string(), percent),
        ]);
    }
    let mut body = String::from(
        "<p>Each host as the cluster run, its health check and the MPI monitor saw it (a dash: not in the inputs).</p>",
    );
    if let Some(line) = longest_rank(&rows) {
        body.push_str(&format!("<p>{}</p>", html::escape(&line)));
    }
    body.push_str(&table.to_html());
    Some(section(
        "hosts",
        "Hosts: cluster, health check and MPI monitor",
        body,
    ))
}

/// The rank with the least MPI share computed longest: every other rank
/// waited for it at its next communication. Says so, and whether its host
/// was flagged by the cluster or its health check.
fn longest_rank(rows: &BTreeMap<String, HostRow>) -> Option<String> {
    let (host, row, rank, share) = rows
        .iter()
        .flat_map(|(host, row)| {
            row.ranks
                .iter()
                .map(move |(rank, share, _)| (host, row, *rank, *share))
        })
        .min_by(|a, b| a.3.total_cmp(&b.3))?;
    let flagged =
        !row.cluster_flags.is_empty() || row.check.is_some_and(|(outside, _)| outside > 0);
    let verdict = if flagged {
        "a host the cluster run or its health check flagged: the job waits on that node"
    } else if row.cluster_seen || row.check.is_some() {
        "a host neither the cluster run nor its health check flagged"
    } else {
        "a host without cluster or health check records"
    };
    Some(format!(
        "Rank {rank} spent the least of its time in MPI ({:.1}%): the others waited for it. It ran on {host}, {verdict}.",
        share * 100.0
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(benchmark: &str, metric: &str, value: f64, params: &str) -> String {
        format!(
            r#"{{"type":"record","benchmark":"{benchmark}","metric":"{metric}","value":{value},"unit":"ratio","params":{params},"placement":{{"requested":{{}},"verified":null}},"stats":{{"n":1,"min":{value},"median":{value},"mean":{value},"max":{value},"stddev":0.0,"cv":0.0,"p90":{value},"p99":{value}}}}}"#
        )
    }

    fn metadata(host: &str) -> String {
        format!(
            r#"{{"type":"metadata","tool":"numabench","version":"0.1.0","schema_version":1,"command_line":["numabench"],"host":"{host}","kernel":"6.1","cpu_model":"cpu","topology":"","utc_time":"2026-11-28T00:00:00Z"}}"#
        )
    }

    /// A cluster run that flagged h1, h1's own health check failing one of
    /// three metrics, and a monitored job whose rank 1 (on h1) computed
    /// longest: one row per host, and the line tracing the slow rank to h1.
    #[test]
    fn a_slow_rank_is_traced_to_its_flagged_host() {
        let mut data = Dataset::default();
        let cluster = [
            metadata("h0"),
            record(
                "check",
                "triad_bandwidth",
                10.0,
                r#"{"host":"h0","unit":"h0","cluster_key":"node0.triad_bandwidth"}"#,
            ),
            record(
                "check",
                "triad_bandwidth",
                3.0,
                r#"{"host":"h1","unit":"h1","cluster_key":"node0.triad_bandwidth"}"#,
            ),
            record(
                "cluster",
                "outlier",
                0.3,
                r#"{"host":"h1","unit":"h1","key":"node0.triad_bandwidth","direction":"slower"}"#,
            ),
        ]
        .join("\n");
        data.load("cluster.jsonl", &cluster);
        let check = [
            metadata("h1"),
            record("check", "read_bandwidth", 9.0, r#"{"verdict":"ok"}"#),
            record("check", "triad_bandwidth", 3.0, r#"{"verdict":"fail"}"#),
            record("check", "latency", 90.0, r#"{"verdict":"ok"}"#),
        ]
        .join("\n");
        data.load("check.jsonl", &check);
        let monitor = [
            metadata("h0"),
            record("mpi-monitor", "mpi_share", 0.4, r#"{"host":"h0","rank":0}"#),
            record(
                "mpi-monitor",
                "mpi_share",
                0.05,
                r#"{"host":"h1","rank":1}"#,
            ),
            record(
                "mpi-monitor",
                "buffer_local_share",
                0.5,
                r#"{"host":"h1","rank":1}"#,
            ),
            record("mpi-monitor", "tlp_1", 0.9, r#"{"host":"h1","cores":1}"#),
        ]
        .join("\n");
        data.load("monitor.jsonl", &monitor);
        let section = build(&data).expect("three sources");
        let body = &section.body;
        assert!(
            body.contains("Rank 1 spent the least of its time in MPI (5.0%)"),
            "{body}"
        );
        assert!(
            body.contains("It ran on h1, a host the cluster run or its health check flagged"),
            "{body}"
        );
        assert!(
            body.contains("flagged: node0.triad_bandwidth slower"),
            "{body}"
        );
        assert!(body.contains("1 of 3 metrics outside"), "{body}");
        assert!(body.contains("50.0%"), "{body}");
        // One source alone: no section.
        let mut alone = Dataset::default();
        alone.load("monitor.jsonl", &monitor);
        assert!(build(&alone).is_none());
    }
}
