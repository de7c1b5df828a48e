//! Buffers with a placement, and the checks of a request against the
//! topology that run before anything is allocated.

use super::error::BenchError;
use crate::memory::{
    huge_page_check, page_nodes, page_statuses, pools_can_hold, Buffer, MemoryPlacement, PageNodes,
    HUGE_PAGE_SIZE, PAGE_SIZE,
};
use crate::output::PlacementCheck;
use crate::parse::format_id_list;
use crate::topology::Machine;
use crate::units::format_bytes;
use numabench_schema::params::{to_params, CacheParams, WorkingSetParams};
use serde_json::{Map, Value};
use std::path::Path;

/// A buffer, the placement asked for it, and what verification found.
#[derive(Debug)]
pub struct PlacedBuffer {
    pub buffer: Buffer,
    pub placement: MemoryPlacement,
    /// Huge pages were asked for.
    pub hugepages: bool,
    pub check: Option<PlacementCheck>,
}

/// Bytes of a buffer one thread touches first, and the node it runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnedRange {
    /// Offset of the range from the start of the buffer.
    pub offset: usize,
    pub bytes: usize,
    pub node: u32,
}

/// The owners whose ranges overlap bytes `[from, to)` of the buffer.
fn owners_touching(
    owners: &[OwnedRange],
    from: usize,
    to: usize,
) -> impl Iterator<Item = &OwnedRange> {
    let first = owners.partition_point(|owner| owner.offset + owner.bytes <= from);
    owners[first..]
        .iter()
        .take_while(move |owner| owner.offset < to)
}

/// Least share of a buffer that must be on huge pages when they were asked
/// for (THP under fragmentation grants fewer; the record then says so).
pub const HUGE_PAGE_THRESHOLD: f64 = 0.9;

impl PlacedBuffer {
    /// Maps `bytes` and applies the placement's policy. With `hugepages`
    /// the buffer comes from the hugetlbfs pools when every node it may
    /// land on has enough free pages reserved, otherwise it is advised for
    /// transparent huge pages; without, it is advised for base pages only.
    /// Pages are placed when first touched. Refused, before anything is
    /// mapped, when `topology`'s memory limits, read again now, cannot hold
    /// it ([`check_allocation`]).
    pub fn allocate(
        topology: &Machine,
        bytes: usize,
        placement: MemoryPlacement,
        hugepages: bool,
    ) -> Result<Self, BenchError> {
        check_allocation(topology, bytes as u64)?;
        let from_pool =
            hugepages && pools_can_hold(Path::new("/"), &placement.expected_nodes(), bytes);
        let buffer = match from_pool {
            // A pool that shrank since it was read fails at mmap: fall back to THP.
            true => Buffer::new_hugetlb(bytes).or_else(|_| Buffer::new_thp(bytes))?,
            false if hugepages => Buffer::new_thp(bytes)?,
            false => Buffer::new(bytes)?,
        };
        placement.apply(&buffer)?;
        if !hugepages {
            buffer.advise_no_huge_pages()?;
        }
        Ok(Self {
            buffer,
            placement,
            hugepages,
            check: None,
        })
    }

    /// Asks the kernel where the pages are (and, when huge pages were asked
    /// for, how much of the buffer got them). Huge pages on less than
    /// [`HUGE_PAGE_THRESHOLD`] of the buffer make the placement not achieved.
    /// An interleave must split the pages evenly over its nodes
    /// ([`crate::memory::interleave_fraction`]).
    pub fn inspect(&self, threshold: f64) -> Result<PlacementCheck, BenchError> {
        let nodes = page_nodes(self.buffer.as_ptr(), self.buffer.len())?;
        let granule_pages = match self.hugepages {
            true => HUGE_PAGE_SIZE / PAGE_SIZE,
            false => 1,
        };
        let fraction = nodes.fraction_as_requested(&self.placement, granule_pages as u64);
        self.with_huge_pages(nodes.check_fraction(fraction, threshold))
    }

