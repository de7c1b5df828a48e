//! Emulated-NUMA VM tests: boot QEMU machines with known NUMA topologies and
//! check that `numabench topo --json` reports exactly what QEMU was given,
//! then, in the same boots, that `latency` and `bandwidth` place their memory
//! as asked (`placement.verified`, from the kernel's move_pages) and refuse
//! impossible placements (exit 2, one line).
//!
//! Run with `cargo test -p numabench-cli --test vm`. Needs qemu-system-x86_64,
//! static busybox, cpio and a kernel in `.vm-cache/` (`scripts/setup`); when
//! they are missing the tests fail, saying so. Each topology is booted once
//! (about 7 s under TCG); `--nocapture` shows the QEMU command lines.
//!
//! Adding a VM test: describe the machine in `topologies.rs`, then add a
//! `#[test]` calling [`check_topology`] with it and, if needed, extra shell
//! commands whose results come back in the returned [`harness::VmRun`]
//! (`run.commands[FIRST_EXTRA_COMMAND + k]`). Commands that run MPI
//! programs need OpenMPI's runtime in the guest: use
//! [`check_topology_with`] with `VmOptions { mpi: true }` (see `mpi.rs`).

/// Application kernels under every placement scheme in the two-socket VM.
mod applications;
/// One boot per topology, shared by the tests of its parts.
mod boot;
mod classes;
/// `cluster --per numa` in the four-node VM (MPI build only).
#[cfg(feature = "mpi")]
mod cluster;
/// The estimate against the time taken in two guests (ignored: a measurement).
mod estimate;
/// characterize's findings in the two-socket VM.
mod findings;
/// The four-node VM with a CPU-less node and HMAT, and its shared boot.
mod four_nodes;
#[allow(dead_code)]
mod harness;
/// The harness's own checks.
mod harness_checks;
/// `check` names the node with a CPU taken offline in the two-socket VM.
mod health_check;
/// `--hugepages` for the application kernels: THP and hugetlbfs pools.
mod huge_pages;
/// MPI programs in the VM (`harness::VmOptions { mpi: true }`).
mod mpi;
/// What the initramfs carries for MPI.
mod mpi_guest;
/// numastat deltas of a remote placement.
mod numastat;
/// Reading records and checking their placements.
mod placement_checks;
/// A benchmark plugin run in the VM.
mod plugins;
/// Records read as records (the schema crate's strict reader).
#[path = "../shared/records.rs"]
mod records;
/// Records fixtures of characterize in a VM, for `compare` (ignored test).
mod records_fixture;
/// `numabench report` on records made in the four-node VM.
mod report;
/// The main job's last screen in the two-socket and four-node VMs (ignored).
mod screens;
/// characterize's node matrix by symmetry class in a symmetric four-node VM.
#[path = "../shared/mod.rs"]
mod shared;
/// `cache`'s Shared state on a guest with SMT.
mod smt;
/// Node splits in the four-node VM.
mod splits;
/// Tiered memory on the newer guest kernel: weighted interleave in the
/// kernel's mode (`--set-weights`).
mod tiered;
#[allow(dead_code)]
mod topologies;
/// The guest kernel's view and `topo --json` against the topology given.
mod topology_check;
/// The two-socket VM's placements, and its shared boot.
mod two_sockets;
/// Weighted interleave (emulated) splits pages 3:1.
mod weighted;

use harness::{VmOptions, VmRun, VmTopology};
use placement_checks::{placement_state, records, verified};
use serde_json::Value;
use std::path::Path;
use topology_check::{check_sysfs, check_topo_json, parse_sysfs};

/// Lowest accepted per-node `MemTotal`, as a fraction of the node's memory
/// (the kernel keeps some: memmap, page tables, and on node 0 the ~45 MiB
/// kernel image). Never more than given.
pub(crate) const MIN_MEMORY_FRACTION: f64 = 0.85;

