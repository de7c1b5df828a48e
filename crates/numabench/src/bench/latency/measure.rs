//! `latency`: dependent loads chasing a random cycle through a buffer, from
//! one pinned CPU, with the buffer's pages placed and verified. The order
//! ([`ChaseOrder`]) decides what the figure includes: by default random
//! within TLB-sized blocks (the idle memory latency), or over the whole
//! buffer (plus the page-walk cost), or within pages.

use crate::bench::context::Context;
use crate::bench::declared::measured_over_declared;
use crate::bench::error::BenchError;
use crate::bench::latency_writer::{measure_written, writer_params, WriterPasses};
use crate::bench::moved::{note_moved, MoveWatch};
use crate::bench::placed::{
    safe_working_set_bytes, working_set_for, working_set_params, PlacedBuffer,
};
use crate::clock::{tsc_ghz, Stopwatch};
use crate::interrupt::interrupted;
use crate::kernels::tail::{tail_of, time_batches, TailLatency, TailTimer};
use crate::kernels::{build_chase, chase, core_clock_ghz, ChaseBlock, ChaseOrder};
use crate::memory::{MemoryPlacement, HUGE_PAGE_SIZE, PAGE_SIZE};
use crate::output::{Pipeline, Placement, PlacementCheck, Record, Unit};
use crate::stats::{ConvergenceParams, Sample};
use crate::threads::run_pinned;
use crate::topology::Machine;
use numabench_schema::params::to_params;
use numabench_schema::params::{to_labelled_params, ChaseOrderParams, CyclesParams, LatencyParams};
use numabench_schema::RequestedPlacement;
use serde_json::Map;

/// Cache-line size assumed when the topology does not say.
const DEFAULT_LINE_BYTES: u64 = 64;
/// Each sample chases for at least this long.
const SAMPLE_SECONDS: f64 = 0.02;

/// A validated latency run.
#[derive(Debug, Clone)]
pub struct LatencyConfig {
    /// Working-set sizes in bytes.
    pub sizes: Vec<u64>,
    /// The CPU the chasing thread is pinned to.
    pub cpu: u32,
    /// Where the buffer's pages go.
    pub memory: MemoryPlacement,
    /// The chase order (default: random within TLB-sized blocks).
    pub order: ChaseOrder,
    /// `--writer-cpu`: a thread on this CPU writes the chain and rewrites
    /// it before every pass, which the chasing CPU follows without a flush
    /// (the remote-cache chase, [`crate::bench::latency_writer`]).
    pub writer_cpu: Option<u32>,
}

/// Whole working-set sizes for threads on `cpus`, each with its share:
/// from half the L1 data cache per thread, doubling, until one reaches the
/// DRAM-sized working set of those threads and `nodes`, where the buffers
/// go ([`working_set_for`]: 4x every cache in front, at least 256 MiB);
/// never past what the nodes can safely hold ([`safe_working_set_bytes`]).
/// The curve through every cache level to DRAM (latency sweeps use one
/// thread, bandwidth sweeps as many as run).
pub fn default_sweep_sizes(topology: &Machine, cpus: &[u32], nodes: &[u32]) -> Vec<u64> {
    let l1 = topology
        .caches
        .iter()
        .find(|cache| cache.level == 1 && cache.cache_type != "instruction")
        .map_or(32 << 10, |cache| cache.size_bytes);
    let dram = working_set_for(topology, cpus, nodes).bytes;
    let limit = safe_working_set_bytes(topology, nodes).map_or(u64::MAX, |safe| safe.max(dram));
    let mut sizes = Vec::new();
    let mut size = (l1 / 2 * cpus.len().max(1) as u64)
        .next_power_of_two()
        .max(PAGE_SIZE as u64);
    loop {
        sizes.push(size);
        if size >= dram || size.saturating_mul(2) > limit {
            break;
        }
        size *= 2;
    }
    sizes
}

/// What one latency measurement found.
#[derive(Debug, Clone)]
pub struct LatencyMeasurement {
    /// Average ns per load of each sample.
    pub nanoseconds_per_load: Vec<f64>,
    /// The chasing CPU's core clock (GHz) measured right after each sample
    /// on that CPU ([`crate::kernels::core_clock_ghz`]): ns x GHz = core cycles.
    pub core_ghz: Vec<f64>,
    pub loads_per_sample: u64,
    pub check: PlacementCheck,
    /// The block the chase was random within.
    pub block: ChaseBlock,
    /// The remote-cache chase's figures, with `--writer-cpu`.
    pub writer: Option<WriterPasses>,
    /// How many samples were taken and the median's interval reached
    /// ([`StoppingRule`]); `None` where a fixed count was taken.
    pub convergence: Option<ConvergenceParams>,
    /// Percentiles of load latency from batches timed one by one after the
    /// samples ([`crate::kernels::tail`]); `None` where not measured.
    pub tail: Option<TailLatency>,
}

