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

mod initramfs;
mod prerequisites;
mod topology;
pub use initramfs::*;
pub use prerequisites::*;
pub use topology::*;

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
