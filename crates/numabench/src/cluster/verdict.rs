//! Rank 0's verdict over every host's records: outliers per metric,
//! settings that differ from the majority, hosts that failed, as records
//! (benchmark `cluster`, see docs/results.md) and as a table.

use super::outlier::{Deviation, OutlierRule, MIN_UNITS};
use super::settings::{differing, Difference};
use super::tags;
use crate::output::{Placement, Record, Unit};
use crate::stats::Summary;
use numabench_schema::benchmark;
use numabench_schema::params::{
    to_params, ClusterFailureParams, ClusterOutlierParams, ClusterTopoParams, ClusterVerdictParams,
    HostRankParams, RuleParams,
};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A unit whose figure of one metric is an outlier.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutlierFinding {
    pub unit: String,
    pub host: String,
    /// The compared metric (`params.cluster_key`).
    pub key: String,
    pub record_unit: Unit,
    /// `slower` or `faster` for times and rates, `above`/`below` else.
    pub direction: &'static str,
    /// What tells this record from the unit's other records of the same
    /// key (`params.cluster_target`, e.g. the memory node of a remote
    /// latency with `--per numa`); `None` when the unit has one.
    pub target: Option<String>,
    #[serde(flatten)]
    pub deviation: Deviation,
    /// How many units the median is over.
    pub units: usize,
}

impl OutlierFinding {
    /// Its record's params, with the rule's thresholds.
    fn params(&self, rule: RuleParams) -> ClusterOutlierParams {
        let deviation = &self.deviation;
        ClusterOutlierParams {
            unit: Some(self.unit.clone()),
            host: Some(self.host.clone()),
            key: Some(self.key.clone()),
            record_unit: Some(self.record_unit.as_str().to_string()),
            direction: Some(self.direction.to_string()),
            target: self.target.clone(),
            value: Some(deviation.value),
            median: Some(deviation.median),
            others_median: Some(deviation.others_median),
            others_mad: Some(deviation.others_mad),
            robust_z: deviation.robust_z,
            relative: deviation.relative,
            units: Some(self.units as u64),
            rule,
        }
    }
}

/// A host (and rank) that did not deliver a part, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failure {
    pub host: String,
    pub rank: i32,
    /// The part that failed; `None` when the rank stopped answering.
    pub part: Option<String>,
    pub error: String,
}

impl Failure {
    /// Its record's params.
    fn params(&self) -> ClusterFailureParams {
        ClusterFailureParams {
            who: HostRankParams {
                host: Some(self.host.clone()),
                rank: Some(i64::from(self.rank)),
            },
            part: self.part.clone(),
            error: Some(self.error.clone()),
        }
    }
}

/// Everything rank 0 concludes.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ClusterVerdict {
    pub outliers: Vec<OutlierFinding>,
    pub differences: Vec<Difference>,
    pub failures: Vec<Failure>,
    /// Ranks that measured nothing (`--per node|numa`: not their host's
    /// first rank), as `host (rank R)`.
    pub idle: Vec<String>,
    /// Compared units and hosts seen.
    pub units: usize,
    pub hosts: usize,
    /// Why part of the verdict could not be reached (e.g. too few units).
    pub notes: Vec<String>,
    /// Units measured again before the verdict, with the parts (`host
    /// (check, stream)`): the verdict took each one's better attempt.
    pub retested: Vec<String>,
    /// With `--baseline`: every host's check outside its node type's
    /// entry, or of a type it has none for.
    pub baseline: Vec<super::check_part::BaselineFinding>,
}

/// Which way a unit deviates, for a metric in `unit`.
fn direction(unit: Unit, above: bool) -> &'static str {
    match (unit, above) {
        (Unit::Nanoseconds | Unit::Cycles | Unit::Seconds, true) => "slower",
        (Unit::Nanoseconds | Unit::Cycles | Unit::Seconds, false) => "faster",
        (Unit::GigabytesPerSecond | Unit::MegaOpsPerSecond, true) => "faster",
        (Unit::GigabytesPerSecond | Unit::MegaOpsPerSecond, false) => "slower",
        (_, true) => "above",
        (_, false) => "below",
    }
}

