//! The NUMA machine QEMU emulates: nodes, CPUs, distances, HMAT, and their checks.

use super::*;

/// A NUMA machine for QEMU to emulate.
///
/// Conventions (checked by [`VmTopology::validate`]):
/// - node `i` of `nodes` is QEMU `nodeid=i` and must also be Linux's NUMA node
///   `i`: Linux numbers nodes in SRAT order (processor entries first), so nodes
///   with CPUs come first, ordered by their first CPU, CPU-less nodes last;
/// - the CPUs of all nodes together are exactly `0..cpu_count`, each once;
/// - `distances`, when given, is a full `n x n` matrix, `10` on the diagonal
///   and `> 10` elsewhere; it may be asymmetric (QEMU and Linux accept that;
///   `[i][j]` is the distance from node `i` to node `j`, i.e. line `i` of
///   `/sys/devices/system/node/node<i>/distance`). `None` = no SLIT at all;
/// - `hmat` non-empty turns on `-machine hmat=on`; then every node must have an
///   initiator (a node with CPUs defaults to itself, a CPU-less one must say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VmTopology {
    /// Short name, used in messages and temp-dir names.
    pub name: &'static str,
    /// NUMA nodes, node `i` at index `i`.
    pub nodes: Vec<VmNode>,
    /// Number of sockets (packages) the CPUs are split into, contiguously
    /// (`-smp N,sockets=S,cores=N/S,threads=1`). `None` = QEMU's default.
    pub sockets: Option<u32>,
    /// Hardware threads per core (1: no SMT). Above 1 the guest gets
    /// `-cpu Skylake-Server` and `-smp N,sockets=S,cores=N/S/T,threads=T`:
    /// QEMU TCG shows SMT siblings to the guest only with such a CPU model
    /// (with `-cpu max` every CPU is its own core). Siblings are numbered
    /// together (0-1, 2-3, ...); L1 is per thread, L2 per core.
    pub threads: u32,
    /// SLIT distance matrix, or `None` for none.
    pub distances: Option<Vec<Vec<u8>>>,
    /// HMAT latency/bandwidth entries (empty = no HMAT).
    pub hmat: Vec<HmatEntry>,
}

/// One NUMA node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VmNode {
    /// OS indexes of the CPUs of this node; empty = CPU-less (memory-only) node.
    pub cpus: Vec<u32>,
    /// Memory of the node in MiB.
    pub memory_mib: u64,
    /// Node whose CPUs are this node's "attached initiator" (SRAT/HMAT
    /// proximity domain; QEMU `-numa node,initiator=`). `None` = itself when it
    /// has CPUs. Required for CPU-less nodes when HMAT is on.
    pub initiator: Option<u32>,
}

/// One HMAT "memory" hierarchy access entry (QEMU `-numa hmat-lb`).
///
/// Units, checked inside the VM with Linux 6.1 and QEMU 7.2:
/// - `latency_ns` is given to QEMU as `latency=<ns>` and shows up unchanged
///   (ns) in `/sys/devices/system/node/node<T>/access{0,1}/initiators/{read,write}_latency`;
///   use multiples of 10 ns so QEMU's base unit keeps it exact.
/// - `bandwidth_mib_s` is given to QEMU as `bandwidth=<N>M` (QEMU sizes are
///   binary, so `N` MiB/s); QEMU encodes it in the HMAT in units of 2^20 B/s,
///   which Linux exposes unchanged as `{read,write}_bandwidth` ("MB/s"), and
///   hwloc reports that number as MiB/s. So the same `N` is seen everywhere.
///
/// Linux (6.1) only exposes, for each target node, the values of the pair
/// whose initiator is the target's attached initiator ([`VmNode::initiator`]);
/// other pairs are in the firmware table but invisible to user space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HmatEntry {
    /// Initiator node (must have CPUs).
    pub initiator: u32,
    /// Target (memory) node.
    pub target: u32,
    /// Access latency in ns.
    pub latency_ns: Option<u64>,
    /// Access bandwidth in MiB/s.
    pub bandwidth_mib_s: Option<u64>,
}

impl VmNode {
    /// A node with CPUs.
    pub fn new(cpus: impl IntoIterator<Item = u32>, memory_mib: u64) -> Self {
        VmNode {
            cpus: cpus.into_iter().collect(),
            memory_mib,
            initiator: None,
        }
    }

    /// A CPU-less (memory-only) node whose attached initiator is `initiator`.
    pub fn cpuless(memory_mib: u64, initiator: u32) -> Self {
        VmNode {
            cpus: Vec::new(),
            memory_mib,
            initiator: Some(initiator),
        }
    }
}

