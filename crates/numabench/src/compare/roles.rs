//! What a record's figure *is* on its machine, in words that hold on any
//! machine: its role. Two machines' `characterize` runs size working sets,
//! pick CPUs and number nodes each for itself, so their records' params
//! differ although they measured the same things; their roles do not.
//!
//! The roles (also in README.md, "Comparing result sets"):
//! - where the working set sits: a cache level (`L1`, `L2`, ...,
//!   `memory-side cache`) or `DRAM`, from the record's `cache_level`, or,
//!   for records without one, `DRAM` when `cache_affected` is false (the
//!   working set is well beyond `cache_bytes_in_front`);
//! - the kernel (read, write, copy, triad, ...);
//! - one thread, all threads of a node (the most threads a node's records
//!   use in the set) or all threads (the most any record uses);
//! - local or remote by distance rank: a matrix cell on its row's diagonal
//!   is local; of its row's other cells, those at the smallest SLIT
//!   distance are the nearest remote, those at the largest the farthest
//!   (a row with one remote distance has cells that are both);
//! - for the findings (`summary` records), their kind.
//!
//! Within a set, a level's latency is the sweep's middle size of those
//! the level holds (the lower of two; as the findings take it), DRAM's the
//! sweep's largest (the least cache-affected); several records of one role (every node's local cell,
//! every CPU alone in `contention`) give one figure: their median.

use crate::output::Record;
use crate::topology::levels::standing_for_level;
use numabench_schema::benchmark;
use numabench_schema::params::key;
use serde_json::Value;
use std::collections::HashMap;

fn text<'a>(record: &'a Record, name: &str) -> Option<&'a str> {
    record.params.get(name).and_then(Value::as_str)
}

fn number(record: &Record, name: &str) -> Option<u64> {
    record.params.get(name).and_then(Value::as_u64)
}

/// Where the working set sits: a cache level or `DRAM`.
pub fn level(record: &Record) -> Option<String> {
    match record.typed_params().cache_level() {
        Some("memory") => Some("DRAM".into()),
        Some(level) => Some(level.to_string()),
        None => (record.params.get(key::CACHE_AFFECTED) == Some(&Value::Bool(false)))
            .then(|| "DRAM".into()),
    }
}

/// The requested memory policy (`bind:1`, `first-touch`, ...).
fn memory(record: &Record) -> Option<&str> {
    record
        .placement
        .requested
        .get("memory")
        .and_then(Value::as_str)
}

/// Memory on the measuring CPU's own node: first touch, no request, or
/// bound to `cpu_node`.
fn local_memory(record: &Record) -> bool {
    match memory(record) {
        None | Some("first-touch") => true,
        Some(policy) => record
            .typed_params()
            .cpu_node()
            .is_some_and(|node| policy == format!("bind:{node}")),
    }
}

/// What the set's records say about thread counts: the most any record
/// uses, and per CPU node the most its records use.
#[derive(Default)]
struct Threads {
    most: u64,
    per_node: HashMap<u64, u64>,
}

impl Threads {
    fn of(records: &[Record]) -> Self {
        let mut threads = Self::default();
        for record in records {
            let Some(count) = record.typed_params().threads() else {
                continue;
            };
            threads.most = threads.most.max(count);
            if let Some(node) = record.typed_params().cpu_node() {
                let most = threads.per_node.entry(node).or_default();
                *most = (*most).max(count);
            }
        }
        threads
    }

    /// `1 thread`, `all threads` or `N threads`.
    fn of_machine(&self, record: &Record) -> Option<String> {
        let count = record.typed_params().threads()?;
        Some(match count {
            1 => "1 thread".into(),
            _ if count == self.most => "all threads".into(),
            _ => format!("{count} threads"),
        })
    }

    /// `1 thread` or `all threads of a node`; None for counts between.
    fn of_node(&self, record: &Record) -> Option<String> {
        let count = record.typed_params().threads()?;
        let node = record.typed_params().cpu_node()?;
        match count {
            1 => Some("1 thread".into()),
            _ if Some(&count) == self.per_node.get(&node) => Some("all threads of a node".into()),
            _ => None,
        }
    }
}

/// Per row (CPU node) of a matrix, the remote cells' SLIT distances.
#[derive(Default)]
struct Distances {
    per_row: HashMap<(String, u64), Vec<u64>>,
}

impl Distances {
    fn row(record: &Record) -> Option<(String, u64)> {
        Some((record.benchmark.clone(), record.typed_params().cpu_node()?))
    }

    fn of(records: &[Record]) -> Self {
        let mut distances = Self::default();
        for record in records.iter().filter(|r| r.benchmark.starts_with("matrix")) {
            let (Some(row), Some(column)) = (Self::row(record), record.typed_params().mem_node())
            else {
                continue;
            };
            if row.1 != column {
                let distance = record.typed_params().slit_distance().unwrap_or(0);
                distances.per_row.entry(row).or_default().push(distance);
            }
        }
        distances
    }

    /// `local`, or the remote ranks of the cell: `remote (nearest)`,
    /// `remote (farthest)`, both, or none (a distance between).
    fn ranks(&self, record: &Record) -> Vec<&'static str> {
        let (Some(row), Some(column)) = (Self::row(record), record.typed_params().mem_node())
        else {
            return Vec::new();
        };
        if row.1 == column {
            return vec!["local"];
        }
        let distance = record.typed_params().slit_distance().unwrap_or(0);
        let Some(remote) = self.per_row.get(&row) else {
            return Vec::new();
        };
        let mut ranks = Vec::new();
        if remote.iter().min() == Some(&distance) {
            ranks.push("remote (nearest)");
        }
        if remote.iter().max() == Some(&distance) {
            ranks.push("remote (farthest)");
        }
        ranks
    }
}