/// Measures one size: the buffer is placed, chased by a thread pinned to
/// `config.cpu`, and verified.
pub fn measure_latency(
    context: &Context,
    config: &LatencyConfig,
    size: u64,
) -> Result<LatencyMeasurement, BenchError> {
    if let Some(backend) = &context.backend {
        return backend.latency(context, config, size);
    }
    let line_bytes = context
        .topology
        .caches
        .first()
        .map_or(DEFAULT_LINE_BYTES, |cache| cache.line_bytes.max(8));
    let block = config.order.block(size, chase_page_bytes(context));
    if let Some(writer_cpu) = config.writer_cpu {
        return measure_written(context, config, writer_cpu, size, line_bytes, &block);
    }
    let rule = context.stopping_rule();
    let results = run_pinned(
        &[config.cpu],
        |_worker| -> Result<LatencyMeasurement, BenchError> {
            let mut placed = PlacedBuffer::allocate(
                &context.topology,
                size as usize,
                config.memory.clone(),
                context.hugepages,
            )?;
            // Building the chain writes every line from this pinned thread: the first touch.
            let start = build_chase(
                placed.buffer.words_mut(),
                line_bytes as usize,
                block.bytes as usize,
                0x5eed ^ size,
            );
            let mut check = placed.verify(context.placement_threshold)?;
            let watch = MoveWatch::start();
            let words = placed.buffer.words();
            // SAFETY: `start` indexes the chain just built in `words`, alive for this closure.
            let start_pointer = unsafe { words.as_ptr().add(start) };
            let lines = (size / line_bytes).max(2);
            // Warm-up: one pass through the chain (bounded), loads caches and TLB.
            // SAFETY: the chain lives in `placed`, unmodified since it was built.
            let position = unsafe { chase(start_pointer, lines.min(1 << 24)) };
            let probe = 1 << 14;
            let stopwatch = Stopwatch::start();
            // SAFETY: as above.
            let mut position = unsafe { chase(position, probe) };
            let per_load = (stopwatch.seconds() / probe as f64).max(1e-10);
            // The fewest samples the rule takes walk the whole chain.
            let loads_per_sample = loads_per_sample(per_load, lines, rule.min);
            let mut nanoseconds_per_load = Vec::with_capacity(rule.max);
            let mut core_ghz = Vec::with_capacity(rule.max);
            let mut repetitions = rule.start();
            while !repetitions.done() {
                if interrupted() {
                    repetitions.interrupt();
                    break;
                }
                let stopwatch = Stopwatch::start();
                // SAFETY: as above.
                position = unsafe { chase(position, loads_per_sample) };
                let nanoseconds = stopwatch.seconds() * 1e9 / loads_per_sample as f64;
                nanoseconds_per_load.push(nanoseconds);
                repetitions.push(nanoseconds);
                // The clock the core ran the sample at, on the same CPU straight after it.
                core_ghz.push(core_clock_ghz());
            }
            // The tail: the same chain, warm, in batches timed one by one.
            let timer = TailTimer::best();
            let seconds_per_load = nanoseconds_per_load
                .last()
                .map_or(per_load, |nanoseconds| nanoseconds * 1e-9);
            // SAFETY: as above.
            let (position, batches) = unsafe { time_batches(position, seconds_per_load, timer) };
            let tail = match interrupted() {
                true => None,
                false => tail_of(&batches, timer, context.histogram),
            };
            std::hint::black_box(position);
            note_moved(&watch, &mut check, || {
                placed.inspect(context.placement_threshold)
            })?;
            Ok(LatencyMeasurement {
                nanoseconds_per_load,
                core_ghz,
                loads_per_sample,
                check,
                block: block.clone(),
                writer: None,
                convergence: Some(repetitions.convergence()),
                tail,
            })
        },
    )?;
    results.into_iter().next().expect("one worker")
}

/// The page size a chase's blocks are measured in: 2 MiB with
/// `--hugepages`, else the base page.
pub(in crate::bench) fn chase_page_bytes(context: &Context) -> u64 {
    if context.hugepages {
        HUGE_PAGE_SIZE as u64
    } else {
        PAGE_SIZE as u64
    }
}