impl VmTopology {
    /// Total number of CPUs.
    pub fn cpu_count(&self) -> u32 {
        self.nodes.iter().map(|n| n.cpus.len() as u32).sum()
    }

    /// Total memory in MiB.
    pub fn memory_mib(&self) -> u64 {
        self.nodes.iter().map(|n| n.memory_mib).sum()
    }

    /// Whether the machine gets an HMAT.
    pub fn has_hmat(&self) -> bool {
        !self.hmat.is_empty()
    }

    /// Attached initiator of node `node` (itself if it has CPUs and no
    /// explicit initiator).
    pub fn initiator_of(&self, node: u32) -> Option<u32> {
        let n = &self.nodes[node as usize];
        n.initiator
            .or(if n.cpus.is_empty() { None } else { Some(node) })
    }

    /// The HMAT values Linux (and so hwloc) exposes: for every target node,
    /// the entry of its attached initiator, if declared. Sorted by target.
    pub fn visible_hmat(&self) -> Vec<HmatEntry> {
        let mut v: Vec<HmatEntry> = (0..self.nodes.len() as u32)
            .filter_map(|t| {
                let i = self.initiator_of(t)?;
                self.hmat
                    .iter()
                    .find(|e| e.initiator == i && e.target == t)
                    .copied()
            })
            .collect();
        v.sort_by_key(|e| e.target);
        v
    }

    /// The description's node indexes in the order Linux numbers them (see
    /// [`VmTopology::validate`]): nodes with CPUs by first CPU, then CPU-less
    /// nodes by index.
    pub fn linux_node_order(&self) -> Vec<u32> {
        let mut with_cpus: Vec<(u32, u32)> = (0..self.nodes.len() as u32)
            .filter_map(|i| self.nodes[i as usize].cpus.iter().min().map(|&c| (c, i)))
            .collect();
        with_cpus.sort_unstable();
        let mut order: Vec<u32> = with_cpus.into_iter().map(|(_, i)| i).collect();
        order.extend(
            (0..self.nodes.len() as u32).filter(|&i| self.nodes[i as usize].cpus.is_empty()),
        );
        order
    }

    /// Socket (package) index of each CPU, if `sockets` is set.
    pub fn package_of_cpu(&self, cpu: u32) -> Option<u32> {
        let s = self.sockets?;
        Some(cpu / (self.cpu_count() / s))
    }

    /// Checks the conventions documented on [`VmTopology`].
    pub fn validate(&self) -> Result<(), String> {
        let n = self.nodes.len();
        let err = |m: String| Err(format!("topology {}: {m}", self.name));
        if n == 0 {
            return err("no nodes".into());
        }
        if self.threads > 1
            && self
                .sockets
                .is_none_or(|s| !self.cpu_count().is_multiple_of(s * self.threads))
        {
            return err(format!(
                "{} threads per core need sockets, and a CPU count that sockets x threads divides",
                self.threads
            ));
        }
        let mut cpus: Vec<u32> = self
            .nodes
            .iter()
            .flat_map(|x| x.cpus.iter().copied())
            .collect();
        cpus.sort_unstable();
        if cpus.is_empty() || cpus != (0..cpus.len() as u32).collect::<Vec<_>>() {
            return err(format!("CPUs must be 0..N, each once; got {cpus:?}"));
        }
        // Linux numbers NUMA nodes in the order their proximity domains first
        // appear in the SRAT: QEMU lists the processor entries first (in CPU
        // order), then the memory ones (in node order). So node `i` of the
        // description is Linux node `i` only if the nodes with CPUs come first,
        // in the order of their first CPU, and the CPU-less nodes after them.
        let linux = self.linux_node_order();
        if linux != (0..n as u32).collect::<Vec<_>>() {
            return err(format!(
                "Linux would number these nodes differently ({linux:?} in Linux order): put the nodes \
                 with CPUs first, ordered by their first CPU, and CPU-less nodes last"
            ));
        }
        if let Some(s) = self.sockets {
            if s == 0 || !self.cpu_count().is_multiple_of(s) {
                return err(format!(
                    "{} CPUs cannot be split into {s} sockets",
                    self.cpu_count()
                ));
            }
        }
        for (i, node) in self.nodes.iter().enumerate() {
            if node.memory_mib == 0 {
                return err(format!("node {i} has no memory"));
            }
            if let Some(init) = node.initiator {
                match self.nodes.get(init as usize) {
                    Some(x) if !x.cpus.is_empty() => {}
                    _ => {
                        return err(format!(
                            "node {i}: initiator {init} is not a node with CPUs"
                        ))
                    }
                }
            }
            if self.has_hmat() && self.initiator_of(i as u32).is_none() {
                return err(format!("node {i}: HMAT needs an initiator for every node"));
            }
        }
        if let Some(d) = &self.distances {
            if d.len() != n || d.iter().any(|r| r.len() != n) {
                return err(format!("distance matrix must be {n}x{n}"));
            }
            for (i, row) in d.iter().enumerate() {
                for (j, &v) in row.iter().enumerate() {
                    if (i == j && v != 10) || (i != j && v <= 10) {
                        return err(format!(
                            "distance[{i}][{j}] = {v}: need 10 on the diagonal, > 10 elsewhere"
                        ));
                    }
                }
            }
        }
        let mut seen = BTreeSet::new();
        for e in &self.hmat {
            if !seen.insert((e.initiator, e.target)) {
                return err(format!(
                    "HMAT pair {}->{} declared twice",
                    e.initiator, e.target
                ));
            }
            if e.target as usize >= n
                || self
                    .nodes
                    .get(e.initiator as usize)
                    .is_none_or(|x| x.cpus.is_empty())
            {
                return err(format!(
                    "HMAT pair {}->{}: bad initiator or target",
                    e.initiator, e.target
                ));
            }
            if e.latency_ns.is_none() && e.bandwidth_mib_s.is_none() {
                return err(format!(
                    "HMAT pair {}->{} has neither latency nor bandwidth",
                    e.initiator, e.target
                ));
            }
        }
        Ok(())
    }

