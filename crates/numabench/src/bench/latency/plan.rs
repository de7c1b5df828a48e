//! latency's plan: its `characterize` steps, the steps of its command,
//! and what `--plan` and a time budget read of its work ([`Planned`]).

use super::measure::*;
use crate::bench::characterize::{Defaults, Steps, CHARACTERIZE_ORDER};
use crate::bench::context::Context;
use crate::bench::estimate::Cost;
use crate::bench::plan::Facts;
use crate::bench::step::{Planned, Step};
use crate::kernels::ChaseOrder;
use crate::memory::{MemoryPlacement, PAGE_SIZE};
use crate::topology::Machine;
use crate::units::format_bytes;

/// Latency sizes for characterize: one well inside each level that
/// `cpu` reading the memory of `node` sees ([`Machine::inside_each_level`]:
/// half the L1, then the geometric middle between each level and the one
/// below), then the DRAM working set `dram`. A topology that declares no
/// cache gets half of an assumed 32 KiB L1.
fn latency_sizes(topology: &Machine, cpu: u32, node: u32, dram: u64) -> Vec<u64> {
    let mut sizes: Vec<u64> = topology
        .inside_each_level(&[cpu], &[node])
        .into_iter()
        .map(|size| size.max(PAGE_SIZE as u64))
        .filter(|&size| size < dram)
        .collect();
    if topology.holding_levels(&[cpu], &[node]).is_empty() {
        sizes.push(16 << 10);
    }
    sizes.dedup();
    sizes.push(dram);
    sizes
}

/// `latency`: one step per size, one well inside each cache level, then
/// DRAM.
pub(in crate::bench) fn characterize(d: &Defaults, steps: &mut Steps) {
    for size in latency_sizes(d.topology, d.first_cpu, d.first_node, d.dram) {
        let config = LatencyConfig {
            sizes: vec![size],
            cpu: d.first_cpu,
            memory: MemoryPlacement::bind(d.first_node),
            order: ChaseOrder::default(),
            writer_cpu: None,
        };
        steps.push(
            format!("latency {}", crate::units::format_bytes(size)),
            config,
            CHARACTERIZE_ORDER,
        );
    }
}

impl Step {
    /// A latency run of every size of `config`, in order.
    pub fn latency(config: LatencyConfig) -> Self {
        let sizes: Vec<String> = config.sizes.iter().map(|&s| format_bytes(s)).collect();
        let label = format!("latency {}", sizes.join(", "));
        Self::of("latency", label, config)
    }
}

impl Planned for LatencyConfig {
    fn facts(&self, _: &Machine, _: &Context) -> Facts {
        Facts::new(
            1,
            vec![self.cpu],
            self.memory.expected_nodes(),
            self.sizes.clone(),
            self.sizes
                .iter()
                .map(|&bytes| Cost::Chase { bytes, count: 1 })
                .collect(),
        )
    }

    fn working_sets(&mut self) -> Vec<&mut u64> {
        self.sizes.iter_mut().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::fixture_tests::load;

    /// Every fixture's name (`tests/fixtures/<name>.xml`).
    fn fixtures() -> Vec<String> {
        let folder = format!("{}/tests/fixtures", env!("CARGO_MANIFEST_DIR"));
        let mut names: Vec<String> = std::fs::read_dir(folder)
            .unwrap()
            .filter_map(|entry| {
                let name = entry.unwrap().file_name().into_string().unwrap();
                name.strip_suffix(".xml").map(str::to_string)
            })
            .collect();
        names.sort();
        assert!(names.len() >= 10, "{names:?}");
        names
    }

    /// Characterize's sizes on every fixture: one per level the first CPU
    /// sees, each named by that level (the one rule records and tables
    /// use) and at least twice as far from either of its boundaries, then
    /// the DRAM working set. The former sizes (x4 from the power of two
    /// above half the L1) left levels out and put sizes on boundaries.
    #[test]
    fn one_size_well_inside_each_level_then_dram_on_every_fixture() {
        for name in fixtures() {
            let topology = load(&name);
            let d = Defaults::new(&topology);
            let sizes = latency_sizes(&topology, d.first_cpu, d.first_node, d.dram);
            let levels = topology.holding_levels(&[d.first_cpu], &[d.first_node]);
            assert_eq!(sizes.len(), levels.len() + 1, "{name}: {sizes:?}");
            assert_eq!(sizes.last(), Some(&d.dram), "{name}");
            let mut below = 0;
            for (size, level) in sizes.iter().zip(&levels) {
                let named = topology.cache_level_holding(*size, &[d.first_cpu], &[d.first_node]);
                assert_eq!(named, level.name, "{name}: {size}");
                assert!(2 * size <= level.bytes, "{name}: {size} in {level:?}");
                assert!(*size >= 2 * below, "{name}: {size} above {below}");
                below = level.bytes;
            }
        }
    }

    /// On a host declaring L1d 48 KiB, L2 2 MiB and L3 480 MiB the summary
    /// quoted 32 KiB as "L2"; the sizes are now 24 KiB, the middles and DRAM.
    #[test]
    fn a_48k_l1d_is_measured_at_24k() {
        let topology = crate::topology::synthetic(
            "pack:1 [numa(memory=64GiB)] l3:1(size=480MiB) l2:1(size=2MiB) l1d:1(size=48KiB) core:1 pu:1",
        );
        let d = Defaults::new(&topology);
        let sizes = latency_sizes(&topology, d.first_cpu, d.first_node, d.dram);
        assert_eq!(sizes.len(), 4, "{sizes:?}");
        assert_eq!(sizes[0], 24 << 10);
        assert_eq!(topology.cache_level_holding(sizes[1], &[0], &[0]), "L2");
        assert_eq!(topology.cache_level_holding(sizes[2], &[0], &[0]), "L3");
        assert_eq!(topology.cache_level_holding(sizes[3], &[0], &[0]), "memory");
    }

    /// A topology that declares no cache still measures one cache size.
    #[test]
    fn without_declared_caches_half_an_assumed_l1() {
        let topology = crate::topology::synthetic("pack:1 [numa(memory=8GiB)] core:1 pu:1");
        let d = Defaults::new(&topology);
        assert_eq!(
            latency_sizes(&topology, d.first_cpu, d.first_node, d.dram),
            [16 << 10, d.dram]
        );
    }
}
