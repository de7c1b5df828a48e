//! The per-rank summary table of a monitored run, and TLP per host.

use crate::output::Record;
use crate::units::{format_percent, format_value};
use numabench_schema::params::{
    BenchmarkParams, MonitorBufferParams, MonitorCallParams, MonitorHostParams, MonitorPopParams,
    MonitorRankParams, BUFFER_LOCAL_SHARE, CALL_METRICS, TLP_PREFIX,
};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Whether `record` is one of `T`'s kind of monitor record, by metric.
fn is<T: BenchmarkParams>(record: &Record) -> bool {
    T::METRICS.claims(&record.metric) == Some(true)
}

/// One line on where the ranks' large MPI buffers were (their
/// `buffer_local_share` records): the share of sampled pages on the node of
/// the CPU the rank ran on, over every rank, and the rank with the least;
/// empty when no rank sampled a page.
fn buffer_line(ranks: &BTreeMap<i64, BTreeMap<&str, &Record>>) -> String {
    let mut local = 0;
    let mut answered = 0;
    let mut least: Option<(i64, f64)> = None;
    let mut min_bytes = None;
    for (rank, metrics) in ranks {
        let Some(record) = metrics.get(BUFFER_LOCAL_SHARE) else {
            continue;
        };
        let buffers = record.params_or_default::<MonitorBufferParams>();
        let (Some(here), Some(there)) = (buffers.pages_local, buffers.pages_remote) else {
            continue;
        };
        local += here;
        answered += here + there;
        min_bytes = min_bytes.or(buffers.min_buffer_bytes);
        if least.is_none_or(|(_, share)| record.value < share) {
            least = Some((*rank, record.value));
        }
    }
    let Some((rank, share)) = least else {
        return String::new();
    };
    format!(
        "MPI buffers >= {} B ({answered} pages sampled): {} on the rank's node; least: rank {rank} {}\n",
        min_bytes.map_or("-".to_string(), |bytes| bytes.to_string()),
        format_percent(local as f64 / answered as f64),
        format_percent(share),
    )
}

/// The most call types [`call_table`] lists.
pub const CALL_ROWS: usize = 10;

/// The job's MPI call types, longest total time first (the last run's, as
/// the rank rows), at most [`CALL_ROWS`]: calls, seconds over all ranks,
/// share of the job's MPI call time, the least and most seconds a rank
/// spent, and the bytes their arguments named; empty without `call_*`
/// records.
pub fn call_table(records: &[Record]) -> String {
    let mut calls: Vec<(String, BTreeMap<&str, &Record>)> = Vec::new();
    for record in records
        .iter()
        .filter(|record| record.benchmark == super::BENCHMARK && is::<MonitorCallParams>(record))
    {
        let call = record
            .params_or_default::<MonitorCallParams>()
            .call
            .unwrap_or_default();
        match calls.iter_mut().find(|(name, _)| *name == call) {
            Some((_, metrics)) => {
                metrics.insert(record.metric.as_str(), record);
            }
            None => calls.push((call, BTreeMap::from([(record.metric.as_str(), record)]))),
        }
    }
    if calls.is_empty() {
        return String::new();
    }
    let [call_time, call_count, call_bytes] = CALL_METRICS;
    let time = |metrics: &BTreeMap<&str, &Record>| metrics.get(call_time).map_or(0.0, |r| r.value);
    calls.sort_by(|a, b| time(&b.1).total_cmp(&time(&a.1)));
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{:<24} {:>10} {:>9} {:>6} {:>9} {:>9} {:>11}",
        "MPI call", "calls", "time s", "MPI", "rank min", "rank max", "bytes"
    );
    for (call, metrics) in calls.iter().take(CALL_ROWS) {
        let timed = metrics
            .get(call_time)
            .map(|record| record.params_or_default::<MonitorCallParams>())
            .unwrap_or_default();
        let value = |metric: &str| metrics.get(metric).map(|record| record.value);
        let _ = writeln!(
            text,
            "{call:<24} {:>10} {:>9} {:>6} {:>9} {:>9} {:>11}",
            value(call_count).map_or("-".to_string(), |v| format!("{v:.0}")),
            value(call_time).map_or("-".to_string(), format_value),
            timed.mpi_share.map_or("-".to_string(), format_percent),
            timed.rank_min.map_or("-".to_string(), format_value),
            timed.rank_max.map_or("-".to_string(), format_value),
            value(call_bytes).map_or("-".to_string(), |v| format!("{v:.0}")),
        );
    }
    if calls.len() > CALL_ROWS {
        let _ = writeln!(
            text,
            "... {} more call types in the records",
            calls.len() - CALL_ROWS
        );
    }
    text
}

