//! `mlp --threads N`: many threads chasing at once, each with k chains in
//! flight (the Opteron study's pChase, its Figures 11-12). Every thread has
//! its own DRAM-sized buffer, bound to its own node (local) or to one node
//! for all; the same threads run pinned to their CPUs and unpinned (the
//! scheduler places them), interleaved repetition by repetition, so the
//! only difference between the two is the pinning.
//!
//! Per k and pinning: the aggregate rate (loads of all threads and chains
//! per second, from the first thread's start to the last thread's end) and
//! the latency of one load (each chain's loads depend on each other, so a
//! chain advances one load per latency: a thread's time over its rounds).

use crate::bench::context::Context;
use crate::bench::error::BenchError;
use crate::bench::latency::{chase_order_params, chase_page_bytes};
use crate::bench::mlp::{advance, rounds_per_sample, spread_chains, LINE_BYTES, PROBE_ROUNDS};
use crate::bench::placed::PlacedBuffer;
use crate::interrupt::interrupted;
use crate::kernels::{build_chase, ChaseOrder};
use crate::memory::{MemoryPlacement, PlacementCheck};
use crate::output::{Pipeline, Placement, Record, Unit};
use crate::stats::Sample;
use crate::study::{Comparison, Schedule};
use crate::threads::{current_cpu, Pool};
use crate::topology::Machine;
use numabench_schema::params::{to_params, MlpParams, WorkingSetParams};
use numabench_schema::{RequestedMemory, RequestedPlacement};
use std::collections::BTreeMap;
use std::sync::{Barrier, Mutex};
use std::time::Instant;

/// Where each thread's buffer lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadMemory {
    /// On the node of the thread's CPU (the CPU it is pinned to).
    Local,
    /// Every buffer on this node.
    Node(u32),
}

/// Which pinnings run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pinning {
    Pinned,
    Unpinned,
    /// Both, interleaved: pinned against unpinned.
    Both,
}

impl Pinning {
    fn modes(self) -> &'static [bool] {
        match self {
            Pinning::Pinned => &[true],
            Pinning::Unpinned => &[false],
            Pinning::Both => &[true, false],
        }
    }
}

/// A validated many-threaded mlp run.
#[derive(Debug, Clone)]
pub struct MlpThreadsConfig {
    /// One thread per CPU; pinned runs pin thread i to `cpus[i]`.
    pub cpus: Vec<u32>,
    pub memory: ThreadMemory,
    /// Bytes of each thread's buffer.
    pub size: u64,
    pub order: ChaseOrder,
    /// Chains per thread, each value in 1..=16.
    pub chains: Vec<usize>,
    pub pinning: Pinning,
}

impl MlpThreadsConfig {
    /// The node of each thread's buffer.
    pub fn buffer_nodes_of(&self, topology: &Machine) -> Vec<u32> {
        self.cpus
            .iter()
            .map(|&cpu| match self.memory {
                ThreadMemory::Node(node) => node,
                ThreadMemory::Local => topology.node_of_cpu(cpu).unwrap_or(0),
            })
            .collect()
    }

    /// How many pinnings run (1, or 2 for pinned against unpinned).
    pub fn pinning_count(&self) -> usize {
        self.pinning.modes().len()
    }
}

/// Chain positions handed to one thread.
struct Positions(Vec<*const u64>);
// SAFETY: the positions point into a buffer that outlives every use
// (`Pool::run` returns only when all threads are done), and each set is
// used by exactly one thread at a time (behind its own slot's lock).
unsafe impl Send for Positions {}

/// One thread's run: its start and end, seconds chasing, CPU at start and end.
type ThreadOutcome = (Instant, Instant, f64, [u32; 2]);

/// One timed run of every thread.
struct RunResult {
    /// Loads of all threads and chains per second, first start to last end.
    aggregate_loads_per_second: f64,
    /// Mean over threads of the time of one load of a chain, ns.
    load_latency_ns: f64,
    /// Each thread's CPU at its start and at its end.
    cpus_seen: Vec<[u32; 2]>,
}

