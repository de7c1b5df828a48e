//! The report's section kinds, one file each, and the shared helpers a
//! benchmark's own section (`bench/<name>/report.rs`) builds with. A
//! benchmark's section is listed in its registry entry; the other kinds
//! (findings, metadata, applications, studies) are listed here
//! ([`kinds`]). Each kind names the benchmarks it draws and `shows`,
//! which of their records it draws or tables. Every record is either shown by a kind that claims its benchmark
//! or listed under "Other records" ([`accounted`]); a test holds every
//! fixture to that.

pub mod apps;
pub mod cluster;
pub mod doctor;
pub mod findings;
pub mod hmat;
pub mod hosts;
pub mod matrix;
pub mod matrix_ratio;
pub mod meta;
pub mod observe;
pub mod other;
pub mod record_table;
pub mod run;
pub mod tables;
pub mod tails;
#[cfg(test)]
pub(crate) mod tests;

use super::html::{self, Table};
use super::load::Dataset;
use super::plot::Series;
use super::Section;
use crate::output::ReadRecord;
use numabench_schema::benchmark;
pub use record_table::records_table;
use std::collections::BTreeMap;

/// A kind of section: the benchmarks whose records it shows and its builder.
#[derive(Debug, Clone, Copy)]
pub struct SectionKind {
    pub benchmarks: &'static [&'static str],
    pub build: fn(&Dataset) -> Option<Section>,
    /// Which records of those benchmarks it draws or tables.
    pub shows: fn(&ReadRecord) -> bool,
}

/// `shows` of a kind that draws or tables every record of its benchmarks.
pub fn every(_: &ReadRecord) -> bool {
    true
}

/// `shows` of the latency, matrix and per-CPU kinds: they draw the ns
/// figures; `latency_cycles` (the same chase in TSC ticks) goes to
/// "Other records".
pub fn not_cycles(r: &ReadRecord) -> bool {
    r.metric != "latency_cycles"
}

/// `shows` of the interference kind: it draws the matrix (the
/// `latency_ratio` and `bandwidth_ratio` cells); each measurement behind
/// it goes to "Other records".
pub fn interference_matrix(r: &ReadRecord) -> bool {
    r.metric.ends_with("_ratio")
}

/// Whether some section kind claims `r`'s benchmark and shows `r`; the
/// rest are listed under "Other records".
pub fn shown(r: &ReadRecord) -> bool {
    kinds().any(|kind| kind.benchmarks.contains(&r.benchmark.as_str()) && (kind.shows)(r))
}

/// How the records of a dataset are accounted for: (shown by a section,
/// listed under "Other records"); their sum is every record.
pub fn accounted(data: &Dataset) -> (usize, usize) {
    let shown = data.records.iter().filter(|r| shown(r)).count();
    (shown, data.records.len() - shown)
}

/// The kinds before the benchmarks' sections: findings, the run's
/// metadata, the doctor's checks.
const LEADING: &[SectionKind] = &[
    SectionKind {
        benchmarks: &["summary"],
        build: findings::build,
        shows: every,
    },
    SectionKind {
        benchmarks: &[],
        build: meta::build,
        shows: every,
    },
    SectionKind {
        benchmarks: &[],
        build: doctor::build,
        shows: every,
    },
];

