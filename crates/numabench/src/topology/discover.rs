//! Builds a [`Machine`] from an hwloc topology.

use super::kernel_nodes;
use super::machine::*;
use super::source::OTHER_MACHINE;
use hwlocality::bitmap::BitmapIndex;
use hwlocality::cpu::binding::CpuBindingFlags;
use hwlocality::memory::attribute::{Initiator, MemoryAttribute};
use hwlocality::object::attributes::ObjectAttributes;
use hwlocality::object::distance::DistancesKind;
use hwlocality::object::types::{CacheType, ObjectType};
use hwlocality::object::TopologyObject;
use hwlocality::topology::builder::{BuildFlags, TopologyBuilder, TypeFilter};
use hwlocality::Topology;
use thiserror::Error;

/// Why the topology could not be read, or may not be used.
///
/// Fault: the system's when hwloc fails on this machine (`Hwloc`); the
/// user's otherwise (a file, a variable, another machine's topology).
#[derive(Debug, Error)]
pub enum TopologyError {
    /// hwloc failed to discover or load the topology.
    #[error("hwloc could not build the topology: {0}")]
    Hwloc(String),
    /// A topology that cannot be loaded: a file that is missing,
    /// unreadable, not XML or XML that hwloc rejects; a synthetic
    /// description hwloc rejects. `what` names it.
    #[error("cannot load {what}: {reason}")]
    Load { what: String, reason: String },
    /// A measurement asked for on a topology that is not this machine's:
    /// its threads would be pinned by another machine's CPU numbers.
    #[error("{origin} is not this machine: measurements run on this machine only")]
    OtherMachine { origin: String },
    /// An hwloc environment variable that makes hwloc describe another
    /// machine (or a made-up one) instead of this one, set while measuring.
    #[error("{variable} is set ('{value}'): hwloc would describe that topology instead of this machine; unset {variable} to measure")]
    ForeignEnvironment {
        variable: &'static str,
        value: String,
    },
}

impl crate::error::Faulty for TopologyError {
    fn fault(&self) -> crate::error::Fault {
        use crate::error::Fault;
        match self {
            TopologyError::Hwloc(_) => Fault::System,
            TopologyError::Load { .. }
            | TopologyError::OtherMachine { .. }
            | TopologyError::ForeignEnvironment { .. } => Fault::Usage,
        }
    }
}

/// Loads this machine's topology, keeping CPUs and nodes this process may
/// not use (so the report shows the whole machine and marks what is
/// allowed).
pub fn load_hwloc_topology() -> Result<Topology, TopologyError> {
    let hwloc_error = |error: &dyn std::fmt::Display| TopologyError::Hwloc(error.to_string());
    keep_memory_side_caches(Topology::builder())?
        .with_flags(BuildFlags::INCLUDE_DISALLOWED)
        .map_err(|error| hwloc_error(&error))?
        .build()
        .map_err(|error| hwloc_error(&error))
}

/// Tells hwloc to keep memory-side caches, which it drops by default, so
/// the report can show them. Every topology numabench reports (this
/// system's, an XML file's) is built with this.
pub fn keep_memory_side_caches(builder: TopologyBuilder) -> Result<TopologyBuilder, TopologyError> {
    builder
        .with_type_filter(ObjectType::MemCache, TypeFilter::KeepAll)
        .map_err(|error| TopologyError::Hwloc(error.to_string()))
}

/// Reports this machine's topology.
pub fn discover_this_system() -> Result<Machine, TopologyError> {
    Ok(report_from_hwloc(&load_hwloc_topology()?))
}

/// Describes any hwloc topology: this system, or a synthetic or XML one
/// (then the kernel is not asked and everything is taken as allowed).
pub fn report_from_hwloc(topology: &Topology) -> Machine {
    report_with(topology, topology.is_this_system())
}