/// Runs `positions.len()` threads, each advancing its chains by `rounds`
/// from a common start barrier; pinned to `cpus` when `pinned`, else left
/// where the scheduler puts them (the threads of [`Pool`], the calling
/// thread the first, pinned before the work starts).
fn run_threads(
    cpus: &[u32],
    pinned: bool,
    positions: &mut [Positions],
    rounds: u64,
) -> Result<RunResult, BenchError> {
    let plan: Vec<Option<u32>> = cpus
        .iter()
        .take(positions.len())
        .map(|&cpu| pinned.then_some(cpu))
        .collect();
    let pool = Pool::new(plan)?;
    let barrier = Barrier::new(pool.threads());
    // One slot per thread: its chains in, its outcome out.
    let slots: Vec<Mutex<(&mut Positions, Option<ThreadOutcome>)>> = positions
        .iter_mut()
        .take(pool.threads())
        .map(|chains| Mutex::new((chains, None)))
        .collect();
    pool.run(|index| {
        let mut slot = slots[index].lock().expect("mlp slot");
        barrier.wait();
        let first_cpu = current_cpu();
        let began = Instant::now();
        // SAFETY: the positions point into this thread's live, unmodified chain.
        let seconds = unsafe { advance(&mut slot.0 .0, rounds) };
        let ended = Instant::now();
        slot.1 = Some((began, ended, seconds, [first_cpu, current_cpu()]));
    });
    drop(pool);
    let outcomes: Vec<ThreadOutcome> = slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .expect("mlp slot")
                .1
                .expect("every thread ran")
        })
        .collect();
    let first = outcomes.iter().map(|o| o.0).min().expect("threads");
    let last = outcomes.iter().map(|o| o.1).max().expect("threads");
    let wall = last.duration_since(first).as_secs_f64().max(1e-9);
    let chains_per_thread = positions[0].0.len() as f64;
    let loads = outcomes.len() as f64 * chains_per_thread * rounds as f64;
    Ok(RunResult {
        aggregate_loads_per_second: loads / wall,
        load_latency_ns: outcomes.iter().map(|o| o.2).sum::<f64>() * 1e9
            / (outcomes.len() as f64 * rounds as f64),
        cpus_seen: outcomes.iter().map(|o| o.3).collect(),
    })
}

/// The placement checks of all buffers as one: pages summed per node, the
/// fraction as requested over all pages, achieved when every buffer was.
pub(crate) fn combined_check(checks: &[PlacementCheck]) -> PlacementCheck {
    let pages: u64 = checks.iter().map(|c| c.pages).sum();
    let mut pages_per_node = BTreeMap::new();
    for check in checks {
        for (&node, &count) in &check.pages_per_node {
            *pages_per_node.entry(node).or_insert(0) += count;
        }
    }
    let as_requested: f64 = checks
        .iter()
        .map(|c| c.fraction_as_requested * c.pages as f64)
        .sum();
    PlacementCheck {
        moved: None,
        pages,
        pages_per_node,
        fraction_as_requested: PlacementCheck::fraction(as_requested, pages),
        achieved: checks.iter().all(|c| c.achieved),
        huge_pages: crate::memory::HugePageCheck::combine(
            checks.iter().filter_map(|c| c.huge_pages.as_ref()),
        ),
    }
}

