//! CPU orders: which CPU the n-th thread gets. Built from hwloc's object
//! tree (the report's cores in tree order and its L3 domains), never from
//! OS-index arithmetic: Linux usually numbers the first thread of every
//! core, then all second threads, so "every Nth CPU" or "ascending OS
//! index" puts siblings in the wrong places. One implementation serves
//! `scaling`, `matrix`, `characterize`, the application teams and `run`'s
//! pin policies; records name the order in `params.cpu_order`.

use crate::topology::Machine;

/// An order of CPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuOrder {
    /// hwloc's tree order: SMT siblings together, then the next core of the
    /// same L3, node, package.
    Compact,
    /// One hardware thread of every core, round robin over L3 domains,
    /// before any core's second thread.
    CoresFirst,
    /// Round robin over nodes, each node's CPUs in cores-first order (so
    /// round robin over its L3 domains, all cores before any sibling).
    Scatter,
}

impl CpuOrder {
    /// The name records and the command line use.
    pub fn name(self) -> &'static str {
        match self {
            CpuOrder::Compact => "compact",
            CpuOrder::CoresFirst => "cores-first",
            CpuOrder::Scatter => "scatter",
        }
    }

    /// The CPUs of `cpus` this process may use, in this order. CPUs the
    /// topology does not place in a core count as cores of their own,
    /// after the others, ascending.
    pub fn arrange(self, topology: &Machine, cpus: &[u32]) -> Vec<u32> {
        let usable: Vec<u32> = cpus
            .iter()
            .copied()
            .filter(|cpu| topology.allowed.cpus.contains(cpu))
            .collect();
        match self {
            CpuOrder::Compact => cores_of(topology, &usable).concat(),
            CpuOrder::CoresFirst => cores_first(topology, &usable),
            CpuOrder::Scatter => scatter(topology, &usable),
        }
    }

    /// Every CPU this process may use, in this order.
    pub fn all_allowed(self, topology: &Machine) -> Vec<u32> {
        self.arrange(topology, &topology.allowed.cpus)
    }
}

/// The cores holding `cpus`, each reduced to its CPUs in `cpus`, in tree
/// order; CPUs of no known core follow as single-CPU cores, ascending.
fn cores_of(topology: &Machine, cpus: &[u32]) -> Vec<Vec<u32>> {
    let mut cores: Vec<Vec<u32>> = topology
        .cores
        .iter()
        .map(|core| {
            core.iter()
                .copied()
                .filter(|cpu| cpus.contains(cpu))
                .collect::<Vec<u32>>()
        })
        .filter(|core| !core.is_empty())
        .collect();
    let mut loose: Vec<u32> = cpus
        .iter()
        .copied()
        .filter(|cpu| !topology.cores.iter().any(|core| core.contains(cpu)))
        .collect();
    loose.sort_unstable();
    loose.dedup();
    cores.extend(loose.into_iter().map(|cpu| vec![cpu]));
    cores
}

/// The CPU groups of the domains cores-first spreads over: the L3 caches,
/// or where there is no L3 the highest CPU cache level below it.
fn cache_domains(topology: &Machine) -> &[Vec<u32>] {
    topology
        .caches
        .iter()
        .filter(|cache| cache.cache_type != "instruction" && cache.level <= 3)
        .max_by_key(|cache| cache.level)
        .map_or(&[], |cache| cache.cpu_groups.as_slice())
}

/// `cpus`' cores grouped by cache domain: domains in tree order (of their
/// first core), cores in tree order within each.
fn cores_by_domain(topology: &Machine, cpus: &[u32]) -> Vec<Vec<Vec<u32>>> {
    let domains = cache_domains(topology);
    let mut grouped: Vec<(Option<usize>, Vec<Vec<u32>>)> = Vec::new();
    for core in cores_of(topology, cpus) {
        let domain = domains.iter().position(|group| group.contains(&core[0]));
        match grouped.iter_mut().find(|(key, _)| *key == domain) {
            Some((_, cores)) => cores.push(core),
            None => grouped.push((domain, vec![core])),
        }
    }
    grouped.into_iter().map(|(_, cores)| cores).collect()
}

/// Cores-first: for each thread rank within a core (first threads, then
/// second threads, ...), the k-th core of every domain in turn.
fn cores_first(topology: &Machine, cpus: &[u32]) -> Vec<u32> {
    let domains = cores_by_domain(topology, cpus);
    let ranks = domains.iter().flatten().map(Vec::len).max().unwrap_or(0);
    let depth = domains.iter().map(Vec::len).max().unwrap_or(0);
    let mut ordered = Vec::with_capacity(cpus.len());
    for rank in 0..ranks {
        for position in 0..depth {
            for domain in &domains {
                if let Some(&cpu) = domain.get(position).and_then(|core| core.get(rank)) {
                    ordered.push(cpu);
                }
            }
        }
    }
    ordered
}

/// Scatter: round robin over nodes (by OS index), each node's CPUs in
/// cores-first order; CPUs of no node follow in cores-first order.
fn scatter(topology: &Machine, cpus: &[u32]) -> Vec<u32> {
    let per_node: Vec<Vec<u32>> = topology
        .nodes
        .iter()
        .map(|node| {
            let mine: Vec<u32> = cpus
                .iter()
                .copied()
                .filter(|cpu| node.cpus.contains(cpu))
                .collect();
            cores_first(topology, &mine)
        })
        .filter(|ordered| !ordered.is_empty())
        .collect();
    let longest = per_node.iter().map(Vec::len).max().unwrap_or(0);
    let mut ordered: Vec<u32> = (0..longest)
        .flat_map(|index| per_node.iter().filter_map(move |cpus| cpus.get(index)))
        .copied()
        .collect();
    let homeless: Vec<u32> = cpus
        .iter()
        .copied()
        .filter(|cpu| !ordered.contains(cpu))
        .collect();
    ordered.extend(cores_first(topology, &homeless));
    ordered
}

#[cfg(test)]
#[path = "order_tests.rs"]
pub(crate) mod tests;
