//! Emulated-NUMA virtual machine harness.
//!
//! Boots a QEMU (TCG, no KVM) machine whose NUMA topology is described by a
//! [`VmTopology`], with a throw-away initramfs made of static busybox, an
//! `/init` script and the host binaries the test asks for (with their shared
//! libraries), runs a list of shell commands inside it and hands back each
//! command's stdout, stderr and exit status ([`VmRun`]).
//!
//! Requirements on the host (all checked by [`prerequisites`]; missing ones
//! make the run fail with a message asking to run `scripts/setup`):
//! - `qemu-system-x86_64` in `PATH` (Debian package `qemu-system-x86`);
//! - a statically linked `/bin/busybox` (Debian package `busybox-static`);
//! - `cpio` in `PATH`;
//! - a kernel at `$NUMABENCH_VM_DIR/vmlinuz` (default `<repo>/.vm-cache/vmlinuz`),
//!   fetched by `scripts/vm-kernel`;
//! - for runs whose commands use MPI ([`VmOptions`] `mpi: true`, with
//!   [`run_in_vm_with`]): OpenMPI (`openmpi-bin`, `libopenmpi-dev`), whose
//!   runtime is then copied into the guest (`mpi_guest.rs`).
//!
//! Environment knobs:
//! - `NUMABENCH_VM_DIR`: cache directory holding `vmlinuz`;
//! - `NUMABENCH_VM_TIMEOUT_SECS`: hard time limit of one VM run (default 600);
//! - `NUMABENCH_VM_KEEP=1`: keep the per-run directory (initramfs, QEMU logs)
//!   and print its path.
//!
//! A guest that has not reached `/init` after [`BOOT_LIMIT`] (a boot stalled
//! under TCG on a loaded host; nothing of numabench has run yet) is killed
//! and booted once more, saying so on stderr; a second stall is an error.
//! The same holds for a guest that stops as a whole later: `/init` keeps a
//! heartbeat going on QEMU's debug console (I/O port 0xe9, see
//! [`HEARTBEAT_PORT`]), and [`STALL_LIMIT`] without one means the emulated
//! machine stalled (a hung command leaves the heartbeat going; it fails by
//! the time limit, with the kernel's task states). The second attempt runs
//! every vCPU on one host thread (single-threaded TCG, about 1.8 times
//! slower, with twice the time limit). The one known cause of stalls,
//! kernel text patching with several vCPUs running, is avoided at its
//! source: see [`KERNEL_CMDLINE`].
//!
//! How output comes back: the kernel console is on the first serial port
//! (`ttyS0`, saved as `console.log`, attached to every error). The `/init`
//! script writes the command results on a second serial port (`ttyS1`, saved
//! as `results.log`) between markers, so kernel messages can never mix with a
//! command's output. A command still running after
//! [`COMMAND_WATCHDOG_SECS`] guest seconds gets the kernel's task states
//! dumped on the console (it is not stopped): a hung run says where it hung.
//!
//! Only `std`, `tempfile` and `serde_json` (not needed here) are used.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Default hard time limit of one VM run: a guard against a hung guest, not
/// a performance target. The three boots share the host's cores and take
/// 60-190 s each on a 2-core machine; a slower CI machine must not fail
/// for that alone (`NUMABENCH_VM_TIMEOUT_SECS` overrides).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// Where requested host binaries are put inside the VM (first in `PATH`).
pub const GUEST_BIN_DIR: &str = "/usr/local/bin";

/// Kernel command line.
/// - `nokaslr` keeps the kernel image (~45 MiB reserved until power-off) at
///   its default physical address, i.e. on node 0, instead of a random node,
///   so per-node `MemTotal` is reproducible.
/// - `irqaffinity=0` keeps every interrupt on CPU 0, so that `/init` can
///   take the other CPUs offline and back without moving one (under TCG a
///   moved interrupt can be lost, see [`LOST_INTERRUPT`]).
///
/// `/init` sets every kernel static key a run flips while CPU 0 is the only
/// one online, then brings the others back (see [`init_script`]). Flipping
/// a static key patches kernel text (`text_poke_bp`: int3 plus IPIs), and
/// with several vCPUs running, QEMU's multi-threaded TCG sometimes
/// livelocks on it: every vCPU looping through `asm_exc_int3` and
/// `exc_int3` from `finish_task_switch`, no timer firing (the
/// `splits::four_nodes_node_splits` stall of CI, twice in a row, mapped
/// through the guest's `/proc/kallsyms`). With one CPU online the patching
/// has no other vCPU to race. The CPUs are not simply booted later
/// (`maxcpus=1`): the kernel links HMAT initiators at boot to the nodes
/// whose CPUs are online then. Automatic NUMA balancing is such a key too:
/// it is off unless a run asks for it ([`VmOptions::numa_balancing`]), and
/// commands may not switch it (see [`refuse_static_key_writes`]).
pub const KERNEL_CMDLINE: &str = "console=ttyS0 quiet panic=-1 nokaslr irqaffinity=0 rdinit=/init";

/// Guest seconds after which a command still running has the kernel's
/// task states (sysrq w and t) written to the console, so a hung run's
/// report shows where every thread was (the command is not stopped).
const COMMAND_WATCHDOG_SECS: u32 = 240;

/// Guest seconds between two heartbeats: `/init` writes a byte to
/// [`HEARTBEAT_PORT`] (`heartbeat.log`) this often while the commands run.
const HEARTBEAT_SECS: u32 = 5;

/// The I/O port of QEMU's `isa-debugcon` that carries the heartbeat. Not a
/// third serial port: ISA serial ports 0 and 2 share IRQ 4, so the heartbeat
/// and the console would depend on each other's interrupts; a port write is
/// synchronous and needs no interrupt (`/dev/port`, CONFIG_DEVPORT).
const HEARTBEAT_PORT: u16 = 0xe9;

