//! Plain-data description of a topology, serialised by `topo --json`.

use super::memory_limit::{tightest, MemoryLimit};
use serde::{Deserialize, Serialize};

/// Version of the `topo --json` document; bumped on incompatible changes.
pub const TOPOLOGY_SCHEMA_VERSION: u32 = 1;

/// The `source` of this machine's topology, discovered by hwloc.
pub const THIS_MACHINE: &str = "this machine";

// Reports written before `this_system` and `source` existed were all of
// this machine.
fn this_system_by_default() -> bool {
    true
}

fn this_machine_by_default() -> String {
    THIS_MACHINE.to_string()
}

/// Everything `numabench topo` reports about a machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// See [`TOPOLOGY_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// True when the report describes the machine numabench runs on;
    /// false for another machine's topology (an hwloc XML file given with
    /// `--topology` or `HWLOC_XMLFILE`, a synthetic one), which numabench
    /// describes but never measures on.
    #[serde(default = "this_system_by_default")]
    pub this_system: bool,
    /// Where the topology comes from: [`THIS_MACHINE`], or the file (or
    /// hwloc input) it was loaded from.
    #[serde(default = "this_machine_by_default")]
    pub source: String,
    /// Logical CPUs (hardware threads, hwloc PUs) in the machine.
    pub cpu_count: usize,
    /// Physical cores in the machine.
    pub core_count: usize,
    /// NUMA nodes, CPU-less ones included.
    pub node_count: usize,
    /// Processor packages (sockets).
    pub packages: Vec<PackageInfo>,
    /// NUMA nodes sorted by OS index.
    pub nodes: Vec<NodeInfo>,
    /// Node latency matrix from the firmware (ACPI SLIT, 10 = local): hwloc's
    /// `NUMALatency` matrix of kind "from OS, means latency" and no other
    /// (a bandwidth or user matrix is not a distance). Rows and columns in
    /// the order of `nodes`. `None` when the firmware declares none.
    pub distances: Option<Vec<Vec<u64>>>,
    /// CPU caches: one entry per cache level, type and size (hybrid CPUs
    /// have L2s of different sizes). Memory-side caches are not here.
    pub caches: Vec<CacheLevel>,
    /// Memory-side caches (hwloc `MemCache`: KNL MCDRAM in cache mode, DRAM
    /// in front of persistent or CXL memory): they cache one or more NUMA
    /// nodes' memory for every CPU, and are never a CPU cache level.
    #[serde(default)]
    pub memory_side_caches: Vec<MemorySideCache>,
    /// Every core's logical CPUs (SMT siblings), cores in hwloc's tree
    /// order (package, node, cache, core) and each core's CPUs in tree
    /// order: CPU orders are built from this, never from OS-index
    /// arithmetic (siblings are often numbered far apart).
    #[serde(default)]
    pub cores: Vec<Vec<u32>>,
    /// Latency and bandwidth the firmware declares (ACPI HMAT), as hwloc
    /// reports them. Empty when the machine declares none.
    pub memory_attributes: Vec<MemoryAttributeValue>,
    /// CPUs and nodes this process may use.
    pub allowed: Allowed,
}

/// A processor package (socket).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackageInfo {
    /// OS index of the package.
    pub index: u32,
    /// Logical CPUs in the package.
    pub cpus: Vec<u32>,
    /// NUMA nodes inside the package (including memory-only nodes
    /// attached below it).
    pub nodes: Vec<u32>,
}

/// A NUMA node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeInfo {
    /// OS index of the node (what numactl and the kernel call it).
    pub index: u32,
    /// Logical CPUs that belong to this node; empty for a CPU-less node.
    pub cpus: Vec<u32>,
    /// True for memory-only nodes (CXL expanders, HBM, emulated ones).
    pub cpuless: bool,
    /// The CPUs hwloc considers close to this node (for a CPU-less node,
    /// the CPUs of the initiator it is attached near).
    pub locality_cpus: Vec<u32>,
    /// Memory the node holds, in bytes.
    pub memory_total_bytes: u64,
    /// Memory a program can have on the node now, in bytes, when the kernel
    /// says: free plus what it reclaims on demand (clean page cache,
    /// reclaimable slab).
    pub memory_free_bytes: Option<u64>,
    /// Package containing the node's CPUs (or its locality), if one does.
    pub package: Option<u32>,
    /// hwloc's subtype (for example `HBM`, `DRAM`, `NVM`, `GPUMemory`).
    pub kind: Option<String>,
}