/// [`report_from_hwloc`], told whether the topology is this machine's (a
/// file is not, even when `HWLOC_THISSYSTEM` makes hwloc say it is).
pub(crate) fn report_with(topology: &Topology, this_system: bool) -> Machine {
    let nodes = describe_nodes(topology, this_system);
    let mut packages = describe_packages(topology);
    // A package's nodes are those inside it: hwloc's package nodeset also
    // names nodes attached above the package (e.g. a machine-level CXL node).
    for package in &mut packages {
        package.nodes = nodes
            .iter()
            .filter(|node| node.package == Some(package.index))
            .map(|node| node.index)
            .collect();
    }
    let distances = node_distances(topology, &nodes);
    let memory_attributes = memory_attributes(topology, &nodes);
    Machine {
        schema_version: TOPOLOGY_SCHEMA_VERSION,
        this_system,
        source: if this_system {
            THIS_MACHINE
        } else {
            OTHER_MACHINE
        }
        .to_string(),
        cpu_count: topology.objects_with_type(ObjectType::PU).count(),
        core_count: topology.objects_with_type(ObjectType::Core).count(),
        node_count: nodes.len(),
        packages,
        distances,
        caches: describe_caches(topology),
        memory_side_caches: describe_memory_side_caches(topology),
        cores: describe_cores(topology),
        memory_attributes,
        allowed: describe_allowed(topology, this_system),
        nodes,
    }
}

fn indices<'a>(set: impl IntoIterator<Item = BitmapIndex> + 'a) -> Vec<u32> {
    set.into_iter()
        .map(|index| u32::try_from(usize::from(index)).unwrap_or(u32::MAX))
        .collect()
}

fn object_cpus(object: &TopologyObject) -> Vec<u32> {
    object
        .cpuset()
        .map(|set| indices(set.iter_set()))
        .unwrap_or_default()
}

fn os_index(object: &TopologyObject) -> u32 {
    object
        .os_index()
        .and_then(|index| u32::try_from(index).ok())
        .unwrap_or(u32::MAX)
}

fn describe_packages(topology: &Topology) -> Vec<PackageInfo> {
    let mut packages: Vec<PackageInfo> = topology
        .objects_with_type(ObjectType::Package)
        .map(|package| PackageInfo {
            index: os_index(package),
            cpus: object_cpus(package),
            nodes: package
                .nodeset()
                .map(|set| indices(set.iter_set()))
                .unwrap_or_default(),
        })
        .collect();
    packages.sort_by_key(|package| package.index);
    packages
}

/// The CPUs owned by each node. On this system the kernel's node CPU lists
/// decide. For synthetic/XML topologies each CPU goes to the node with the
/// smallest cpuset containing it, ties going to the lowest OS index, so a
/// memory-only node that hwloc attaches beside a normal one (sharing its
/// locality) owns no CPU.
fn owned_cpus(topology: &Topology, this_system: bool) -> Vec<(u32, Vec<u32>, Vec<u32>)> {
    let mut nodes: Vec<(u32, Vec<u32>)> = topology
        .objects_with_type(ObjectType::NUMANode)
        .map(|node| (os_index(node), object_cpus(node)))
        .collect();
    nodes.sort_by_key(|(index, _)| *index);
    let from_kernel: Option<Vec<Vec<u32>>> = if this_system {
        nodes
            .iter()
            .map(|(index, _)| kernel_nodes::cpus(*index))
            .collect()
    } else {
        None
    };
    let owned: Vec<Vec<u32>> = match from_kernel {
        Some(lists) => lists,
        None => nodes
            .iter()
            .map(|(index, locality)| {
                locality
                    .iter()
                    .copied()
                    .filter(|cpu| {
                        let owner = nodes
                            .iter()
                            .filter(|(_, other)| other.contains(cpu))
                            .min_by_key(|(other_index, other)| (other.len(), *other_index));
                        owner.map(|(owner_index, _)| owner_index) == Some(index)
                    })
                    .collect()
            })
            .collect(),
    };
    nodes
        .into_iter()
        .zip(owned)
        .map(|((index, locality), owned)| (index, owned, locality))
        .collect()
}

