//! The `check` part: every host measures what `numabench check` measures
//! (each NUMA node's read and triad bandwidth with all its CPUs, its local
//! latency, its latency to the nearest and farthest other node), with the
//! plan of its node type's baseline entry when `--baseline` holds one, else
//! the plan `check` would write. Rank 0 then compares the hosts with each
//! other (the outlier rule) and with the baseline ([`compare_with_baseline`]),
//! or writes a baseline from them ([`baseline_from_records`]): per node
//! type, the median of its hosts, so that one cluster run gives every node's
//! health check its references.

use super::measure::Measured;
use super::parts::Per;
use crate::bench::{BenchError, Context};
use crate::check::{
    differences, figure, item_params, measure_item, metric, plan_check, record_with,
    this_node_fingerprint, with_size, Attempt, Baseline, BaselineEntry, CheckItem, CheckPlan,
    CheckQuantity, Fingerprint, Reference, Tolerances, Written, DEFAULT_BUDGET_SECONDS,
    SPREAD_MULTIPLE,
};
use crate::doctor::{run_doctor, SystemFiles};
use crate::kernels::SimdLevel;
use crate::output::{Placement, Record, Unit};
use crate::stats::Summary;
use numabench_schema::benchmark;
use numabench_schema::params::{
    to_params, BaselineProblemParams, CheckItemParams, CheckPlanParams, ClusterLabels,
    HostRankParams,
};
use serde_json::{Map, Value};

/// The metric of the one record per measuring rank that says what it
/// measured: its node's fingerprint and the plan (`params.fingerprint`,
/// `params.plan`); value: the plan's items.
pub const PLAN_METRIC: &str = "check_plan";

/// This host's plan: its baseline entry's, else `check`'s own at its
/// default budget (every working set `size` when given).
fn host_plan(
    context: &Context,
    fingerprint: &Fingerprint,
    baseline: Option<&Baseline>,
    size: Option<u64>,
) -> (CheckPlan, bool) {
    if let Some(entry) = baseline.and_then(|baseline| baseline.entry_for(fingerprint)) {
        return (entry.plan.clone(), true);
    }
    let plan = plan_check(&context.topology, DEFAULT_BUDGET_SECONDS);
    let plan = match size {
        Some(size) => with_size(plan, &context.topology, size),
        None => plan,
    };
    (plan, false)
}

/// The comparison key of an item: its own key (`node0.triad_bandwidth`),
/// or with `--per numa` (each node its own unit) what it is to its node:
/// `triad_bandwidth`, `latency_local`, `latency remote, distance D`.
fn item_key(per: Per, context: &Context, item: &CheckItem) -> String {
    match (per, item.quantity) {
        (Per::Numa, CheckQuantity::ReadBandwidth) => "read_bandwidth".into(),
        (Per::Numa, CheckQuantity::TriadBandwidth) => "triad_bandwidth".into(),
        (Per::Numa, CheckQuantity::Latency) if item.cpu_node == item.memory_node => {
            "latency_local".into()
        }
        (Per::Numa, CheckQuantity::Latency) => {
            match context.topology.distance(item.cpu_node, item.memory_node) {
                Some(distance) => format!("latency remote, distance {distance}"),
                None => "latency remote".into(),
            }
        }
        _ => item.key.clone(),
    }
}

/// Measures this host's check plan, handing over first the plan record,
/// then one record per item as it is made (value: the fastest
/// repetition, as `check` compares).
pub fn measure_check(
    context: &Context,
    per: Per,
    size: Option<u64>,
    baseline: Option<&Baseline>,
    emit: &mut dyn FnMut(Measured),
) -> Result<(), BenchError> {
    let doctor = run_doctor(&SystemFiles::real(), &context.topology);
    let fingerprint = this_node_fingerprint(&context.topology, &doctor);
    let (plan, from_baseline) = host_plan(context, &fingerprint, baseline, size);
    let params = plan_params(&fingerprint, &plan, from_baseline);
    let items = plan.items.len() as f64;
    emit(Measured {
        record: Record {
            benchmark: benchmark::CHECK.into(),
            metric: PLAN_METRIC.into(),
            value: items,
            unit: Unit::Count,
            params,
            placement: Placement::default(),
            stats: Summary::single(items),
        },
        node: None,
        key: None,
    });
    // As `check` measures: plain loops at the widest SIMD level, exactly
    // the plan's repetitions.
    let mut context = context.clone();
    context.simd = Some(SimdLevel::detect());
    context.fixed_repetitions = true;
    context.repeat = plan.repeat;
    for item in &plan.items {
        let attempt = measure_item(&context, item, plan.latency_samples)?;
        let record = cluster_item_record(item, &attempt);
        emit(Measured {
            record,
            node: Some(item.cpu_node),
            key: Some(item_key(per, &context, item)),
        });
    }
    Ok(())
}

