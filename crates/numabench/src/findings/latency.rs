//! Latency findings: the idle latency of each cache level and of memory
//! (the `latency` sweep, each size's `cache_level`, checked against the
//! measured plateaus: a declared level whose latency is memory's is said
//! to be so), and memory latency local against remote over every pair of
//! CPU nodes (`matrix-latency`).

use super::figures::{coverage_text, figure, figure_span, local_and_remote, matrix, of, span};
use super::{factor_range, FindingKind, Sentence};
use crate::output::{Record, Unit};
use crate::topology::levels::{standing_for_level, MEMORY};
use crate::units::format_bytes;
use numabench_schema::benchmark;
use numabench_schema::params::findings::{IdleLatencyParams, MemoryLatencyParams};
use numabench_schema::params::to_params;
use serde_json::json;

/// One level's figure in the sweep.
#[derive(Debug, Clone, PartialEq)]
struct Level {
    /// The record's `cache_level`: `L1`, ..., `memory-side cache`, `memory`.
    name: String,
    ns: f64,
    size: u64,
    /// The level's declared capacity (`cache_level_bytes`; none for memory).
    declared: Option<u64>,
}

/// A cache level whose latency is within this fraction of memory's is
/// measured as memory: the caches and DRAM are several times apart, while
/// a figure repeats within about 1%.
const SAME_AS_MEMORY: f64 = 0.15;

/// Per level of one CPU's sweep (each size's `cache_level`, smallest
/// first), the figure of the size standing for it
/// ([`standing_for_level`]: a cache's middle size, memory's largest).
fn levels(records: &[Record]) -> Vec<Level> {
    let mut sweep: Vec<&Record> = of(records, benchmark::LATENCY, "latency")
        .filter(|record| record.typed_params().cache_level().is_some())
        .collect();
    // One CPU's sweep: the first record's.
    let cpu = sweep.first().and_then(|record| record.typed_params().cpu());
    sweep.retain(|record| record.typed_params().cpu() == cpu);
    sweep.sort_by_key(|record| record.typed_params().size_bytes());
    let mut groups: Vec<(String, Vec<&Record>)> = Vec::new();
    for record in sweep {
        let level = record.typed_params().cache_level().unwrap_or_default();
        match groups.iter_mut().find(|(seen, _)| seen == level) {
            Some((_, members)) => members.push(record),
            None => groups.push((level.to_string(), vec![record])),
        }
    }
    groups
        .into_iter()
        .filter_map(|(name, members)| {
            let sizes: Vec<u64> = members
                .iter()
                .map(|record| record.typed_params().size_bytes().unwrap_or(0))
                .collect();
            let size = standing_for_level(name == MEMORY, &sizes)?;
            let chosen = members[sizes.iter().position(|&of| of == size)?];
            Some(Level {
                ns: chosen.value,
                size: chosen.typed_params().size_bytes().unwrap_or(0),
                declared: chosen
                    .params
                    .get("cache_level_bytes")
                    .and_then(serde_json::Value::as_u64),
                name,
            })
        })
        .collect()
}

/// The CPU cache levels whose measured latency is already memory's
/// (within [`SAME_AS_MEMORY`]): the declared size says the level holds the
/// working set, the plateau says it does not (a hypervisor declares its
/// own cache sizes, not the hardware's). A memory-side cache is left out:
/// its latency may well be memory's (KNL's MCDRAM), its gain is bandwidth.
fn measured_as_memory(levels: &[Level]) -> Vec<&Level> {
    let Some(memory) = levels.iter().find(|level| level.name == MEMORY) else {
        return Vec::new();
    };
    levels
        .iter()
        .filter(|level| level.name.starts_with('L') && level.size < memory.size)
        .filter(|level| (level.ns / memory.ns - 1.0).abs() <= SAME_AS_MEMORY)
        .collect()
}

