//! "Tail latency per tier": the percentiles of load latency (`params.tail`
//! of `latency`, `matrix latency` and `loaded-latency` records) per memory
//! node, idle and loaded, as one table (memory-level working sets only:
//! a tier's tail, not a cache's), then the loaded tails against the
//! traffic: p99 per node and mix.

use super::{section, Section};
use crate::output::ReadRecord;
use crate::report::html::{self, figure, Table};
use crate::report::load::Dataset;
use crate::report::plot::{lines, Series};
use numabench_schema::benchmark;
use numabench_schema::params::{LatencyParams, LoadedLatencyParams, MatrixCellParams, TailParams};
use std::collections::BTreeMap;

/// The benchmarks whose records carry a tail.
pub const BENCHMARKS: &[&str] = &[
    benchmark::LATENCY,
    benchmark::MATRIX_LATENCY,
    benchmark::LOADED_LATENCY,
];

/// What this section reads of a record, through its benchmark's type:
/// the tail, the cache level, the nodes and a loaded point's load.
struct TailRead {
    tail: Option<TailParams>,
    cache_level: Option<String>,
    cpu_node: Option<u32>,
    /// A matrix cell's memory node.
    mem_node: Option<u32>,
    /// A `loaded-latency` point's params.
    loaded: Option<LoadedLatencyParams>,
}

impl TailRead {
    fn of(r: &ReadRecord) -> TailRead {
        if r.benchmark == benchmark::LOADED_LATENCY {
            let loaded: LoadedLatencyParams = r.params_or_default();
            return TailRead {
                tail: loaded.tail.clone(),
                cache_level: loaded.cache.cache_level.clone(),
                cpu_node: loaded.cpu_node,
                mem_node: None,
                loaded: Some(loaded),
            };
        }
        let latency: LatencyParams = r.params_or_default();
        let cell: MatrixCellParams = match r.benchmark.as_str() {
            benchmark::MATRIX_LATENCY => r.params_or_default(),
            _ => MatrixCellParams::default(),
        };
        TailRead {
            tail: latency.tail,
            cache_level: latency.working_set.cache.cache_level,
            cpu_node: cell.cpu_node.or(latency.cpu_node),
            mem_node: cell.mem_node,
            loaded: None,
        }
    }

    /// The generators' traffic of a loaded point, GB/s.
    fn traffic(&self) -> Option<f64> {
        self.loaded.as_ref()?.traffic_gbs
    }

    /// A loaded point's traffic mix.
    fn mix(&self) -> String {
        let mix = self.loaded.as_ref().and_then(|loaded| loaded.mix.clone());
        mix.unwrap_or_else(|| "?".into())
    }

    /// The idle point of a loaded-latency curve (its delay written as null).
    fn idle(&self) -> bool {
        self.loaded
            .as_ref()
            .is_some_and(|loaded| loaded.delay.is_none())
    }
}

/// `shows`: the records whose tail this section tables or draws (their
/// own sections draw them too): the ns latencies of memory-level working
/// sets, and every loaded-latency point.
pub fn shows(r: &ReadRecord) -> bool {
    let read = TailRead::of(r);
    let memory_level = read.cache_level.as_deref() == Some("memory");
    read.tail.is_some()
        && match r.benchmark.as_str() {
            benchmark::LATENCY | benchmark::MATRIX_LATENCY => r.metric == "latency" && memory_level,
            benchmark::LOADED_LATENCY => r.metric == "loaded_latency",
            _ => false,
        }
}

/// The node most of a record's pages were on (a matrix cell's `mem_node`
/// first).
fn memory_node(r: &ReadRecord) -> Option<u64> {
    if let Some(node) = TailRead::of(r).mem_node {
        return Some(u64::from(node));
    }
    let verified = r.placement.verified.as_ref()?;
    verified
        .pages_per_node
        .iter()
        .max_by_key(|(_, pages)| **pages)
        .map(|(node, _)| u64::from(*node))
}

/// A record's tail percentile that `figure` picks, ns.
fn tail_figure(r: &ReadRecord, figure: fn(&TailParams) -> f64) -> Option<f64> {
    TailRead::of(r).tail.as_ref().map(figure)
}

/// A tier's tail: memory-level latency records and the loaded-latency
/// points (the idle point and the heaviest load of each mix).
fn rows(data: &Dataset) -> Vec<(&ReadRecord, String)> {
    let mut rows: Vec<(&ReadRecord, String)> = Vec::new();
    for r in data.records.iter().filter(|r| shows(r)) {
        if r.benchmark != benchmark::LOADED_LATENCY {
            rows.push((r, "idle".into()));
        }
    }
    // Per file, node and mix: the idle point and the heaviest load.
    let mut loaded: BTreeMap<(String, Option<u64>, String), Vec<&ReadRecord>> = BTreeMap::new();
    for r in data
        .of(benchmark::LOADED_LATENCY)
        .filter(|r| shows(r) && r.metric == "loaded_latency")
    {
        let mix = TailRead::of(r).mix();
        loaded
            .entry((r.file.clone(), memory_node(r), mix))
            .or_default()
            .push(r);
    }
    for ((_, _, mix), points) in loaded {
        let idle = points.iter().find(|r| TailRead::of(r).idle());
        let traffic = |r: &ReadRecord| TailRead::of(r).traffic().unwrap_or(0.0);
        let heaviest = points
            .iter()
            .filter(|r| !TailRead::of(r).idle())
            .max_by(|a, b| traffic(a).total_cmp(&traffic(b)));
        if let Some(idle) = idle {
            rows.push((idle, "idle (loaded-latency)".into()));
        }
        if let Some(heaviest) = heaviest {
            let traffic = traffic(heaviest);
            rows.push((heaviest, format!("{mix} at {} GB/s", html::number(traffic))));
        }
    }
    rows
}

