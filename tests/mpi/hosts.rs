//! Several MPI hosts on one machine, for multi-host tests.
//!
//! Each host is a network namespace with its own address on a private
//! bridge; the bridge lives in a namespace of its own, so nothing touches the
//! machine's real network. OpenMPI's TCP transport joins the hosts, and its
//! launcher reaches them through a `plm_rsh_agent` script that enters the
//! host's namespace with `unshare --uts --mount` and gives it its own
//! hostname, so every rank's `gethostname()` names its host.
//!
//! Every host's processes run in a cgroup of their own (v1 `cpu`
//! controller, mounted in the harness's temp dir, group named after the
//! host) with [`HOST_CPU_SHARES`] CPU shares: ahead of unrelated work on the
//! machine (a session at nice 0 weighs 1024 under autogroup scheduling), so
//! a host measured alone gets about a whole CPU even when the machine is
//! busy, and hosts measured one at a time can be compared. Without the cgroup
//! v1 `cpu` controller (a cgroup-v2-only machine) hosts run without these
//! groups, and a slow host cannot be made.
//!
//! Optional host settings, seen by everything that host runs (not faked by
//! environment variables):
//! - a *slow host* ([`HostsConfig::slow_host`]): its group is limited to
//!   [`SLOW_HOST_QUOTA_PERCENT`] % of one CPU (CFS quota);
//! - *private `/dev/shm`* ([`HostsConfig::private_shm`]): every host
//!   mounts a tmpfs of its own there, as separate machines would have;
//! - a *THP-never host* ([`HostsConfig::thp_never_host`]): in its private
//!   mount namespace, `/sys/kernel/mm/transparent_hugepage/enabled` is a
//!   bind-mounted file reading `always madvise [never]`, so `numabench
//!   doctor` there reports transparent huge pages off.
//!
//! Names and addresses are unique per instance: namespaces are called
//! `nbh<K>-<pid>-h<i>` (hosts) and `nbh<K>-<pid>-sw` (bridge), the hosts'
//! hostnames are their namespace names, and host `i` has address
//! `10.201.<K>.<10+i>` in `10.201.<K>.0/24`, `K` being the first subnet no
//! live instance uses. Leftovers of dead processes (a crashed test run) are
//! removed at start. [`Drop`] tears everything down (processes left in the
//! namespaces, namespaces, bridge, cgroup, mounts, temp dir), also when a
//! test fails; a process-wide lock held by [`Hosts`] serializes every test
//! that uses hosts, since they share the machine's CPUs.
//!
//! Needs root and `ip netns` (iproute2), `unshare` and `mount`
//! (util-linux), OpenMPI's `mpirun`: [`Hosts::create`] fails, saying what is
//! missing, otherwise (tests never skip silently).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// CPU share of the slow host, in percent of one CPU (a CFS quota over
/// [`SLOW_HOST_PERIOD_US`]).
pub const SLOW_HOST_QUOTA_PERCENT: u32 = 20;

/// The slow host's quota period in microseconds: 5 ms, so its allowance
/// is 1 ms of CPU (the kernel's least quota). A timed repetition of a
/// check or a ping-pong needs more CPU than that, so every one of them
/// waits for a next period, however fast the build or the host. Over a
/// 100 ms period the allowance was 20 ms: a repetition of a few ms ran at
/// full speed unless it happened to straddle the throttle, the median
/// showed no slowdown, and a "slowed" host passed its baseline now and
/// then (`a_cluster_baseline_is_written_and_a_slowed_host_fails_it`,
/// 2 runs of 4 on a busy machine). As `slurm_health`'s slow node.
pub const SLOW_HOST_PERIOD_US: u32 = 5_000;

/// `cpu.shares` of every host's cgroup (the default, and a nice-0 session's
/// weight, is 1024).
pub const HOST_CPU_SHARES: u32 = 8192;

/// What the THP-never host reads in `/sys/kernel/mm/transparent_hugepage/enabled`.
pub const THP_NEVER_CONTENT: &str = "always madvise [never]\n";

/// The THP setting file that the THP-never host sees replaced.
pub const THP_ENABLED_PATH: &str = "/sys/kernel/mm/transparent_hugepage/enabled";

