//! The benchmark registry: names, descriptions, what `characterize` runs
//! for each, and `--only`/`--skip` selection.

use super::characterize::{Defaults, Steps};
use super::context::Context;
use super::error::BenchError;
use super::estimate::{Cost, CostModel};
use crate::compare::roles::RoleSet;
use crate::output::tables::{CacheLadder, TableModel};
use crate::output::Record;
use crate::report::sections::SectionKind;
use thiserror::Error;

/// A benchmark's terminal tables: a run of its records (and the cache
/// ladder the sizes fall in) in, the tables out.
pub type TablesFn = fn(&[&Record], &CacheLadder) -> Vec<TableModel>;

/// A registered benchmark. Its `characterize` steps are a field, so an
/// entry that `characterize` would not run cannot be written.
#[derive(Debug, Clone, Copy)]
pub struct BenchmarkInfo {
    /// Name as used on the command line and in records.
    pub name: &'static str,
    /// One line for `numabench list`.
    pub summary: &'static str,
    /// A paragraph for `numabench list --describe`: what it measures, how,
    /// what the numbers mean.
    pub description: &'static str,
    /// Adds this benchmark's `characterize` steps, derived from the topology.
    pub plan: fn(&Defaults, &mut Steps),
    /// Its terminal tables, from a run of its records; `None` where its
    /// records take the generic table or are drawn by another path
    /// (`per-cpu`'s records carry `each_cpu`, whatever benchmark made them).
    pub tables: Option<TablesFn>,
    /// A record's roles for `numabench compare` (what its figure is, in
    /// words that hold on any machine), with the whole set in view.
    pub roles: fn(&Record, &RoleSet) -> Vec<String>,
    /// Its section of `numabench report`, built from records alone;
    /// `None` where another entry's section draws its records too.
    pub report: Option<SectionKind>,
    /// Its part of the estimate's calibration before a run, where it has a
    /// kind of cost of its own (`c2c`'s ping-pong); `None` where the shared
    /// rates (bandwidth, chase, fixed cost) estimate it.
    pub(in crate::bench) calibration: Option<Calibration>,
}

/// A benchmark's part of the estimate's calibration
/// (`bench/cost_calibration.rs` runs every entry's, in registry order).
#[derive(Debug, Clone, Copy)]
pub(in crate::bench) struct Calibration {
    /// What its measurement costs, estimated as a plan's (none where the
    /// machine cannot run it).
    pub costs: fn(&Context) -> Vec<Cost>,
    /// Measures its rates on this machine and sets them in the model.
    pub measure: fn(&Context, &mut CostModel) -> Result<(), BenchError>,
}

/// Entries are identified by name (names are unique).
impl PartialEq for BenchmarkInfo {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for BenchmarkInfo {}

const REGISTRY: &[BenchmarkInfo] = &[
    super::latency::BENCHMARK,
    super::bandwidth::BENCHMARK,
    super::matrix::LATENCY,
    super::matrix::BANDWIDTH,
    super::contention::BENCHMARK,
    super::scaling::BENCHMARK,
    super::loaded_latency::BENCHMARK,
    super::mlp::BENCHMARK,
    super::c2c::BENCHMARK,
    super::per_cpu::BENCHMARK,
];

/// Every registered benchmark, in the order `characterize` runs them.
pub fn registry() -> &'static [BenchmarkInfo] {
    REGISTRY
}

/// The registered benchmark of this name, if any.
pub fn find(name: &str) -> Option<&'static BenchmarkInfo> {
    REGISTRY.iter().find(|info| info.name == name)
}

/// A selection naming a benchmark that does not exist.
///
/// Always the user's fault (`--only`, `--skip`).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SelectionError {
    #[error("unknown benchmark '{name}' (valid: {valid})")]
    Unknown { name: String, valid: String },
    #[error("--only and --skip leave no benchmark to run")]
    Nothing,
}

crate::error::all_faulty!(Usage: SelectionError);

/// Applies `--only` (if non-empty, the white list) then `--skip` (the black
/// list), keeping registry order. Every name must exist.
pub fn select(
    only: &[String],
    skip: &[String],
) -> Result<Vec<&'static BenchmarkInfo>, SelectionError> {
    let valid = || {
        REGISTRY
            .iter()
            .map(|info| info.name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    for name in only.iter().chain(skip) {
        if !REGISTRY.iter().any(|info| info.name == name) {
            return Err(SelectionError::Unknown {
                name: name.clone(),
                valid: valid(),
            });
        }
    }
    let selected: Vec<&BenchmarkInfo> = REGISTRY
        .iter()
        .filter(|info| only.is_empty() || only.iter().any(|name| name == info.name))
        .filter(|info| !skip.iter().any(|name| name == info.name))
        .collect();
    if selected.is_empty() {
        return Err(SelectionError::Nothing);
    }
    Ok(selected)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|name| name.to_string()).collect()
    }

    #[test]
    fn only_and_skip_select_in_registry_order() {
        let all: Vec<&str> = registry().iter().map(|info| info.name).collect();
        assert_eq!(select(&[], &[]).unwrap().len(), all.len());
        let only = select(&names(&["bandwidth", "latency"]), &[]).unwrap();
        assert_eq!(
            only.iter().map(|info| info.name).collect::<Vec<_>>(),
            vec!["latency", "bandwidth"]
        );
        let skipped = select(&[], &names(&["latency"])).unwrap();
        assert!(skipped.iter().all(|info| info.name != "latency"));
        assert_eq!(
            select(&names(&["latency"]), &names(&["latency"])),
            Err(SelectionError::Nothing)
        );
    }

    #[test]
    fn unknown_names_list_the_valid_ones() {
        let error = select(&names(&["latncy"]), &[]).unwrap_err().to_string();
        assert!(
            error.contains("'latncy'") && error.contains("latency, bandwidth"),
            "{error}"
        );
        assert!(select(&[], &names(&["nope"])).is_err());
    }

    #[test]
    fn every_benchmark_is_described() {
        for info in registry() {
            assert!(
                info.description.len() > 200,
                "{} needs a real paragraph",
                info.name
            );
        }
    }
}
