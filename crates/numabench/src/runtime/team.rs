//! A persistent team of worker threads for application kernels, on the
//! one thread pool ([`crate::threads::Pool`]): the caller is worker 0;
//! workers 1.. wait for jobs. Workers are pinned (in compact or scatter
//! order, see [`crate::threads::CpuOrder`]) before the team allocates
//! anything, or left unpinned. The team allocates the kernel's
//! main arrays and places them by the scheme.

use super::huge_pages::HugeSnapshot;
use super::migrate;
use super::next_touch::{self, NextTouchOutcome};
use super::placement::{PlacementScheme, ThreadScheme};
use super::shared_array::SharedArray;
use crate::memory::{
    huge_page_check_range, HugePageCheck, MemoryError, MemoryPolicy, HUGE_PAGE_SIZE, PAGE_SIZE,
};
use crate::threads::{current_cpu, PinError, Pool};
use crate::topology::Machine;
use std::ops::Range;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;
use thiserror::Error;

/// Why a team could not be formed or place its arrays.
///
/// Fault: the caller's for a team without threads; the system's for a
/// baseline without a time and for what pinning and memory report.
#[derive(Debug, Error)]
pub enum TeamError {
    #[error(transparent)]
    Pin(#[from] PinError),
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// No worker asked for.
    #[error("a team needs at least one thread")]
    NoThreads,
    /// The one-node baseline's runs gave no time (none finished).
    #[error("the one-node baseline gave no time")]
    NoBaselineTime,
}

impl crate::error::Faulty for TeamError {
    fn fault(&self) -> crate::error::Fault {
        use crate::error::Fault;
        match self {
            TeamError::Pin(error) => error.fault(),
            TeamError::Memory(error) => error.fault(),
            TeamError::NoThreads => Fault::Usage,
            TeamError::NoBaselineTime => Fault::System,
        }
    }
}

/// Where one array lives, for migration and page statistics.
#[derive(Debug, Clone, Copy)]
struct ArrayRegion {
    start: usize,
    bytes: usize,
    unit_bytes: usize,
    /// From a hugetlbfs pool.
    hugetlb: bool,
    /// The whole mapping's bytes from `start` (whole pages; whole 2 MiB
    /// units with huge pages): protected as one, so no huge page is split.
    mapped: usize,
}

/// The team.
pub struct Team {
    /// The workers; the caller is worker 0.
    workers: Pool,
    scheme: PlacementScheme,
    nodes_of_workers: Vec<Option<u32>>,
    /// The scheme's memory policy, its nodes filled in (an interleave
    /// over every allowed node with memory when the scheme names none).
    policy: Option<MemoryPolicy>,
    regions: Mutex<Vec<ArrayRegion>>,
    /// The nodes the arrays' pages may land on (the policy's, else the
    /// workers'; every memory node when a worker is unpinned): where a
    /// hugetlbfs pool must hold them.
    pool_nodes: Vec<u32>,
    /// Huge pages asked for ([`Team::use_huge_pages`]).
    hugepages: bool,
}

impl std::fmt::Debug for Team {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Team")
            .field("cpus", &self.workers.cpus())
            .field("scheme", &self.scheme)
            .finish()
    }
}

/// The CPU of each worker under a thread scheme: `threads` workers,
/// `per_cpu` of them sharing each CPU (over-decomposition), CPUs taken in
/// the scheme's [`crate::threads::CpuOrder`].
pub fn plan_cpus(
    topology: &Machine,
    scheme: ThreadScheme,
    threads: usize,
    per_cpu: usize,
) -> Vec<Option<u32>> {
    // The same orders as `numabench run`'s pin-compact and pin-scatter policies.
    let order = scheme
        .cpu_order()
        .map(|order| order.all_allowed(topology))
        .unwrap_or_default();
    (0..threads)
        .map(|worker| (!order.is_empty()).then(|| order[(worker / per_cpu.max(1)) % order.len()]))
        .collect()
}