/// Hard limit on one `mpirun` started by [`Hosts::mpirun`] (coreutils
/// `timeout`): a guard against a hung job, not a performance target.
pub const MPIRUN_TIMEOUT: Duration = Duration::from_secs(900);

/// Namespace name prefix of every instance.
const PREFIX: &str = "nbh";
/// First two octets of every instance's subnet.
const NET: &str = "10.201";
/// Prefix of the per-instance temp dir (followed by `<pid>-`).
const TEMP_PREFIX: &str = "numabench-hosts-";
/// Serializes the tests that use hosts (threads of one test process).
static HOSTS_LOCK: Mutex<()> = Mutex::new(());

/// What to build.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostsConfig {
    /// Number of hosts (1..=100).
    pub count: usize,
    /// Index of a host whose processes get [`SLOW_HOST_QUOTA_PERCENT`] % of one CPU.
    pub slow_host: Option<usize>,
    /// Index of a host whose processes see transparent huge pages `never`.
    pub thp_never_host: Option<usize>,
    /// Every host gets a `/dev/shm` of its own (a fresh tmpfs in its mount
    /// namespace), as the nodes of a real cluster have: a file one host
    /// writes there is not on the others.
    pub private_shm: bool,
}

/// A set of hosts (network namespaces on a private bridge); torn down on drop.
#[derive(Debug)]
pub struct Hosts {
    config: HostsConfig,
    /// Subnet number `K` (addresses `10.201.K.x`).
    subnet: u8,
    /// Host namespace names, which are also their hostnames.
    host_namespaces: Vec<String>,
    /// The bridge's namespace.
    switch_namespace: String,
    /// Mount point of the cgroup v1 `cpu` hierarchy, if available.
    cgroup_mount: Option<PathBuf>,
    /// Each host's cgroup directory (under `cgroup_mount`), once made.
    cgroup_dirs: Vec<PathBuf>,
    /// Holds the scripts and the THP file; removed on drop.
    temp: Option<tempfile::TempDir>,
    torn_down: bool,
    /// Released last (fields drop after [`Drop::drop`] ran).
    _lock: MutexGuard<'static, ()>,
}

/// Everything an instance created, to check after teardown that nothing is left.
#[derive(Debug, Clone)]
pub struct Footprint {
    /// Network namespace names.
    pub namespaces: Vec<String>,
    /// Temp dir (also the parent of every mount point the harness made).
    pub temp_dir: PathBuf,
    /// The hosts' cgroup directory names (empty without cgroups).
    pub cgroup_names: Vec<String>,
}

impl Footprint {
    /// What is still there: namespaces, mounts under the temp dir, the temp
    /// dir, the cgroup (looked for in every cgroup v1 `cpu` hierarchy
    /// mounted in this process's mount namespace). Empty = all gone.
    pub fn remaining(&self) -> Vec<String> {
        let mut left = Vec::new();
        let live = list_namespaces().unwrap_or_default();
        for ns in &self.namespaces {
            if live.contains(ns) {
                left.push(format!("network namespace {ns}"));
            }
        }
        let temp = self.temp_dir.display().to_string();
        for m in mount_points() {
            if m.starts_with(&temp) {
                left.push(format!("mount {m}"));
            }
        }
        if self.temp_dir.exists() {
            left.push(format!("temp dir {temp}"));
        }
        for name in &self.cgroup_names {
            for root in cpu_cgroup_mounts() {
                let dir = Path::new(&root).join(name);
                if dir.exists() {
                    left.push(format!("cgroup {}", dir.display()));
                }
            }
        }
        left
    }
}