/// Host time without a heartbeat after which the guest counts as stalled:
/// its clock or vCPUs stopped or livelocked under TCG. A hung command does
/// not do that (the heartbeat is a separate shell sleeping on the guest's
/// timers), but kernel text patching can (see `hold_perf_keys.c`, which
/// every guest runs for that reason). The run is then killed and made once
/// more, like a stalled boot, saying where the vCPUs were.
const STALL_LIMIT: Duration = Duration::from_secs(90);

/// Marker prefix used on the results serial port.
const MARK: &str = "@@NBVM";

// ---------------------------------------------------------------------------
// Topology description
// ---------------------------------------------------------------------------

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
fn ranges(v: &[u32]) -> Vec<(u32, u32)> {
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

// ---------------------------------------------------------------------------
// Host prerequisites
// ---------------------------------------------------------------------------

/// Host tools and files a VM run needs.
#[derive(Debug, Clone)]
pub struct Prerequisites {
    /// `qemu-system-x86_64`.
    pub qemu: PathBuf,
    /// Static busybox.
    pub busybox: PathBuf,
    /// `cpio`.
    pub cpio: PathBuf,
    /// Kernel image.
    pub kernel: PathBuf,
}

/// The repository root (the ancestor of this crate holding `scripts/`).
pub fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|p| p.join("Cargo.lock").exists() && p.join("crates").is_dir())
        .unwrap_or(manifest)
        .to_path_buf()
}

/// The VM cache directory (`$NUMABENCH_VM_DIR` or `<repo>/.vm-cache`).
pub fn vm_dir() -> PathBuf {
    match std::env::var_os("NUMABENCH_VM_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => repo_root().join(".vm-cache"),
    }
}

fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| {
            p.metadata()
                .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
        })
}

/// Finds everything a VM run needs, or says what is missing and what to run.
pub fn prerequisites(choice: VmKernel) -> Result<Prerequisites, String> {
    let mut missing = Vec::new();
    let qemu = which("qemu-system-x86_64");
    if qemu.is_none() {
        missing
            .push("qemu-system-x86_64 is not in PATH (Debian package qemu-system-x86)".to_string());
    }
    let busybox = PathBuf::from("/bin/busybox");
    match elf_interpreter(&busybox) {
        Ok(None) => {}
        Ok(Some(_)) => missing.push(
            "/bin/busybox is dynamically linked; the VM needs the static one (Debian package busybox-static)".into(),
        ),
        Err(e) => missing.push(format!("/bin/busybox: {e} (Debian package busybox-static)")),
    }
    let cpio = which("cpio");
    if cpio.is_none() {
        missing.push("cpio is not in PATH (Debian package cpio)".into());
    }
    let kernel = vm_dir().join(choice.file_name());
    if !kernel.is_file() {
        let script = match choice {
            VmKernel::Default => "scripts/vm-kernel",
            VmKernel::Backports => "VM_KERNEL=backports scripts/vm-kernel",
        };
        missing.push(format!(
            "no VM kernel at {} (made by {script})",
            kernel.display()
        ));
    }
    if !missing.is_empty() {
        let root = repo_root();
        return Err(format!(
            "VM test prerequisites are missing:\n  - {}\nRun `{}` (installs qemu-system-x86, busybox-static and cpio, \
             then runs scripts/vm-kernel to fetch the kernel), then re-run the tests.",
            missing.join("\n  - "),
            root.join("scripts/setup").display()
        ));
    }
    Ok(Prerequisites {
        qemu: qemu.unwrap(),
        busybox,
        cpio: cpio.unwrap(),
        kernel,
    })
}

/// The `PT_INTERP` of an ELF64 little-endian file (`None` = static).
fn elf_interpreter(path: &Path) -> Result<Option<String>, String> {
    let data = fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    let bad = || "not an ELF64 little-endian file".to_string();
    if data.len() < 64 || &data[..4] != b"\x7fELF" || data[4] != 2 || data[5] != 1 {
        return Err(bad());
    }
    let u16_at = |o: usize| u16::from_le_bytes([data[o], data[o + 1]]) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(data[o..o + 8].try_into().unwrap()) as usize;
    let (phoff, phentsize, phnum) = (u64_at(0x20), u16_at(0x36), u16_at(0x38));
    for i in 0..phnum {
        let ph = phoff + i * phentsize;
        if ph + 56 > data.len() {
            return Err(bad());
        }
        if u32::from_le_bytes(data[ph..ph + 4].try_into().unwrap()) == 3 {
            let (off, size) = (u64_at(ph + 8), u64_at(ph + 32));
            let raw = data.get(off..off + size).ok_or_else(bad)?;
            let s = String::from_utf8_lossy(raw)
                .trim_end_matches('\0')
                .to_string();
            return Ok(Some(s));
        }
    }
    Ok(None)
}

// ---------------------------------------------------------------------------
// Initramfs
// ---------------------------------------------------------------------------

/// Shared libraries (and the dynamic loader) a host binary needs, as absolute
/// paths, according to `ldd` plus the ELF interpreter.
pub fn shared_libraries(binary: &Path) -> Result<Vec<PathBuf>, String> {
    let mut libs = BTreeSet::new();
    if let Some(interp) =
        elf_interpreter(binary).map_err(|e| format!("{}: {e}", binary.display()))?
    {
        libs.insert(PathBuf::from(interp));
    } else {
        return Ok(Vec::new());
    }
    libs.extend(ldd_libraries(binary)?);
    Ok(libs.into_iter().collect())
}

