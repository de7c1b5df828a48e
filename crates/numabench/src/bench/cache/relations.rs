//! Which CPUs measure an owner's caches: one per relation the topology has
//! to the owner CPU (SMT sibling, a CPU sharing its L2, its L3, its node,
//! its package, and one in another package per distinct SLIT distance).

use crate::topology::Machine;
use serde::Serialize;

/// How a measuring CPU relates to the owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Relation {
    /// The other hardware thread of the owner's core.
    SmtSibling,
    /// Another core sharing the owner's L2 (or L1).
    SameL2,
    /// Another core sharing the owner's L3 (or a deeper shared cache) only.
    SameL3,
    /// The owner's NUMA node, no cache shared.
    SameNode,
    /// The owner's package, another node.
    SamePackage,
    /// Another package.
    OtherPackage,
}

impl Relation {
    /// The name in records and tables.
    pub fn name(self) -> &'static str {
        match self {
            Relation::SmtSibling => "smt-sibling",
            Relation::SameL2 => "same-l2",
            Relation::SameL3 => "same-l3",
            Relation::SameNode => "same-node",
            Relation::SamePackage => "same-package",
            Relation::OtherPackage => "other-package",
        }
    }
}

/// A measuring CPU and how it relates to the owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measurer {
    pub cpu: u32,
    pub relation: Relation,
    /// SLIT distance from the owner's node to the measurer's (None without a SLIT).
    pub distance: Option<u64>,
}

/// How `cpu` relates to `owner`.
pub fn relation_of(topology: &Machine, owner: u32, cpu: u32) -> Relation {
    let same_core = topology
        .cores
        .iter()
        .any(|core| core.contains(&owner) && core.contains(&cpu));
    if same_core {
        return Relation::SmtSibling;
    }
    match topology.shared_cache_level(owner, cpu) {
        Some(level) if level <= 2 => return Relation::SameL2,
        Some(_) => return Relation::SameL3,
        None => {}
    }
    let (owner_node, node) = (topology.node_of_cpu(owner), topology.node_of_cpu(cpu));
    if owner_node.is_some() && owner_node == node {
        return Relation::SameNode;
    }
    let (owner_package, package) = (topology.package_of_cpu(owner), topology.package_of_cpu(cpu));
    if owner_package.is_some() && owner_package == package {
        return Relation::SamePackage;
    }
    Relation::OtherPackage
}

/// One measuring CPU per relation present among `candidates` (the allowed
/// CPUs), the first in `candidates`' order; for cross-node relations one
/// per distinct distance from the owner's node. Ordered near to far.
pub fn default_measurers(topology: &Machine, owner: u32, candidates: &[u32]) -> Vec<Measurer> {
    let mut chosen: Vec<Measurer> = Vec::new();
    for &cpu in candidates {
        if cpu == owner {
            continue;
        }
        let measurer = measurer(topology, owner, cpu);
        let cross_node = matches!(
            measurer.relation,
            Relation::SamePackage | Relation::OtherPackage
        );
        let seen = chosen.iter().any(|other| {
            other.relation == measurer.relation
                && (!cross_node || other.distance == measurer.distance)
        });
        if !seen {
            chosen.push(measurer);
        }
    }
    chosen.sort_by_key(|m| (m.relation, m.distance));
    chosen
}

/// `cpu` as a measurer of `owner`'s caches.
pub fn measurer(topology: &Machine, owner: u32, cpu: u32) -> Measurer {
    let distance = match (topology.node_of_cpu(owner), topology.node_of_cpu(cpu)) {
        (Some(from), Some(to)) => topology.distance(from, to),
        _ => None,
    };
    Measurer {
        cpu,
        relation: relation_of(topology, owner, cpu),
        distance,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::discover_from_xml;
    use std::path::Path;

    fn fixture(name: &str) -> Machine {
        discover_from_xml(Path::new(&format!(
            "{}/tests/fixtures/{name}",
            env!("CARGO_MANIFEST_DIR")
        )))
        .unwrap()
    }

    /// On a 2-socket SMT server every relation is present once, near to
    /// far, and each chosen CPU really has that relation.
    #[test]
    fn a_two_socket_smt_server_has_every_relation() {
        let topology = fixture("two-socket-smt.xml");
        let all: Vec<u32> = (0..topology.cpu_count as u32).collect();
        let owner = topology.cores[0][0];
        let measurers = default_measurers(&topology, owner, &all);
        let relations: Vec<Relation> = measurers.iter().map(|m| m.relation).collect();
        assert!(relations.contains(&Relation::SmtSibling), "{measurers:?}");
        assert!(relations.contains(&Relation::OtherPackage), "{measurers:?}");
        assert!(
            relations.contains(&Relation::SameL3) || relations.contains(&Relation::SameNode),
            "{measurers:?}"
        );
        for m in &measurers {
            assert_ne!(m.cpu, owner);
            assert_eq!(relation_of(&topology, owner, m.cpu), m.relation);
        }
        let sibling = measurers
            .iter()
            .find(|m| m.relation == Relation::SmtSibling)
            .unwrap();
        assert!(topology.cores[0].contains(&sibling.cpu));
        let far = measurers
            .iter()
            .find(|m| m.relation == Relation::OtherPackage)
            .unwrap();
        assert_ne!(
            topology.package_of_cpu(far.cpu),
            topology.package_of_cpu(owner)
        );
        let mut sorted = relations.clone();
        sorted.sort();
        assert_eq!(relations, sorted, "near to far");
    }

    /// AMD NPS4: nodes inside the owner's package come as same-package at
    /// each distance, the other package's at its own.
    #[test]
    fn nps4_gives_one_measurer_per_distance() {
        let topology = fixture("amd-nps4.xml");
        let all: Vec<u32> = (0..topology.cpu_count as u32).collect();
        let owner = topology.cores[0][0];
        let measurers = default_measurers(&topology, owner, &all);
        let same_package: Vec<_> = measurers
            .iter()
            .filter(|m| m.relation == Relation::SamePackage)
            .collect();
        assert!(!same_package.is_empty(), "{measurers:?}");
        let mut distances: Vec<_> = measurers
            .iter()
            .filter(|m| matches!(m.relation, Relation::SamePackage | Relation::OtherPackage))
            .map(|m| (m.relation, m.distance))
            .collect();
        let count = distances.len();
        distances.dedup();
        assert_eq!(
            distances.len(),
            count,
            "one per relation and distance: {measurers:?}"
        );
    }
}
