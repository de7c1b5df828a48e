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

use crate::output::{Placement, Record, Unit};
use crate::stats::Summary;
use numabench_schema::benchmark;
use numabench_schema::params::{
    to_params, MessageParams, PingpongBestPartnerParams, PingpongPairParams, BEST_PARTNER_SUFFIX,
};

/// One end of a ping-pong pair.
#[cfg(any(feature = "mpi", test))]
pub struct PairEnd<'a> {
    pub unit: String,
    pub host: &'a str,
    pub rank: usize,
}

/// A pair record's params (before the measuring end's tags): its two
/// ends, whether they share a host, the message size and round trips, and
/// the rule that chose the pairs.
#[cfg(any(feature = "mpi", test))]
pub fn pair_params(
    [a, b]: [PairEnd; 2],
    bytes: usize,
    trips: usize,
    rule: &str,
) -> serde_json::Map<String, serde_json::Value> {
    to_params(&PingpongPairParams {
        unit_a: Some(a.unit),
        unit_b: Some(b.unit),
        host_a: Some(a.host.to_string()),
        host_b: Some(b.host.to_string()),
        rank_a: Some(a.rank as u64),
        rank_b: Some(b.rank as u64),
        same_host: Some(a.host == b.host),
        message: MessageParams {
            message_bytes: Some(bytes as u64),
            round_trips: Some(trips as u64),
        },
        pair_rule: Some(rule.to_string()),
        labels: numabench_schema::params::ClusterLabels::default(),
    })
}

/// For each end of the pair records `pairs` and each metric, one record
/// (benchmark `mpi-pingpong`, metric `<metric>_best_partner`): the best
/// of its pairs' figures with partners on OTHER hosts (the lowest for
/// times, the highest for rates), tagged with that end's host, rank and
/// unit, compared across units under `pingpong <metric>`; and likewise
/// over its partners on its own host, `same_host_<metric>_best_partner`
/// under `pingpong same-host <metric>`.
pub fn pingpong_summaries(pairs: &[Record]) -> Vec<Record> {
    // (metric, unit) → (host, rank), values, the pair's message, its unit,
    // in first-seen order; the metric is prefixed `same_host_` for pairs
    // on one host.
    type Group = (
        (String, String),
        (String, Option<u64>),
        Vec<f64>,
        MessageParams,
        Unit,
    );
    let mut groups: Vec<Group> = Vec::new();
    for pair in pairs {
        let params = pair.params_or_default::<PingpongPairParams>();
        let ends = [
            (&params.unit_a, &params.host_a, params.rank_a),
            (&params.unit_b, &params.host_b, params.rank_b),
        ];
        for (unit, host, rank) in ends {
            let (Some(unit), Some(host)) = (unit, host) else {
                continue;
            };
            let metric = if params.on_one_host() {
                format!("same_host_{}", pair.metric)
            } else {
                pair.metric.clone()
            };
            let id = (metric, unit.clone());
            match groups.iter_mut().find(|(key, ..)| *key == id) {
                Some((_, _, values, ..)) => values.push(pair.value),
                None => groups.push((
                    id,
                    (host.clone(), rank),
                    vec![pair.value],
                    params.message,
                    pair.unit,
                )),
            }
        }
    }
    groups
        .into_iter()
        .map(
            |((metric, unit), (host, rank), values, message, record_unit)| {
                let lower_is_better = matches!(
                    record_unit,
                    Unit::Nanoseconds | Unit::Cycles | Unit::Seconds
                );
                let value = if lower_is_better {
                    values.iter().copied().fold(f64::INFINITY, f64::min)
                } else {
                    values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                };
                let key = match metric.strip_prefix("same_host_") {
                    Some(base) => format!("pingpong same-host {base}"),
                    None => format!("pingpong {metric}"),
                };
                let params = PingpongBestPartnerParams {
                    host: Some(host),
                    rank,
                    unit: Some(unit),
                    part: Some("pingpong".into()),
                    cluster_key: Some(key),
                    same_host: Some(metric.starts_with("same_host_")),
                    partners: Some(values.len() as u64),
                    message,
                };
                Record {
                    benchmark: benchmark::MPI_PINGPONG.into(),
                    metric: format!("{metric}_{BEST_PARTNER_SUFFIX}"),
                    value,
                    unit: record_unit,
                    params: to_params(&params),
                    placement: Placement::default(),
                    stats: Summary::single(value),
                }
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(a: &str, b: &str, value: f64) -> Record {
        let params = to_params(&PingpongPairParams {
            unit_a: Some(a.into()),
            unit_b: Some(b.into()),
            host_a: Some(a.into()),
            host_b: Some(b.into()),
            rank_a: Some(0),
            rank_b: Some(1),
            ..PingpongPairParams::default()
        });
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
                record.params.extend(to_params(&PingpongPairParams {
                    host_a: Some(ends[a].1.into()),
                    host_b: Some(ends[b].1.into()),
                    ..PingpongPairParams::default()
                }));
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