/// The plan record's params: the node's fingerprint and type, the plan,
/// whether the plan is the baseline entry's.
pub(super) fn plan_params(
    fingerprint: &Fingerprint,
    plan: &CheckPlan,
    from_baseline: bool,
) -> Map<String, Value> {
    to_params(&CheckPlanParams {
        fingerprint: Some(fingerprint.clone()),
        node_type: Some(fingerprint.node_type()),
        plan: Some(plan.clone()),
        plan_from_baseline: Some(from_baseline),
        labels: ClusterLabels::default(),
    })
}

/// An item's record as `check` makes it, with what the cluster compares
/// it by: its quantity and whether its working set is cache-affected.
pub(super) fn cluster_item_record(item: &CheckItem, attempt: &Attempt) -> Record {
    let params = CheckItemParams {
        quantity: Some(metric(item.quantity).to_string()),
        cache_affected: Some(item.cache_affected),
        ..item_params(item)
    };
    record_with(item, attempt, &params)
}

/// One measuring rank's check: who, its fingerprint and plan, and per item
/// key the best of its attempts (a host measured again keeps the better).
struct HostCheck {
    host: String,
    rank: i64,
    fingerprint: Fingerprint,
    plan: CheckPlan,
    values: Vec<(CheckItem, f64)>,
}

/// Every measuring rank's check, in rank order, from the tagged records.
fn host_checks(records: &[Record]) -> Vec<HostCheck> {
    let mut checks: Vec<HostCheck> = Vec::new();
    for record in records
        .iter()
        .filter(|record| record.benchmark == benchmark::CHECK && record.metric == PLAN_METRIC)
    {
        let params = record.params_or_default::<CheckPlanParams>();
        let (Some(rank), Some(host)) = (params.labels.rank, params.labels.host) else {
            continue;
        };
        let (Some(fingerprint), Some(plan)) = (params.fingerprint, params.plan) else {
            continue;
        };
        if checks.iter().any(|check| check.rank == rank) {
            continue; // a retest's plan record: the same plan
        }
        checks.push(HostCheck {
            host,
            rank,
            fingerprint,
            plan,
            values: Vec::new(),
        });
    }
    // Every item figure by (rank, key), read once: a cluster of 1000 hosts
    // holds about 100,000 of them.
    let mut figures: std::collections::HashMap<(i64, String), Vec<f64>> =
        std::collections::HashMap::new();
    for record in records
        .iter()
        .filter(|record| record.benchmark == benchmark::CHECK && record.metric != PLAN_METRIC)
    {
        let params = record.params_or_default::<CheckItemParams>();
        if let (Some(rank), Some(key)) = (params.labels.rank, params.key) {
            figures.entry((rank, key)).or_default().push(record.value);
        }
    }
    for check in &mut checks {
        for item in &check.plan.items {
            let better = |a: f64, b: f64| {
                if item.quantity.higher_is_better() {
                    a.max(b)
                } else {
                    a.min(b)
                }
            };
            let best = figures
                .get(&(check.rank, item.key.clone()))
                .into_iter()
                .flatten()
                .copied()
                .filter(|value| value.is_finite())
                .reduce(better);
            if let Some(value) = best {
                check.values.push((item.clone(), value));
            }
        }
    }
    checks.sort_by_key(|check| check.rank);
    checks
}

/// Why a cluster writes no baseline ([`baseline_from_records`]).
///
/// Fault: the system's (what the hosts measured).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClusterBaselineError {
    /// No host measured the check part.
    #[error("no host measured the check part: no baseline written")]
    NoCheckRecords,
    /// The hosts of one node type spread so far on a bandwidth that its
    /// tolerance would reach 100%: the entry would accept any figure and
    /// `check` would refuse the file.
    #[error(
        "{node_type}: {key} spreads {spread_percent:.0}% over hosts {hosts} (robust deviation \
         over the median), too far for a tolerance of {SPREAD_MULTIPLE} deviations: no baseline \
         written; leave the outlier hosts out, or give --tolerance"
    )]
    TooSpread {
        node_type: String,
        key: String,
        hosts: String,
        spread_percent: f64,
    },
}

crate::error::all_faulty!(System: ClusterBaselineError);

