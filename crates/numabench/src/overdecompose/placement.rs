//! Which CPU each rank runs on: the K ranks of a core share it. A rank's
//! local rank (its index among the ranks of its host) divided by K is the
//! index of its core, counted in cores-first order over the CPUs the rank
//! was allowed (its cpuset, as the launcher or Slurm gave it); the rank is
//! pinned to that core's first allowed CPU.

use crate::threads::CpuOrder;
use crate::topology::Machine;

/// One CPU of each allowed core, cores in cores-first order (round robin
/// over L3 domains), each core's first allowed hardware thread.
pub fn core_cpus(topology: &Machine) -> Vec<u32> {
    let mut seen: Vec<Option<usize>> = Vec::new();
    let mut cpus = Vec::new();
    for cpu in CpuOrder::CoresFirst.all_allowed(topology) {
        let core = topology.core_of_cpu(cpu);
        // A CPU of no known core counts as a core of its own.
        if core.is_none() || !seen.contains(&core) {
            seen.push(core);
            cpus.push(cpu);
        }
    }
    cpus
}

/// The CPU of the local rank `local_rank` when `ranks_per_core` ranks
/// share each core of `cores` (from [`core_cpus`]); `None` when the host
/// has more ranks than cores x K.
pub fn cpu_for_local_rank(cores: &[u32], local_rank: usize, ranks_per_core: usize) -> Option<u32> {
    cores.get(local_rank / ranks_per_core.max(1)).copied()
}