/// Shared libraries `ldd` lists for a dynamically linked executable or a
/// shared object (absolute paths); fails naming a library it cannot find.
pub fn ldd_libraries(binary: &Path) -> Result<Vec<PathBuf>, String> {
    let mut libs = BTreeSet::new();
    let out = Command::new("ldd")
        .arg(binary)
        .output()
        .map_err(|e| format!("cannot run ldd {}: {e}", binary.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "ldd {} failed: {text}{}",
            binary.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    for line in text.lines() {
        let line = line.trim();
        if line.contains("not found") {
            return Err(format!("ldd {}: {line}", binary.display()));
        }
        // "libx.so => /path/libx.so (0x...)" or "/lib64/ld-linux-x86-64.so.2 (0x...)";
        // "linux-vdso.so.1 (0x...)" has no file.
        let path = match line.split_once("=>") {
            Some((_, rhs)) => rhs.trim(),
            None => line,
        };
        let path = path.split(" (").next().unwrap_or("").trim();
        if path.starts_with('/') {
            libs.insert(PathBuf::from(path));
        }
    }
    Ok(libs.into_iter().collect())
}

/// Copies host file `src` (following symlinks) to `root` + `dest`.
pub(crate) fn install_file(root: &Path, src: &Path, dest: &Path, mode: u32) -> Result<(), String> {
    let rel = dest.strip_prefix("/").unwrap_or(dest);
    let to = root.join(rel);
    if to.exists() {
        return Ok(());
    }
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent).map_err(|e| format!("mkdir {}: {e}", parent.display()))?;
    }
    fs::copy(src, &to).map_err(|e| format!("copy {} -> {}: {e}", src.display(), to.display()))?;
    fs::set_permissions(&to, fs::Permissions::from_mode(mode))
        .map_err(|e| format!("chmod {}: {e}", to.display()))?;
    Ok(())
}

pub(crate) fn write_file(path: &Path, content: &str, mode: u32) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| format!("mkdir {}: {e}", parent.display()))?;
    }
    fs::write(path, content).map_err(|e| format!("write {}: {e}", path.display()))?;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(|e| format!("chmod {}: {e}", path.display()))
}

/// What `/init` says on the console once every command's results were
/// written to the results port.
const GUEST_FINISHED: &str = "all commands done";

/// What `/init` says on the console once the static keys are set, before
/// the CPUs it took offline come back, followed by the CPUs online then.
const KEYS_SET: &str = "static keys set with CPUs online:";

/// Checks that the guest set its static keys while CPU 0 alone was online
/// (see [`KERNEL_CMDLINE`]): otherwise the run had no protection against
/// the text-patching livelock, and says so rather than passing by luck.
pub fn keys_set_on_one_cpu(console: &str) -> Result<(), String> {
    let online = console
        .lines()
        .find_map(|line| line.split_once(KEYS_SET))
        .map(|(_, cpus)| cpus.trim());
    match online {
        Some("0") => Ok(()),
        Some(cpus) => Err(format!(
            "the guest set its kernel static keys with CPUs {cpus} online, not CPU 0 alone: \
             could a CPU not go offline? Text patching may then livelock TCG"
        )),
        None => Err(format!("the guest's console never said \"{KEYS_SET}\"")),
    }
}

/// The `/init` script: mounts, runs `/vm/cmd/<i>.sh` one by one, reports on
/// `ttyS1`, powers off.
fn init_script(n_commands: usize, lib_dirs: &[String], options: VmOptions) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"#!/bin/busybox sh
# Generated by tests/vm/harness.rs
/bin/busybox mkdir -p /proc /sys /dev /tmp /root
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
export PATH={GUEST_BIN_DIR}:/bin:/sbin:/usr/bin:/usr/sbin
export LD_LIBRARY_PATH={libs}
export HOME=/root TMPDIR=/tmp
R=/dev/ttyS1
stty -F $R raw -echo 2>/dev/null
say() {{ echo "numabench-vm [$(cut -d' ' -f1 /proc/uptime) s]: $*" > /dev/console; }}
say "init started"
# Every static key a run flips is set while CPU 0 is the only one online
# (see KERNEL_CMDLINE in tests/vm/harness.rs): the perf keys, held for the
# whole run, and NUMA balancing.
others=
for cpu in /sys/devices/system/cpu/cpu[1-9]*; do
    [ -f $cpu/online ] && echo 0 > $cpu/online && others="$others $cpu"
done
/bin/hold-perf-keys > /vm/perf-keys-held &
n=0
while [ ! -s /vm/perf-keys-held ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n+1)); done
[ -s /vm/perf-keys-held ] || say "hold-perf-keys did not start: perf events will patch kernel text with every CPU online"
echo {balancing} > /proc/sys/kernel/numa_balancing
say "{KEYS_SET} $(cat /sys/devices/system/cpu/online)"
for cpu in $others; do echo 1 > $cpu/online; done
say "CPUs online: $(cat /sys/devices/system/cpu/online) of $(cat /sys/devices/system/cpu/present), numa_balancing $(cat /proc/sys/kernel/numa_balancing)"
( while :; do printf . | dd of=/dev/port bs=1 seek={port} count=1 conv=notrunc 2>/dev/null; sleep {heartbeat}; done ) &
echo $! > /vm/heartbeat.pid
echo "{MARK} READY@@" > $R"#,
        heartbeat = HEARTBEAT_SECS,
        port = HEARTBEAT_PORT,
        balancing = u8::from(options.numa_balancing),
        libs = lib_dirs.join(":")
    );
    if options.mpi {
        s.push_str(&crate::mpi_guest::init_lines());
    }
    let watchdog = COMMAND_WATCHDOG_SECS;
    for i in 0..n_commands {
        let _ = writeln!(
            s,
            r#"say "command {i} begin: $(head -n 1 /vm/cmd/{i}.sh)"
echo "{MARK} BEGIN {i}@@" > $R
cd /tmp
( sleep {watchdog}; say "command {i} still running after {watchdog} s: blocked tasks, then every task, follow"; dmesg -n 8; echo 1 > /proc/sys/kernel/sysrq; echo w > /proc/sysrq-trigger; echo t > /proc/sysrq-trigger ) &
watchdog=$!
sh /vm/cmd/{i}.sh > /vm/out/{i}.stdout 2> /vm/out/{i}.stderr < /dev/null
rc=$?
kill $watchdog 2>/dev/null
say "command {i} end: exit status $rc"
{{ echo "{MARK} STDOUT {i}@@"; cat /vm/out/{i}.stdout; echo; echo "{MARK} STDERR {i}@@"; cat /vm/out/{i}.stderr; echo; echo "{MARK} END {i} STATUS $rc@@"; }} > $R"#
        );
    }
    let _ = writeln!(
        s,
        r#"echo "{MARK} DONE@@" > $R
say "{GUEST_FINISHED}, powering off"
sync
poweroff -f"#
    );
    s
}