/// Loads per sample: at least [`SAMPLE_SECONDS`] of chasing, and enough that
/// the `repeat` samples together walk the whole chain once. A buffer larger
/// than the caches is then measured over every one of its pages, not over
/// the few a 20 ms window reaches: pages differ in latency (DRAM banks and
/// channels, the host's backing under a hypervisor), and a run that saw a
/// different 5% of them would report a different median. With this, five
/// runs of a 1 GiB chase agree within about 1.5% where 20 ms windows
/// spread by 3% (docs/benchmarks.md). A sample is at most
/// [`MAX_LOADS_PER_SAMPLE`] loads (about 13 s at 200 ns; Ctrl-C is seen
/// between samples), so the samples cover the whole chain up to
/// `repeat` x 4 GiB of 64-byte lines.
pub(in crate::bench) fn loads_per_sample(seconds_per_load: f64, lines: u64, repeat: usize) -> u64 {
    let by_time = (SAMPLE_SECONDS / seconds_per_load.max(1e-10)) as u64;
    let by_coverage = lines.div_ceil(repeat.max(1) as u64);
    by_time
        .max(by_coverage)
        .clamp(1 << 14, MAX_LOADS_PER_SAMPLE)
}

/// The most loads one latency sample chases.
const MAX_LOADS_PER_SAMPLE: u64 = 1 << 26;

/// Runs the latency benchmark, emitting one `latency` record (ns, headline
/// the median of samples) and one `latency_cycles` record (core cycles,
/// from the core clock measured beside each sample) per size.
pub fn run_latency(
    context: &Context,
    config: &LatencyConfig,
    pipeline: &mut Pipeline,
) -> Result<(), BenchError> {
    for &size in &config.sizes {
        if interrupted() {
            break;
        }
        let measured = measure_latency(context, config, size)?;
        emit_latency(
            context,
            config,
            size,
            &measured,
            "latency",
            &Map::new(),
            pipeline,
        )?;
    }
    Ok(())
}

/// Emits the records of one latency measurement under `benchmark`, with
/// `labels` added to the params. Returns the median in ns (None when
/// interrupted before any sample).
pub fn emit_latency(
    context: &Context,
    config: &LatencyConfig,
    size: u64,
    measured: &LatencyMeasurement,
    benchmark: &str,
    labels: &Map<String, serde_json::Value>,
    pipeline: &mut Pipeline,
) -> Result<Option<f64>, BenchError> {
    let Ok(sample) = Sample::new(measured.nanoseconds_per_load.iter().copied()) else {
        return Ok(None);
    };
    let topology = &context.topology;
    let mut params = LatencyParams {
        working_set: working_set_params(
            topology,
            size,
            &[config.cpu],
            &config.memory.expected_nodes(),
        ),
        cpu: Some(config.cpu),
        cpu_node: topology.node_of_cpu(config.cpu),
        chase: chase_order_params(config.order, &measured.block),
        hugepages: Some(context.hugepages),
        loads_per_sample: Some(measured.loads_per_sample),
        convergence: measured.convergence,
        tail: measured.tail.clone(),
        writer: measured.writer.as_ref().map(|writer| {
            writer_params(writer, topology.node_of_cpu(writer.writer_cpu), config.cpu)
        }),
        measured_over_declared: None,
        cycles: None,
    };
    let requested = to_params(&config.memory.requested_on(RequestedPlacement {
        writer_cpu: measured.writer.as_ref().map(|writer| writer.writer_cpu),
        ..RequestedPlacement::on_cpus(&[config.cpu])
    }));
    let placement = Placement {
        requested,
        verified: Some(measured.check.clone()),
    };
    let summary = sample.summary();
    params.measured_over_declared =
        measured_over_declared(labels, summary.median, Unit::Nanoseconds);
    pipeline.emit(&Record::of_median(
        benchmark,
        "latency",
        Unit::Nanoseconds,
        summary,
        to_labelled_params(labels, &params),
        placement.clone(),
    ))?;
    // Core cycles: each sample's ns times the core clock measured on the
    // chasing CPU right after it (not the TSC, which ticks at the nominal
    // clock however fast the core runs).
    let clock_measured = measured.core_ghz.len() == sample.values().len()
        && measured
            .core_ghz
            .iter()
            .all(|ghz| ghz.is_finite() && *ghz > 0.0);
    if clock_measured {
        let cycles = Sample::new(
            sample
                .values()
                .iter()
                .zip(&measured.core_ghz)
                .map(|(ns, ghz)| ns * ghz),
        )
        .expect("finite");
        let cycle_summary = cycles.summary();
        let clock = Sample::new(measured.core_ghz.iter().copied()).expect("finite");
        params.cycles = Some(CyclesParams {
            core_ghz: clock.summary().median,
            cycles_measures: Some(CYCLES_MEASURE.to_string()),
            tsc_ghz: tsc_ghz(),
        });
        pipeline.emit(&Record {
            benchmark: benchmark.into(),
            metric: "latency_cycles".into(),
            value: cycle_summary.median,
            unit: Unit::Cycles,
            params: to_labelled_params(labels, &params),
            placement,
            stats: cycle_summary,
        })?;
    }
    Ok(Some(summary.median))
}