/// The better of two attempts at a figure in `unit`: the higher rate, the
/// shorter time; for other units the later one.
fn better(unit: Unit, earlier: f64, later: f64) -> f64 {
    if !earlier.is_finite() {
        return later;
    }
    if !later.is_finite() {
        return earlier;
    }
    match unit {
        Unit::GigabytesPerSecond | Unit::MegaOpsPerSecond => earlier.max(later),
        Unit::Nanoseconds | Unit::Cycles | Unit::Seconds => earlier.min(later),
        _ => later,
    }
}

/// One compared record, as `analyze` keeps it.
struct Entry {
    unit: String,
    host: String,
    value: f64,
    record_unit: Unit,
    target: Option<String>,
}

/// Compares the records of every unit: `records` are all the tagged
/// records rank 0 received (its own included).
pub fn analyze(
    records: &[Record],
    failures: Vec<Failure>,
    idle: Vec<String>,
    rule: &OutlierRule,
) -> ClusterVerdict {
    let mut verdict = ClusterVerdict {
        failures,
        idle,
        ..ClusterVerdict::default()
    };
    // Metric → every record's (unit, host, value, record unit, target):
    // all records of a unit are compared (`--per numa` has one per target
    // at a distance), each against the other units' records.
    let mut by_key: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
    // (key, unit, target) → its entry's index in `by_key[key]`.
    let mut seen: std::collections::HashMap<(String, String, Option<String>), usize> =
        std::collections::HashMap::new();
    let mut units: Vec<String> = Vec::new();
    let mut hosts: Vec<String> = Vec::new();
    let mut settings: Vec<(String, Map<String, Value>)> = Vec::new();
    for record in records {
        let labels = tags::labels(record);
        let Some(host) = labels.host else {
            continue;
        };
        if !hosts.contains(&host) {
            hosts.push(host.clone());
        }
        let unit = labels.unit.unwrap_or_else(|| host.clone());
        if record.benchmark == benchmark::CLUSTER_TOPO {
            let topo = record.params_or_default::<ClusterTopoParams>();
            if let Some(host_settings) = topo.settings {
                if !settings.iter().any(|(name, _)| *name == host) {
                    settings.push((host.clone(), to_params(&host_settings)));
                }
            }
        }
        let Some(key) = labels.cluster_key else {
            continue;
        };
        if !units.contains(&unit) {
            units.push(unit.clone());
        }
        let target = labels.cluster_target;
        let entries = by_key.entry(key.clone()).or_default();
        // A retest of the same unit and target: the better attempt counts.
        let place = (key, unit.clone(), target.clone());
        if let Some(&index) = seen.get(&place) {
            let earlier: &mut Entry = &mut entries[index];
            earlier.value = better(record.unit, earlier.value, record.value);
            continue;
        }
        seen.insert(place, entries.len());
        entries.push(Entry {
            unit,
            host,
            value: record.value,
            record_unit: record.unit,
            target,
        });
    }
    verdict.units = units.len();
    verdict.hosts = hosts.len();
    for (key, entries) in &by_key {
        let values: Vec<f64> = entries.iter().map(|entry| entry.value).collect();
        let mut names: Vec<&str> = Vec::new();
        let unit_index: Vec<usize> = entries
            .iter()
            .map(|entry| match names.iter().position(|n| *n == entry.unit) {
                Some(index) => index,
                None => {
                    names.push(&entry.unit);
                    names.len() - 1
                }
            })
            .collect();
        if names.len() < MIN_UNITS {
            verdict.notes.push(format!(
                "{key}: {} unit(s) measured it, fewer than {MIN_UNITS}: no unit can be an outlier",
                names.len()
            ));
            continue;
        }
        for deviation in rule.outliers_of_units(&values, &unit_index) {
            let entry = &entries[deviation.index];
            verdict.outliers.push(OutlierFinding {
                unit: entry.unit.clone(),
                host: entry.host.clone(),
                key: key.clone(),
                record_unit: entry.record_unit,
                direction: direction(entry.record_unit, entry.value > deviation.others_median),
                target: entry.target.clone(),
                deviation,
                units: names.len(),
            });
        }
    }
    if settings.len() < 2 && !settings.is_empty() {
        verdict
            .notes
            .push("settings of one host only: nothing to compare them with".to_string());
    }
    verdict.differences = differing(&settings);
    verdict
}