/// `hold_perf_keys.c` compiled (static, so it needs no library in the
/// guest), once: into the VM cache directory under a name that carries a
/// hash of the source, so every VM run of every test process reuses it and
/// an edited source is compiled again. See that file for why every guest
/// runs it.
fn hold_perf_keys_binary() -> Result<&'static Path, String> {
    static BUILT: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            use std::hash::{Hash, Hasher};
            let source_text = include_str!("hold_perf_keys.c");
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            source_text.hash(&mut hasher);
            let dir = vm_dir();
            fs::create_dir_all(&dir).map_err(|e| format!("mkdir {}: {e}", dir.display()))?;
            let out = dir.join(format!("hold-perf-keys-{:016x}", hasher.finish()));
            if out.is_file() {
                return Ok(out);
            }
            // Built beside it and renamed: a process that finds the name finds a whole binary.
            let partial = dir.join(format!("hold-perf-keys.{}.partial", std::process::id()));
            let source = partial.with_extension("c");
            write_file(&source, source_text, 0o644)?;
            let status = Command::new("cc")
                .args(["-O2", "-static", "-o"])
                .arg(&partial)
                .arg(&source)
                .status()
                .map_err(|e| format!("cannot run cc (Debian package gcc): {e}"))?;
            let _ = fs::remove_file(&source);
            if !status.success() {
                return Err(format!("cc {} failed: {status}", source.display()));
            }
            fs::rename(&partial, &out).map_err(|e| format!("rename to {}: {e}", out.display()))?;
            Ok(out)
        })
        .as_deref()
        .map_err(Clone::clone)
}

/// Builds the initramfs tree under `root` and packs it into `out` (cpio newc,
/// uncompressed). Returns the guest paths of the requested binaries.
fn build_initramfs(
    pre: &Prerequisites,
    root: &Path,
    out: &Path,
    binaries: &[&Path],
    commands: &[&str],
    options: VmOptions,
) -> Result<Vec<String>, String> {
    for d in [
        "bin", "sbin", "usr/bin", "usr/sbin", "proc", "sys", "dev", "tmp", "root", "etc", "vm/cmd",
        "vm/out",
    ] {
        fs::create_dir_all(root.join(d)).map_err(|e| format!("mkdir {d}: {e}"))?;
    }
    install_file(root, &pre.busybox, Path::new("/bin/busybox"), 0o755)?;
    // Applet symlinks, at busybox's own install paths.
    let list = Command::new(&pre.busybox)
        .arg("--list-full")
        .output()
        .map_err(|e| format!("busybox --list-full: {e}"))?;
    for applet in String::from_utf8_lossy(&list.stdout).lines() {
        let applet = applet.trim();
        if applet.is_empty() || applet == "bin/busybox" {
            continue;
        }
        let link = root.join(applet);
        if let Some(parent) = link.parent() {
            fs::create_dir_all(parent).map_err(|e| format!("mkdir {}: {e}", parent.display()))?;
        }
        if !link.exists() {
            symlink("/bin/busybox", &link)
                .map_err(|e| format!("symlink {}: {e}", link.display()))?;
        }
    }
    // Host binaries and their libraries.
    let mut guest_paths = Vec::new();
    let mut lib_dirs: Vec<String> = Vec::new();
    for bin in binaries {
        let name = bin
            .file_name()
            .ok_or_else(|| format!("bad binary path {}", bin.display()))?;
        if !bin.is_file() {
            return Err(format!(
                "binary {} does not exist (was it built?)",
                bin.display()
            ));
        }
        let guest = Path::new(GUEST_BIN_DIR).join(name);
        install_file(root, bin, &guest, 0o755)?;
        guest_paths.push(guest.display().to_string());
        for lib in shared_libraries(bin)? {
            install_file(root, &lib, &lib, 0o755)?;
            let dir = lib.parent().unwrap().display().to_string();
            if !lib_dirs.contains(&dir) {
                lib_dirs.push(dir);
            }
        }
    }
    let hold_perf_keys = root.join("bin/hold-perf-keys");
    fs::copy(hold_perf_keys_binary()?, &hold_perf_keys)
        .map_err(|e| format!("copy hold-perf-keys: {e}"))?;
    fs::set_permissions(&hold_perf_keys, fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("chmod hold-perf-keys: {e}"))?;
    if options.mpi {
        for lib in crate::mpi_guest::install(root)? {
            install_file(root, &lib, &lib, 0o755)?;
            let dir = lib.parent().unwrap().display().to_string();
            if !lib_dirs.contains(&dir) {
                lib_dirs.push(dir);
            }
        }
    }
    for (i, c) in commands.iter().enumerate() {
        write_file(
            &root.join(format!("vm/cmd/{i}.sh")),
            &format!("{c}\n"),
            0o644,
        )?;
    }
    write_file(
        &root.join("init"),
        &init_script(commands.len(), &lib_dirs, options),
        0o755,
    )?;

    // Pack: list every path (relative, parents first) and feed it to cpio.
    let mut entries = Vec::new();
    walk(root, Path::new(""), &mut entries)
        .map_err(|e| format!("walking {}: {e}", root.display()))?;
    let mut list = String::new();
    for e in &entries {
        list.push_str(&e.display().to_string());
        list.push('\n');
    }
    let out_file = fs::File::create(out).map_err(|e| format!("create {}: {e}", out.display()))?;
    let mut child = Command::new(&pre.cpio)
        .args(["--quiet", "-o", "-H", "newc", "-R", "0:0"])
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(out_file)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run cpio: {e}"))?;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(list.as_bytes())
        .map_err(|e| format!("cpio stdin: {e}"))?;
    let res = child.wait_with_output().map_err(|e| format!("cpio: {e}"))?;
    if !res.status.success() {
        return Err(format!(
            "cpio failed: {}",
            String::from_utf8_lossy(&res.stderr)
        ));
    }
    Ok(guest_paths)
}