/// Measures and emits, per k and pinning, `aggregate_loads` (Mop/s) and
/// `load_latency` (ns) records over the repetitions; with both pinnings,
/// a `pinned_over_unpinned` record per k (ratio of median rates, with a
/// Mann-Whitney p-value).
pub fn run_mlp_threads(
    context: &Context,
    config: &MlpThreadsConfig,
    pipeline: &mut Pipeline,
) -> Result<(), BenchError> {
    let repeat = context.repeat.max(1);
    let size = config.size;
    let block = config.order.block(size, chase_page_bytes(context));
    let nodes = config.buffer_nodes_of(&context.topology);
    let max_chains = config.chains.iter().copied().max().unwrap_or(1);
    let lines = (size / LINE_BYTES).max(2);
    // Each buffer bound to its node, so its pages are there whoever touches
    // them: pinned and unpinned runs read the same memory.
    let mut buffers = Vec::new();
    let mut checks = Vec::new();
    let mut chain_sets = Vec::new();
    for &node in &nodes {
        let mut placed = PlacedBuffer::allocate(
            &context.topology,
            size as usize,
            MemoryPlacement::bind(node),
            context.hugepages,
        )?;
        let start = build_chase(
            placed.buffer.words_mut(),
            LINE_BYTES as usize,
            block.bytes as usize,
            0x3117 ^ node as u64,
        );
        checks.push(placed.verify(context.placement_threshold)?);
        // SAFETY: `start` indexes the chain just built; the buffer lives in `buffers` below.
        let chains = unsafe {
            spread_chains(
                placed.buffer.words().as_ptr().add(start),
                lines,
                max_chains.min(lines as usize),
            )
        };
        chain_sets.push(chains);
        buffers.push(placed);
    }
    let check = combined_check(&checks);
    let modes = config.pinning.modes();
    for &k in &config.chains {
        if interrupted() {
            break;
        }
        let k = k.min(lines as usize);
        let mut positions: Vec<Positions> = chain_sets
            .iter()
            .map(|chains| Positions(chains[k - 1].clone()))
            .collect();
        // Size the samples on the first thread's chains (this also warms them).
        // SAFETY: the positions point into a live chain of `buffers`.
        let probe = unsafe { advance(&mut positions[0].0, PROBE_ROUNDS) } / PROBE_ROUNDS as f64;
        let rounds = rounds_per_sample(probe, lines, k, repeat);
        let mut runs: Vec<Vec<RunResult>> = modes.iter().map(|_| Vec::new()).collect();
        let mut first_runs = Vec::new();
        // Rotated: pinned first, then unpinned first, ..., so that neither
        // always runs on a cache and a frequency the other left behind; with
        // the same order every time the samples of each side would differ
        // by a constant bias and the rank test would test the order.
        for slot in Schedule::rotated(modes.len(), repeat).slots() {
            let pinned = modes[slot.configuration];
            if slot.position == 0 {
                first_runs.push(if pinned { "pinned" } else { "unpinned" });
            }
            runs[slot.configuration].push(run_threads(
                &config.cpus,
                pinned,
                &mut positions,
                rounds,
            )?);
        }
        let mut rates = Vec::new();
        for (mode, &pinned) in modes.iter().enumerate() {
            let Ok(rate) = Sample::new(
                runs[mode]
                    .iter()
                    .map(|run| run.aggregate_loads_per_second / 1e6),
            ) else {
                continue;
            };
            let latency = Sample::new(runs[mode].iter().map(|run| run.load_latency_ns))
                .expect("as many as the rates");
            let params = to_params(&MlpParams {
                threads: Some(config.cpus.len() as u64),
                chains: Some(k as u64),
                pinned: Some(pinned),
                working_set: Some(WorkingSetParams {
                    size_bytes: Some(size),
                    ..WorkingSetParams::default()
                }),
                memory: Some(match config.memory {
                    ThreadMemory::Local => "local".to_string(),
                    ThreadMemory::Node(node) => format!("node {node}"),
                }),
                buffer_nodes: Some(nodes.clone()),
                cpus_seen: Some(runs[mode].iter().map(|run| run.cpus_seen.clone()).collect()),
                chase: Some(chase_order_params(config.order, &block)),
                hugepages: Some(context.hugepages),
                rounds_per_sample: Some(rounds),
                first_per_repetition: Some(
                    first_runs.iter().map(|first| first.to_string()).collect(),
                ),
                ..MlpParams::default()
            });
            let requested = to_params(&RequestedPlacement {
                cpus: Some(match pinned {
                    true => config.cpus.iter().copied().map(Some).collect(),
                    false => vec![None; config.cpus.len()],
                }),
                memory: Some(RequestedMemory::Label(format!(
                    "bind per thread: {nodes:?}"
                ))),
                ..RequestedPlacement::default()
            });
            let placement = Placement {
                requested,
                verified: Some(check.clone()),
            };
            for (metric, sample, unit) in [
                ("aggregate_loads", &rate, Unit::MegaOpsPerSecond),
                ("load_latency", &latency, Unit::Nanoseconds),
            ] {
                let summary = sample.summary();
                pipeline.emit(&Record::of_median(
                    "mlp",
                    metric,
                    unit,
                    summary,
                    params.clone(),
                    placement.clone(),
                ))?;
            }
            rates.push(rate);
        }
        if let [pinned, unpinned] = rates.as_slice() {
            let test = Comparison::between(pinned, unpinned);
            let ratio = test.ratio;
            let params = to_params(&MlpParams {
                threads: Some(config.cpus.len() as u64),
                chains: Some(k as u64),
                p_value: Some(test.p_value),
                significant: Some(test.significant()),
                ..MlpParams::default()
            });
            let summary = Sample::new([ratio]).expect("finite").summary();
            pipeline.emit(&Record {
                benchmark: "mlp".into(),
                metric: "pinned_over_unpinned".into(),
                value: ratio,
                unit: Unit::Ratio,
                params,
                placement: Placement::default(),
                stats: summary,
            })?;
        }
    }
    drop(buffers);
    Ok(())
}
