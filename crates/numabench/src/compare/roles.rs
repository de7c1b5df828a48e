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

use crate::bench::find;
use crate::output::Record;
use crate::topology::levels::standing_for_level;
use numabench_schema::benchmark;
use numabench_schema::params::key;
use serde_json::Value;
use std::collections::HashMap;

/// A text parameter of a record.
pub fn text<'a>(record: &'a Record, name: &str) -> Option<&'a str> {
    record.params.get(name).and_then(Value::as_str)
}

/// A whole-number parameter of a record.
pub fn number(record: &Record, name: &str) -> Option<u64> {
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
pub fn memory(record: &Record) -> Option<String> {
    record
        .placement
        .requested_as()?
        .memory_label()
        .map(str::to_string)
}

/// Memory on the measuring CPU's own node: first touch, no request, or
/// bound to `cpu_node`.
pub fn local_memory(record: &Record) -> bool {
    match memory(record).as_deref() {
        None | Some("first-touch") => true,
        Some(policy) => record
            .typed_params()
            .cpu_node()
            .is_some_and(|node| policy == format!("bind:{node}")),
    }
}

/// What the set's records say about thread counts: the most any record
/// uses, and per CPU node the most its records use.
#[derive(Debug, Default)]
pub struct Threads {
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
    pub fn of_machine(&self, record: &Record) -> Option<String> {
        let count = record.typed_params().threads()?;
        Some(match count {
            1 => "1 thread".into(),
            _ if count == self.most => "all threads".into(),
            _ => format!("{count} threads"),
        })
    }

    /// `1 thread` or `all threads of a node`; None for counts between.
    pub fn of_node(&self, record: &Record) -> Option<String> {
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
#[derive(Debug, Default)]
pub struct Distances {
    per_row: HashMap<(String, u64), Vec<u64>>,
}

impl Distances {
    fn row(record: &Record) -> Option<(String, u64)> {
        Some((record.benchmark.clone(), record.typed_params().cpu_node()?))
    }

    fn of(records: &[Record]) -> Self {
        let mut distances = Self::default();
        // Every record with a CPU node and a memory node; rows are keyed
        // by benchmark too, so only a matrix's own cells rank its cells.
        for record in records {
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
    pub fn ranks(&self, record: &Record) -> Vec<&'static str> {
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

/// `read_bandwidth` as `read bandwidth`.
pub fn bandwidth_metric(record: &Record) -> Option<String> {
    let kernel = record.typed_params().kernel()?;
    (record.metric == format!("{kernel}_bandwidth")).then(|| format!("{kernel} bandwidth"))
}

/// What a benchmark's roles are computed with: the whole set in view
/// (thread counts, distance ranks, sweep sizes).
#[derive(Debug)]
pub struct RoleSet {
    /// Thread counts of the set.
    pub threads: Threads,
    /// Per matrix row, the remote cells' distances.
    pub distances: Distances,
    sizes: HashMap<(String, String), u64>,
}

impl RoleSet {
    fn of(records: &[Record]) -> Self {
        Self {
            threads: Threads::of(records),
            distances: Distances::of(records),
            sizes: sweep_sizes(records),
        }
    }

    /// The size whose latency-sweep record stands for `level` in `metric`.
    pub fn sweep_size(&self, metric: &str, level: &str) -> Option<u64> {
        self.sizes
            .get(&(metric.to_string(), level.to_string()))
            .copied()
    }
}

/// Every record's roles (none for a record no role describes), computed
/// with the whole set in view (thread counts, distance ranks, sweep sizes):
/// a finding's from its kind, a registry benchmark's by its entry's
/// `roles`.
pub fn roles(records: &[Record]) -> Vec<Vec<String>> {
    let set = RoleSet::of(records);
    records
        .iter()
        .map(|record| {
            if record.benchmark == crate::findings::BENCHMARK {
                return vec![match text(record, "check") {
                    Some(check) => format!("finding: {} ({check})", record.metric),
                    None => format!("finding: {}", record.metric),
                }];
            }
            find(&record.benchmark).map_or_else(Vec::new, |info| (info.roles)(record, &set))
        })
        .collect()
}
