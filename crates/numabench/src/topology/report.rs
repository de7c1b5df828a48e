//! Plain-data description of a topology, serialised by `topo --json`.

use serde::{Deserialize, Serialize};

/// Version of the `topo --json` document; bumped on incompatible changes.
pub const TOPOLOGY_SCHEMA_VERSION: u32 = 1;

/// Everything `numabench topo` reports about a machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopologyReport {
    /// See [`TOPOLOGY_SCHEMA_VERSION`].
    pub schema_version: u32,
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
    /// Node distance matrix (ACPI SLIT, 10 = local); rows and columns in the
    /// order of `nodes`. `None` when the machine declares none.
    pub distances: Option<Vec<Vec<u64>>>,
    /// One entry per cache level and type.
    pub caches: Vec<CacheLevel>,
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
    /// Memory free on the node now, in bytes, when the kernel says.
    pub memory_free_bytes: Option<u64>,
    /// Package containing the node's CPUs (or its locality), if one does.
    pub package: Option<u32>,
    /// hwloc's subtype (for example `HBM`, `DRAM`, `NVM`, `GPUMemory`).
    pub kind: Option<String>,
}

/// The caches at one level and of one type.
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
    /// How many caches of this level and type the machine has.
    pub count: usize,
    /// Logical CPUs sharing one cache.
    pub cpus_per_cache: usize,
    /// The logical CPUs of each cache of this level and type, one list per
    /// cache: which CPUs share it (SMT siblings share an L1; a core complex
    /// shares an L2 or L3).
    #[serde(default)]
    pub cpu_groups: Vec<Vec<u32>>,
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
}

impl TopologyReport {
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

    /// The node a CPU belongs to.
    pub fn node_of_cpu(&self, cpu: u32) -> Option<u32> {
        self.nodes
            .iter()
            .find(|node| node.cpus.contains(&cpu))
            .map(|node| node.index)
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

    /// Size of the largest cache, the last level (0 when none is known).
    pub fn last_level_cache_bytes(&self) -> u64 {
        self.caches
            .iter()
            .filter(|cache| cache.cache_type != "instruction")
            .max_by_key(|cache| cache.level)
            .map_or(0, |cache| cache.size_bytes)
    }

    /// Logical CPUs per physical core (2 with SMT on most x86 machines).
    pub fn threads_per_core(&self) -> usize {
        self.cpu_count
            .checked_div(self.core_count)
            .unwrap_or(1)
            .max(1)
    }
}