fn record(metric: &str, value: f64, unit: Unit, params: Map<String, Value>) -> Record {
    Record {
        benchmark: benchmark::CLUSTER.to_string(),
        metric: metric.to_string(),
        value,
        unit,
        params,
        placement: Placement::default(),
        stats: Summary::single(value),
    }
}

impl ClusterVerdict {
    /// Outliers, differing hosts and failed hosts together: the exit
    /// status is 1 when this is above 0.
    /// Each flagged host once, in the order flagged (failures, outliers,
    /// differing settings), with its first problem in words: the reason a
    /// drain gives it.
    pub fn drain_reasons(&self) -> Vec<(String, String)> {
        let mut reasons: Vec<(String, String)> = Vec::new();
        let mut add = |host: &str, reason: String| {
            if !reasons.iter().any(|(seen, _)| seen == host) {
                reasons.push((host.to_string(), reason));
            }
        };
        for failure in &self.failures {
            let part = failure
                .part
                .as_ref()
                .map_or("the host".to_string(), |part| format!("part {part}"));
            add(&failure.host, format!("{part} failed: {}", failure.error));
        }
        for outlier in &self.outliers {
            let deviation = &outlier.deviation;
            add(
                &outlier.host,
                format!(
                    "{} {:.4} {} vs the other hosts' median {:.4} ({})",
                    outlier.key,
                    deviation.value,
                    outlier.record_unit.as_str(),
                    deviation.others_median,
                    outlier.direction
                ),
            );
        }
        for finding in &self.baseline {
            add(&finding.host, finding.problem.clone());
        }
        for difference in &self.differences {
            add(
                &difference.host,
                format!(
                    "{} = {} (most hosts: {})",
                    difference.setting,
                    difference.value,
                    difference
                        .majority
                        .as_ref()
                        .map_or("no majority".to_string(), |value| value.to_string())
                ),
            );
        }
        reasons
    }

    pub fn problems(&self) -> usize {
        self.outliers.len() + self.differences.len() + self.failures.len() + self.baseline.len()
    }

    /// The verdict as records: one `outlier` per outlying unit and metric
    /// (value: the unit's figure over the median), one `differing_setting`
    /// per host and setting, one `failed` per failure, then `verdict`.
    pub fn records(&self, rule: &OutlierRule) -> Vec<Record> {
        let mut records = Vec::new();
        let rule_params = RuleParams {
            mad_k: Some(rule.k),
            min_deviation: Some(rule.min_deviation),
        };
        for outlier in &self.outliers {
            let ratio = if outlier.deviation.others_median == 0.0 {
                f64::NAN
            } else {
                outlier.deviation.value / outlier.deviation.others_median
            };
            let params = to_params(&outlier.params(rule_params));
            records.push(record("outlier", ratio, Unit::Ratio, params));
        }
        for difference in &self.differences {
            let params = to_params(&difference.params());
            records.push(record("differing_setting", 1.0, Unit::Count, params));
        }
        for failure in &self.failures {
            let params = to_params(&failure.params());
            records.push(record("failed", 1.0, Unit::Count, params));
        }
        for finding in &self.baseline {
            let params = to_params(&finding.params());
            records.push(record("baseline_problem", 1.0, Unit::Count, params));
        }
        let count = |n: usize| Some(n as u64);
        let params = ClusterVerdictParams {
            units: count(self.units),
            hosts: count(self.hosts),
            outliers: count(self.outliers.len()),
            differing: count(self.differences.len()),
            failed: count(self.failures.len()),
            baseline_problems: count(self.baseline.len()),
            retested: Some(self.retested.clone()),
            idle_ranks: Some(self.idle.clone()),
            notes: Some(self.notes.clone()),
            rule: rule_params,
        };
        records.push(record(
            "verdict",
            self.problems() as f64,
            Unit::Count,
            to_params(&params),
        ));
        records
    }