/// p99 (ns) against the traffic (GB/s), one curve per file, node and mix.
pub fn loaded_tail_curves(data: &Dataset) -> Vec<Series> {
    super::curves_of(
        data.of(benchmark::LOADED_LATENCY).filter(|r| shows(r)),
        |r| Some((TailRead::of(r).traffic()?, tail_figure(r, |t| t.p99)?)),
        |r| {
            let node = memory_node(r).map_or("?".into(), |node| node.to_string());
            let mix = TailRead::of(r).mix();
            format!("node {node}, mix {mix} ({})", r.file)
        },
    )
}

pub fn build(data: &Dataset) -> Option<Section> {
    let rows = rows(data);
    let curves = loaded_tail_curves(data);
    if rows.is_empty() && curves.is_empty() {
        return None;
    }
    let mut body = String::new();
    if !rows.is_empty() {
        let mut table = Table::new(&[
            "memory node",
            "from CPU node",
            "load",
            "p50 ns",
            "p90 ns",
            "p99 ns",
            "p99.9 ns",
            "max ns",
            "batches",
            "file",
        ]);
        for (r, load) in &rows {
            let read = TailRead::of(r);
            let figure = |pick: fn(&TailParams) -> f64| {
                read.tail
                    .as_ref()
                    .map(pick)
                    .map_or("-".into(), html::number)
            };
            let node = |value: Option<u64>| value.map_or("-".into(), |node| node.to_string());
            table.push(vec![
                node(memory_node(r)),
                node(read.cpu_node.map(u64::from)),
                load.clone(),
                figure(|t| t.p50),
                figure(|t| t.p90),
                figure(|t| t.p99),
                figure(|t| t.p999),
                figure(|t| t.max),
                figure(|t| t.batches as f64),
                r.file.clone(),
            ]);
        }
        body.push_str("<p>Percentiles of the mean load latency of small batches of dependent loads, each batch timed on its own (the method, timer and overhead subtracted are in each record's <code>params.tail</code>); memory-level working sets, idle and under the heaviest load of each traffic mix.</p>");
        body.push_str(&table.to_html());
    }
    if !curves.is_empty() {
        let svg = lines(
            &curves,
            "traffic bandwidth (GB/s)",
            "p99 load latency (ns)",
            false,
            &[],
        );
        body.push_str(&figure(
            &svg,
            "The 99th percentile of load latency while the other cores generate traffic, one curve per memory node and mix (the idle point at the lowest bandwidth).",
            &super::curves_table(&curves, "traffic (GB/s)", "p99 (ns)"),
        ));
    }
    Some(section(
        "tails",
        "Tail latency per tier, idle and loaded",
        body,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sections::tests::{lines as dataset, record};

    const TAIL: &str =
        r#""tail":{"p50":90,"p90":110,"p99":200,"p99_9":400,"max":900,"batches":4096}"#;

    /// A record line whose pages were all found on node 2 (a
    /// loaded-latency point names its node by where its pages were).
    fn on_node_2(line: String) -> String {
        line.replace(
            r#""verified":null"#,
            r#""verified":{"pages":8,"pages_per_node":{"2":8},"fraction_as_requested":1.0,"achieved":true}"#,
        )
    }

    #[test]
    fn each_tier_gets_its_idle_and_loaded_tails() {
        let data = dataset(&[
            record(
                "latency",
                "latency",
                95.0,
                "ns",
                &format!(r#"{{"mem_node":2,"cpu_node":0,"cache_level":"memory",{TAIL}}}"#),
            ),
            // A cache-level working set: not a tier's tail.
            record(
                "latency",
                "latency",
                4.0,
                "ns",
                &format!(r#"{{"mem_node":0,"cpu_node":0,"cache_level":"L1",{TAIL}}}"#),
            ),
            on_node_2(record(
                "loaded-latency",
                "loaded_latency",
                100.0,
                "ns",
                &format!(r#"{{"delay":null,"mix":"reads","traffic_gbs":0.0,{TAIL}}}"#),
            )),
            on_node_2(record(
                "loaded-latency",
                "loaded_latency",
                150.0,
                "ns",
                &format!(r#"{{"delay":100,"mix":"reads","traffic_gbs":5.0,{TAIL}}}"#),
            )),
            on_node_2(record(
                "loaded-latency",
                "loaded_latency",
                250.0,
                "ns",
                &format!(r#"{{"delay":0,"mix":"reads","traffic_gbs":9.5,{TAIL}}}"#),
            )),
        ]);
        let found = rows(&data);
        let loads: Vec<&str> = found.iter().map(|(_, load)| load.as_str()).collect();
        assert_eq!(
            loads,
            ["idle", "idle (loaded-latency)", "reads at 9.5 GB/s"]
        );
        let curves = loaded_tail_curves(&data);
        assert_eq!(curves.len(), 1);
        assert_eq!(curves[0].points.len(), 3);
        assert!(curves[0].label.starts_with("node 2, mix reads"));
        let section = build(&data).unwrap();
        assert!(section.body.contains("p99.9 ns"), "{}", section.body);
    }

    #[test]
    fn records_without_a_tail_make_no_section() {
        let data = dataset(&[record(
            "latency",
            "latency",
            95.0,
            "ns",
            r#"{"mem_node":0,"cache_level":"memory"}"#,
        )]);
        assert!(build(&data).is_none());
    }
}