    /// Adds, when huge pages were asked for, how much of the buffer got
    /// them; under [`HUGE_PAGE_THRESHOLD`] the placement is not achieved.
    fn with_huge_pages(&self, mut check: PlacementCheck) -> Result<PlacementCheck, BenchError> {
        if self.hugepages {
            let huge = huge_page_check(&self.buffer)?;
            check.achieved &= huge.fraction >= HUGE_PAGE_THRESHOLD;
            check.huge_pages = Some(huge);
        }
        Ok(check)
    }

    /// [`inspect`](Self::inspect) for a buffer first touched by several
    /// threads: each page must be on the node of a thread that touches it,
    /// not merely on one of the team's nodes. A page whose memory (a whole
    /// 2 MiB page when huge pages were asked for: the kernel places it at
    /// the first touch of any of its bytes) overlaps several owners' ranges
    /// is right on any of their nodes. Pages not present count as misplaced.
    /// `owners` are sorted by offset and do not overlap.
    pub fn inspect_owned(
        &self,
        threshold: f64,
        owners: &[OwnedRange],
    ) -> Result<PlacementCheck, BenchError> {
        let statuses = page_statuses(self.buffer.as_ptr(), self.buffer.len())?;
        let granule = if self.hugepages {
            HUGE_PAGE_SIZE
        } else {
            PAGE_SIZE
        };
        let base = self.buffer.as_ptr() as usize;
        let on_an_owners_node = statuses
            .iter()
            .enumerate()
            .filter(|(page, &status)| {
                // The bytes (buffer offsets) of the page the kernel placed as one.
                let placed_as_one = (base + page * PAGE_SIZE) / granule * granule;
                let from = placed_as_one.saturating_sub(base);
                let to = placed_as_one + granule - base;
                status >= 0
                    && owners_touching(owners, from, to).any(|owner| owner.node == status as u32)
            })
            .count() as u64;
        self.with_huge_pages(
            PageNodes::from_statuses(&statuses).check(on_an_owners_node, threshold),
        )
    }

    /// [`inspect`](Self::inspect), keeping the result with the buffer.
    pub fn verify(&mut self, threshold: f64) -> Result<PlacementCheck, BenchError> {
        let check = self.inspect(threshold)?;
        self.check = Some(check.clone());
        Ok(check)
    }
}

/// Checks that `cpu` exists and this process may run on it.
pub fn resolve_cpu(topology: &Machine, cpu: u32) -> Result<u32, BenchError> {
    if topology.node_of_cpu(cpu).is_none() {
        return Err(BenchError::Invalid(format!(
            "CPU {cpu} does not exist (this machine has CPUs {})",
            format_id_list(
                &topology
                    .nodes
                    .iter()
                    .flat_map(|node| node.cpus.clone())
                    .collect::<Vec<_>>()
            )
        )));
    }
    if !topology.allowed.cpus.contains(&cpu) {
        return Err(BenchError::Invalid(format!(
            "CPU {cpu} is not allowed to this process (allowed: {})",
            format_id_list(&topology.allowed.cpus)
        )));
    }
    Ok(cpu)
}

/// Checks that `node` exists and may hold this process's memory.
pub fn resolve_node_with_memory(topology: &Machine, node: u32) -> Result<u32, BenchError> {
    let known: Vec<u32> = topology.nodes.iter().map(|info| info.index).collect();
    if !known.contains(&node) {
        return Err(BenchError::Invalid(format!(
            "node {node} does not exist (this machine has nodes {})",
            format_id_list(&known)
        )));
    }
    if !topology.allowed.nodes.contains(&node) {
        return Err(BenchError::Invalid(format!(
            "node {node} is not allowed to this process (allowed: {})",
            format_id_list(&topology.allowed.nodes)
        )));
    }
    Ok(node)
}