/// The CPU caches at one level, of one type and one size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheLevel {
    /// 1 for L1, 2 for L2, ...
    pub level: u32,
    /// `data`, `instruction` or `unified`.
    #[serde(rename = "type")]
    pub cache_type: String,
    /// Size of one cache, in bytes.
    pub size_bytes: u64,
    /// Cache line size, in bytes.
    pub line_bytes: u64,
    /// How many caches of this level, type and size the machine has.
    pub count: usize,
    /// Logical CPUs sharing one cache.
    pub cpus_per_cache: usize,
    /// The logical CPUs of each cache of this level and type, one list per
    /// cache: which CPUs share it (SMT siblings share an L1; a core complex
    /// shares an L2 or L3).
    #[serde(default)]
    pub cpu_groups: Vec<Vec<u32>>,
}

/// A memory-side cache: it sits in front of the memory of `nodes` and
/// caches it for every CPU (hwloc object type `MemCache`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemorySideCache {
    /// hwloc's depth of the memory-side cache (1 = the one nearest the CPUs
    /// side of the memory); not a CPU cache level.
    pub level: u32,
    /// Size of the cache, in bytes.
    pub size_bytes: u64,
    /// Cache line size, in bytes (0 when unknown).
    pub line_bytes: u64,
    /// OS indexes of the NUMA nodes whose memory it caches.
    pub nodes: Vec<u32>,
}

/// One memory attribute value from HMAT, as hwloc gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryAttributeValue {
    /// `latency`, `read_latency`, `write_latency`, `bandwidth`,
    /// `read_bandwidth` or `write_bandwidth`.
    pub name: String,
    /// `ns` for latencies, `MiB/s` for bandwidths (hwloc's units).
    pub unit: String,
    /// CPUs of the initiator.
    pub initiator_cpus: Vec<u32>,
    /// The node whose CPUs are exactly the initiator's, if any.
    pub initiator_node: Option<u32>,
    /// The memory node the value describes.
    pub target_node: u32,
    /// The value in `unit`.
    pub value: u64,
}

/// What this process may use, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Allowed {
    /// CPUs the process may run on: the cgroup cpuset intersected with the
    /// process's affinity mask (taskset, numactl, Slurm).
    pub cpus: Vec<u32>,
    /// Nodes the process may allocate on (cgroup cpuset.mems).
    pub nodes: Vec<u32>,
    /// CPUs the cgroup cpuset allows, before the affinity mask.
    pub cgroup_cpus: Vec<u32>,
    /// The process's CPU affinity mask.
    pub affinity_cpus: Vec<u32>,
    /// The Slurm job this runs in, if any (`SLURM_JOB_ID`).
    pub slurm_job: Option<String>,
    /// Every limit on the memory this process may use (its memory cgroup's,
    /// `RLIMIT_AS`, `RLIMIT_DATA`; see [`super::memory_limit`]). Empty when
    /// nothing limits it, or for another machine's topology.
    #[serde(default)]
    pub memory_limits: Vec<MemoryLimit>,
}

impl Allowed {
    /// How many worker threads numabench may run here: one per allowed CPU.
    pub fn worker_threads(&self) -> usize {
        self.cpus.len().max(1)
    }

    /// The limit leaving the fewest bytes usable for buffers, as it was
    /// read with the topology, if any.
    pub fn memory_limit(&self) -> Option<&MemoryLimit> {
        tightest(&self.memory_limits, self.worker_threads())
    }

    /// Every memory limit as it is now, each read again where it was read
    /// ([`MemoryLimit::now`]: a few small files): what a size is checked
    /// against before it is allocated, however long the run has lasted.
    pub fn memory_limits_now(&self) -> Vec<MemoryLimit> {
        self.memory_limits
            .iter()
            .filter_map(MemoryLimit::now)
            .collect()
    }

    /// The limit leaving the fewest bytes usable for buffers now with
    /// `threads` worker threads still to start, and those bytes
    /// ([`MemoryLimit::usable_bytes`]); `None` when nothing limits this
    /// process.
    pub fn memory_usable_now(&self, threads: usize) -> Option<(MemoryLimit, u64)> {
        let limit = tightest(&self.memory_limits_now(), threads)?.clone();
        let usable = limit.usable_bytes(threads);
        Some((limit, usable))
    }
}

impl Machine {
    /// The node with this OS index.
    pub fn node(&self, index: u32) -> Option<&NodeInfo> {
        self.nodes.iter().find(|node| node.index == index)
    }