impl Hosts {
    /// Builds the hosts. Takes the process-wide hosts lock first (waits for
    /// other tests' hosts to be dropped), checks the prerequisites, removes
    /// leftovers of dead runs. On error, whatever was made is torn down.
    pub fn create(config: HostsConfig) -> Result<Hosts, String> {
        let lock = HOSTS_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        if config.count == 0 || config.count > 100 {
            return Err(format!(
                "hosts harness: count {} (need 1..=100)",
                config.count
            ));
        }
        for (what, idx) in [
            ("slow_host", config.slow_host),
            ("thp_never_host", config.thp_never_host),
        ] {
            if let Some(i) = idx.filter(|&i| i >= config.count) {
                return Err(format!(
                    "hosts harness: {what} {i} but only {} hosts",
                    config.count
                ));
            }
        }
        prerequisites()?;
        // Another test process may be choosing a subnet at the same time.
        let _file_lock = FileLock::acquire(&std::env::temp_dir().join("numabench-hosts.lock"))?;
        clean_leftovers()?;
        let used: BTreeSet<u8> = list_namespaces()?
            .iter()
            .filter_map(|n| parse_name(n).map(|(k, _)| k))
            .collect();
        let subnet = (0..=255u8)
            .find(|k| !used.contains(k))
            .ok_or("hosts harness: all 256 subnets 10.201.K.0/24 are in use")?;
        let pid = std::process::id();
        let base = format!("{PREFIX}{subnet}-{pid}");
        let temp = tempfile::Builder::new()
            .prefix(&format!("{TEMP_PREFIX}{pid}-"))
            .tempdir()
            .map_err(|e| format!("hosts harness: cannot create a temp dir: {e}"))?;
        let mut hosts = Hosts {
            host_namespaces: (0..config.count).map(|i| format!("{base}-h{i}")).collect(),
            switch_namespace: format!("{base}-sw"),
            config,
            subnet,
            cgroup_mount: None,
            cgroup_dirs: Vec::new(),
            temp: Some(temp),
            torn_down: false,
            _lock: lock,
        };
        // On error `hosts` drops here and tears down what was made.
        hosts.build()?;
        Ok(hosts)
    }

    /// The hosts' names (what `gethostname()` returns on each), host 0 first.
    pub fn names(&self) -> Vec<String> {
        self.host_namespaces.clone()
    }

    /// Address of host `i`.
    pub fn address(&self, i: usize) -> String {
        format!("{NET}.{}.{}", self.subnet, 10 + i)
    }

    /// The hosts' subnet in CIDR form (`10.201.K.0/24`).
    pub fn subnet(&self) -> String {
        format!("{NET}.{}.0/24", self.subnet)
    }

    /// The configuration the hosts were made with.
    pub fn config(&self) -> &HostsConfig {
        &self.config
    }

    /// A directory every host sees (the harness's temp dir): tests may
    /// put files there, e.g. per-host outputs.
    pub fn shared_dir(&self) -> &Path {
        self.temp_dir()
    }