/// The allowed CPUs of a node that threads can run on; an error for a
/// CPU-less node or one whose CPUs are all disallowed.
pub fn cpus_of_node(topology: &Machine, node: u32) -> Result<Vec<u32>, BenchError> {
    let known: Vec<u32> = topology.nodes.iter().map(|info| info.index).collect();
    let info = topology.node(node).ok_or_else(|| {
        BenchError::Invalid(format!(
            "node {node} does not exist (this machine has nodes {})",
            format_id_list(&known)
        ))
    })?;
    if info.cpuless {
        return Err(BenchError::Invalid(format!(
            "node {node} has no CPUs (it is a memory-only node): it can be a memory node, not a CPU node"
        )));
    }
    let cpus: Vec<u32> = info
        .cpus
        .iter()
        .copied()
        .filter(|cpu| topology.allowed.cpus.contains(cpu))
        .collect();
    if cpus.is_empty() {
        return Err(BenchError::Invalid(format!(
            "none of node {node}'s CPUs is allowed to this process"
        )));
    }
    Ok(cpus)
}

/// A DRAM-sized working set is at least this many times the capacity of
/// the caches in front of the memory it measures.
pub const CACHE_MULTIPLE: u64 = 4;

/// The least a DRAM-sized working set is, however small the caches.
pub const MIN_DRAM_WORKING_SET: u64 = 256 << 20;

/// A working set sized to measure memory rather than caches, and what it
/// was sized against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkingSet {
    /// Bytes of one buffer.
    pub bytes: u64,
    /// Capacity of every distinct cache on the path from the measuring CPUs
    /// to the target memory: their CPU caches of every level, plus the
    /// memory-side caches in front of the target nodes
    /// ([`Machine::cache_bytes_in_front`]).
    pub cache_bytes_in_front: u64,
    /// The target nodes cannot safely hold [`CACHE_MULTIPLE`] times the
    /// caches in front, so `bytes` is as much as is safe and the figure is
    /// partly a cache's (a 96 GiB DRAM cache in front of 370 GiB of
    /// persistent memory).
    pub cache_affected: bool,
}

/// A DRAM-sized working set for threads on `cpus` measuring the memory of
/// `nodes`: [`CACHE_MULTIPLE`] times the caches in front of that memory,
/// at least [`MIN_DRAM_WORKING_SET`], at most what the nodes can safely
/// hold ([`safe_working_set_bytes`]; then marked cache-affected).
pub fn working_set_for(topology: &Machine, cpus: &[u32], nodes: &[u32]) -> WorkingSet {
    working_set_of_buffers(topology, cpus, nodes, 1)
}

/// [`working_set_for`] when `buffers` buffers of that size are held at
/// once (one per thread of a loaded-latency run): each is sized against
/// the caches in front of `cpus`, and all together stay within the safe
/// limit.
pub fn working_set_of_buffers(
    topology: &Machine,
    cpus: &[u32],
    nodes: &[u32],
    buffers: u64,
) -> WorkingSet {
    let cache_bytes_in_front = topology.cache_bytes_in_front(cpus, nodes);
    let wanted = (CACHE_MULTIPLE * cache_bytes_in_front).max(MIN_DRAM_WORKING_SET);
    let bytes = match safe_working_set_bytes(topology, nodes) {
        Some(safe) => wanted.min(safe / buffers.max(1)).max(1 << 20),
        None => wanted,
    };
    WorkingSet {
        bytes,
        cache_bytes_in_front,
        cache_affected: bytes < CACHE_MULTIPLE * cache_bytes_in_front,
    }
}