fn walk(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut names: Vec<_> = fs::read_dir(root.join(rel))?.collect::<Result<Vec<_>, _>>()?;
    names.sort_by_key(|e| e.file_name());
    for e in names {
        let p = rel.join(e.file_name());
        out.push(p.clone());
        if e.file_type()?.is_dir() {
            walk(root, &p, out)?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------

/// Result of one command run inside the VM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutput {
    /// The shell command.
    pub command: String,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
    /// Its exit status (as `$?` in the shell).
    pub status: i32,
}

/// Result of a VM run.
#[derive(Debug, Clone)]
pub struct VmRun {
    /// Topology name.
    pub topology: String,
    /// One entry per command, in order.
    pub commands: Vec<CommandOutput>,
    /// Kernel console (first serial port).
    pub console: String,
    /// Full QEMU command line (shell-quoted), for reports.
    pub qemu_command: String,
    /// Wall-clock duration of the QEMU run.
    pub duration: Duration,
}

impl VmRun {
    /// Output of command `i`; panics with the whole context if it failed.
    pub fn stdout_ok(&self, i: usize) -> &str {
        let c = &self.commands[i];
        if c.status != 0 {
            panic!(
                "[{}] command `{}` failed with status {}\n--- stdout ---\n{}\n--- stderr ---\n{}\n--- console ---\n{}",
                self.topology, c.command, c.status, c.stdout, c.stderr, self.console
            );
        }
        &c.stdout
    }

    /// Human-readable dump of every command result (for assertion messages).
    pub fn transcript(&self) -> String {
        let mut s = String::new();
        for c in &self.commands {
            let _ = writeln!(
                s,
                "$ {}\n[status {}]\n{}{}",
                c.command,
                c.status,
                c.stdout,
                if c.stderr.is_empty() {
                    String::new()
                } else {
                    format!("[stderr]\n{}", c.stderr)
                }
            );
        }
        s
    }
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=,./:+@%".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// How long a guest may take to reach `/init` (normally seconds, a minute
/// on a loaded host) before the boot counts as stalled.
const BOOT_LIMIT: Duration = Duration::from_secs(240);
/// Boots tried when a guest stalls before `/init` (never once commands ran).
const BOOT_ATTEMPTS: u32 = 2;

/// `args` with TCG on one host thread for every vCPU (`-accel
/// tcg,thread=single`) instead of one thread each.
fn single_threaded(args: &[String]) -> Vec<String> {
    let mut args = args.to_vec();
    if let Some(i) = args.iter().position(|a| a == "-accel") {
        args[i + 1] = "tcg,thread=single".into();
    }
    args
}

fn timeout(options: &VmOptions) -> Duration {
    std::env::var("NUMABENCH_VM_TIMEOUT_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_secs)
        .or(options.time_limit)
        .unwrap_or(DEFAULT_TIMEOUT)
}

/// The full QEMU argument list for a run (machine + kernel + initrd + serial).
pub fn qemu_args(
    topo: &VmTopology,
    kernel: &Path,
    initrd: &Path,
    console: &Path,
    results: &Path,
    heartbeat: &Path,
    monitor: &Path,
) -> Vec<String> {
    let mut a = topo.qemu_machine_args();
    // A human monitor on a socket in the run's directory: on a stall the
    // harness asks it where the vCPUs are (see [`monitor_registers`]). A
    // unix socket's path holds at most 107 bytes: under a longer $TMPDIR
    // the guest runs without one (QEMU would refuse to start), and a stall
    // report says the monitor is unreachable.
    if monitor.as_os_str().len() <= MAX_UNIX_SOCKET_PATH {
        a.push("-monitor".into());
        a.push(format!("unix:{},server,nowait", monitor.display()));
    }
    for s in [
        "-nodefaults",
        "-no-user-config",
        "-display",
        "none",
        "-no-reboot",
        "-net",
        "none",
    ] {
        a.push(s.into());
    }
    a.push("-serial".into());
    a.push(format!("file:{}", console.display()));
    a.push("-serial".into());
    a.push(format!("file:{}", results.display()));
    a.push("-chardev".into());
    a.push(format!("file,id=heartbeat,path={}", heartbeat.display()));
    a.push("-device".into());
    a.push(format!(
        "isa-debugcon,iobase={HEARTBEAT_PORT:#x},chardev=heartbeat"
    ));
    a.push("-kernel".into());
    a.push(kernel.display().to_string());
    a.push("-initrd".into());
    a.push(initrd.display().to_string());
    a.push("-append".into());
    a.push(KERNEL_CMDLINE.into());
    a
}

/// Boots `topo` with static busybox, `binaries` (put in [`GUEST_BIN_DIR`],
/// with their shared libraries) and runs `commands` (busybox `sh` scripts,
/// one after the other, each from `/tmp`, stdin `/dev/null`).
///
/// Fails (never skips) if a prerequisite is missing, if QEMU fails, or after
/// the hard timeout; errors carry the kernel console log.
pub fn run_in_vm(
    topo: &VmTopology,
    binaries: &[&Path],
    commands: &[&str],
) -> Result<VmRun, String> {
    run_in_vm_with(topo, binaries, commands, VmOptions::default())
}

/// What a VM run carries besides busybox, the binaries and their libraries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VmOptions {
    /// The commands run MPI programs: the guest gets OpenMPI's runtime
    /// (`mpirun`/`mpiexec`, `orted`, its plugins, PMIx, help files and
    /// configuration, with their libraries; see `mpi_guest.rs`), root may
    /// run it, and `lo` is up. A program linked with MPI (built with
    /// `mpicc`, or numabench built with `--features mpi`) then runs as a
    /// singleton (started directly: one rank) or under
    /// `mpirun -np N PROGRAM` (no `--allow-run-as-root` needed). Off by
    /// default: it adds about 35 MiB to the initramfs.
    pub mpi: bool,
    /// Automatic NUMA balancing (`kernel.numa_balancing`) on for the whole
    /// boot, switched by `/init` while one CPU is online (see
    /// [`KERNEL_CMDLINE`]). Off by default: only a test that studies
    /// balancing wants its hinting faults moving pages, and a command may
    /// not switch it itself.
    pub numa_balancing: bool,
    /// The guest's kernel.
    pub kernel: VmKernel,
    /// The run's time limit in place of [`DEFAULT_TIMEOUT`], for a boot
    /// that runs many checks (`NUMABENCH_VM_TIMEOUT_SECS` still overrides).
    pub time_limit: Option<Duration>,
}

/// Which kernel a VM boots (both fetched by `scripts/vm-kernel`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum VmKernel {
    /// Debian bookworm's own (6.1): `vmlinuz`.
    #[default]
    Default,
    /// bookworm-backports' newer one (6.12: weighted interleave, memory
    /// tiers, demotion): `vmlinuz-backports`, from
    /// `VM_KERNEL=backports scripts/vm-kernel`.
    Backports,
}

impl VmKernel {
    /// The image's file name in the cache directory.
    pub fn file_name(self) -> &'static str {
        match self {
            VmKernel::Default => "vmlinuz",
            VmKernel::Backports => "vmlinuz-backports",
        }
    }
}

/// Fails naming the first command that writes `kernel.numa_balancing`:
/// that flips a kernel static key with every vCPU online, which can
/// livelock the emulator (see [`KERNEL_CMDLINE`]). The run asks for
/// balancing through [`VmOptions::numa_balancing`] instead.
pub fn refuse_static_key_writes(commands: &[&str]) -> Result<(), String> {
    const PATH: &str = "/proc/sys/kernel/numa_balancing";
    for command in commands {
        let redirected = command
            .split('>')
            .skip(1)
            .any(|target| target.trim_start().starts_with(PATH));
        if redirected || command.contains("kernel.numa_balancing=") {
            return Err(format!(
                "VM command `{command}` switches NUMA balancing, a kernel static key: with \
                 every vCPU online that patches kernel text, which can livelock QEMU's TCG. \
                 Set VmOptions::numa_balancing instead (applied while one CPU is online)."
            ));
        }
    }
    Ok(())
}

/// The kernel's line when an interrupt reached a CPU vector with no handler
/// (seen under TCG right after IRQ affinity moved): the 8250 then never
/// hears that its transmitter emptied, its output stalls, and what was
/// queued on the results port is dropped when the port closes 30 s later
/// (the serial core's `closing_wait`).
const LOST_INTERRUPT: &str = "No irq handler for vector";

/// What a failed run's message says when the results port lost output to a
/// [`LOST_INTERRUPT`]: an emulator fault, not anything the commands did.
const LOST_OUTPUT_NOTE: &str =
    "the guest kernel lost a serial interrupt and the results port dropped output";

/// [`run_in_vm`] with [`VmOptions`], e.g. `VmOptions { mpi: true }` for
/// commands that run MPI programs.
///
/// A run whose results port lost output to a lost interrupt (see
/// [`LOST_INTERRUPT`]) is run once more, said on stderr; a second loss fails.
pub fn run_in_vm_with(
    topo: &VmTopology,
    binaries: &[&Path],
    commands: &[&str],
    options: VmOptions,
) -> Result<VmRun, String> {
    match run_once(topo, binaries, commands, options) {
        Err(e) if e.contains(LOST_OUTPUT_NOTE) => {
            eprintln!(
                "[{}] {LOST_OUTPUT_NOTE}; running it again. The first run:\n{e}",
                topo.name
            );
            run_once(topo, binaries, commands, options)
        }
        other => other,
    }
}

fn run_once(
    topo: &VmTopology,
    binaries: &[&Path],
    commands: &[&str],
    options: VmOptions,
) -> Result<VmRun, String> {
    topo.validate()?;
    refuse_static_key_writes(commands)?;
    let pre = prerequisites(options.kernel)?;
    let tmp = tempfile::Builder::new()
        .prefix(&format!("numabench-vm-{}-", topo.name))
        .tempdir()
        .map_err(|e| format!("cannot create temp dir: {e}"))?;
    let dir = tmp.path().to_path_buf();
    let keep = std::env::var_os("NUMABENCH_VM_KEEP").is_some_and(|v| v == "1");
    let _guard = if keep {
        eprintln!("[{}] keeping VM run directory {}", topo.name, dir.display());
        let _ = tmp.keep();
        None
    } else {
        Some(tmp)
    };

    let initrd = dir.join("initramfs.cpio");
    build_initramfs(
        &pre,
        &dir.join("root"),
        &initrd,
        binaries,
        commands,
        options,
    )?;
    if !keep {
        let _ = fs::remove_dir_all(dir.join("root"));
    }
    let console_path = dir.join("console.log");
    let results_path = dir.join("results.log");
    let heartbeat_path = dir.join("heartbeat.log");
    let monitor_path = dir.join("monitor.sock");
    let args = qemu_args(
        topo,
        &pre.kernel,
        &initrd,
        &console_path,
        &results_path,
        &heartbeat_path,
        &monitor_path,
    );

    // One guest at a time: TCG runs every vCPU as a host thread, and two
    // guests on this 2-core host starved each other (a guest's threads that
    // wait sleep in the guest, and waking a halted vCPU then waits for the
    // host's scheduler): an application test that takes 2 minutes alone
    // passed its 10-minute limit beside another guest. The lock is taken
    // before QEMU starts, so the time limit counts this guest's own run.
    static ONE_GUEST: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_guest = ONE_GUEST
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let ready = format!("{MARK} READY@@");
    let mut attempt = 1;
    let (child, _qemu_group, start, status, limit, qemu_command) = loop {
        // A second attempt follows a stall, an emulator fault: it runs
        // every vCPU on one host thread (`thread=single`), where no vCPU
        // races another's kernel text patching, and gets twice the time
        // limit (it runs about 1.8 times slower).
        let (args, limit) = match attempt {
            1 => (args.clone(), timeout(&options)),
            _ => (single_threaded(&args), 2 * timeout(&options)),
        };
        let qemu_command = std::iter::once(pre.qemu.display().to_string())
            .chain(args.iter().map(|a| shell_quote(a)))
            .collect::<Vec<_>>()
            .join(" ");
        let start = Instant::now();
        let mut child = Command::new(&pre.qemu)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group, registered with numabench's signal
            // handling: SIGINT/SIGTERM to the test process are forwarded to
            // QEMU (SIGKILL after the grace period), and the guard kills it
            // when dropped (an early return, a panic): no guest outlives the test.
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", pre.qemu.display()))?;
        let qemu_group = numabench::interrupt::ChildGroup::new(child.id()).kill_on_drop();
        if numabench::interrupt::interrupted() {
            return Err(format!("[{}] interrupted (SIGINT/SIGTERM)", topo.name));
        }
        let mut booted = false;
        let mut stalled = false;
        let mut stall_state = String::new();
        let mut beats = (0u64, Instant::now());
        let status = loop {
            match child.try_wait() {
                Ok(Some(st)) => break Some(st),
                Ok(None) if start.elapsed() > limit => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(50)),
                Err(e) => return Err(format!("waiting for QEMU: {e}")),
            }
            if !booted {
                booted = read_log(&results_path).contains(&ready);
                if !booted && start.elapsed() > BOOT_LIMIT && attempt < BOOT_ATTEMPTS {
                    break None;
                }
                beats.1 = Instant::now();
            } else {
                let now = fs::metadata(&heartbeat_path).map_or(0, |m| m.len());
                if now != beats.0 {
                    beats = (now, Instant::now());
                } else if beats.1.elapsed() > STALL_LIMIT {
                    stalled = true;
                    stall_state = format!(
                        "{}; vCPUs: {}",
                        qemu_threads_state(child.id()),
                        monitor_registers(&monitor_path)
                    );
                    break None;
                }
            }
        };
        let stalled_boot = status.is_none() && !booted;
        if (stalled_boot || stalled) && attempt < BOOT_ATTEMPTS {
            // The guest never reached /init, or it stopped as a whole (no
            // heartbeat): TCG stalled, not anything numabench did. Run afresh.
            let _ = child.kill();
            let _ = child.wait();
            match stalled {
                true => eprintln!(
                    "[{}] the guest stalled: no heartbeat for {} s (attempt {attempt}); QEMU's threads then: {stall_state}; its console:\n{}\nrunning it again with single-threaded TCG",
                    topo.name,
                    STALL_LIMIT.as_secs(),
                    read_log(&console_path)
                ),
                false => eprintln!(
                    "[{}] the guest did not reach /init within {} s (attempt {attempt}); booting it again with single-threaded TCG",
                    topo.name,
                    BOOT_LIMIT.as_secs()
                ),
            }
            let _ = fs::remove_file(&console_path);
            let _ = fs::remove_file(&results_path);
            let _ = fs::remove_file(&heartbeat_path);
            attempt += 1;
            continue;
        }
        if stalled {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "[{}] the guest stalled twice: no heartbeat for {} s (TCG stopped or livelocked its vCPUs); QEMU's threads then: {stall_state}\n--- serial console ---\n{}",
                topo.name,
                STALL_LIMIT.as_secs(),
                read_log(&console_path)
            ));
        }
        break (child, qemu_group, start, status, limit, qemu_command);
    };
    let duration = start.elapsed();
    let out = child.wait_with_output().ok();
    let qemu_output = out
        .map(|o| {
            format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            )
        })
        .unwrap_or_default();
    let console = read_log(&console_path);
    let results = read_log(&results_path);
    let context = || {
        format!(
            "\nQEMU: {qemu_command}\n--- QEMU output ---\n{qemu_output}\n--- results port ---\n{results}\n--- serial console ---\n{console}"
        )
    };
    let status = match status {
        Some(s) => s,
        None => {
            return Err(format!(
                "[{}] VM run exceeded the {} s time limit and was killed (set NUMABENCH_VM_TIMEOUT_SECS to change it){}",
                topo.name,
                limit.as_secs(),
                context()
            ))
        }
    };
    if !status.success() {
        return Err(format!(
            "[{}] QEMU exited with {status}{}",
            topo.name,
            context()
        ));
    }
    keys_set_on_one_cpu(&console).map_err(|e| format!("[{}] {e}{}", topo.name, context()))?;
    let finished = console.contains(GUEST_FINISHED);
    let parsed = parse_results(&results, commands, finished).map_err(|e| {
        let why = if console.contains(LOST_INTERRUPT) {
            LOST_OUTPUT_NOTE
        } else {
            "did the guest crash?"
        };
        format!("[{}] {e} ({why}){}", topo.name, context())
    })?;
    Ok(VmRun {
        topology: topo.name.to_string(),
        commands: parsed,
        console,
        qemu_command,
        duration,
    })
}