/// The idle-latency finding: each level's figure, the levels that measure
/// as memory named apart with their declared size.
fn idle_latency(records: &[Record], levels: &[Level]) -> Option<Sentence> {
    let memory = levels.last()?;
    let cpu = of(records, benchmark::LATENCY, "latency")
        .find_map(|record| record.typed_params().cpu())
        .unwrap_or(0);
    let as_memory = measured_as_memory(levels);
    let parts: Vec<String> = levels
        .iter()
        .filter(|level| !as_memory.contains(level))
        .map(|level| format!("{} {}", level.name, figure(level.ns, "ns")))
        .collect();
    let mut params = IdleLatencyParams {
        cpu: Some(cpu),
        ..Default::default()
    };
    for level in levels {
        let name = level.name.replace([' ', '-'], "_").to_lowercase();
        params.levels.insert(format!("{name}_ns"), json!(level.ns));
        params
            .levels
            .insert(format!("{name}_size_bytes"), json!(level.size));
    }
    let mut text = format!("idle latency from CPU {cpu}: {}", parts.join(", "));
    if !as_memory.is_empty() {
        let disagreements: Vec<String> = as_memory
            .iter()
            .map(|level| {
                let declared = level
                    .declared
                    .map(|bytes| format!(" declared {}", format_bytes(bytes)))
                    .unwrap_or_default();
                format!(
                    "{}{declared}, but at {} latency is already memory's ({} against {})",
                    level.name,
                    format_bytes(level.size),
                    figure(level.ns, "ns"),
                    figure(memory.ns, "ns")
                )
            })
            .collect();
        text.push_str(&format!(
            "; {}: the declared cache sizes are not the hardware's (a hypervisor's need not be)",
            disagreements.join("; ")
        ));
        params.measured_as_memory =
            Some(as_memory.iter().map(|level| level.name.clone()).collect());
    }
    Some(Sentence {
        kind: FindingKind::IdleLatency,
        text,
        value: memory.ns,
        unit: Unit::Nanoseconds,
        params: to_params(&params),
    })
}