impl Team {
    /// A team of `threads` workers on this machine's CPUs in compact order,
    /// data placed by `scheme`: what the workloads' tests run on.
    #[cfg(test)]
    pub(crate) fn compact_here(threads: usize, scheme: super::PlacementScheme) -> Team {
        let topology = crate::topology::discover_this_system().unwrap();
        Team::new(
            &topology,
            super::plan_cpus(&topology, super::ThreadScheme::Compact, threads, 1),
            scheme,
        )
        .unwrap()
    }
    /// Forms a team with one worker per entry of `cpus` (`None` =
    /// unpinned). The calling thread becomes worker 0 and is pinned too (its
    /// previous affinity is restored when the team is dropped).
    pub fn new(
        topology: &Machine,
        cpus: Vec<Option<u32>>,
        scheme: PlacementScheme,
    ) -> Result<Self, TeamError> {
        if cpus.is_empty() {
            return Err(TeamError::NoThreads);
        }
        let policy = scheme
            .memory_policy()
            .map(|policy| policy.or_nodes(&crate::topology::memory_nodes(topology)));
        let workers = Pool::new(cpus.clone())?;
        let nodes_of_workers: Vec<Option<u32>> = cpus
            .iter()
            .map(|cpu| cpu.and_then(|cpu| topology.node_of_cpu(cpu)))
            .collect();
        let pool_nodes = match &policy {
            Some(policy) => policy.nodes.clone(),
            None if nodes_of_workers.iter().all(Option::is_some) => {
                let mut nodes: Vec<u32> = nodes_of_workers.iter().flatten().copied().collect();
                nodes.sort_unstable();
                nodes.dedup();
                nodes
            }
            None => crate::topology::memory_nodes(topology),
        };
        Ok(Self {
            workers,
            scheme,
            nodes_of_workers,
            policy,
            regions: Mutex::new(Vec::new()),
            pool_nodes,
            hugepages: false,
        })
    }

    /// Backs the arrays allocated from now on with 2 MiB huge pages: from
    /// the hugetlbfs pools when every node the pages may land on has enough
    /// free, else transparent huge pages (the micro-benchmarks' rule).
    /// serial+migrate and next-touch then move whole huge pages.
    pub fn use_huge_pages(&mut self) {
        self.hugepages = true;
    }

    /// Bytes placed as one: a huge page when huge pages were asked for.
    fn granule(&self) -> usize {
        match self.hugepages {
            true => HUGE_PAGE_SIZE,
            false => PAGE_SIZE,
        }
    }

    /// How much of the arrays got huge pages (`/proc/self/smaps`); `None`
    /// when huge pages were not asked for or no array was allocated.
    pub fn huge_page_check(&self) -> Result<Option<HugePageCheck>, TeamError> {
        if !self.hugepages {
            return Ok(None);
        }
        let regions = self.regions.lock().expect("regions").clone();
        let checks = regions
            .iter()
            .map(|region| huge_page_check_range(region.start, region.bytes, region.hugetlb))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(HugePageCheck::combine(&checks))
    }

    /// Where the arrays' huge pages are now, to count after a migration
    /// how many moved as huge pages; `None` without huge pages.
    pub(crate) fn huge_snapshot(&self) -> Option<HugeSnapshot> {
        self.hugepages.then(|| {
            let regions = self.regions.lock().expect("regions").clone();
            HugeSnapshot::take(regions.iter().map(|region| (region.start, region.bytes)))
        })
    }

    /// Number of workers.
    pub fn threads(&self) -> usize {
        self.workers.threads()
    }

    /// The CPU each worker is pinned to (`None` when unpinned).
    pub fn cpus(&self) -> &[Option<u32>] {
        self.workers.cpus()
    }

    /// The CPU each worker runs on now (sched_getcpu inside each worker):
    /// for pinned workers, proof they stayed; for unpinned ones, where the
    /// scheduler put them.
    pub fn current_cpus(&self) -> Vec<u32> {
        let cpus: Vec<AtomicU32> = (0..self.threads()).map(|_| AtomicU32::new(0)).collect();
        self.run(|worker| cpus[worker].store(current_cpu(), Ordering::Relaxed));
        cpus.into_iter().map(AtomicU32::into_inner).collect()
    }

    /// The placement scheme of this team's arrays.
    pub fn scheme(&self) -> &PlacementScheme {
        &self.scheme
    }