/// One row per rank (wall time, MPI share, time per class, messages by
/// size class) and one per host (cores, TLP_1..TLP_4), from
/// `mpi-monitor` records; other records are ignored.
pub fn summary_table(records: &[Record]) -> String {
    let monitor = records
        .iter()
        .filter(|record| record.benchmark == super::BENCHMARK);
    let mut ranks: BTreeMap<i64, BTreeMap<&str, &Record>> = BTreeMap::new();
    let mut hosts: BTreeMap<String, BTreeMap<&str, &Record>> = BTreeMap::new();
    for record in monitor {
        if is::<MonitorHostParams>(record) {
            let host = record.params_or_default::<MonitorHostParams>().host;
            hosts
                .entry(host.unwrap_or_default())
                .or_default()
                .insert(record.metric.as_str(), record);
        } else if is::<MonitorCallParams>(record) {
            continue;
        } else if let Some(rank) = record.params_or_default::<MonitorRankParams>().rank {
            ranks
                .entry(rank)
                .or_default()
                .insert(record.metric.as_str(), record);
        }
    }
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{:>5}  {:<16} {:>9} {:>7} {:>9} {:>9} {:>9}  {:>18}",
        "rank", "host", "wall s", "MPI", "p2p s", "wait s", "coll s", "msgs small/med/lg"
    );
    for (rank, metrics) in &ranks {
        let value = |metric: &str| metrics.get(metric).map(|record| record.value);
        let seconds = |metric: &str| value(metric).map_or("-".to_string(), format_value);
        let count = |metric: &str| value(metric).map_or("-".to_string(), |v| format!("{v:.0}"));
        let host = metrics
            .values()
            .next()
            .and_then(|record| record.params_or_default::<MonitorRankParams>().host)
            .unwrap_or_default();
        let _ = writeln!(
            text,
            "{rank:>5}  {host:<16} {:>9} {:>7} {:>9} {:>9} {:>9}  {:>18}",
            seconds("wall_time"),
            value("mpi_share").map_or("-".to_string(), format_percent),
            seconds("p2p_time"),
            seconds("wait_time"),
            seconds("collective_time"),
            format!(
                "{}/{}/{}",
                count("small_messages"),
                count("medium_messages"),
                count("large_messages")
            ),
        );
    }
    for (host, metrics) in &hosts {
        let figures = metrics
            .values()
            .next()
            .map(|record| record.params_or_default::<MonitorHostParams>())
            .unwrap_or_default();
        let text_of = |count: Option<u64>| count.map_or(String::new(), |count| count.to_string());
        let (cores, ranks_on_host) = (text_of(figures.cores), text_of(figures.ranks_on_host));
        let tlp: Vec<String> = (1..=4)
            .map(|n| {
                let figure = metrics
                    .get(format!("{TLP_PREFIX}{n}").as_str())
                    .map_or("-".to_string(), |record| format_percent(record.value));
                format!("TLP_{n} {figure}")
            })
            .collect();
        let _ = writeln!(
            text,
            "host {host}: {ranks_on_host} rank(s) on {cores} core(s): {}",
            tlp.join(", ")
        );
    }
    text.push_str(&buffer_line(&ranks));
    if hosts.is_empty() && !ranks.is_empty() {
        text.push_str("no TLP figures: the monitor had no host table\n");
    }
    text.push_str(&call_table(records));
    // POP efficiencies, the job's and each host's (the last run's, as the rows).
    let mut pop: BTreeMap<String, BTreeMap<&str, f64>> = BTreeMap::new();
    for record in records.iter().filter(|record| {
        record.benchmark == super::BENCHMARK && super::POP_METRICS.contains(&record.metric.as_str())
    }) {
        let params = record.params_or_default::<MonitorPopParams>();
        let scope = match params.scope.as_deref() {
            Some("host") => format!("host {}", params.host.unwrap_or_default()),
            _ => "job".to_string(),
        };
        pop.entry(scope)
            .or_default()
            .insert(record.metric.as_str(), record.value);
    }
    for (scope, metrics) in &pop {
        let figure = |metric: &str| {
            metrics
                .get(metric)
                .map_or("-".to_string(), |v| format_percent(*v))
        };
        let _ = writeln!(
            text,
            "POP {scope}: load balance {}, communication efficiency {}, parallel efficiency {}",
            figure("load_balance"),
            figure("communication_efficiency"),
            figure("parallel_efficiency")
        );
    }
    text
}