pub(super) fn sentences(records: &[Record]) -> Vec<Sentence> {
    let mut sentences = Vec::new();
    sentences.extend(idle_latency(records, &levels(records)));
    let latency = matrix(records, benchmark::MATRIX_LATENCY, "latency");
    let (local, remote) = local_and_remote(&latency);
    if let (Some(local_span), Some(remote_span)) = (
        span(local.iter().map(|cell| cell.2)),
        span(remote.iter().map(|cell| cell.2)),
    ) {
        let ratios: Vec<(u64, u64, f64)> = remote
            .iter()
            .filter_map(|&(row, column, value)| {
                let own = latency.get(&(row, row))?;
                Some((row, column, value / own))
            })
            .collect();
        let worst = ratios
            .iter()
            .copied()
            .reduce(|a, b| if b.2 > a.2 { b } else { a });
        let values: Vec<f64> = ratios.iter().map(|cell| cell.2).collect();
        let mut text = format!(
            "memory latency: local {}, remote {}",
            figure_span(local_span, "ns"),
            figure_span(remote_span, "ns")
        );
        if let Some((row, column, ratio)) = worst {
            text.push_str(&format!(
                " ({} local; worst node {row}'s CPUs reading node {column}{})",
                factor_range(&values),
                coverage_text(records, benchmark::MATRIX_LATENCY, "latency")
            ));
            // The worst ratio's 95% interval, from its two cells' repetitions.
            let cells =
                super::figures::matrix_records(records, benchmark::MATRIX_LATENCY, "latency");
            let error = |cell: (u64, u64)| {
                cells
                    .get(&cell)
                    .map_or(0.0, |r| super::noise::median_error(r))
            };
            let ci95 = 1.96 * (error((row, column)).powi(2) + error((row, row)).powi(2)).sqrt();
            let params = to_params(&MemoryLatencyParams {
                local_ns: Some([local_span.0, local_span.1]),
                remote_ns: Some([remote_span.0, remote_span.1]),
                worst_cpu_node: Some(row),
                worst_mem_node: Some(column),
                value_is: Some("worst remote latency over local".into()),
                ci95_rel: Some(ci95),
            });
            sentences.push(Sentence {
                kind: FindingKind::MemoryLatency,
                text,
                value: ratio,
                unit: Unit::Ratio,
                params,
            });
        }
    }
    sentences
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Placement;
    use crate::stats::Sample;
    use numabench_schema::params::key;
    use serde_json::Map;

    /// A `latency` record of CPU 0 as characterize makes it: its
    /// `cache_level` and `cache_level_bytes` from `topology`'s rule.
    fn chase(topology: &crate::topology::Machine, size: u64, ns: f64) -> Record {
        let mut params = Map::new();
        params.insert(key::SIZE_BYTES.into(), json!(size));
        params.insert(key::CPU.into(), json!(0));
        crate::bench::insert_cache_params(topology, size, &[0], &[0], &mut params);
        Record {
            benchmark: "latency".into(),
            metric: "latency".into(),
            value: ns,
            unit: Unit::Nanoseconds,
            params,
            placement: Placement::default(),
            stats: Sample::new([ns]).unwrap().summary(),
        }
    }

    /// This project's build VM as its hypervisor declares it.
    fn declared_480m_l3() -> crate::topology::Machine {
        crate::topology::synthetic(
            "pack:1 [numa(memory=64GiB)] l3:1(size=480MiB) l2:1(size=2MiB) l1d:1(size=48KiB) core:1 pu:1",
        )
    }

    /// The idle-latency finding of a sweep of `(size, ns)` on that host.
    fn idle_latency_of(sweep: &[(u64, f64)]) -> Sentence {
        let topology = declared_480m_l3();
        let records: Vec<Record> = sweep
            .iter()
            .map(|&(size, ns)| chase(&topology, size, ns))
            .collect();
        sentences(&records).remove(0)
    }

    /// The sweep `scripts/run` measured there, at characterize's former
    /// sizes: 32 KiB read at 1.23 ns (5 cycles, the L1's) was quoted as
    /// "L2", and 512 KiB's 10.8 ns as "L3".
    #[test]
    fn a_working_set_inside_the_l1d_is_quoted_as_l1() {
        let sentence = idle_latency_of(&[
            (32 << 10, 1.23),
            (128 << 10, 4.1),
            (512 << 10, 10.8),
            (2 << 20, 14.0),
            (8 << 20, 60.0),
            (2 << 30, 101.0),
        ]);
        assert!(
            sentence
                .text
                .starts_with("idle latency from CPU 0: L1 1.23 ns, L2 "),
            "{}",
            sentence.text
        );
        assert_eq!(sentence.params["l1_size_bytes"], json!(32 << 10));
        // Of L2's sizes (64 KiB to 2 MiB) the middle one, not the first.
        assert_eq!(sentence.params["l2_size_bytes"], json!(512 << 10));
    }

    /// Where the latency at a size the declared sizes call L3 is already
    /// memory's (97 ns against 101: the host, whose hypervisor
    /// declares a 480 MiB L3), the finding quotes no "L3" figure and says
    /// that the declared size and the plateau disagree.
    #[test]
    fn a_declared_level_measured_as_memory_is_said_to_be() {
        let sentence = idle_latency_of(&[
            (24 << 10, 1.23),
            (312 << 10, 4.2),
            (31 << 20, 97.0),
            (2 << 30, 101.0),
        ]);
        crate::findings::assert_wire(std::slice::from_ref(&sentence), &[
            "idle_latency {\"cpu\":0,\"l1_ns\":1.23,\"l1_size_bytes\":24576,\"l2_ns\":4.2,\"l2_size_bytes\":319488,\"l3_ns\":97.0,\"l3_size_bytes\":32505856,\"memory_ns\":101.0,\"memory_size_bytes\":2147483648,\"measured_as_memory\":[\"L3\"]}",
        ]);
        assert_eq!(
            sentence.text,
            "idle latency from CPU 0: L1 1.23 ns, L2 4.20 ns, memory 101 ns; L3 declared \
             480 MiB, but at 31 MiB latency is already memory's (97.0 ns against 101 ns): the \
             declared cache sizes are not the hardware's (a hypervisor's need not be)"
        );
        assert_eq!(sentence.params["measured_as_memory"], json!(["L3"]));
        assert_eq!(sentence.params["l3_ns"], json!(97.0));
        assert_eq!(sentence.value, 101.0);
    }

    /// An L3 well below memory's latency is quoted as declared.
    #[test]
    fn levels_that_plateau_below_memory_are_quoted() {
        let sentence = idle_latency_of(&[
            (24 << 10, 1.23),
            (312 << 10, 4.2),
            (31 << 20, 40.0),
            (2 << 30, 101.0),
        ]);
        assert_eq!(
            sentence.text,
            "idle latency from CPU 0: L1 1.23 ns, L2 4.20 ns, L3 40.0 ns, memory 101 ns"
        );
        assert!(!sentence.params.contains_key("measured_as_memory"));
    }
}