/// A baseline from a cluster's check records: one entry per node type
/// (hosts whose fingerprints are of the same type), each metric the median
/// of those hosts with a tolerance from their spread ([`Reference::from_runs`]:
/// three robust standard deviations, at least 5% for a bandwidth and 10%
/// for a latency, or `tolerances`), the plan of its first host. `Err` when
/// no host measured the check, or when a bandwidth's hosts spread too far
/// for a tolerance below 100% ([`ClusterBaselineError::TooSpread`]).
pub fn baseline_from_records(
    records: &[Record],
    tolerances: &Tolerances,
) -> Result<Vec<BaselineEntry>, ClusterBaselineError> {
    let checks = host_checks(records);
    if checks.is_empty() {
        return Err(ClusterBaselineError::NoCheckRecords);
    }
    let mut groups: Vec<Vec<&HostCheck>> = Vec::new();
    for check in &checks {
        match groups
            .iter_mut()
            .find(|group| group[0].fingerprint.same_type(&check.fingerprint))
        {
            Some(group) => group.push(check),
            None => groups.push(vec![check]),
        }
    }
    let mut entries = Vec::new();
    for group in groups {
        let first = group[0];
        let mut metrics = std::collections::BTreeMap::new();
        for item in &first.plan.items {
            let values: Vec<f64> = group
                .iter()
                .filter_map(|check| {
                    check
                        .values
                        .iter()
                        .find(|(measured, _)| measured.key == item.key)
                        .map(|(_, value)| *value)
                })
                .collect();
            if values.is_empty() {
                continue;
            }
            let reference = Reference::from_runs(item.quantity, &values, tolerances.for_item(item));
            if !reference.bounds_are_valid() {
                return Err(ClusterBaselineError::TooSpread {
                    node_type: first.fingerprint.node_type(),
                    key: item.key.clone(),
                    hosts: host_list(&group),
                    spread_percent: reference.spread.unwrap_or(f64::NAN) * 100.0,
                });
            }
            metrics.insert(item.key.clone(), reference);
        }
        let mut written = Written::now(group.len());
        written.host = host_list(&group);
        entries.push(BaselineEntry {
            fingerprint: first.fingerprint.clone(),
            written,
            plan: first.plan.clone(),
            metrics,
        });
    }
    Ok(entries)
}

/// The hosts of a group, once each, comma-separated.
fn host_list(group: &[&HostCheck]) -> String {
    let mut hosts: Vec<&str> = group.iter().map(|check| check.host.as_str()).collect();
    hosts.dedup();
    hosts.join(", ")
}

/// A host whose check does not pass its baseline.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BaselineFinding {
    pub host: String,
    pub rank: i64,
    /// As `check` says it: `node 0 triad bandwidth: 3.10 GB/s vs 10.2
    /// GB/s (-5%)`, or why there is nothing to compare with.
    pub problem: String,
}

impl BaselineFinding {
    /// Its record's params.
    pub(super) fn params(&self) -> BaselineProblemParams {
        BaselineProblemParams {
            who: HostRankParams {
                host: Some(self.host.clone()),
                rank: Some(self.rank),
            },
            problem: Some(self.problem.clone()),
        }
    }
}

/// Every measuring rank's check against `baseline`: each metric outside
/// its bounds (the best of the rank's attempts: a host measured again is
/// named only when every attempt failed), a metric of the baseline it did
/// not measure, and a host of a node type the baseline has no entry for.
pub fn compare_with_baseline(records: &[Record], baseline: &Baseline) -> Vec<BaselineFinding> {
    let mut findings = Vec::new();
    for check in host_checks(records) {
        let finding = |problem: String| BaselineFinding {
            host: check.host.clone(),
            rank: check.rank,
            problem,
        };
        let Some(entry) = baseline.entry_for(&check.fingerprint) else {
            findings.push(finding(format!(
                "no baseline for this node type ({}); the baseline holds {}",
                check.fingerprint.node_type(),
                baseline.held()
            )));
            continue;
        };
        for difference in differences(&check.fingerprint, &entry.fingerprint) {
            findings.push(finding(format!(
                "{}: {} vs {} ({})",
                difference.what, difference.measured, difference.reference, difference.tolerance
            )));
        }
        for (key, reference) in &entry.metrics {
            let Some((item, value)) = check.values.iter().find(|(item, _)| item.key == *key) else {
                findings.push(finding(format!("{key}: not measured")));
                continue;
            };
            if !reference.accepts(*value) {
                findings.push(finding(format!(
                    "{}: {} vs {} ({})",
                    item.label(),
                    figure(*value, item.quantity),
                    figure(reference.value, item.quantity),
                    reference.tolerance_text()
                )));
            }
        }
    }
    findings
}

#[cfg(test)]
mod tests;
