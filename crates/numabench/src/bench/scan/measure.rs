//! The scan of one node after another: its buffer bound to it (on
//! transparent huge pages where the kernel grants them) and touched by its
//! pinned threads, every page's physical frame looked up, the pages
//! grouped by physical range, and every range with enough of them read in
//! rounds, the ranges' order rotated each round (the study engine's
//! [`Schedule`]), so each range is measured interleaved with the others.

use super::config::{ScanConfig, ScanNode};
use super::findings::judge;
use super::ranges::{group_by_range, split_among, Chunk, PhysicalRange};
use super::read::{passes_for, timed_read};
use super::records::{node_record, range_record, slow_record, NodeScan};
use crate::bench::context::Context;
use crate::bench::error::BenchError;
use crate::bench::placed::{check_allocation, PlacedBuffer};
use crate::interrupt::interrupted;
use crate::kernels::SimdLevel;
use crate::memory::{
    frames_visible, huge_page_check, page_frames, Buffer, MemoryPlacement, PAGE_SIZE,
};
use crate::output::{Pipeline, Record};
use crate::stats::Sample;
use crate::study::{Interrupt, Schedule};
use crate::threads::run_pinned;

/// Why nothing can be scanned without privilege: the one line a user sees.
pub const FRAMES_HIDDEN: &str = "scan needs each page's physical address, which /proc/self/pagemap shows only with CAP_SYS_ADMIN: run it as root (nothing was measured)";

/// Scans every node of `config`, emitting each node's records when its
/// rounds are done. Refused before anything is allocated when physical
/// frame numbers are hidden from this process.
pub fn run_scan(
    context: &Context,
    config: &ScanConfig,
    pipeline: &mut Pipeline,
) -> Result<(), BenchError> {
    if !frames_visible() {
        return Err(BenchError::Invalid(FRAMES_HIDDEN.into()));
    }
    for node in &config.nodes {
        if interrupted() {
            break;
        }
        scan_node(context, config, node, pipeline)?;
    }
    Ok(())
}

/// One node: allocate, touch, group, read in rounds, judge, emit.
fn scan_node(
    context: &Context,
    config: &ScanConfig,
    node: &ScanNode,
    pipeline: &mut Pipeline,
) -> Result<(), BenchError> {
    let placed = allocate(context, node)?;
    touch(&placed.buffer, &node.cpus)?;
    let check = placed.inspect(context.placement_threshold)?;
    let huge = huge_page_check(&placed.buffer).ok();
    let frames = page_frames(placed.buffer.as_ptr() as usize, placed.buffer.len())
        .map_err(|error| BenchError::Invalid(format!("reading /proc/self/pagemap: {error}")))?;
    let groups = group_by_range(&frames, PAGE_SIZE, config.range_size);
    let (measured, below): (Vec<PhysicalRange>, Vec<PhysicalRange>) = groups
        .ranges
        .into_iter()
        .partition(|range| range.bytes() >= config.min_range_bytes);
    let level = context.simd.unwrap_or_else(SimdLevel::detect);
    let shares: Vec<Vec<Vec<Chunk>>> = measured
        .iter()
        .map(|range| split_among(&range.chunks, node.cpus.len(), PAGE_SIZE))
        .collect();
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); measured.len()];
    let schedule = Schedule::rotated(measured.len(), config.rounds)
        .interrupted_at(Interrupt::BetweenRepetitions);
    for slot in schedule.slots() {
        let range = &measured[slot.configuration];
        let passes = passes_for(range.bytes());
        let seconds = timed_read(
            &placed.buffer,
            &node.cpus,
            &shares[slot.configuration],
            passes,
            level,
        )?;
        // A virtual machine's clock can stand still: no rate from no time.
        if seconds > 0.0 {
            samples[slot.configuration].push((range.bytes() * passes) as f64 / seconds / 1e9);
        }
    }
    let kept: Vec<(PhysicalRange, Sample)> = measured
        .into_iter()
        .zip(samples)
        .filter_map(|(range, values)| Some((range, Sample::new(values).ok()?)))
        .collect();
    let verdict = judge(&kept.iter().map(|(_, s)| s.clone()).collect::<Vec<_>>());
    let scan = NodeScan {
        node,
        config,
        placed: &placed,
        check: &check,
        huge: huge.as_ref(),
        level,
        pages_without_frame: groups.pages_without_frame,
        ranges_below_minimum: below.len(),
        bytes_below_minimum: below.iter().map(PhysicalRange::bytes).sum(),
    };
    let ranges: Vec<Record> = kept
        .iter()
        .zip(&verdict.ranges)
        .map(|((range, sample), judged)| range_record(&scan, range, sample, judged, verdict.median))
        .collect();
    for record in &ranges {
        pipeline.emit(record)?;
    }
    pipeline.emit(&node_record(&scan, &kept, &verdict))?;
    for index in verdict.slow() {
        pipeline.emit(&slow_record(&ranges[index]))?;
    }
    Ok(())
}

/// The node's buffer, bound to it: from the hugetlbfs pools or on THP with
/// `--hugepages` (checked as every measurement's), else advised for THP
/// (a preference: fewer, longer chunks; the coverage is recorded, not
/// required).
fn allocate(context: &Context, node: &ScanNode) -> Result<PlacedBuffer, BenchError> {
    let bytes = node.size as usize;
    let placement = MemoryPlacement::bind(node.node);
    if context.hugepages {
        return PlacedBuffer::allocate(&context.topology, bytes, placement, true);
    }
    check_allocation(&context.topology, node.size)?;
    let buffer = Buffer::new_thp(bytes)?;
    placement.apply(&buffer)?;
    Ok(PlacedBuffer {
        buffer,
        placement,
        hugepages: false,
        check: None,
    })
}

/// Every page written once by the node's pinned threads, each its share
/// (whole 2 MiB units, so a huge page is touched by one thread).
fn touch(buffer: &Buffer, cpus: &[u32]) -> Result<(), BenchError> {
    let whole = [Chunk {
        offset: 0,
        bytes: buffer.len(),
    }];
    let shares = split_among(&whole, cpus.len(), crate::memory::HUGE_PAGE_SIZE);
    let base = buffer.as_ptr() as usize;
    run_pinned(cpus, |worker| {
        for chunk in &shares[worker.index] {
            for offset in (chunk.offset..chunk.offset + chunk.bytes).step_by(PAGE_SIZE) {
                // SAFETY: offset is within the live buffer (the shares cover it exactly), 8-byte
                // aligned, and each page belongs to one worker's share only.
                unsafe { std::ptr::write_volatile((base + offset) as *mut u64, 1) };
            }
        }
    })?;
    Ok(())
}