/// Prints the kernel's view of the NUMA nodes as `node <i> <key> <value>`
/// lines: ground truth for the harness itself.
pub(crate) const SYSFS_DUMP: &str = r#"cd /sys/devices/system/node
echo "online $(cat online)"
for d in node*; do
  i=${d#node}
  echo "node $i cpulist $(cat $d/cpulist)"
  echo "node $i distance $(cat $d/distance)"
  echo "node $i memtotal_kb $(sed -n 's/.*MemTotal: *\([0-9]*\) kB.*/\1/p' $d/meminfo)"
  a=$d/access0/initiators
  if [ -d $a ]; then
    echo "node $i initiators $(cd $a && ls -d node* 2>/dev/null | sed 's/node//' | tr '\n' ' ')"
    for f in read_latency write_latency read_bandwidth write_bandwidth; do
      if [ -f $a/$f ]; then echo "node $i $f $(cat $a/$f)"; fi
    done
  fi
done
true"#;

/// Commands every topology check runs first.
pub(crate) const STANDARD_COMMANDS: [&str; 2] = [SYSFS_DUMP, "numabench topo --json"];
/// Index of the first caller-supplied command in `VmRun::commands`.
pub const FIRST_EXTRA_COMMAND: usize = STANDARD_COMMANDS.len();

fn numabench() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_numabench"))
}

/// Boots `topo` once with the numabench binary, checks the kernel's view
/// (sysfs) and `numabench topo --json` against the description, runs `extra`
/// commands after those, and returns the run. Panics listing every mismatch.
/// A test whose topology has a shared boot adds a [`boot::Part`] to it
/// instead (see `two_sockets::boot`).
#[allow(dead_code)]
fn check_topology(topo: &VmTopology, extra: &[&str]) -> VmRun {
    check_topology_with(topo, extra, VmOptions::default())
}

/// [`check_topology`] with [`VmOptions`]: `VmOptions { mpi: true }` when
/// `extra` runs MPI programs, e.g. `mpirun -np 2 numabench cluster ...`
/// (numabench must then be built with `--features mpi`, as
/// `cargo test --all-features` does; see `mpi.rs`).
#[allow(dead_code)]
fn check_topology_with(topo: &VmTopology, extra: &[&str], options: VmOptions) -> VmRun {
    let mut commands: Vec<&str> = STANDARD_COMMANDS.to_vec();
    commands.extend_from_slice(extra);
    harness::run_in_vm_with(topo, &[numabench()], &commands, options)
        .and_then(|run| check_run(topo, run))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Checks a run that began with [`STANDARD_COMMANDS`]: the kernel's view
/// (sysfs) and `numabench topo --json` against `topo`; prints the run's
/// time and each command's (guest uptime), for keeping the suite's budget.
fn check_run(topo: &VmTopology, run: VmRun) -> Result<VmRun, String> {
    eprintln!(
        "[{}] VM run took {:.1} s\n{}",
        topo.name,
        run.duration.as_secs_f64(),
        run.qemu_command
    );
    for line in run
        .console
        .lines()
        .filter(|line| line.contains("numabench-vm ["))
    {
        eprintln!("[{}] {line}", topo.name);
    }
    for i in 0..STANDARD_COMMANDS.len() {
        let c = &run.commands[i];
        if c.status != 0 {
            return Err(format!(
                "[{}] command `{}` failed with status {}\n--- stdout ---\n{}\n--- stderr ---\n{}\n--- console ---\n{}",
                topo.name, c.command, c.status, c.stdout, c.stderr, run.console
            ));
        }
    }
    let sysfs = &run.commands[0].stdout;
    let errors = check_sysfs(topo, sysfs);
    if !errors.is_empty() {
        return Err(format!(
            "[{}] the VM's kernel does not show the topology QEMU was given (harness or QEMU problem, \
             not numabench):\n  - {}\n\n{}\nQEMU: {}",
            topo.name,
            errors.join("\n  - "),
            run.transcript(),
            run.qemu_command
        ));
    }
    let errors = match serde_json::from_str::<Value>(&run.commands[1].stdout) {
        Ok(json) => check_topo_json(topo, &json, &parse_sysfs(sysfs)),
        Err(e) => vec![format!("`numabench topo --json` output is not JSON: {e}")],
    };
    if !errors.is_empty() {
        return Err(format!(
            "[{}] `numabench topo --json` does not match the emulated machine:\n  - {}\n\n{}\nQEMU: {}",
            topo.name,
            errors.join("\n  - "),
            run.transcript(),
            run.qemu_command
        ));
    }
    Ok(run)
}