    /// The verdict as text for the terminal.
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "cluster: {} hosts, {} units compared: {} outliers, {} differing settings, {} failed",
            self.hosts,
            self.units,
            self.outliers.len(),
            self.differences.len(),
            self.failures.len()
        );
        if !self.baseline.is_empty() {
            let _ = writeln!(
                out,
                "{} problem(s) against the baseline",
                self.baseline.len()
            );
        }
        for outlier in &self.outliers {
            let deviation = &outlier.deviation;
            let z = deviation
                .robust_z
                .map_or("MAD 0".to_string(), |z| format!("{z:.1} MADs"));
            let relative = deviation
                .relative
                .map_or(String::new(), |r| format!(" ({:+.0}%)", r * 100.0));
            let _ = writeln!(
                out,
                "OUTLIER  {}: {}{} = {:.4} {} vs the others' median {:.4}{} over {} units, {}, {}",
                outlier.unit,
                outlier.key,
                outlier
                    .target
                    .as_ref()
                    .map_or(String::new(), |target| format!(" ({target})")),
                deviation.value,
                outlier.record_unit.as_str(),
                deviation.others_median,
                relative,
                outlier.units,
                z,
                outlier.direction
            );
        }
        for difference in &self.differences {
            let majority = difference
                .majority
                .as_ref()
                .map_or("no majority".to_string(), |value| {
                    format!("{} of the hosts have {value}", difference.majority_hosts)
                });
            let _ = writeln!(
                out,
                "DIFFERS  {}: {} = {} ({majority})",
                difference.host, difference.setting, difference.value
            );
        }
        for finding in &self.baseline {
            let _ = writeln!(
                out,
                "BASELINE {} (rank {}): {}",
                finding.host, finding.rank, finding.problem
            );
        }
        for failure in &self.failures {
            let _ = writeln!(
                out,
                "FAILED   {} (rank {}){}: {}",
                failure.host,
                failure.rank,
                failure
                    .part
                    .as_ref()
                    .map_or(String::new(), |part| format!(", part {part}")),
                failure.error
            );
        }
        if !self.retested.is_empty() {
            let _ = writeln!(
                out,
                "measured again before the verdict (the better attempt counts): {}",
                self.retested.join(", ")
            );
        }
        if !self.idle.is_empty() {
            let _ = writeln!(
                out,
                "idle ranks (not their host's first): {}",
                self.idle.join(", ")
            );
        }
        for note in &self.notes {
            let _ = writeln!(out, "note: {note}");
        }
        out
    }
}

/// Records as `cluster` tags them, for the tests of the cluster verdict
/// and of its host table.
#[cfg(test)]
pub(super) mod fixtures {
    use super::record;
    use crate::output::{Record, Unit};
    use numabench_schema::params::{to_params, ClusterLabels};

    /// Host `host`'s figure `key` (the host is its own unit).
    pub fn tagged(host: &str, key: &str, value: f64, unit: Unit) -> Record {
        let labels = ClusterLabels {
            host: Some(host.into()),
            unit: Some(host.into()),
            cluster_key: Some(key.into()),
            ..ClusterLabels::default()
        };
        record("x", value, unit, to_params(&labels))
    }