/// What `latency_cycles` counts, for the record.
const CYCLES_MEASURE: &str = "core cycles: ns per load x the chasing CPU's core clock (params.core_ghz), measured after each sample on that CPU by timing a chain of dependent adds (one per cycle); not TSC ticks";

/// The chase order, what it measures, and the block it was random
/// within (`order`, `order_measures`, `block_bytes`, `block_source`).
pub(in crate::bench) fn chase_order_params(
    order: ChaseOrder,
    block: &ChaseBlock,
) -> ChaseOrderParams {
    ChaseOrderParams {
        order: Some(order.name().to_string()),
        order_measures: Some(order.measures().to_string()),
        block_bytes: Some(block.bytes),
        block_source: Some(block.source.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_of_a_large_chain_cover_it_once_together() {
        // 1 GiB of 64-byte lines at 100 ns: 20 ms reaches 200k lines, far
        // fewer than the chain's 16.7M, so coverage decides.
        let lines = (1u64 << 30) / 64;
        let per_sample = loads_per_sample(100e-9, lines, 10);
        assert!(per_sample * 10 >= lines);
        assert!(per_sample * 9 < lines);
    }

    #[test]
    fn samples_of_a_cached_chain_last_the_minimum_time() {
        // 32 KiB at 1 ns: coverage needs 512 loads, 20 ms is 20M loads.
        let per_sample = loads_per_sample(1e-9, 512, 10);
        assert_eq!(per_sample, 20_000_000);
    }

    #[test]
    fn sweeps_double_from_half_an_l1_per_thread_to_the_dram_working_set() {
        let topology = crate::topology::synthetic(
            "pack:1 [numa(memory=8GiB)] l3:1(size=8MiB) l2:2(size=1MiB) l1d:1(size=32KiB) core:1 pu:1",
        );
        let one = default_sweep_sizes(&topology, &[0], &[]);
        assert_eq!(one.first(), Some(&(16 << 10)));
        assert_eq!(one.last(), Some(&(256 << 20)));
        assert!(one.windows(2).all(|pair| pair[1] == 2 * pair[0]));
        let two = default_sweep_sizes(&topology, &[0, 1], &[]);
        assert_eq!(two.first(), Some(&(32 << 10)));
        assert_eq!(two.last(), Some(&(256 << 20)));
        let mut short_of_memory = topology.clone();
        short_of_memory.nodes[0].memory_free_bytes = Some(64 << 20);
        let short = default_sweep_sizes(&short_of_memory, &[0], &[0]);
        assert_eq!(short.last(), Some(&(16 << 20)));
    }

    /// The sweep ends past 4x every cache in front of the threads (L1, L2
    /// and L3 together), not 4x the last-level cache alone.
    #[test]
    fn sweeps_end_past_four_times_every_cache_in_front() {
        let topology = crate::topology::synthetic(
            "pack:1 [numa(memory=64GiB)] l3:1(size=128MiB) l2:2(size=2MiB) l1d:1(size=48KiB) core:1 pu:1",
        );
        for cpus in [&[0][..], &[0, 1]] {
            let in_front = topology.cache_bytes_in_front(cpus, &[0]);
            let sizes = default_sweep_sizes(&topology, cpus, &[0]);
            let largest = *sizes.last().unwrap();
            assert!(
                largest >= 4 * in_front,
                "{cpus:?}: {largest} < 4 x {in_front}"
            );
            assert!(sizes.windows(2).all(|pair| pair[1] == 2 * pair[0]));
        }
    }

    #[test]
    fn loads_per_sample_stays_within_bounds() {
        assert_eq!(loads_per_sample(1.0, 2, 1), 1 << 14);
        assert_eq!(
            loads_per_sample(1e-12, u64::MAX / 2, 1),
            MAX_LOADS_PER_SAMPLE
        );
        // A zero time per load counts as 0.1 ns; zero repeats as one.
        assert_eq!(loads_per_sample(0.0, 2, 0), MAX_LOADS_PER_SAMPLE);
    }
}