    /// What to check after the drop (see [`Footprint::remaining`]).
    pub fn footprint(&self) -> Footprint {
        let mut namespaces = self.host_namespaces.clone();
        namespaces.push(self.switch_namespace.clone());
        Footprint {
            namespaces,
            temp_dir: self.temp_dir().to_path_buf(),
            cgroup_names: self
                .cgroup_dirs
                .iter()
                .filter_map(|d| d.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .collect(),
        }
    }

    /// `mpirun` started inside host 0, running `program args` with
    /// `ranks_per_host` ranks on every host (ranks `0..ranks_per_host` on
    /// host 0, and so on: OpenMPI's by-slot mapping). Over TCP only, on the
    /// hosts' subnet, launched through the harness's `plm_rsh_agent`;
    /// killed after [`MPIRUN_TIMEOUT`]. The caller runs it (e.g. `.output()`)
    /// while `self` is alive. The ranks inherit the command's environment;
    /// see [`Hosts::mpirun_env`] to pass variables explicitly.
    ///
    /// Binding is OpenMPI's default, as on a real cluster: with at most 2
    /// ranks per host each rank is bound to one core (the first ones of the
    /// machine on every host, since all hosts share its CPUs), with more to a
    /// socket. Pass `--bind-to none` with [`Hosts::mpirun_opts`] for ranks
    /// that should see the host's whole cpuset.
    pub fn mpirun(&self, ranks_per_host: usize, program: &Path, args: &[&str]) -> Command {
        self.mpirun_opts(ranks_per_host, &[], program, args, &[])
    }

    /// [`Hosts::mpirun`] with environment variables for the ranks, set on the
    /// command and forwarded by `mpirun -x NAME`.
    pub fn mpirun_env(
        &self,
        ranks_per_host: usize,
        program: &Path,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Command {
        self.mpirun_opts(ranks_per_host, &[], program, args, env)
    }

    /// [`Hosts::mpirun_env`] with extra `mpirun` options (e.g.
    /// `["--bind-to", "none"]`), placed before the program.
    pub fn mpirun_opts(
        &self,
        ranks_per_host: usize,
        options: &[&str],
        program: &Path,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Command {
        let subnet = self.subnet();
        let host_list = (0..self.config.count)
            .map(|i| format!("{}:{ranks_per_host}", self.address(i)))
            .collect::<Vec<_>>()
            .join(",");
        let mut cmd = Command::new(self.temp_dir().join("enter"));
        cmd.arg("0")
            .args([
                "timeout",
                "--kill-after=10",
                &MPIRUN_TIMEOUT.as_secs().to_string(),
            ])
            .arg("mpirun")
            .args(["--allow-run-as-root", "--oversubscribe"])
            .args(["--mca", "plm_rsh_agent"])
            .arg(self.temp_dir().join("agent"))
            // Every daemon is started by mpirun itself through the agent.
            .args(["--mca", "plm_rsh_no_tree_spawn", "1"])
            .args(["--mca", "btl", "tcp,self"])
            .args(["--mca", "btl_tcp_if_include", &subnet])
            .args(["--mca", "oob_tcp_if_include", &subnet])
            .args(["--host", &host_list])
            .args(["-np", &(ranks_per_host * self.config.count).to_string()]);
        for (name, value) in env {
            cmd.args(["-x", name]).env(name, value);
        }
        cmd.args(options).arg(program).args(args);
        cmd
    }

    /// OpenMPI's settings of [`Hosts::mpirun`] as environment variables
    /// (`OMPI_MCA_<name>`, which mpirun reads), for a program that starts
    /// `mpirun` itself inside a host ([`Hosts::on_host`]): the launch agent,
    /// TCP on the hosts' subnet.
    pub fn mca_env(&self) -> Vec<(String, String)> {
        let subnet = self.subnet();
        [
            (
                "plm_rsh_agent",
                self.temp_dir().join("agent").display().to_string(),
            ),
            ("plm_rsh_no_tree_spawn", "1".to_string()),
            ("btl", "tcp,self".to_string()),
            ("btl_tcp_if_include", subnet.clone()),
            ("oob_tcp_if_include", subnet),
        ]
        .into_iter()
        .map(|(name, value)| (format!("OMPI_MCA_{name}"), value))
        .collect()
    }

    /// A command run inside host `i` (its namespace, hostname and settings),
    /// without MPI.
    pub fn on_host(&self, i: usize, program: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(self.temp_dir().join("enter"));
        cmd.arg(i.to_string()).arg(program).args(args);
        cmd
    }

    /// Tears everything down now, returning what could not be removed
    /// (dropping does the same and prints the errors).
    pub fn teardown(mut self) -> Result<(), String> {
        self.teardown_inner()
    }

    fn temp_dir(&self) -> &Path {
        self.temp
            .as_ref()
            .expect("temp dir lives until teardown")
            .path()
    }

    fn build(&mut self) -> Result<(), String> {
        let sw = self.switch_namespace.clone();
        run("ip", &["netns", "add", &sw])?;
        run("ip", &["-n", &sw, "link", "set", "lo", "up"])?;
        run("ip", &["-n", &sw, "link", "add", "br0", "type", "bridge"])?;
        run("ip", &["-n", &sw, "link", "set", "br0", "up"])?;
        for (i, ns) in self.host_namespaces.clone().iter().enumerate() {
            run("ip", &["netns", "add", ns])?;
            let port = format!("v{i}");
            // Both ends are made directly in their namespaces: nothing
            // appears in the machine's own network namespace.
            run(
                "ip",
                &[
                    "-n", &sw, "link", "add", &port, "type", "veth", "peer", "name", "eth0",
                    "netns", ns,
                ],
            )?;
            run("ip", &["-n", &sw, "link", "set", &port, "master", "br0"])?;
            run("ip", &["-n", &sw, "link", "set", &port, "up"])?;
            let addr = format!("{}/24", self.address(i));
            run("ip", &["-n", ns, "addr", "add", &addr, "dev", "eth0"])?;
            run("ip", &["-n", ns, "link", "set", "eth0", "up"])?;
            run("ip", &["-n", ns, "link", "set", "lo", "up"])?;
        }
        self.make_cgroups()?;
        if self.config.thp_never_host.is_some() {
            write_file(
                &self.temp_dir().join("thp-enabled"),
                THP_NEVER_CONTENT,
                0o444,
            )?;
        }
        let enter = self.enter_script();
        write_file(&self.temp_dir().join("enter"), &enter, 0o755)?;
        let agent = self.agent_script();
        write_file(&self.temp_dir().join("agent"), &agent, 0o755)?;
        Ok(())
    }

    /// Mounts the cgroup v1 `cpu` hierarchy in the temp dir and makes each
    /// host's group (named after the host), with the slow host's quota.
    /// Without the controller: an error if a slow host is asked for, else
    /// hosts without groups.
    fn make_cgroups(&mut self) -> Result<(), String> {
        let mount = self.temp_dir().join("cgroup-cpu");
        fs::create_dir(&mount).map_err(|e| format!("mkdir {}: {e}", mount.display()))?;
        let m = mount.display().to_string();
        if let Err(e) = run("mount", &["-t", "cgroup", "-o", "cpu", "nbcpu", &m]) {
            if self.config.slow_host.is_none() {
                return Ok(());
            }
            return Err(format!(
                "{e}\nhosts harness: the slow host needs the cgroup v1 `cpu` controller (a cgroup-v2-only \
                 machine cannot give one here)"
            ));
        }
        self.cgroup_mount = Some(mount.clone());
        // Groups of dead runs (their processes are gone): remove.
        if let Ok(entries) = fs::read_dir(&mount) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if parse_name(&name).is_some_and(|(_, pid)| !pid_alive(pid)) {
                    let _ = fs::remove_dir(e.path());
                }
            }
        }
        for (i, ns) in self.host_namespaces.clone().iter().enumerate() {
            let dir = mount.join(ns);
            fs::create_dir(&dir).map_err(|e| format!("mkdir {}: {e}", dir.display()))?;
            self.cgroup_dirs.push(dir.clone());
            let mut settings = vec![("cpu.shares", HOST_CPU_SHARES)];
            if self.config.slow_host == Some(i) {
                settings.push(("cpu.cfs_period_us", SLOW_HOST_PERIOD_US));
                settings.push((
                    "cpu.cfs_quota_us",
                    SLOW_HOST_PERIOD_US / 100 * SLOW_HOST_QUOTA_PERCENT,
                ));
            }
            for (file, value) in settings {
                let path = dir.join(file);
                fs::write(&path, value.to_string())
                    .map_err(|e| format!("write {}: {e}", path.display()))?;
            }
        }
        Ok(())
    }

    /// `enter I COMMAND [ARGS...]`: runs COMMAND in host I's namespaces with
    /// its hostname and settings.
    fn enter_script(&self) -> String {
        let mut s = String::from(
            "#!/bin/sh\n# Written by tests/mpi/hosts.rs: enter I COMMAND [ARGS...] runs COMMAND on host I.\n\
             i=$1; shift\ncase $i in\n",
        );
        for (i, ns) in self.host_namespaces.iter().enumerate() {
            let mut setup = String::from("hostname \"$0\" || exit 126");
            if let Some(dir) = self.cgroup_dirs.get(i) {
                let tasks = dir.join("tasks");
                let _ = write!(setup, "; echo $$ > {} || exit 126", tasks.display());
            }
            if self.config.private_shm {
                setup.push_str("; mount -t tmpfs -o mode=1777 nbshm /dev/shm || exit 126");
            }
            if self.config.thp_never_host == Some(i) {
                let file = self.temp_dir().join("thp-enabled");
                let _ = write!(
                    setup,
                    "; mount --bind {} {THP_ENABLED_PATH} || exit 126",
                    file.display()
                );
            }
            let _ = writeln!(
                s,
                "{i}) exec ip netns exec {ns} unshare --uts --mount sh -c '{setup}; exec \"$@\"' {ns} \"$@\";;"
            );
        }
        s.push_str("*) echo \"enter: no host $i\" >&2; exit 127;;\nesac\n");
        s
    }

    /// The `plm_rsh_agent`: OpenMPI runs `AGENT [options] HOST COMMAND...`
    /// (ssh's form); it maps HOST (address or name) to its index and runs
    /// the command through the host's shell, as ssh would.
    fn agent_script(&self) -> String {
        let mut s = String::from(
            "#!/bin/sh\n# Written by tests/mpi/hosts.rs: OpenMPI's plm_rsh_agent for the test hosts.\n\
             while [ $# -gt 0 ]; do case $1 in -*) shift;; *) break;; esac; done\n\
             host=$1; shift\ncase $host in\n",
        );
        for (i, ns) in self.host_namespaces.iter().enumerate() {
            let _ = writeln!(s, "{}|{ns}) i={i};;", self.address(i));
        }
        let _ = writeln!(
            s,
            "*) echo \"agent: unknown host $host\" >&2; exit 255;;\nesac\nexec {} $i sh -c \"$*\"",
            self.temp_dir().join("enter").display()
        );
        s
    }

    fn teardown_inner(&mut self) -> Result<(), String> {
        if self.torn_down {
            return Ok(());
        }
        self.torn_down = true;
        let mut errors = Vec::new();
        let mut all: Vec<String> = self.host_namespaces.clone();
        all.push(self.switch_namespace.clone());
        let live = list_namespaces().unwrap_or_default();
        let all: Vec<String> = all.into_iter().filter(|n| live.contains(n)).collect();
        if let Err(e) = kill_namespace_processes(&all) {
            errors.push(e);
        }
        for ns in &all {
            if let Err(e) = run("ip", &["netns", "del", ns]) {
                errors.push(e);
            }
        }
        for dir in std::mem::take(&mut self.cgroup_dirs) {
            if let Err(e) = remove_cgroup(&dir) {
                errors.push(e);
            }
        }
        if let Some(m) = self.cgroup_mount.take() {
            if let Err(e) = run("umount", &[&m.display().to_string()]) {
                errors.push(e);
            }
        }
        if let Some(t) = self.temp.take() {
            let p = t.path().display().to_string();
            if let Err(e) = t.close() {
                errors.push(format!("removing {p}: {e}"));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(format!("hosts teardown: {}", errors.join("; ")))
        }
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        if let Err(e) = self.teardown_inner() {
            eprintln!("{e}");
        }
    }
}

/// Fails, saying what is missing, unless root with `ip netns`, `unshare`,
/// `mount`, `timeout` and `mpirun` available.
fn prerequisites() -> Result<(), String> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let euid = unsafe { libc::geteuid() };
    if euid != 0 {
        return Err(format!(
            "multi-host MPI tests need root (network namespaces, mounts, cgroups); running as uid {euid}"
        ));
    }
    let mut missing = Vec::new();
    match Command::new("ip").args(["netns", "list"]).output() {
        Ok(o) if o.status.success() => {}
        Ok(o) => missing.push(format!(
            "`ip netns list` failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => missing.push(format!("cannot run `ip` (Debian package iproute2): {e}")),
    }
    for (tool, package) in [
        ("unshare", "util-linux"),
        ("mount", "mount"),
        ("timeout", "coreutils"),
        ("mpirun", "openmpi-bin"),
    ] {
        if Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .stdout(Stdio::null())
            .status()
            .map_or(true, |s| !s.success())
        {
            missing.push(format!("`{tool}` not in PATH (Debian package {package})"));
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "multi-host MPI tests cannot run:\n  - {}\n(scripts/setup installs what they need)",
            missing.join("\n  - ")
        ))
    }
}

/// Removes namespaces, mounts and temp dirs of this harness whose process is dead.
fn clean_leftovers() -> Result<(), String> {
    let dead: Vec<String> = list_namespaces()?
        .into_iter()
        .filter(|n| parse_name(n).is_some_and(|(_, pid)| !pid_alive(pid)))
        .collect();
    kill_namespace_processes(&dead)?;
    for ns in &dead {
        run("ip", &["netns", "del", ns])?;
    }
    let tmp = std::env::temp_dir();
    let dead_temp = |p: &str| {
        Path::new(p)
            .strip_prefix(&tmp)
            .ok()
            .and_then(|rel| rel.components().next())
            .and_then(|c| {
                c.as_os_str()
                    .to_str()?
                    .strip_prefix(TEMP_PREFIX)?
                    .split('-')
                    .next()?
                    .parse::<u32>()
                    .ok()
            })
            .is_some_and(|pid| !pid_alive(pid))
    };
    // Deepest first.
    let mut mounts: Vec<String> = mount_points()
        .into_iter()
        .filter(|m| dead_temp(m))
        .collect();
    mounts.sort_by_key(|m| std::cmp::Reverse(m.len()));
    for m in mounts {
        run("umount", &["-l", &m])?;
    }
    if let Ok(entries) = fs::read_dir(&tmp) {
        for e in entries.flatten() {
            let p = e.path();
            if dead_temp(&p.display().to_string()) {
                let _ = fs::remove_dir_all(&p);
            }
        }
    }
    Ok(())
}

/// `(K, pid)` of a name `nbh<K>-<pid>[-...]`.
fn parse_name(name: &str) -> Option<(u8, u32)> {
    let rest = name.strip_prefix(PREFIX)?;
    let mut parts = rest.split('-');
    let k = parts.next()?.parse().ok()?;
    let pid = parts.next()?.parse().ok()?;
    Some((k, pid))
}

fn pid_alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Network namespace names (`ip netns list`, first word of each line).
fn list_namespaces() -> Result<Vec<String>, String> {
    let out = run("ip", &["netns", "list"])?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect())
}

/// Mount points in this process's mount namespace (unescaped `\040` etc.
/// are left as they are: the harness's paths have no spaces).
fn mount_points() -> Vec<String> {
    fs::read_to_string("/proc/self/mountinfo")
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_whitespace().nth(4).map(str::to_string))
        .collect()
}

