//! Builds a [`TopologyReport`] from an hwloc topology.

use super::kernel_nodes;
use super::report::*;
use hwlocality::bitmap::BitmapIndex;
use hwlocality::cpu::binding::CpuBindingFlags;
use hwlocality::memory::attribute::{Initiator, MemoryAttribute};
use hwlocality::object::attributes::ObjectAttributes;
use hwlocality::object::types::{CacheType, ObjectType};
use hwlocality::object::TopologyObject;
use hwlocality::topology::builder::BuildFlags;
use hwlocality::Topology;
use thiserror::Error;

/// Why the topology could not be read.
#[derive(Debug, Error)]
pub enum TopologyError {
    /// hwloc failed to discover or load the topology.
    #[error("hwloc could not build the topology: {0}")]
    Hwloc(String),
}

/// Loads this machine's topology, keeping CPUs and nodes this process may
/// not use (so the report shows the whole machine and marks what is
/// allowed).
pub fn load_hwloc_topology() -> Result<Topology, TopologyError> {
    let hwloc_error = |error: &dyn std::fmt::Display| TopologyError::Hwloc(error.to_string());
    Topology::builder()
        .with_flags(BuildFlags::INCLUDE_DISALLOWED)
        .map_err(|error| hwloc_error(&error))?
        .build()
        .map_err(|error| hwloc_error(&error))
}

/// Reports this machine's topology.
pub fn discover_this_system() -> Result<TopologyReport, TopologyError> {
    Ok(report_from_hwloc(&load_hwloc_topology()?))
}

/// Describes any hwloc topology: this system, or a synthetic or XML one
/// (then the kernel is not asked and everything is taken as allowed).
pub fn report_from_hwloc(topology: &Topology) -> TopologyReport {
    let this_system = topology.is_this_system();
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
    TopologyReport {
        schema_version: TOPOLOGY_SCHEMA_VERSION,
        cpu_count: topology.objects_with_type(ObjectType::PU).count(),
        core_count: topology.objects_with_type(ObjectType::Core).count(),
        node_count: nodes.len(),
        packages,
        distances,
        caches: describe_caches(topology),
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

fn node_distances(topology: &Topology, nodes: &[NodeInfo]) -> Option<Vec<Vec<u64>>> {
    let matrices = topology.distances(None).ok()?;
    matrices.iter().find_map(|matrix| {
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

fn describe_caches(topology: &Topology) -> Vec<CacheLevel> {
    use ObjectType::*;
    let mut levels = Vec::new();
    for cache_kind in [
        L1Cache, L1ICache, L2Cache, L2ICache, L3Cache, L3ICache, L4Cache, L5Cache,
    ] {
        let caches: Vec<&TopologyObject> = topology.objects_with_type(cache_kind).collect();
        let Some(first) = caches.first() else {
            continue;
        };
        let Some(ObjectAttributes::Cache(attributes)) = first.attributes() else {
            continue;
        };
        levels.push(CacheLevel {
            level: u32::try_from(attributes.depth()).unwrap_or(0),
            cache_type: match attributes.cache_type() {
                CacheType::Data => "data",
                CacheType::Instruction => "instruction",
                _ => "unified",
            }
            .to_string(),
            size_bytes: attributes.size().map_or(0, |size| size.get()),
            line_bytes: attributes.line_size().map_or(0, |line| line.get() as u64),
            count: caches.len(),
            cpus_per_cache: first.cpuset().and_then(|set| set.weight()).unwrap_or(0),
            cpu_groups: caches.iter().map(|cache| object_cpus(cache)).collect(),
        });
    }
    levels
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
    }
}

/// The report of an hwloc synthetic topology, e.g.
/// `"pack:2 [numa(memory=8GiB)] l3:1(size=16MiB) core:4 pu:2"`: machines
/// other than this one, for tests (binding does nothing on them).
#[cfg(test)]
pub(crate) fn synthetic(description: &str) -> TopologyReport {
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