fn describe_nodes(topology: &Topology, this_system: bool) -> Vec<NodeInfo> {
    let packages = describe_packages(topology);
    owned_cpus(topology, this_system)
        .into_iter()
        .map(|(index, cpus, locality_cpus)| {
            let node = topology
                .node_with_os_index(index as usize)
                .expect("node listed by hwloc");
            let memory_total_bytes = match node.attributes() {
                Some(ObjectAttributes::NUMANode(attributes)) => {
                    attributes.local_memory().map_or(0, |bytes| bytes.get())
                }
                _ => node.total_memory(),
            };
            let near = if cpus.is_empty() {
                &locality_cpus
            } else {
                &cpus
            };
            let package = packages
                .iter()
                .find(|package| {
                    !near.is_empty() && near.iter().all(|cpu| package.cpus.contains(cpu))
                })
                .map(|package| package.index);
            NodeInfo {
                index,
                cpuless: cpus.is_empty(),
                cpus,
                locality_cpus,
                memory_total_bytes,
                memory_free_bytes: if this_system {
                    kernel_nodes::free_bytes(index)
                } else {
                    None
                },
                package,
                kind: node
                    .subtype()
                    .map(|subtype| subtype.to_string_lossy().into_owned()),
            }
        })
        .collect()
}

/// Name hwloc gives the firmware's node latency matrix (ACPI SLIT).
const SLIT_NAME: &str = "NUMALatency";

/// The firmware's node latency matrix (hwloc's `NUMALatency`, kind "from
/// OS, means latency") over all `nodes`, in their order. Any other matrix
/// (bandwidths, user-given values, a subset of nodes) is not a distance
/// matrix: `None` when the firmware gives no SLIT.
fn node_distances(topology: &Topology, nodes: &[NodeInfo]) -> Option<Vec<Vec<u64>>> {
    let slit_kind = DistancesKind::FROM_OS | DistancesKind::MEANS_LATENCY;
    let matrices = topology.distances(Some(slit_kind)).ok()?;
    matrices.iter().find_map(|matrix| {
        let is_slit = matrix.kind().contains(slit_kind)
            && matrix
                .name()
                .is_some_and(|name| name.to_bytes() == SLIT_NAME.as_bytes());
        if !is_slit {
            return None;
        }
        let objects: Vec<Option<u32>> = matrix
            .objects()
            .map(|object| {
                object
                    .filter(|object| object.object_type() == ObjectType::NUMANode)
                    .map(os_index)
            })
            .collect();
        let position = |node: u32| objects.iter().position(|object| *object == Some(node));
        let order: Option<Vec<usize>> = nodes.iter().map(|node| position(node.index)).collect();
        let order = order?;
        let values = matrix.distances();
        let width = objects.len();
        Some(
            order
                .iter()
                .map(|&row| {
                    order
                        .iter()
                        .map(|&column| values[row * width + column])
                        .collect()
                })
                .collect(),
        )
    })
}