/// The kinds after the benchmarks' sections: applications, studies,
/// clusters, node health checks.
const TRAILING: &[SectionKind] = &[
    SectionKind {
        benchmarks: tails::BENCHMARKS,
        build: tails::build,
        shows: tails::shows,
    },
    SectionKind {
        benchmarks: &["stream", "cg", "mg"],
        build: apps::build,
        shows: every,
    },
    SectionKind {
        benchmarks: &["run"],
        build: run::build,
        shows: every,
    },
    SectionKind {
        benchmarks: &["cluster", "cluster-topo", "mpi-pingpong"],
        build: cluster::build,
        shows: every,
    },
    SectionKind {
        benchmarks: &[benchmark::INTERFERENCE],
        build: crate::bench::interference::report::build,
        shows: interference_matrix,
    },
    SectionKind {
        benchmarks: &[benchmark::SCAN],
        build: crate::bench::scan::report::build,
        shows: crate::bench::scan::report::shows,
    },
    SectionKind {
        benchmarks: &["overdecompose"],
        build: tables::overdecompose,
        shows: every,
    },
    SectionKind {
        benchmarks: &["mpi-monitor"],
        build: tables::mpi_monitor,
        shows: every,
    },
    SectionKind {
        benchmarks: &["check"],
        build: tables::check,
        shows: every,
    },
    SectionKind {
        benchmarks: &["cluster", "check", "mpi-monitor"],
        build: hosts::build,
        shows: hosts::shows,
    },
];

/// Every section kind, in page order: each registered benchmark's own
/// section (in registry order, the order `characterize` runs them)
/// between the leading and the trailing kinds.
pub fn kinds() -> impl Iterator<Item = SectionKind> {
    let benchmarks = crate::bench::registry()
        .iter()
        .filter_map(|info| info.report);
    LEADING
        .iter()
        .copied()
        .chain(benchmarks)
        .chain(TRAILING.iter().copied())
}

/// A section from its parts.
pub fn section(id: &str, heading: &str, body: String) -> Section {
    Section {
        id: id.to_string(),
        heading: heading.to_string(),
        body,
    }
}

/// Curves: records grouped by `label`, each point (`x` param, value),
/// sorted by x; records without the x parameter are left out.
pub fn curves<'a>(
    records: impl Iterator<Item = &'a ReadRecord>,
    x_key: &str,
    label: impl Fn(&ReadRecord) -> String,
) -> Vec<Series> {
    curves_of(records, |r| Some((r.num(x_key)?, r.value)), label)
}

/// Curves of the points `point` takes from records (records without one
/// are left out), grouped by `label`, each sorted by x.
pub fn curves_of<'a>(
    records: impl Iterator<Item = &'a ReadRecord>,
    point: impl Fn(&ReadRecord) -> Option<(f64, f64)>,
    label: impl Fn(&ReadRecord) -> String,
) -> Vec<Series> {
    let mut groups: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for r in records {
        if let Some(point) = point(r) {
            groups.entry(label(r)).or_default().push(point);
        }
    }
    groups
        .into_iter()
        .map(|(label, mut points)| {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series { label, points }
        })
        .collect()
}

/// The data of curves as a table: series, x, y.
pub fn curves_table(series: &[Series], x: &str, y: &str) -> Table {
    let mut table = Table::new(&["series", x, y]);
    for s in series {
        for (px, py) in &s.points {
            table.push(vec![s.label.clone(), html::number(*px), html::number(*py)]);
        }
    }
    table
}

/// Cache sizes to mark on size axes: from `topo --json` documents (the
/// first that lists caches), as (bytes, "L<level> <size>").
pub fn cache_marks(data: &Dataset) -> Vec<(f64, String)> {
    for (_, topology) in &data.topologies {
        let marks: Vec<(f64, String)> = topology
            .caches
            .iter()
            .filter(|c| c.cache_type != "instruction")
            .map(|c| {
                let size = c.size_bytes as f64;
                (size, format!("L{} {}", c.level, html::bytes(size)))
            })
            .collect();
        if !marks.is_empty() {
            return marks;
        }
    }
    Vec::new()
}

/// A text label for a record's memory placement (`bind:1`, `first-touch`).
pub fn memory_of(r: &ReadRecord) -> String {
    let requested = r.placement.requested_as();
    match (
        r.typed_params().mem_node(),
        requested
            .as_ref()
            .and_then(|requested| requested.memory_label()),
    ) {
        (Some(node), _) => format!("node {node}"),
        (None, Some(memory)) => memory.to_string(),
        _ => "memory ?".to_string(),
    }
}
