//! Matching by role ([`super::roles`]) for result sets of different
//! machines, and the rule that picks it ([`MatchBy::choose`]).

use super::key::MeasurementKey;
use super::matching::{compare, Comparison, Figure, MatchedFigure, ResultSet, Unmatched};
use super::roles::roles;
use serde_json::json;
use std::collections::HashMap;

/// How records are matched across sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchBy {
    /// By [`MeasurementKey`]: the same benchmark, metric, unit and
    /// identifying params (two runs of one machine).
    Exact,
    /// By role (two machines): cache level or DRAM, kernel, thread role,
    /// local or remote by distance rank, finding kind.
    Role,
}

impl MatchBy {
    /// The word `--by` takes and records carry (`matched_by`).
    pub fn name(self) -> &'static str {
        match self {
            MatchBy::Exact => "exact",
            MatchBy::Role => "role",
        }
    }

    /// The automatic choice: by role when the sets come from different
    /// machines (their metadata's host, CPU model or topology differ);
    /// exact when every set names the same machine. When a set does not
    /// say (no metadata), exact unless exact matching leaves more than
    /// half of some set's records unmatched.
    pub fn choose(sets: &[ResultSet]) -> MatchBy {
        let machines: Vec<&Option<String>> = sets.iter().map(|set| &set.machine).collect();
        if machines.iter().all(|machine| machine.is_some()) {
            return if machines.windows(2).all(|pair| pair[0] == pair[1]) {
                MatchBy::Exact
            } else {
                MatchBy::Role
            };
        }
        let exact = compare(sets);
        let mostly_unmatched = sets
            .iter()
            .zip(&exact.unmatched)
            .any(|(set, unmatched)| 2 * unmatched.records > set.records.len());
        if mostly_unmatched {
            MatchBy::Role
        } else {
            MatchBy::Exact
        }
    }
}

/// One role's records in one set, in file order.
struct RoleGroup {
    key: MeasurementKey,
    values: Vec<f64>,
}

/// A set's records grouped by role (first appearance order), with, per
/// record, its roles.
fn group(set: &ResultSet) -> (Vec<String>, HashMap<String, RoleGroup>, Vec<Vec<String>>) {
    let per_record = roles(&set.records);
    let mut order = Vec::new();
    let mut groups: HashMap<String, RoleGroup> = HashMap::new();
    for (record, roles) in set.records.iter().zip(&per_record) {
        for role in roles {
            let identity = format!("{role}\u{0}{}", record.unit.as_str());
            let group = groups.entry(identity.clone()).or_insert_with(|| {
                order.push(identity.clone());
                RoleGroup {
                    key: MeasurementKey {
                        benchmark: record.benchmark.clone(),
                        metric: record.metric.clone(),
                        unit: record.unit.as_str().to_string(),
                        params: vec![("role".into(), json!(role))],
                    },
                    values: Vec::new(),
                }
            });
            group.values.push(record.value);
        }
    }
    let identities = per_record
        .iter()
        .zip(&set.records)
        .map(|(roles, record)| {
            roles
                .iter()
                .map(|role| format!("{role}\u{0}{}", record.unit.as_str()))
                .collect()
        })
        .collect();
    (order, groups, identities)
}

/// Matches the sets by role: a role is matched when every set has it; its
/// figure in a set is the median of its records there (one record: its
/// value). A record counts as unmatched when none of its roles is matched
/// (records without a role included), listed under its benchmark and metric.
pub fn compare_by_role(sets: &[ResultSet]) -> Comparison {
    let grouped: Vec<_> = sets.iter().map(group).collect();
    let in_every_set = |identity: &str| {
        grouped
            .iter()
            .all(|(_, groups, _)| groups.contains_key(identity))
    };
    let matched = match grouped.first() {
        Some((order, groups, _)) => order
            .iter()
            .filter(|identity| in_every_set(identity))
            .map(|identity| MatchedFigure {
                key: groups[identity].key.clone(),
                figures: grouped
                    .iter()
                    .map(|(_, groups, _)| Figure::of(groups[identity].values.clone()))
                    .collect(),
            })
            .collect(),
        None => Vec::new(),
    };
    let unmatched = sets
        .iter()
        .zip(&grouped)
        .map(|(set, (_, _, identities))| {
            let mut keys: Vec<(MeasurementKey, usize)> = Vec::new();
            for (record, identities) in set.records.iter().zip(identities) {
                if identities.iter().any(|identity| in_every_set(identity)) {
                    continue;
                }
                let key = MeasurementKey {
                    benchmark: record.benchmark.clone(),
                    metric: record.metric.clone(),
                    unit: record.unit.as_str().to_string(),
                    params: Vec::new(),
                };
                match keys.iter_mut().find(|(seen, _)| *seen == key) {
                    Some((_, count)) => *count += 1,
                    None => keys.push((key, 1)),
                }
            }
            Unmatched::of(keys)
        })
        .collect();
    Comparison {
        sets: sets.iter().map(|set| set.name.clone()).collect(),
        by: MatchBy::Role,
        matched,
        unmatched,
    }
}