fn memory_attributes(topology: &Topology, nodes: &[NodeInfo]) -> Vec<MemoryAttributeValue> {
    let attributes: [(&str, &str, MemoryAttribute<'_>); 6] = [
        ("latency", "ns", MemoryAttribute::latency(topology)),
        (
            "read_latency",
            "ns",
            MemoryAttribute::read_latency(topology),
        ),
        (
            "write_latency",
            "ns",
            MemoryAttribute::write_latency(topology),
        ),
        ("bandwidth", "MiB/s", MemoryAttribute::bandwidth(topology)),
        (
            "read_bandwidth",
            "MiB/s",
            MemoryAttribute::read_bandwidth(topology),
        ),
        (
            "write_bandwidth",
            "MiB/s",
            MemoryAttribute::write_bandwidth(topology),
        ),
    ];
    let mut values = Vec::new();
    for (name, unit, attribute) in attributes {
        for target in topology.objects_with_type(ObjectType::NUMANode) {
            let Ok((initiators, numbers)) = attribute.initiators(target) else {
                continue;
            };
            for (initiator, value) in initiators.iter().zip(numbers) {
                let initiator_cpus = match initiator {
                    Initiator::CpuSet(set) => indices(set.iter_set()),
                    Initiator::Object(object) => object_cpus(object),
                };
                let initiator_node = nodes
                    .iter()
                    .find(|node| !node.cpus.is_empty() && node.cpus == initiator_cpus)
                    .map(|node| node.index);
                values.push(MemoryAttributeValue {
                    name: name.to_string(),
                    unit: unit.to_string(),
                    initiator_cpus,
                    initiator_node,
                    target_node: os_index(target),
                    value,
                });
            }
        }
    }
    values.sort_by(|a, b| {
        (a.target_node, &a.name, &a.initiator_cpus).cmp(&(
            b.target_node,
            &b.name,
            &b.initiator_cpus,
        ))
    });
    values
}

/// The CPU caches, grouped by level, type and size (a hybrid CPU's P- and
/// E-cores have L2s of different sizes). Memory-side caches (hwloc
/// `MemCache`) are a type of their own and never appear here.
fn describe_caches(topology: &Topology) -> Vec<CacheLevel> {
    use ObjectType::*;
    let mut levels: Vec<CacheLevel> = Vec::new();
    for cache_kind in [
        L1Cache, L1ICache, L2Cache, L2ICache, L3Cache, L3ICache, L4Cache, L5Cache,
    ] {
        let first_of_kind = levels.len();
        for cache in topology.objects_with_type(cache_kind) {
            let Some(ObjectAttributes::Cache(attributes)) = cache.attributes() else {
                continue;
            };
            let size_bytes = attributes.size().map_or(0, |size| size.get());
            let cpus = object_cpus(cache);
            if let Some(level) = levels[first_of_kind..]
                .iter_mut()
                .find(|level| level.size_bytes == size_bytes)
            {
                level.count += 1;
                level.cpu_groups.push(cpus);
                continue;
            }
            levels.push(CacheLevel {
                level: u32::try_from(attributes.depth()).unwrap_or(0),
                cache_type: match attributes.cache_type() {
                    CacheType::Data => "data",
                    CacheType::Instruction => "instruction",
                    _ => "unified",
                }
                .to_string(),
                size_bytes,
                line_bytes: attributes.line_size().map_or(0, |line| line.get() as u64),
                count: 1,
                cpus_per_cache: cpus.len(),
                cpu_groups: vec![cpus],
            });
        }
    }
    levels
}

/// The memory-side caches (hwloc `MemCache` objects) and the nodes whose
/// memory each caches, sorted by those nodes.
fn describe_memory_side_caches(topology: &Topology) -> Vec<MemorySideCache> {
    let mut caches: Vec<MemorySideCache> = topology
        .objects_with_type(ObjectType::MemCache)
        .map(|cache| {
            let (size_bytes, level, line_bytes) = memory_side_cache_attributes(cache);
            MemorySideCache {
                level,
                size_bytes,
                line_bytes,
                nodes: cache
                    .nodeset()
                    .map(|set| indices(set.iter_set()))
                    .unwrap_or_default(),
            }
        })
        .collect();
    caches.sort_by(|a, b| (&a.nodes, a.level).cmp(&(&b.nodes, b.level)));
    caches
}

/// Size, depth and line size of a memory-side cache. hwlocality gives
/// cache attributes for CPU caches only, so they are read from hwloc's own
/// object.
fn memory_side_cache_attributes(cache: &TopologyObject) -> (u64, u32, u64) {
    debug_assert_eq!(cache.object_type(), ObjectType::MemCache);
    let raw: *const hwlocality_sys::hwloc_obj = (cache as *const TopologyObject).cast();
    // SAFETY: `TopologyObject` is a `#[repr(transparent)]` newtype of
    // `hwloc_obj` (hwlocality documents and relies on it), so the pointer is
    // a valid `hwloc_obj` borrowed from the topology for this call. hwloc
    // fills the `cache` variant of the attribute union for `MemCache`
    // objects (hwloc/include/hwloc.h, `hwloc_obj_attr_u`), and `attr` is
    // checked for null before it is read; nothing is written.
    unsafe {
        let attr = (*raw).attr;
        if attr.is_null() {
            return (0, 0, 0);
        }
        let cache = &(*attr).cache;
        (cache.size, cache.depth, u64::from(cache.linesize))
    }
}

/// Each core's PUs (OS indexes), cores and PUs in hwloc's logical (tree)
/// order.
fn describe_cores(topology: &Topology) -> Vec<Vec<u32>> {
    let pus: Vec<&TopologyObject> = topology.objects_with_type(ObjectType::PU).collect();
    topology
        .objects_with_type(ObjectType::Core)
        .map(|core| {
            let Some(core_set) = core.cpuset() else {
                return Vec::new();
            };
            pus.iter()
                .filter(|pu| pu.os_index().is_some_and(|index| core_set.is_set(index)))
                .map(|pu| os_index(pu))
                .collect()
        })
        .collect()
}

fn describe_allowed(topology: &Topology, this_system: bool) -> Allowed {
    let cgroup_cpus = indices(topology.allowed_cpuset().iter_set());
    let affinity_cpus = if this_system {
        topology
            .cpu_binding(CpuBindingFlags::THREAD)
            .map(|set| indices(set.iter_set()))
            .unwrap_or_else(|_| cgroup_cpus.clone())
    } else {
        cgroup_cpus.clone()
    };
    Allowed {
        cpus: cgroup_cpus
            .iter()
            .copied()
            .filter(|cpu| affinity_cpus.contains(cpu))
            .collect(),
        nodes: indices(topology.allowed_nodeset().iter_set()),
        cgroup_cpus,
        affinity_cpus,
        slurm_job: if this_system {
            std::env::var("SLURM_JOB_ID").ok()
        } else {
            None
        },
        memory_limits: if this_system {
            super::memory_limit::discover_memory_limits()
        } else {
            Vec::new()
        },
    }
}

/// The report of an hwloc synthetic topology, e.g.
/// `"pack:2 [numa(memory=8GiB)] l3:1(size=16MiB) core:4 pu:2"`: machines
/// other than this one, for tests (binding does nothing on them).
#[cfg(test)]
pub(crate) fn synthetic(description: &str) -> Machine {
    let topology = Topology::builder()
        .from_synthetic(description)
        .expect("valid synthetic description")
        .build()
        .expect("synthetic topology builds");
    report_from_hwloc(&topology)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_socket_synthetic_machine() {
        let report = synthetic("pack:2 [numa(memory=8GiB)] l3:1(size=16MiB) core:4 pu:2");
        assert_eq!(report.cpu_count, 16);
        assert_eq!(report.core_count, 8);
        assert_eq!(report.node_count, 2);
        assert_eq!(report.packages.len(), 2);
        assert_eq!(report.nodes[0].cpus, (0..8).collect::<Vec<u32>>());
        assert_eq!(report.nodes[1].cpus, (8..16).collect::<Vec<u32>>());
        assert_eq!(report.nodes[1].package, Some(1));
        assert_eq!(report.nodes[0].memory_total_bytes, 8 << 30);
        assert!(report.nodes.iter().all(|node| !node.cpuless));
        assert_eq!(report.node_of_cpu(9), Some(1));
        assert_eq!(report.threads_per_core(), 2);
        let l3 = report
            .caches
            .iter()
            .find(|cache| cache.level == 3)
            .expect("an L3");
        assert_eq!(
            (l3.size_bytes, l3.count, l3.cpus_per_cache),
            (16 << 20, 2, 8)
        );
        assert_eq!(report.last_level_cache_bytes(), 16 << 20);
        assert_eq!(report.allowed.cpus.len(), 16);
        assert_eq!(report.allowed.nodes, vec![0, 1]);
    }

    #[test]
    fn single_node_machine_has_no_distances_required() {
        let report = synthetic("numa:1 core:2 pu:1");
        assert_eq!(report.node_count, 1);
        assert_eq!(report.nodes[0].cpus, vec![0, 1]);
        assert_eq!(report.distance(0, 0).unwrap_or(10), 10);
    }
}