    /// The contiguous block of `0..n` worker `worker` owns (static
    /// partition; the first `n % threads` workers get one more).
    pub fn block(&self, n: usize, worker: usize) -> Range<usize> {
        let threads = self.threads();
        let base = n / threads;
        let extra = n % threads;
        let start = worker * base + worker.min(extra);
        start..start + base + usize::from(worker < extra)
    }

    /// Runs `job(worker)` on every worker and returns when all are done.
    pub fn run<F: Fn(usize) + Sync>(&self, job: F) {
        self.workers.run(job);
    }

    /// Runs `job(worker)` on every worker and sums the results.
    pub fn sum<F: Fn(usize) -> f64 + Sync>(&self, job: F) -> f64 {
        let partials: Vec<Mutex<f64>> = (0..self.threads()).map(|_| Mutex::new(0.0)).collect();
        self.run(|worker| *partials[worker].lock().expect("partial") = job(worker));
        // Summed in worker order so the result does not depend on timing.
        partials
            .into_iter()
            .map(|partial| partial.into_inner().expect("partial"))
            .sum()
    }

    /// Allocates `len` elements placed by the team's scheme. `unit` is the
    /// number of elements of one partition unit (a matrix row, a grid
    /// plane): under first touch, worker w touches the units of
    /// `block(len / unit, w)`. All elements read as zero.
    pub fn alloc<T: Copy>(&self, len: usize, unit: usize) -> Result<SharedArray<T>, TeamError> {
        let array = SharedArray::<T>::map_with(
            len,
            unit,
            self.hugepages.then_some(self.pool_nodes.as_slice()),
        )?;
        let buffer = array.buffer();
        if let Some(policy) = &self.policy {
            policy.apply(buffer)?;
        }
        // The array's own bytes: the mapping may be longer (whole pages, or
        // whole 2 MiB units with huge pages), but the workers' blocks are
        // blocks of the array.
        let region = ArrayRegion {
            start: buffer.as_ptr() as usize,
            bytes: (array.len().max(1) * std::mem::size_of::<T>()).min(buffer.len()),
            unit_bytes: unit.max(1) * std::mem::size_of::<T>(),
            hugetlb: buffer.is_hugetlb(),
            mapped: buffer.len(),
        };
        match self.scheme {
            PlacementScheme::FirstTouch => self.run(|worker| {
                let span = self.placement_span(&region, worker);
                touch(region.start, region.bytes, span.start, span.end);
            }),
            _ => touch(region.start, region.bytes, 0, region.bytes),
        }
        self.regions.lock().expect("regions").push(region);
        Ok(array)
    }

    /// Gives back an array the computation will not read (say, one of two
    /// encodings of the same data, after a calibration chose the other):
    /// its memory is unmapped and its pages leave [`Team::page_report`],
    /// so the placement is verified on the arrays that are used. Call it
    /// before [`Team::start_compute`]; under next-touch a released array's
    /// protection and migration count are dropped with it.
    pub fn release<T: Copy>(&self, array: SharedArray<T>) {
        let start = array.buffer().as_ptr() as usize;
        let mut regions = self.regions.lock().expect("regions");
        if let Some(index) = regions.iter().position(|region| region.start == start) {
            let region = regions.remove(index);
            if self.scheme == PlacementScheme::NextTouch {
                next_touch::unprotect(region.start, region.mapped);
            }
        }
        drop(regions);
        drop(array);
    }

    /// The bytes of `region` (offsets from its start) that `worker` places:
    /// under first touch it touches them, under serial+migrate it moves
    /// them. With base pages, its block of units. With huge pages, the huge
    /// pages that begin in its block (the first worker's also the partial
    /// one before the first boundary), so each huge page is placed by one
    /// worker only, not by whichever of two workers touches it first.
    fn placement_span(&self, region: &ArrayRegion, worker: usize) -> Range<usize> {
        let units = region.bytes.div_ceil(region.unit_bytes);
        let block = self.block(units, worker);
        let granule = self.granule();
        let boundary = |unit: usize| {
            let offset = (unit * region.unit_bytes).min(region.bytes);
            if granule == PAGE_SIZE || offset == region.bytes {
                return offset;
            }
            ((region.start + offset).next_multiple_of(granule) - region.start).min(region.bytes)
        };
        let from = match block.start {
            0 => 0,
            unit => boundary(unit),
        };
        from..boundary(block.end).max(from)
    }

