//! The POP efficiencies of a monitored run, from its per-rank records:
//! what neither mpiP nor the monitor's raw figures say at a glance.
//!
//! Per rank, useful computation = `wall_time` - `mpi_time` (the time
//! outside blocking MPI calls). Then, as the POP Centre of Excellence
//! defines them: load balance = mean useful / max useful; communication
//! efficiency = max useful / runtime (the longest `wall_time`); parallel
//! efficiency = their product = mean useful / runtime. Once for the job
//! and once per host (its ranks only: a host whose ranks compute less of
//! their time than the others' waits on them, or they on it).

use crate::output::{Placement, Record, Unit};
use crate::stats::Summary;
pub use numabench_schema::params::POP_METRICS;
use numabench_schema::params::{to_labelled_params, MonitorPopParams, MonitorRankParams};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The three efficiencies of ranks with (useful, wall) seconds each;
/// `None` without ranks or with no time.
fn efficiencies(ranks: &[(f64, f64)]) -> Option<[f64; 3]> {
    if ranks.is_empty() {
        return None;
    }
    let mean = ranks.iter().map(|(useful, _)| useful).sum::<f64>() / ranks.len() as f64;
    let max_useful = ranks.iter().map(|(useful, _)| *useful).fold(0.0, f64::max);
    let runtime = ranks.iter().map(|(_, wall)| *wall).fold(0.0, f64::max);
    if max_useful <= 0.0 || runtime <= 0.0 {
        return None;
    }
    let load_balance = mean / max_useful;
    let communication = max_useful / runtime;
    Some([load_balance, communication, load_balance * communication])
}

/// The POP records of one run: `records` are that run's monitor records
/// (per-rank `wall_time` and `mpi_time`, each with `host` and `rank`);
/// `tags` (policy, repetition, command) are copied onto each. `params.scope`
/// is `job` or `host`, with `host` named for the latter; `params.ranks` how
/// many ranks it is over.
pub fn pop_records(records: &[Record], tags: &Map<String, Value>) -> Vec<Record> {
    // rank -> (host, wall, mpi)
    let mut ranks: BTreeMap<i64, (String, Option<f64>, Option<f64>)> = BTreeMap::new();
    for record in records {
        let params = record.params_or_default::<MonitorRankParams>();
        let Some(rank) = params.rank else {
            continue;
        };
        let entry = ranks
            .entry(rank)
            .or_insert_with(|| (params.host.unwrap_or_default(), None, None));
        match record.metric.as_str() {
            "wall_time" => entry.1 = Some(record.value),
            "mpi_time" => entry.2 = Some(record.value),
            _ => {}
        }
    }
    let complete: Vec<(&str, f64, f64)> = ranks
        .values()
        .filter_map(|(host, wall, mpi)| Some((host.as_str(), (*wall)? - (*mpi)?, (*wall)?)))
        .collect();
    let mut made = Vec::new();
    let mut emit = |scope: &str, host: Option<&str>, members: Vec<(f64, f64)>| {
        let Some(values) = efficiencies(&members) else {
            return;
        };
        for (metric, value) in POP_METRICS.iter().zip(values) {
            let pop = MonitorPopParams {
                scope: Some(scope.to_string()),
                host: host.map(str::to_string),
                ranks: Some(members.len() as u64),
            };
            let params = to_labelled_params(tags, &pop);
            made.push(Record {
                benchmark: super::BENCHMARK.into(),
                metric: (*metric).into(),
                value,
                unit: Unit::Ratio,
                params,
                placement: Placement::default(),
                stats: Summary::single(value),
            });
        }
    };
    emit(
        "job",
        None,
        complete
            .iter()
            .map(|(_, useful, wall)| (*useful, *wall))
            .collect(),
    );
    let mut hosts: Vec<&str> = complete.iter().map(|(host, ..)| *host).collect();
    hosts.sort();
    hosts.dedup();
    if hosts.len() > 1 {
        for host in hosts {
            emit(
                "host",
                Some(host),
                complete
                    .iter()
                    .filter(|(h, ..)| *h == host)
                    .map(|(_, useful, wall)| (*useful, *wall))
                    .collect(),
            );
        }
    }
    made
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rank(host: &str, rank: i64, wall: f64, mpi: f64) -> Vec<Record> {
        [("wall_time", wall), ("mpi_time", mpi)]
            .into_iter()
            .map(|(metric, value)| {
                let mut params = Map::new();
                params.insert("host".into(), json!(host));
                params.insert("rank".into(), json!(rank));
                Record {
                    benchmark: super::super::BENCHMARK.into(),
                    metric: metric.into(),
                    value,
                    unit: Unit::Seconds,
                    params,
                    placement: Placement::default(),
                    stats: Summary::single(value),
                }
            })
            .collect()
    }

    /// Two ranks computing 8 s and 4 s of 10 s: load balance 6/8, communication
    /// efficiency 8/10, parallel efficiency 0.6 (= mean useful / runtime).
    #[test]
    fn the_efficiencies_follow_pops_definitions() {
        let mut records = rank("a", 0, 10.0, 2.0);
        records.extend(rank("a", 1, 10.0, 6.0));
        let mut tags = Map::new();
        tags.insert("policy".into(), json!("as-is"));
        let made = pop_records(&records, &tags);
        assert_eq!(made.len(), 3, "one host: the job only");
        let value = |metric: &str| made.iter().find(|r| r.metric == metric).unwrap().value;
        assert!((value("load_balance") - 0.75).abs() < 1e-12);
        assert!((value("communication_efficiency") - 0.8).abs() < 1e-12);
        assert!((value("parallel_efficiency") - 0.6).abs() < 1e-12);
        assert!(made
            .iter()
            .all(|r| r.params["policy"] == "as-is" && r.params["scope"] == "job"));
    }

    /// With two hosts, each gets its own, over its ranks.
    #[test]
    fn each_host_gets_its_own_when_there_are_several() {
        let mut records = rank("a", 0, 10.0, 1.0);
        records.extend(rank("a", 1, 10.0, 1.0));
        records.extend(rank("b", 2, 10.0, 5.0));
        records.extend(rank("b", 3, 10.0, 7.0));
        let made = pop_records(&records, &Map::new());
        assert_eq!(made.len(), 9);
        let host_b: Vec<&Record> = made
            .iter()
            .filter(|r| r.params.get("host") == Some(&json!("b")))
            .collect();
        let load_balance = host_b.iter().find(|r| r.metric == "load_balance").unwrap();
        assert!((load_balance.value - 4.0 / 5.0).abs() < 1e-12);
        assert!(pop_records(&[], &Map::new()).is_empty());
    }
}
