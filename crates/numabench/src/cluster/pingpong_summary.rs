//! Per-participant summaries of the MPI ping-pong pairs: a host with a
//! slow network (or a slow CPU answering) is slow with every partner, while
//! a healthy host has at least one fast partner as long as most hosts are
//! healthy. So each participant's best figure over its partners (lowest
//! latency, highest bandwidth) is what the outlier rule compares: it names
//! the slow host alone, where a median over partners would also drag down
//! the healthy hosts paired with it.

use super::report::single;
use super::tags;
use crate::output::{Placement, Record, Unit};
use serde_json::{json, Map, Value};

/// The `params` keys naming the two ends of a pair record.
pub const UNIT_A: &str = "unit_a";
pub const UNIT_B: &str = "unit_b";
pub const HOST_A: &str = "host_a";
pub const HOST_B: &str = "host_b";
pub const RANK_A: &str = "rank_a";
pub const RANK_B: &str = "rank_b";

/// For each end of the pair records `pairs` and each metric, one record
/// (benchmark `mpi-pingpong`, metric `<metric>_best_partner`): the best
/// of its pairs' figures (the lowest for times, the highest for rates),
/// tagged with that end's host, rank and unit, compared across units under
/// `pingpong <metric>`.
pub fn pingpong_summaries(pairs: &[Record]) -> Vec<Record> {
    // (metric, unit) → (host, rank), values, a pair record, in first-seen order.
    type Group = ((String, String), (Value, Value), Vec<f64>, Record);
    let mut groups: Vec<Group> = Vec::new();
    for pair in pairs {
        for (unit, host, rank) in [(UNIT_A, HOST_A, RANK_A), (UNIT_B, HOST_B, RANK_B)] {
            let (Some(unit), Some(host)) = (pair.params.get(unit), pair.params.get(host)) else {
                continue;
            };
            let Some(unit) = unit.as_str() else { continue };
            let rank = pair.params.get(rank).cloned().unwrap_or(Value::Null);
            let id = (pair.metric.clone(), unit.to_string());
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
            params.insert(tags::KEY.into(), json!(format!("pingpong {metric}")));
            params.insert("partners".into(), json!(values.len()));
            for copied in ["message_bytes", "round_trips"] {
                if let Some(value) = example.params.get(copied) {
                    params.insert(copied.into(), value.clone());
                }
            }
            Record {
                benchmark: "mpi-pingpong".into(),
                metric: format!("{metric}_best_partner"),
                value,
                unit: example.unit,
                params,
                placement: Placement::default(),
                stats: single(value),
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
            stats: single(value),
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
}
