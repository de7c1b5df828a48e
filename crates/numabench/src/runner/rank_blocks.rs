//! What `numabench run` tells the pinning shim so that MPI ranks get their own
//! blocks of CPUs (see `crates/numabench-pin/src/ranks.rs`): the block rule
//! (`NUMABENCH_PIN_RANKS`: `compact`, `scatter`, `k-per-core:K`) and, for K per
//! core, the cores in cores-first order (`NUMABENCH_PIN_CORES`). The CPU order
//! itself is the policy's pin order (`NUMABENCH_PIN_CPUS`).

use crate::threads::CpuOrder;
use crate::topology::Machine;

/// The rank rule of a pinning policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankBlocks {
    /// `compact`, `scatter` or `k-per-core:K`.
    pub rule: String,
    /// For `k-per-core`: every core's allowed CPUs (compact order within the
    /// core), cores in cores-first order; empty otherwise.
    pub cores: Vec<Vec<u32>>,
}

impl RankBlocks {
    /// Blocks cut from the policy's own order (`compact`, `scatter`).
    pub fn of_order(order: CpuOrder) -> RankBlocks {
        RankBlocks {
            rule: order.name().to_string(),
            cores: Vec::new(),
        }
    }

    /// The variables for the shim.
    pub fn environment(&self) -> Vec<(String, String)> {
        let mut environment = vec![("NUMABENCH_PIN_RANKS".to_string(), self.rule.clone())];
        if !self.cores.is_empty() {
            let cores: Vec<String> = self
                .cores
                .iter()
                .map(|core| {
                    core.iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .collect();
            environment.push(("NUMABENCH_PIN_CORES".to_string(), cores.join(";")));
        }
        environment
    }
}

/// The variables by which launchers name a process's local rank (OpenMPI,
/// Slurm, MPICH); the shim reads the same ones.
const LOCAL_RANK_VARIABLES: [&str; 3] = [
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "SLURM_LOCALID",
    "MPI_LOCALRANKID",
];

/// Whether this numabench is itself one rank of a launcher
/// (`srun numabench run ...`) that gave it fewer CPUs than its cgroup allows:
/// then its CPUs are its rank's already, and the programs it runs (which
/// inherit its local rank) must not be cut a block of them again. `var`
/// reads an environment variable.
pub fn confined_rank(topology: &Machine, var: &dyn Fn(&str) -> Option<String>) -> bool {
    let is_rank = LOCAL_RANK_VARIABLES.iter().any(|name| var(name).is_some());
    let allowed = &topology.allowed;
    is_rank
        && !allowed.cgroup_cpus.is_empty()
        && allowed
            .cgroup_cpus
            .iter()
            .any(|cpu| !allowed.affinity_cpus.contains(cpu))
}

/// The rank rule of a pinning policy of this process: `blocks`, unless this
/// numabench is a rank confined to its own CPUs ([`confined_rank`]).
pub fn for_this_process(topology: &Machine, blocks: RankBlocks) -> Option<RankBlocks> {
    let var = |name: &str| std::env::var(name).ok();
    (!confined_rank(topology, &var)).then_some(blocks)
}

/// The allowed cores in cores-first order (the order of their first CPU in
/// [`CpuOrder::CoresFirst`]), each its allowed CPUs in compact order.
pub fn cores_first_cores(topology: &Machine) -> Vec<Vec<u32>> {
    let mut cores: Vec<Vec<u32>> = Vec::new();
    for cpu in CpuOrder::CoresFirst.all_allowed(topology) {
        if cores.iter().any(|core| core.contains(&cpu)) {
            continue;
        }
        let siblings = topology
            .cores
            .iter()
            .find(|core| core.contains(&cpu))
            .cloned()
            .unwrap_or_else(|| vec![cpu]);
        cores.push(CpuOrder::Compact.arrange(topology, &siblings));
    }
    cores
}

/// `pin-k-per-core:K`: the thread order (K threads on each core in
/// cores-first order, cycling through the core's CPUs) and the rank rule
/// (local rank r on core r / K).
pub fn k_per_core(topology: &Machine, k: usize) -> (Vec<u32>, RankBlocks) {
    let cores = cores_first_cores(topology);
    let order = cores
        .iter()
        .flat_map(|core| (0..k).map(move |index| core[index % core.len()]))
        .collect();
    (
        order,
        RankBlocks {
            rule: format!("k-per-core:{k}"),
            cores,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_per_core_puts_k_threads_on_each_core_cores_first() {
        // 2 nodes x 2 L3 x 2 cores x 2 threads; siblings numbered 8 apart as Linux does.
        let topology = crate::threads::smt_server(2, 2, 2);
        let cores = cores_first_cores(&topology);
        assert_eq!(cores.len(), 8);
        assert!(cores.iter().all(|core| core.len() == 2));
        // Cores first: the first CPUs of the cores follow CpuOrder::CoresFirst.
        let firsts: Vec<u32> = cores.iter().map(|core| core[0]).collect();
        let cores_first = CpuOrder::CoresFirst.all_allowed(&topology);
        assert_eq!(firsts, cores_first[..8]);
        let (order, blocks) = k_per_core(&topology, 2);
        assert_eq!(order.len(), 16);
        assert_eq!(order[..2], cores[0][..]);
        assert_eq!(blocks.rule, "k-per-core:2");
        let (order, _) = k_per_core(&topology, 3);
        assert_eq!(order[..3], [cores[0][0], cores[0][1], cores[0][0]]);
        let environment = blocks.environment();
        assert_eq!(
            environment[0],
            ("NUMABENCH_PIN_RANKS".into(), "k-per-core:2".into())
        );
        assert_eq!(environment[1].1.split(';').count(), 8);
    }

    #[test]
    fn a_rank_given_fewer_cpus_than_its_cgroup_cuts_no_blocks() {
        let mut topology = crate::topology::synthetic("pack:1 [numa(memory=1GiB)] core:4 pu:1");
        topology.allowed.cgroup_cpus = vec![0, 1, 2, 3];
        topology.allowed.affinity_cpus = vec![0, 1, 2, 3];
        let rank = |name: &str| (name == "SLURM_LOCALID").then(|| "1".to_string());
        let no_rank = |_: &str| None;
        assert!(!confined_rank(&topology, &rank), "every CPU: blocks");
        topology.allowed.affinity_cpus = vec![2, 3];
        assert!(confined_rank(&topology, &rank));
        assert!(!confined_rank(&topology, &no_rank), "taskset alone");
    }
}