/// Each QEMU thread's name, scheduler state and kernel wait channel
/// (`/proc/PID/task/*/{comm,stat,wchan}`), said when a guest stalls: a
/// stopped process (`T`), threads asleep in the host kernel, or vCPUs
/// running (`R`) tell an emulator stall from a host one.
fn qemu_threads_state(pid: u32) -> String {
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else {
        return "unreadable".into();
    };
    let mut out = Vec::new();
    for task in tasks.flatten() {
        let dir = task.path();
        let read = |f: &str| fs::read_to_string(dir.join(f)).unwrap_or_default();
        let stat = read("stat");
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .unwrap_or("?")
            .to_string();
        out.push(format!(
            "{} {state} {}",
            read("comm").trim(),
            read("wchan").trim()
        ));
    }
    out.join(", ")
}

/// The longest path a unix socket address holds (`sun_path` is 108 bytes,
/// one of them the terminating NUL).
const MAX_UNIX_SOCKET_PATH: usize = 107;

/// Each vCPU's instruction pointer and halted flag, asked of QEMU's human
/// monitor (`info registers -a`) when a guest stalls. With `nokaslr` the
/// kernel addresses map through the kernel package's `System.map`.
fn monitor_registers(monitor: &Path) -> String {
    use std::io::Read as _;
    use std::os::unix::net::UnixStream;
    let Ok(mut stream) = UnixStream::connect(monitor) else {
        return format!("monitor {} unreachable", monitor.display());
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let _ = stream.write_all(b"info registers -a\n");
    let mut text = Vec::new();
    let mut chunk = [0u8; 4096];
    while let Ok(n) = stream.read(&mut chunk) {
        if n == 0 {
            break;
        }
        text.extend_from_slice(&chunk[..n]);
    }
    let text = String::from_utf8_lossy(&text);
    let mut out = Vec::new();
    for word in text.split_whitespace() {
        if word.starts_with("CPU#") || word.starts_with("RIP=") || word.starts_with("HLT=") {
            out.push(word.to_string());
        }
    }
    match out.is_empty() {
        true => "no answer".into(),
        false => out.join(" "),
    }
}

fn read_log(p: &Path) -> String {
    fs::read(p)
        .map(|b| String::from_utf8_lossy(&b).replace("\r\n", "\n"))
        .unwrap_or_default()
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> Result<(&'a str, &'a str), String> {
    let a = text
        .find(start)
        .ok_or_else(|| format!("marker {start:?} missing"))?
        + start.len();
    let b = text[a..]
        .find(end)
        .ok_or_else(|| format!("marker {end:?} missing"))?
        + a;
    Ok((&text[a..b], &text[b + end.len()..]))
}

/// Parses the results port (see `init_script`). `finished`: the console
/// shows [`GUEST_FINISHED`], which stands for a `DONE` marker lost on the
/// port after every command's `END` arrived.
fn parse_results(
    text: &str,
    commands: &[&str],
    finished: bool,
) -> Result<Vec<CommandOutput>, String> {
    let mut rest = text;
    let mut out = Vec::new();
    for (i, cmd) in commands.iter().enumerate() {
        let (_, r) = between(rest, &format!("{MARK} BEGIN {i}@@\n"), "")?;
        let (stdout, r) = between(
            r,
            &format!("{MARK} STDOUT {i}@@\n"),
            &format!("\n{MARK} STDERR {i}@@\n"),
        )?;
        let end = format!("\n{MARK} END {i} STATUS ");
        let (stderr, r) = between(r, "", &end)?;
        let (status, r) = r
            .split_once("@@")
            .ok_or_else(|| format!("bad END marker of command {i}"))?;
        let status = status
            .trim()
            .parse()
            .map_err(|_| format!("bad exit status {status:?} of command {i}"))?;
        out.push(CommandOutput {
            command: cmd.to_string(),
            stdout: stdout.to_string(),
            stderr: stderr.to_string(),
            status,
        });
        rest = r;
    }
    if !rest.contains(&format!("{MARK} DONE@@")) && !finished {
        return Err("DONE marker missing".into());
    }
    Ok(out)
}

/// The results port's parser, on text shaped like a guest's (no VM needed).
#[test]
fn a_lost_done_marker_counts_only_when_the_console_says_every_command_ended() {
    let port = format!(
        "{MARK} READY@@\n{MARK} BEGIN 0@@\n{MARK} STDOUT 0@@\nout\n\n{MARK} STDERR 0@@\n\n\n{MARK} END 0 STATUS 3@@\n"
    );
    let parsed =
        parse_results(&port, &["cmd"], true).expect("every END arrived, console says done");
    assert_eq!((parsed[0].stdout.as_str(), parsed[0].status), ("out\n", 3));
    let err = parse_results(&port, &["cmd"], false).unwrap_err();
    assert!(err.contains("DONE"), "{err}");
    // A command whose END never arrived fails whatever the console says.
    let cut = port.split(&format!("{MARK} END 0")).next().unwrap();
    assert!(parse_results(cut, &["cmd"], true).is_err());
}

/// QEMU gets a monitor socket only where its path fits a unix socket
/// address (107 bytes): under a long $TMPDIR it would refuse to start.
#[test]
fn the_monitor_socket_is_left_out_where_its_path_is_too_long() {
    let topo = crate::topologies::two_sockets();
    let path = Path::new("/x");
    let with_monitor = |monitor: &Path| {
        qemu_args(&topo, path, path, path, path, path, monitor)
            .iter()
            .any(|arg| arg == "-monitor")
    };
    assert!(with_monitor(&Path::new("/tmp").join("monitor.sock")));
    let long = Path::new("/tmp").join("d".repeat(100)).join("monitor.sock");
    assert!(!with_monitor(&long));
}