    /// QEMU arguments describing the machine (everything but kernel, initrd,
    /// serial ports and command line).
    pub fn qemu_machine_args(&self) -> Vec<String> {
        let mut a: Vec<String> = Vec::new();
        let mut push = |s: String| a.push(s);
        push("-accel".into());
        push("tcg".into());
        push("-machine".into());
        push(if self.has_hmat() {
            "pc,hmat=on".into()
        } else {
            "pc".into()
        });
        push("-cpu".into());
        push(if self.threads > 1 {
            "Skylake-Server".into()
        } else {
            "max".into()
        });
        let ncpu = self.cpu_count();
        let threads = self.threads.max(1);
        push("-smp".into());
        push(match self.sockets {
            Some(s) => format!(
                "{ncpu},sockets={s},cores={},threads={threads}",
                ncpu / s / threads
            ),
            None => ncpu.to_string(),
        });
        push("-m".into());
        push(format!("{}M", self.memory_mib()));
        for (i, node) in self.nodes.iter().enumerate() {
            push("-object".into());
            push(format!(
                "memory-backend-ram,id=mem{i},size={}M",
                node.memory_mib
            ));
        }
        for (i, node) in self.nodes.iter().enumerate() {
            let mut s = format!("node,nodeid={i}");
            for (lo, hi) in ranges(&node.cpus) {
                if lo == hi {
                    let _ = write!(s, ",cpus={lo}");
                } else {
                    let _ = write!(s, ",cpus={lo}-{hi}");
                }
            }
            let _ = write!(s, ",memdev=mem{i}");
            if self.has_hmat() || node.initiator.is_some() {
                if let Some(init) = self.initiator_of(i as u32) {
                    let _ = write!(s, ",initiator={init}");
                }
            }
            push("-numa".into());
            push(s);
        }
        if let Some(d) = &self.distances {
            for (i, row) in d.iter().enumerate() {
                for (j, v) in row.iter().enumerate() {
                    if i != j {
                        push("-numa".into());
                        push(format!("dist,src={i},dst={j},val={v}"));
                    }
                }
            }
        }
        for e in &self.hmat {
            if let Some(l) = e.latency_ns {
                push("-numa".into());
                push(format!(
                    "hmat-lb,initiator={},target={},hierarchy=memory,data-type=access-latency,latency={l}",
                    e.initiator, e.target
                ));
            }
            if let Some(b) = e.bandwidth_mib_s {
                push("-numa".into());
                push(format!(
                    "hmat-lb,initiator={},target={},hierarchy=memory,data-type=access-bandwidth,bandwidth={b}M",
                    e.initiator, e.target
                ));
            }
        }
        a
    }
}

/// Contiguous ranges of a list of integers (sorted first).
pub(super) fn ranges(v: &[u32]) -> Vec<(u32, u32)> {
    let mut v = v.to_vec();
    v.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::new();
    for x in v {
        match out.last_mut() {
            Some((_, hi)) if *hi + 1 == x => *hi = x,
            _ => out.push((x, x)),
        }
    }
    out
}

/// Parses a Linux cpulist such as `0-2,5` (empty string = empty list).
pub fn parse_cpulist(s: &str) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for part in s.trim().split(',').filter(|p| !p.is_empty()) {
        let bad = || format!("bad cpulist {s:?}");
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) =
                    (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
                out.extend(a..=b);
            }
            None => out.push(part.parse().map_err(|_| bad())?),
        }
    }
    Ok(out)
}
