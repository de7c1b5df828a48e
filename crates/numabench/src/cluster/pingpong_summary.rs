//! Per-participant summaries of the MPI ping-pong pairs: a host with a
//! slow network (or a slow CPU answering) is slow with every partner, while
//! a healthy host has at least one fast partner as long as most hosts are
//! healthy. So each participant's best figure over its partners (lowest
//! latency, highest bandwidth) is what the outlier rule compares: it names
//! the slow host alone, where a median over partners would also drag down
//! the healthy hosts paired with it.
//!
//! Host-to-host figures come from pairs on different hosts only: with two
//! or more ranks per host (`--per rank`) a rank's best partner would be on
//! its own host, through shared memory, hiding a bad NIC and making a host
//! that holds one rank look slow. Pairs on one host are summarized apart,
//! as their own metric (`same_host_<metric>_best_partner`, compared under
//! `pingpong same-host <metric>`).

use super::tags;
use crate::output::{Placement, Record, Unit};
use crate::stats::Summary;
use numabench_schema::benchmark;
use serde_json::{json, Map, Value};

/// The `params` keys naming the two ends of a pair record.
pub const UNIT_A: &str = "unit_a";
pub const UNIT_B: &str = "unit_b";
pub const HOST_A: &str = "host_a";
pub const HOST_B: &str = "host_b";
pub const RANK_A: &str = "rank_a";
pub const RANK_B: &str = "rank_b";
/// True when both ends of a pair run on one host.
pub const SAME_HOST: &str = "same_host";

/// One end of a ping-pong pair.
pub struct PairEnd<'a> {
    pub unit: String,
    pub host: &'a str,
    pub rank: usize,
}

/// A pair record's params (before the measuring end's tags): its two
/// ends, whether they share a host, the message size and round trips, and
/// the rule that chose the pairs.
pub fn pair_params(
    [a, b]: [PairEnd; 2],
    bytes: usize,
    trips: usize,
    rule: &str,
) -> Map<String, Value> {
    let mut params = Map::new();
    params.insert(UNIT_A.into(), json!(a.unit));
    params.insert(UNIT_B.into(), json!(b.unit));
    params.insert(HOST_A.into(), json!(a.host));
    params.insert(HOST_B.into(), json!(b.host));
    params.insert(RANK_A.into(), json!(a.rank));
    params.insert(RANK_B.into(), json!(b.rank));
    params.insert(SAME_HOST.into(), json!(a.host == b.host));
    params.insert("message_bytes".into(), json!(bytes));
    params.insert("round_trips".into(), json!(trips));
    params.insert("pair_rule".into(), json!(rule));
    params
}

/// Whether a pair record's two ends share a host (its `same_host` param,
/// else its two host names compared).
fn same_host(pair: &Record) -> bool {
    match pair.params.get(SAME_HOST).and_then(Value::as_bool) {
        Some(same) => same,
        None => pair.params.get(HOST_A) == pair.params.get(HOST_B),
    }
}