    /// Four hosts' triad bandwidth and local latency, host c far slower
    /// (3.0 GB/s and 300 ns against about 10 GB/s and 90 ns).
    pub fn four_hosts_one_slow() -> Vec<Record> {
        let mut records = Vec::new();
        for (host, bandwidth, latency) in [
            ("a", 10.0, 90.0),
            ("b", 10.2, 91.0),
            ("c", 3.0, 300.0),
            ("d", 9.9, 89.0),
        ] {
            records.push(tagged(
                host,
                "triad node 0",
                bandwidth,
                Unit::GigabytesPerSecond,
            ));
            records.push(tagged(host, "latency local", latency, Unit::Nanoseconds));
        }
        records
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::fixtures::{four_hosts_one_slow, tagged};
    use numabench_schema::params::{ClusterLabels, HostSettings};
    use serde_json::json;

    fn settings(host: &str, thp: &str) -> Record {
        let params = ClusterTopoParams {
            settings: Some(HostSettings {
                numa_nodes: Some(1),
                doctor: Map::from_iter([("doctor.thp".to_string(), json!(thp))]),
                ..HostSettings::default()
            }),
            labels: ClusterLabels {
                host: Some(host.into()),
                ..ClusterLabels::default()
            },
            ..ClusterTopoParams::default()
        };
        let mut record = record("numa_nodes", 1.0, Unit::Count, to_params(&params));
        record.benchmark = benchmark::CLUSTER_TOPO.into();
        record
    }

    /// A retest (a second record of the same unit and key) that came back
    /// healthy clears the unit: the better attempt counts, whichever way
    /// better is (higher bandwidth, lower latency); a slow retest keeps it.
    #[test]
    fn the_better_attempt_of_a_retested_unit_counts() {
        let mut records = four_hosts_one_slow();
        records.push(tagged("c", "triad node 0", 10.1, Unit::GigabytesPerSecond));
        let verdict = analyze(&records, Vec::new(), Vec::new(), &OutlierRule::default());
        let keys: Vec<&str> = verdict.outliers.iter().map(|o| o.key.as_str()).collect();
        assert_eq!(keys, ["latency local"], "{verdict:?}");
        records.push(tagged("c", "latency local", 90.5, Unit::Nanoseconds));
        records.push(tagged("c", "latency local", 400.0, Unit::Nanoseconds));
        let verdict = analyze(&records, Vec::new(), Vec::new(), &OutlierRule::default());
        assert!(verdict.outliers.is_empty(), "{verdict:?}");
        assert_eq!(verdict.units, 4);
    }

    #[test]
    fn the_slow_host_is_named_with_its_metric_and_direction() {
        let mut records = four_hosts_one_slow();
        records.extend(["a", "b", "c", "d"].map(|host| settings(host, "madvise")));
        let verdict = analyze(&records, Vec::new(), Vec::new(), &OutlierRule::default());
        assert_eq!(verdict.units, 4);
        assert_eq!(verdict.outliers.len(), 2, "{verdict:?}");
        assert!(verdict
            .outliers
            .iter()
            .all(|o| o.host == "c" && o.direction == "slower"));
        assert!(verdict.differences.is_empty());
        assert_eq!(verdict.problems(), 2);
        let text = verdict.render_text();
        assert!(text.contains("OUTLIER  c: latency local"), "{text}");
        let records = verdict.records(&OutlierRule::default());
        assert_eq!(records.last().unwrap().metric, "verdict");
        assert_eq!(records.last().unwrap().value, 2.0);
        let first = &records[0];
        assert_eq!(first.metric, "outlier");
        assert_eq!(first.params["host"], "c");
        assert!(first.params["robust_z"].as_f64().unwrap() > 3.0);
        // One drain reason for the host, however many metrics flag it.
        let reasons = verdict.drain_reasons();
        assert_eq!(reasons.len(), 1, "{reasons:?}");
        assert_eq!(reasons[0].0, "c");
        assert!(reasons[0].1.starts_with("latency local"), "{reasons:?}");
        assert!(reasons[0].1.ends_with("(slower)"), "{reasons:?}");
    }

    #[test]
    fn a_clean_cluster_has_no_problem_and_a_differing_host_is_one() {
        let mut records = Vec::new();
        for (host, value) in [("a", 10.0), ("b", 10.3), ("c", 9.8)] {
            records.push(tagged(
                host,
                "triad node 0",
                value,
                Unit::GigabytesPerSecond,
            ));
            records.push(settings(
                host,
                if host == "b" { "never" } else { "madvise" },
            ));
        }
        let verdict = analyze(&records, Vec::new(), Vec::new(), &OutlierRule::default());
        assert!(verdict.outliers.is_empty());
        assert_eq!(verdict.differences.len(), 1);
        assert_eq!(verdict.differences[0].host, "b");
        assert!(verdict.render_text().contains("DIFFERS  b: doctor.thp"));
        assert_eq!(
            verdict.drain_reasons(),
            [(
                "b".to_string(),
                "doctor.thp = \"never\" (most hosts: \"madvise\")".to_string()
            )]
        );
    }

    #[test]
    fn two_units_cannot_make_an_outlier_and_say_so() {
        let records = [
            tagged("a", "k", 1.0, Unit::Seconds),
            tagged("b", "k", 100.0, Unit::Seconds),
        ];
        let failure = Failure {
            host: "c".into(),
            rank: 2,
            part: Some("stream".into()),
            error: "no memory".into(),
        };
        let verdict = analyze(&records, vec![failure], Vec::new(), &OutlierRule::default());
        assert!(verdict.outliers.is_empty());
        assert!(
            verdict.notes[0].contains("fewer than 3"),
            "{:?}",
            verdict.notes
        );
        assert_eq!(verdict.problems(), 1);
        assert!(verdict
            .render_text()
            .contains("FAILED   c (rank 2), part stream: no memory"));
    }

    /// Issue 21, item 15: the note that a metric has too few units is
    /// given per metric; before, it came only when every metric had fewer
    /// than three, so a metric measured by two hosts among three (one
    /// failed it) passed silently.
    #[test]
    fn a_metric_with_fewer_than_three_units_is_noted_by_name() {
        let mut records = Vec::new();
        for (host, value) in [("a", 10.0), ("b", 10.1), ("c", 9.9)] {
            records.push(tagged(
                host,
                "triad node 0",
                value,
                Unit::GigabytesPerSecond,
            ));
        }
        records.push(tagged("a", "latency local", 90.0, Unit::Nanoseconds));
        records.push(tagged("b", "latency local", 900.0, Unit::Nanoseconds));
        let verdict = analyze(&records, Vec::new(), Vec::new(), &OutlierRule::default());
        assert_eq!(verdict.notes.len(), 1, "{:?}", verdict.notes);
        assert!(
            verdict.notes[0].starts_with("latency local: 2 unit(s)")
                && verdict.notes[0].contains("fewer than 3"),
            "{:?}",
            verdict.notes
        );
        assert!(verdict
            .render_text()
            .contains("note: latency local: 2 unit(s)"));
    }

    /// Issue 21, item 16: with `--per numa` a unit has one record per
    /// target at a distance; every record is compared, not the first per
    /// unit. Here h0/node 0's second remote target is slow: before, only
    /// its first (healthy) record was compared and nothing was flagged.
    #[test]
    fn every_record_of_a_unit_is_compared_not_only_its_first() {
        let mut records = Vec::new();
        for (unit, target, value) in [
            ("h0/node 0", "memory node 1", 140.0),
            ("h0/node 0", "memory node 2", 260.0),
            ("h1/node 0", "memory node 1", 141.0),
            ("h1/node 0", "memory node 2", 139.0),
            ("h2/node 0", "memory node 1", 142.0),
            ("h2/node 0", "memory node 2", 140.0),
        ] {
            let mut record = tagged(
                unit,
                "latency remote, distance 21",
                value,
                Unit::Nanoseconds,
            );
            record.params.extend(to_params(&ClusterLabels {
                host: Some(unit[..2].to_string()),
                cluster_target: Some(target.to_string()),
                ..ClusterLabels::default()
            }));
            records.push(record);
        }
        let verdict = analyze(&records, Vec::new(), Vec::new(), &OutlierRule::default());
        assert_eq!(verdict.units, 3);
        assert_eq!(verdict.outliers.len(), 1, "{verdict:?}");
        let found = &verdict.outliers[0];
        assert_eq!(found.unit, "h0/node 0");
        assert_eq!(found.target.as_deref(), Some("memory node 2"));
        assert_eq!(found.deviation.value, 260.0);
        assert_eq!(found.direction, "slower");
        let text = verdict.render_text();
        assert!(
            text.contains("OUTLIER  h0/node 0: latency remote, distance 21 (memory node 2) = 260"),
            "{text}"
        );
    }
}