/// Mount points of cgroup v1 hierarchies with the `cpu` controller.
fn cpu_cgroup_mounts() -> Vec<String> {
    fs::read_to_string("/proc/self/mountinfo")
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (left, right) = l.split_once(" - ")?;
            let mut r = right.split_whitespace();
            if r.next()? != "cgroup" {
                return None;
            }
            let super_opts = r.nth(1)?;
            super_opts
                .split(',')
                .any(|o| o == "cpu")
                .then(|| left.split_whitespace().nth(4).map(str::to_string))?
        })
        .collect()
}

/// Kills (SIGKILL) the processes left in `namespaces` (started by this
/// harness: ranks, daemons, mpirun) and waits for them to go.
fn kill_namespace_processes(namespaces: &[String]) -> Result<(), String> {
    let pids = |ns: &str| -> Vec<i32> {
        run("ip", &["netns", "pids", ns])
            .map(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .split_whitespace()
                    .filter_map(|p| p.parse().ok())
                    .collect()
            })
            .unwrap_or_default()
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left: Vec<i32> = namespaces.iter().flat_map(|ns| pids(ns)).collect();
        if left.is_empty() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!(
                "processes {left:?} survive SIGKILL in {namespaces:?}"
            ));
        }
        for pid in left {
            // SAFETY: kill has no memory-safety preconditions; `pid` is a
            // process inside one of this harness's namespaces.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Removes the cgroup directory (its processes were killed with the
/// namespaces; exiting ones may linger a moment).
fn remove_cgroup(dir: &Path) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match fs::remove_dir(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) if Instant::now() > deadline => {
                let tasks = fs::read_to_string(dir.join("tasks")).unwrap_or_default();
                return Err(format!(
                    "rmdir {}: {e} (tasks: {})",
                    dir.display(),
                    tasks.split_whitespace().collect::<Vec<_>>().join(" ")
                ));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// Runs a command, failing with its stderr.
fn run(program: &str, args: &[&str]) -> Result<Output, String> {
    let out = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(format!(
            "`{program} {}` failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn write_file(path: &Path, content: &str, mode: u32) -> Result<(), String> {
    fs::write(path, content).map_err(|e| format!("write {}: {e}", path.display()))?;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(|e| format!("chmod {}: {e}", path.display()))
}

/// An exclusive `flock` on a file, released on drop.
#[derive(Debug)]
struct FileLock(fs::File);

impl FileLock {
    fn acquire(path: &Path) -> Result<FileLock, String> {
        use std::os::fd::AsRawFd;
        let f = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| format!("open {}: {e}", path.display()))?;
        // SAFETY: flock on a valid open descriptor owned by `f`.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(format!(
                "flock {}: {}",
                path.display(),
                std::io::Error::last_os_error()
            ));
        }
        Ok(FileLock(f))
    }
}