/// The most a default working set takes from `nodes`: a quarter of the
/// smallest free memory among them (of the smallest total memory when the
/// kernel does not say, as for an XML topology), and at most half of what
/// this process's memory limit leaves usable ([`limit_usable_bytes`]).
/// `None` when none of these is known.
pub fn safe_working_set_bytes(topology: &Machine, nodes: &[u32]) -> Option<u64> {
    let of_nodes = nodes
        .iter()
        .filter_map(|node| topology.node(*node))
        .map(|info| info.memory_free_bytes.unwrap_or(info.memory_total_bytes))
        .filter(|bytes| *bytes > 0)
        .min()
        .map(|bytes| bytes / 4);
    let of_limit = limit_usable_bytes(topology).map(|usable| usable / 2);
    match (of_nodes, of_limit) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

pub use crate::topology::PROCESS_HEADROOM;

/// The most all the buffers of one measurement may take under this
/// process's tightest memory limit (cgroup `memory.max` or `memory.high`,
/// `RLIMIT_AS`, `RLIMIT_DATA`), each limit read now: 95% of what it leaves
/// available less what numabench and its worker threads need
/// ([`crate::topology::MemoryLimit::usable_bytes`]). `None` when nothing
/// limits the process.
pub fn limit_usable_bytes(topology: &Machine) -> Option<u64> {
    let threads = topology.allowed.worker_threads();
    topology
        .allowed
        .memory_usable_now(threads)
        .map(|(_, usable)| usable)
}

/// `bytes`, or less where this process's memory limit needs it: a default
/// size chosen by a rule of its own (1 GiB for latency, an NPB class)
/// shrunk to what [`safe_working_set_bytes`] allows under the limit.
pub fn within_memory_limit(topology: &Machine, bytes: u64) -> u64 {
    limit_usable_bytes(topology).map_or(bytes, |usable| bytes.min(usable / 2).max(1 << 20))
}

/// A working set's params: its `size`, the caches in front of its
/// measuring `cpus` and target `nodes`, whether `size` is under
/// [`CACHE_MULTIPLE`] times them (then the figure is partly a cache's),
/// whoever chose the size, and the level that holds it (`cache_level`,
/// with that level's declared capacity `cache_level_bytes` when it is a
/// cache: [`Machine::level_holding`]).
pub fn working_set_params(
    topology: &Machine,
    size: u64,
    cpus: &[u32],
    nodes: &[u32],
) -> WorkingSetParams {
    let cache_bytes_in_front = topology.cache_bytes_in_front(cpus, nodes);
    let (level, level_bytes) = topology.level_holding(size, cpus, nodes);
    WorkingSetParams {
        size_bytes: Some(size),
        cache: CacheParams {
            cache_bytes_in_front: Some(cache_bytes_in_front),
            cache_affected: Some(size < CACHE_MULTIPLE * cache_bytes_in_front),
            cache_level: Some(level),
            cache_level_bytes: level_bytes,
        },
    }
}

/// Adds [`working_set_params`] but `size_bytes` (the [`CacheParams`]) to
/// a record's params, for the writers whose params are not typed yet
/// (they write `size_bytes` themselves).
pub fn insert_cache_params(
    topology: &Machine,
    size: u64,
    cpus: &[u32],
    nodes: &[u32],
    params: &mut Map<String, Value>,
) {
    let working_set = working_set_params(topology, size, cpus, nodes);
    params.extend(to_params(&working_set.cache));
}

/// Refuses a request for more memory than the target nodes have free
/// (leaving 5% headroom), or than this process's memory limit leaves
/// usable ([`limit_usable_bytes`]), before anything is allocated.
pub fn check_memory_fits(topology: &Machine, nodes: &[u32], bytes: u64) -> Result<(), BenchError> {
    check_within_memory_limit(topology, bytes)?;
    check_node_memory_fits(topology, nodes, bytes)
}

/// Refuses a request for more memory than the target nodes have free
/// (leaving 5% headroom), whatever this process's own limit: what every
/// rank of a cluster run checks before MPI starts (each rank's own limit is
/// checked where its buffers are placed, so one rank's tighter limit fails
/// its part, named, instead of the whole job).
pub fn check_node_memory_fits(
    topology: &Machine,
    nodes: &[u32],
    bytes: u64,
) -> Result<(), BenchError> {
    let free: Option<u64> = nodes
        .iter()
        .map(|node| topology.node(*node).and_then(|info| info.memory_free_bytes))
        .sum();
    if let Some(free) = free {
        let usable = free / 20 * 19;
        if bytes > usable {
            return Err(BenchError::Invalid(format!(
                "size {} is larger than the free memory of node(s) {} ({} free)",
                format_bytes(bytes),
                format_id_list(nodes),
                format_bytes(free)
            )));
        }
    }
    Ok(())
}

/// Refuses `bytes` of buffers that this process's memory limit cannot
/// hold ([`limit_usable_bytes`]): naming the size and the limit, before
/// the OOM killer would end the run with nothing measured.
pub fn check_within_memory_limit(topology: &Machine, bytes: u64) -> Result<(), BenchError> {
    let threads = topology.allowed.worker_threads();
    refuse_over_limit(topology.allowed.memory_usable_now(threads), bytes)
}

/// Refuses, just before they are mapped, `bytes` of buffer that this
/// process's memory limit cannot hold now, each limit read again (what
/// the other processes of its group took since the run began counts).
/// The worker threads that run now are in the usage already, so only
/// [`PROCESS_HEADROOM`] is kept beside the buffer.
pub fn check_allocation(topology: &Machine, bytes: u64) -> Result<(), BenchError> {
    refuse_over_limit(topology.allowed.memory_usable_now(0), bytes)
}

/// The refusal of `bytes` over what the tightest limit leaves `usable`.
fn refuse_over_limit(
    tightest: Option<(crate::topology::MemoryLimit, u64)>,
    bytes: u64,
) -> Result<(), BenchError> {
    let Some((limit, usable)) = tightest else {
        return Ok(());
    };
    if bytes > usable {
        return Err(BenchError::Invalid(format!(
            "size {} does not fit under this process's memory limit of {} ({}; {} available, \
             at most {} usable for buffers)",
            format_bytes(bytes),
            format_bytes(limit.limit_bytes),
            limit.source,
            format_bytes(limit.available_bytes()),
            format_bytes(usable)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topology() -> Machine {
        let mut report = crate::topology::synthetic("pack:2 [numa(memory=1GiB)] core:2 pu:1");
        report.nodes[1].cpus.clear();
        report.nodes[1].cpuless = true;
        for node in &mut report.nodes {
            node.memory_free_bytes = Some(1 << 30);
        }
        report
    }

    #[test]
    fn requests_are_checked_against_the_topology() {
        let topology = topology();
        assert!(resolve_cpu(&topology, 1).is_ok());
        assert!(resolve_cpu(&topology, 9)
            .unwrap_err()
            .to_string()
            .contains("CPU 9"));
        assert!(resolve_node_with_memory(&topology, 1).is_ok());
        assert!(resolve_node_with_memory(&topology, 5)
            .unwrap_err()
            .to_string()
            .contains("node 5"));
        assert!(cpus_of_node(&topology, 1)
            .unwrap_err()
            .to_string()
            .contains("no CPUs"));
        assert_eq!(cpus_of_node(&topology, 0).unwrap(), vec![0, 1]);
        assert!(check_memory_fits(&topology, &[0], 512 << 20).is_ok());
        assert!(check_memory_fits(&topology, &[0], 2 << 30)
            .unwrap_err()
            .to_string()
            .contains("larger than the free memory"));
        assert!(check_memory_fits(&topology, &[0, 1], 3 << 29).is_ok());
    }

    /// 4x every cache in front (L2s of the CPUs used, the L3 once, the
    /// memory-side cache of the target node), clamped to a quarter of the
    /// smallest free memory and then marked; split over several buffers.
    #[test]
    fn working_sets_cover_every_cache_in_front() {
        let mut topology = crate::topology::synthetic(
            "pack:1 [numa(memory=8GiB)] l3:1(size=96MiB) l2:4(size=2MiB) core:1 pu:1",
        );
        topology.nodes[0].memory_free_bytes = Some(8 << 30);
        let one = working_set_for(&topology, &[0], &[0]);
        assert_eq!(one.cache_bytes_in_front, 98 << 20);
        assert_eq!((one.bytes, one.cache_affected), (4 * (98 << 20), false));
        let all = working_set_for(&topology, &[0, 1, 2, 3], &[0]);
        assert_eq!(all.cache_bytes_in_front, 104 << 20);
        assert_eq!((all.bytes, all.cache_affected), (4 * (104 << 20), false));
        // A 1 GiB memory-side cache in front of node 0.
        topology
            .memory_side_caches
            .push(crate::topology::MemorySideCache {
                level: 1,
                size_bytes: 1 << 30,
                line_bytes: 64,
                nodes: vec![0],
            });
        let behind = working_set_for(&topology, &[0], &[0]);
        assert_eq!(behind.cache_bytes_in_front, (98 << 20) + (1 << 30));
        assert_eq!((behind.bytes, behind.cache_affected), (2 << 30, true));
        let shared = working_set_of_buffers(&topology, &[0], &[0], 4);
        assert_eq!((shared.bytes, shared.cache_affected), (512 << 20, true));
        // Small caches: at least 256 MiB.
        let small =
            crate::topology::synthetic("pack:1 [numa(memory=8GiB)] l3:1(size=8MiB) core:2 pu:1");
        let set = working_set_for(&small, &[0], &[0]);
        assert_eq!(
            (set.bytes, set.cache_affected),
            (MIN_DRAM_WORKING_SET, false)
        );
    }

    fn owner(offset: usize, bytes: usize, node: u32) -> OwnedRange {
        OwnedRange {
            offset,
            bytes,
            node,
        }
    }

    #[test]
    fn owners_touching_a_range_are_those_overlapping_it() {
        let owners = [owner(0, 100, 0), owner(100, 100, 1), owner(200, 100, 2)];
        let nodes = |from, to| -> Vec<u32> {
            owners_touching(&owners, from, to)
                .map(|owner| owner.node)
                .collect()
        };
        assert_eq!(nodes(0, 100), [0]);
        assert_eq!(nodes(99, 101), [0, 1]);
        assert_eq!(nodes(150, 400), [1, 2]);
        assert_eq!(nodes(300, 400), Vec::<u32>::new());
    }

    /// Pages are judged against the owners they overlap: a page shared by
    /// two owners is right on either's node, a page of one owner only on
    /// its node (this machine's pages are all on node 0).
    #[test]
    fn owned_pages_are_judged_against_the_threads_that_touch_them() {
        let this = crate::topology::discover_this_system().unwrap();
        let node = this.node_of_cpu(this.allowed.cpus[0]).unwrap();
        let mut placed =
            PlacedBuffer::allocate(&this, 3 * PAGE_SIZE, MemoryPlacement::bind(node), false)
                .unwrap();
        placed.buffer.touch_pages();
        let elsewhere = node + 1;
        let split = 5440; // inside the second page
        let halves = |second_node| {
            placed
                .inspect_owned(
                    0.95,
                    &[
                        owner(0, split, node),
                        owner(split, 3 * PAGE_SIZE - split, second_node),
                    ],
                )
                .unwrap()
        };
        let all_mine = halves(node);
        assert_eq!(all_mine.fraction_as_requested, 1.0);
        assert!(all_mine.achieved);
        // Page 0: first owner only (right); page 1: both (right on either); page 2: second only (wrong).
        let second_elsewhere = halves(elsewhere);
        assert!((second_elsewhere.fraction_as_requested - 2.0 / 3.0).abs() < 1e-12);
        assert!(!second_elsewhere.achieved);
        // A range with no whole page of its own is still judged.
        let small = placed
            .inspect_owned(0.95, &[owner(1000, 2000, node)])
            .unwrap();
        assert!((small.fraction_as_requested - 1.0 / 3.0).abs() < 1e-12);
    }

    /// Issue 34 item 16: a limit is read again each time a size is checked
    /// against it (a fake v1 cgroup tree): what the group's other
    /// processes take during a long run, or a lowered limit, counts.
    #[test]
    fn the_memory_limit_is_read_again_before_each_allocation() {
        let root = tempfile::tempdir().unwrap();
        let group = root.path().join("sys/fs/cgroup/memory/job");
        std::fs::create_dir_all(&group).unwrap();
        let set = |name: &str, bytes: u64| {
            std::fs::write(group.join(name), format!("{bytes}\n")).unwrap()
        };
        set("memory.limit_in_bytes", 1 << 30);
        set("memory.usage_in_bytes", 100 << 20);
        let mountinfo = "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n";
        let mut topology = crate::topology::synthetic("pack:1 [numa(memory=16GiB)] core:2 pu:1");
        topology.allowed.memory_limits =
            crate::topology::memory_limit::cgroup_limits("4:memory:/job\n", mountinfo, root.path());
        let before = limit_usable_bytes(&topology).unwrap();
        assert!(check_within_memory_limit(&topology, 600 << 20).is_ok());
        // Another process of the job takes 400 MiB meanwhile.
        set("memory.usage_in_bytes", 500 << 20);
        let after = limit_usable_bytes(&topology).unwrap();
        assert_eq!(
            before - after,
            (400 << 20) / 20 * 19,
            "{before} then {after}"
        );
        let refused = check_within_memory_limit(&topology, 600 << 20).unwrap_err();
        assert!(
            refused.to_string().contains("524 MiB available"),
            "{refused}"
        );
        // The buffer itself is refused before it is mapped.
        let first_touch = MemoryPlacement::FirstTouch { nodes: vec![0] };
        let refused =
            PlacedBuffer::allocate(&topology, 600 << 20, first_touch.clone(), false).unwrap_err();
        assert!(
            refused.to_string().contains("524 MiB available"),
            "{refused}"
        );
        assert!(PlacedBuffer::allocate(&topology, 1 << 20, first_touch, false).is_ok());
        // The limit lowered below the usage: nothing is usable.
        set("memory.limit_in_bytes", 400 << 20);
        assert_eq!(limit_usable_bytes(&topology), Some(0));
    }

    /// A 150 MiB memory cgroup (as Slurm's `--mem` gives): default working
    /// sets shrink under it and are flagged cache-affected, explicit sizes
    /// beyond it are refused naming the limit.
    #[test]
    fn working_sets_fit_under_the_process_memory_limit() {
        let mut topology =
            crate::topology::synthetic("pack:1 [numa(memory=16GiB)] l3:1(size=32MiB) core:2 pu:1");
        topology.nodes[0].memory_free_bytes = Some(8 << 30);
        let unlimited = working_set_for(&topology, &[0], &[0]);
        assert_eq!(unlimited.bytes, MIN_DRAM_WORKING_SET);
        assert!(check_memory_fits(&topology, &[0], 1 << 30).is_ok());
        topology.allowed.memory_limits = vec![crate::topology::MemoryLimit {
            source: "cgroup v1 memory.limit_in_bytes (/sys/fs/cgroup/memory/job)".into(),
            limit_bytes: 150 << 20,
            used_bytes: 10 << 20,
            origin: None,
        }];
        let usable = limit_usable_bytes(&topology).unwrap();
        // 24 MiB and 1 MiB per worker thread (2 CPUs) kept for numabench.
        assert_eq!(
            usable,
            ((140 << 20) - PROCESS_HEADROOM - (2 << 20)) / 20 * 19
        );
        let limited = working_set_for(&topology, &[0], &[0]);
        assert_eq!(limited.bytes, usable / 2);
        assert!(limited.cache_affected, "{limited:?}");
        assert_eq!(within_memory_limit(&topology, 1 << 30), usable / 2);
        assert!(check_memory_fits(&topology, &[0], usable).is_ok());
        let refused = check_memory_fits(&topology, &[0], 200 << 20)
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("200 MiB") && refused.contains("memory limit of 150 MiB"),
            "{refused}"
        );
    }
}
