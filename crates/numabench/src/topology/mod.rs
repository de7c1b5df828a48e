//! The machine's NUMA topology as numabench reports it: packages, NUMA
//! nodes (CPU-less ones included), CPU caches, memory-side caches, the
//! node latency matrix (ACPI SLIT), memory attributes (ACPI HMAT) and what
//! this process may use.
//!
//! Everything comes from hwloc through the `hwlocality` crate; the few facts
//! hwloc does not answer (a node's free memory, the kernel's own list of a
//! node's CPUs) come from the kernel's node directory in sysfs.
//! [`Machine`] is plain data with a stable JSON form
//! (`numabench topo --json`, documented in `docs/topology.md`). It may
//! describe another machine, from an hwloc XML file ([`discover`]); only
//! this machine's is measured on.

pub mod colours;
mod discover;
mod kernel_nodes;
pub mod levels;
mod machine;
pub mod memory_limit;
mod source;
mod table;
mod usable_nodes;

#[cfg(test)]
pub(crate) use discover::synthetic;
pub use discover::{
    discover_this_system, keep_memory_side_caches, load_hwloc_topology, report_from_hwloc,
    TopologyError,
};
pub use levels::HoldingLevel;
pub use machine::{
    Allowed, CacheLevel, Machine, MemoryAttributeValue, MemorySideCache, NodeInfo, PackageInfo,
    THIS_MACHINE, TOPOLOGY_SCHEMA_VERSION,
};
pub use memory_limit::{LimitOrigin, MemoryLimit, PROCESS_HEADROOM};
pub use source::{
    check_measurable, discover, discover_from_xml, foreign_topology_variable, Purpose,
};
pub use table::render_table;
pub use usable_nodes::{cpu_nodes, memory_nodes};
#[cfg(test)]
pub(crate) mod fixture_tests;
#[cfg(test)]
mod xml_tests;