/// For the latency sweep: per (metric, level) the size whose record
/// stands for the level ([`standing_for_level`]: a cache's middle size,
/// DRAM's largest, as the findings take them).
fn sweep_sizes(records: &[Record]) -> HashMap<(String, String), u64> {
    let cpu = records
        .iter()
        .find(|record| record.benchmark == benchmark::LATENCY)
        .and_then(|record| record.typed_params().cpu());
    let mut sizes: HashMap<(String, String), Vec<u64>> = HashMap::new();
    for record in records {
        if record.benchmark != benchmark::LATENCY || record.typed_params().cpu() != cpu {
            continue;
        }
        let (Some(level), Some(size)) = (level(record), record.typed_params().size_bytes()) else {
            continue;
        };
        sizes
            .entry((record.metric.clone(), level))
            .or_default()
            .push(size);
    }
    sizes
        .into_iter()
        .filter_map(|(key, of_level)| {
            let chosen = standing_for_level(key.1 == "DRAM", &of_level)?;
            Some((key, chosen))
        })
        .collect()
}

/// What follows a latency role's words: nothing for `latency` (ns),
/// `, cycles` for `latency_cycles`; None for other metrics.
fn latency_metric(metric: &str) -> Option<&'static str> {
    match metric {
        "latency" => Some(""),
        "latency_cycles" => Some(", cycles"),
        _ => None,
    }
}

/// `read_bandwidth` as `read bandwidth`.
fn bandwidth_metric(record: &Record) -> Option<String> {
    let kernel = record.typed_params().kernel()?;
    (record.metric == format!("{kernel}_bandwidth")).then(|| format!("{kernel} bandwidth"))
}

/// Every record's roles (none for a record no role describes), computed
/// with the whole set in view (thread counts, distance ranks, sweep sizes).
pub fn roles(records: &[Record]) -> Vec<Vec<String>> {
    let threads = Threads::of(records);
    let distances = Distances::of(records);
    let sizes = sweep_sizes(records);
    records
        .iter()
        .map(|record| roles_of(record, &threads, &distances, &sizes))
        .collect()
}

fn roles_of(
    record: &Record,
    threads: &Threads,
    distances: &Distances,
    sizes: &HashMap<(String, String), u64>,
) -> Vec<String> {
    let one = |role: Option<String>| role.into_iter().collect::<Vec<_>>();
    match record.benchmark.as_str() {
        "latency" => one((|| {
            let metric = latency_metric(&record.metric)?;
            let level = level(record)?;
            let size = record.typed_params().size_bytes()?;
            let chosen = sizes.get(&(record.metric.clone(), level.clone()))?;
            (size == *chosen && local_memory(record)).then(|| format!("{level} latency{metric}"))
        })()),
        "bandwidth" => one((|| {
            let kernel = bandwidth_metric(record)?;
            let level = level(record)?;
            let threads = threads.of_machine(record)?;
            (memory(record).is_none_or(|m| m == "first-touch"))
                .then(|| format!("{kernel}, {threads}, {level}"))
        })()),
        "matrix-latency" => {
            let (Some(metric), Some(level)) = (latency_metric(&record.metric), level(record))
            else {
                return Vec::new();
            };
            distances
                .ranks(record)
                .into_iter()
                .map(|rank| format!("{level} latency {rank}{metric}"))
                .collect()
        }
        "matrix-bandwidth" => {
            let (Some(kernel), Some(level), Some(threads)) = (
                bandwidth_metric(record),
                level(record),
                threads.of_node(record),
            ) else {
                return Vec::new();
            };
            distances
                .ranks(record)
                .into_iter()
                .map(|rank| format!("{kernel}, {threads}, {level} {rank}"))
                .collect()
        }
        "scaling" => one((|| {
            let kernel = bandwidth_metric(record)?;
            let level = level(record)?;
            let threads = threads.of_node(record)?;
            let locality = text(record, key::LOCALITY).unwrap_or("local");
            Some(format!("scaling: {kernel}, {threads}, {level} {locality}"))
        })()),
        "per-cpu" => one((|| {
            let metric = match record.metric.as_str() {
                "latency" => "latency".to_string(),
                _ => bandwidth_metric(record)?,
            };
            let level = level(record)?;
            Some(format!("{level} {metric}, CPUs alone (median)"))
        })()),
        "contention" => vec![format!("contention: {}", record.metric.replace('_', " "))],
        "loaded-latency" => one((|| {
            (record.metric == "loaded_latency").then_some(())?;
            match (number(record, "generators")?, number(record, "delay")) {
                (0, _) => Some("loaded latency, idle".into()),
                (_, Some(0)) => Some("loaded latency, most traffic (delay 0)".into()),
                _ => None,
            }
        })()),
        "c2c" => {
            one(text(record, key::RELATION)
                .map(|relation| format!("core-to-core latency, {relation}")))
        }
        "summary" => vec![match text(record, "check") {
            Some(check) => format!("finding: {} ({check})", record.metric),
            None => format!("finding: {}", record.metric),
        }],
        _ => Vec::new(),
    }
}