    /// Distance from node `from` to node `to`, if the machine declares it.
    pub fn distance(&self, from: u32, to: u32) -> Option<u64> {
        let row = self.nodes.iter().position(|node| node.index == from)?;
        let column = self.nodes.iter().position(|node| node.index == to)?;
        self.distances.as_ref().map(|matrix| matrix[row][column])
    }

    /// The CPUs of node `index` this process may use (none for a missing
    /// or CPU-less node).
    pub fn allowed_cpus_of_node(&self, index: u32) -> Vec<u32> {
        self.node(index)
            .map(|info| {
                info.cpus
                    .iter()
                    .copied()
                    .filter(|cpu| self.allowed.cpus.contains(cpu))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The node a CPU belongs to.
    pub fn node_of_cpu(&self, cpu: u32) -> Option<u32> {
        self.nodes
            .iter()
            .find(|node| node.cpus.contains(&cpu))
            .map(|node| node.index)
    }

    /// The index in [`Machine::cores`] of the core holding `cpu`.
    pub fn core_of_cpu(&self, cpu: u32) -> Option<usize> {
        self.cores.iter().position(|core| core.contains(&cpu))
    }

    /// The nodes of `cpus`, ascending, each once (CPUs of no node left out).
    pub fn nodes_of_cpus(&self, cpus: &[u32]) -> Vec<u32> {
        let mut nodes: Vec<u32> = cpus
            .iter()
            .filter_map(|&cpu| self.node_of_cpu(cpu))
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }

    /// The lowest level of data (or unified) cache that CPUs `a` and `b`
    /// share, `None` when they share none (or the topology does not say).
    pub fn shared_cache_level(&self, a: u32, b: u32) -> Option<u32> {
        self.caches
            .iter()
            .filter(|cache| cache.cache_type != "instruction")
            .filter(|cache| {
                cache
                    .cpu_groups
                    .iter()
                    .any(|group| group.contains(&a) && group.contains(&b))
            })
            .map(|cache| cache.level)
            .min()
    }

    /// The package a CPU belongs to.
    pub fn package_of_cpu(&self, cpu: u32) -> Option<u32> {
        self.packages
            .iter()
            .find(|package| package.cpus.contains(&cpu))
            .map(|package| package.index)
    }

    /// Size of one CPU cache of the last level (the largest of that level;
    /// 0 when none is known). Memory-side caches are not CPU caches and
    /// never count here.
    pub fn last_level_cache_bytes(&self) -> u64 {
        self.caches
            .iter()
            .filter(|cache| cache.cache_type != "instruction")
            .max_by_key(|cache| (cache.level, cache.size_bytes))
            .map_or(0, |cache| cache.size_bytes)
    }

    /// Total capacity of the distinct data (and unified) CPU caches that
    /// `cpus` use: every cache of every level whose CPUs include one of
    /// them, each counted once however many of `cpus` share it.
    /// Instruction caches hold no data and are left out.
    pub fn cpu_cache_bytes(&self, cpus: &[u32]) -> u64 {
        self.data_cache_bytes(cpus, |_| true)
    }

    /// [`Machine::cpu_cache_bytes`] of the levels `level` keeps.
    pub(super) fn data_cache_bytes(&self, cpus: &[u32], level: impl Fn(u32) -> bool) -> u64 {
        self.caches
            .iter()
            .filter(|cache| cache.cache_type != "instruction" && level(cache.level))
            .map(|cache| {
                let used = cache
                    .cpu_groups
                    .iter()
                    .filter(|group| group.iter().any(|cpu| cpus.contains(cpu)))
                    .count();
                used as u64 * cache.size_bytes
            })
            .sum()
    }

    /// Total capacity of the memory-side caches in front of any of `nodes`.
    pub fn memory_side_cache_bytes(&self, nodes: &[u32]) -> u64 {
        self.memory_side_caches
            .iter()
            .filter(|cache| cache.nodes.iter().any(|node| nodes.contains(node)))
            .map(|cache| cache.size_bytes)
            .sum()
    }

    /// Every cache on the path from `cpus` to the memory of `nodes`: their
    /// CPU caches plus the memory-side caches in front of those nodes.
    pub fn cache_bytes_in_front(&self, cpus: &[u32], nodes: &[u32]) -> u64 {
        self.cpu_cache_bytes(cpus) + self.memory_side_cache_bytes(nodes)
    }

    /// Logical CPUs per physical core (2 with SMT on most x86 machines).
    pub fn threads_per_core(&self) -> usize {
        self.cpu_count
            .checked_div(self.core_count)
            .unwrap_or(1)
            .max(1)
    }
}