    /// Marks the end of initialisation: for `serial+migrate` each worker
    /// moves the pages of its blocks to its node now; for `next-touch` the
    /// arrays are protected so each page moves to the first worker that
    /// touches it. Returns the pages migrated now (next-touch migrates
    /// later; see [`Team::finish_compute`]).
    pub fn start_compute(&self) -> Result<u64, TeamError> {
        let regions = self.regions.lock().expect("regions").clone();
        match self.scheme {
            PlacementScheme::SerialMigrate => {
                let moved = AtomicU64::new(0);
                self.run(|worker| {
                    for region in &regions {
                        let span = self.placement_span(region, worker);
                        moved.fetch_add(
                            migrate::migrate_to_current_node(region.start + span.start, span.len()),
                            Ordering::Relaxed,
                        );
                    }
                });
                Ok(moved.into_inner())
            }
            PlacementScheme::NextTouch => {
                for region in &regions {
                    next_touch::protect(region.start, region.mapped, self.granule())
                        .map_err(MemoryError::Migrate)?;
                }
                Ok(0)
            }
            _ => Ok(0),
        }
    }

    /// Ends a next-touch phase (unprotects what was not touched) and says
    /// how many pages migrated on touch, and how many the emulation left in
    /// place because it gave up on their array.
    pub fn finish_compute(&self) -> NextTouchOutcome {
        if self.scheme != PlacementScheme::NextTouch {
            return NextTouchOutcome::default();
        }
        self.regions
            .lock()
            .expect("regions")
            .iter()
            .map(|region| next_touch::unprotect(region.start, region.mapped))
            .fold(NextTouchOutcome::default(), |total, outcome| {
                total + outcome
            })
    }

    /// Pages of all arrays on each node, and the share of pages that are
    /// not on the node of the worker whose block holds them (the estimated
    /// remote-access share; `None` when workers are unpinned).
    pub fn page_report(&self) -> Result<PageReport, TeamError> {
        let regions = self.regions.lock().expect("regions").clone();
        let mut report = PageReport::default();
        let mut remote = 0u64;
        let mut attributed = 0u64;
        for region in &regions {
            let units = region.bytes.div_ceil(region.unit_bytes);
            for worker in 0..self.threads() {
                let range = self.block(units, worker);
                // Each page counts once, for the worker whose block holds its start.
                let page_start = |unit: usize| {
                    (unit * region.unit_bytes)
                        .min(region.bytes)
                        .next_multiple_of(PAGE_SIZE)
                };
                let from = page_start(range.start);
                let to = page_start(range.end);
                if to <= from {
                    continue;
                }
                let nodes = crate::memory::page_nodes((region.start + from) as *mut u8, to - from)?;
                for (node, count) in &nodes.per_node {
                    *report.pages_per_node.entry(*node).or_insert(0) += count;
                }
                report.not_present += nodes.not_present;
                if let Some(home) = self.nodes_of_workers[worker] {
                    attributed += nodes.resident();
                    remote += nodes.resident() - nodes.on_nodes(&[home]);
                }
            }
        }
        report.remote_share = (attributed > 0 && self.nodes_of_workers.iter().all(Option::is_some))
            .then(|| remote as f64 / attributed as f64);
        Ok(report)
    }
}

/// Where a team's array pages are.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageReport {
    pub pages_per_node: std::collections::BTreeMap<u32, u64>,
    pub not_present: u64,
    /// Fraction of resident pages not on the node of the worker that owns
    /// them (None when workers are unpinned).
    pub remote_share: Option<f64>,
}

/// Writes one zero per page of `[start + from, start + to)` (clamped to
/// the mapping), placing the pages.
fn touch(start: usize, bytes: usize, from: usize, to: usize) {
    let to = to.min(bytes);
    let mut offset = from / PAGE_SIZE * PAGE_SIZE;
    while offset < to {
        // SAFETY: offset < bytes, inside the mapping; a volatile byte write of 0 keeps contents zero.
        unsafe { std::ptr::write_volatile((start + offset) as *mut u8, 0) };
        offset += PAGE_SIZE;
    }
}