/// For each end of the pair records `pairs` and each metric, one record
/// (benchmark `mpi-pingpong`, metric `<metric>_best_partner`): the best
/// of its pairs' figures with partners on OTHER hosts (the lowest for
/// times, the highest for rates), tagged with that end's host, rank and
/// unit, compared across units under `pingpong <metric>`; and likewise
/// over its partners on its own host, `same_host_<metric>_best_partner`
/// under `pingpong same-host <metric>`.
pub fn pingpong_summaries(pairs: &[Record]) -> Vec<Record> {
    // (metric, unit) → (host, rank), values, a pair record, in first-seen
    // order; the metric is prefixed `same_host_` for pairs on one host.
    type Group = ((String, String), (Value, Value), Vec<f64>, Record);
    let mut groups: Vec<Group> = Vec::new();
    for pair in pairs {
        for (unit, host, rank) in [(UNIT_A, HOST_A, RANK_A), (UNIT_B, HOST_B, RANK_B)] {
            let (Some(unit), Some(host)) = (pair.params.get(unit), pair.params.get(host)) else {
                continue;
            };
            let Some(unit) = unit.as_str() else { continue };
            let rank = pair.params.get(rank).cloned().unwrap_or(Value::Null);
            let metric = if same_host(pair) {
                format!("same_host_{}", pair.metric)
            } else {
                pair.metric.clone()
            };
            let id = (metric, unit.to_string());
            match groups.iter_mut().find(|(key, ..)| *key == id) {
                Some((_, _, values, _)) => values.push(pair.value),
                None => groups.push((id, (host.clone(), rank), vec![pair.value], pair.clone())),
            }
        }
    }
    groups
        .into_iter()
        .map(|((metric, unit), (host, rank), values, example)| {
            let lower_is_better = matches!(
                example.unit,
                Unit::Nanoseconds | Unit::Cycles | Unit::Seconds
            );
            let value = if lower_is_better {
                values.iter().copied().fold(f64::INFINITY, f64::min)
            } else {
                values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            };
            let mut params = Map::new();
            params.insert(tags::HOST.into(), host);
            params.insert(tags::RANK.into(), rank);
            params.insert(tags::UNIT.into(), json!(unit));
            params.insert(tags::PART.into(), json!("pingpong"));
            let key = match metric.strip_prefix("same_host_") {
                Some(base) => format!("pingpong same-host {base}"),
                None => format!("pingpong {metric}"),
            };
            params.insert(tags::KEY.into(), json!(key));
            params.insert(SAME_HOST.into(), json!(metric.starts_with("same_host_")));
            params.insert("partners".into(), json!(values.len()));
            for copied in ["message_bytes", "round_trips"] {
                if let Some(value) = example.params.get(copied) {
                    params.insert(copied.into(), value.clone());
                }
            }
            Record {
                benchmark: benchmark::MPI_PINGPONG.into(),
                metric: format!("{metric}_best_partner"),
                value,
                unit: example.unit,
                params,
                placement: Placement::default(),
                stats: Summary::single(value),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(a: &str, b: &str, value: f64) -> Record {
        let mut params = Map::new();
        params.insert(UNIT_A.into(), json!(a));
        params.insert(UNIT_B.into(), json!(b));
        params.insert(HOST_A.into(), json!(a));
        params.insert(HOST_B.into(), json!(b));
        params.insert(RANK_A.into(), json!(0));
        params.insert(RANK_B.into(), json!(1));
        Record {
            benchmark: "mpi-pingpong".into(),
            metric: "latency".into(),
            value,
            unit: Unit::Nanoseconds,
            params,
            placement: Placement::default(),
            stats: Summary::single(value),
        }
    }

    #[test]
    fn each_end_gets_its_best_pair_so_only_the_slow_host_stands_out() {
        // c is slow with everyone; a and b are fast together.
        let pairs = [
            pair("a", "b", 10.0),
            pair("a", "c", 5000.0),
            pair("b", "c", 5200.0),
        ];
        let summaries = pingpong_summaries(&pairs);
        assert_eq!(summaries.len(), 3);
        let of = |host: &str| {
            summaries
                .iter()
                .find(|r| r.params["host"] == host)
                .unwrap()
                .value
        };
        assert_eq!(of("a"), 10.0);
        assert_eq!(of("b"), 10.0);
        assert_eq!(of("c"), 5000.0);
        assert!(summaries
            .iter()
            .all(|r| r.params["cluster_key"] == "pingpong latency"));
        assert!(summaries.iter().all(|r| r.metric == "latency_best_partner"));
        let values: Vec<f64> = ["a", "b", "c"].iter().map(|h| of(h)).collect();
        let flagged = crate::cluster::OutlierRule::default().outliers(&values);
        assert_eq!(flagged.len(), 1);
        assert_eq!(flagged[0].index, 2);
        // Rates: the highest is the best.
        let mut fast = pair("a", "b", 3.0);
        fast.unit = Unit::GigabytesPerSecond;
        let mut slow = pair("a", "c", 0.5);
        slow.unit = Unit::GigabytesPerSecond;
        let rates = pingpong_summaries(&[fast, slow]);
        assert_eq!(
            rates
                .iter()
                .find(|r| r.params["host"] == "a")
                .unwrap()
                .value,
            3.0
        );
    }

    /// Issue 21, item 13: with two ranks on host h0 and one on h1 and h2,
    /// the h0 ranks' shared-memory pair (fast) must not be their host-to-host
    /// figure: `pingpong latency` takes pairs on different hosts only, and
    /// the same-host pair is its own metric. Before, h0's two ranks had a
    /// best partner of 1 µs and h1, h2 of 50 µs.
    #[test]
    fn host_to_host_figures_come_from_pairs_on_different_hosts_only() {
        let ends = [
            ("h0/rank 0", "h0"),
            ("h0/rank 1", "h0"),
            ("h1/rank 2", "h1"),
            ("h2/rank 3", "h2"),
        ];
        let mut pairs = Vec::new();
        for a in 0..ends.len() {
            for b in a + 1..ends.len() {
                let value = if ends[a].1 == ends[b].1 {
                    1000.0
                } else {
                    50_000.0 + (a + b) as f64
                };
                let mut record = pair(ends[a].0, ends[b].0, value);
                record.params.insert(HOST_A.into(), json!(ends[a].1));
                record.params.insert(HOST_B.into(), json!(ends[b].1));
                pairs.push(record);
            }
        }
        let summaries = pingpong_summaries(&pairs);
        let cross: Vec<&Record> = summaries
            .iter()
            .filter(|r| r.params["cluster_key"] == "pingpong latency")
            .collect();
        assert_eq!(cross.len(), 4);
        for record in &cross {
            assert_eq!(record.metric, "latency_best_partner");
            assert!(record.value >= 50_000.0, "{record:?}");
            assert_eq!(record.params["same_host"], false);
        }
        let of = |unit: &str| cross.iter().find(|r| r.params["unit"] == unit).unwrap();
        assert_eq!(of("h0/rank 0").params["partners"], 2);
        assert_eq!(of("h1/rank 2").params["partners"], 3);
        let same: Vec<&Record> = summaries
            .iter()
            .filter(|r| r.params["cluster_key"] == "pingpong same-host latency")
            .collect();
        assert_eq!(same.len(), 2, "{summaries:?}");
        assert!(same
            .iter()
            .all(|r| r.value == 1000.0 && r.metric == "same_host_latency_best_partner"));
        // The host holding one rank is not an outlier of the host-to-host figure.
        let values: Vec<f64> = cross.iter().map(|r| r.value).collect();
        assert!(crate::cluster::OutlierRule::default()
            .outliers(&values)
            .is_empty());
    }
}
