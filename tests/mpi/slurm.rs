//! A private single-node Slurm on this machine, for `srun` tests.
//!
//! [`Slurm::start`] makes a temp dir holding everything: a fresh munge key
//! and a `munged` listening on its own socket there, a `slurm.conf` (this
//! host as controller and only node, named by its gethostname, its hardware
//! from `slurmd -C` so that it matches what slurmd finds; ports that were
//! free a moment ago; state, spool, PID and log files in the temp dir;
//! munge authentication through the private socket; no cgroups:
//! `proctrack/linuxproc`, `task/none`), then runs `slurmctld -D` and `slurmd -D` as children and
//! waits until `sinfo` shows the node idle. Nothing of a system Slurm or
//! munge is read or touched: every daemon and client gets `SLURM_CONF`
//! naming the private file.
//!
//! Every process of the instance (daemons, `slurmstepd`s, job tasks, `srun`
//! clients) carries that `SLURM_CONF` in its environment, which is how
//! [`Slurm::stop`] (and [`Drop`], also when a test fails) finds and ends
//! them all before removing the temp dir; [`Teardown`] says what was left.
//!
//! Needs root and Debian's `slurm-wlm` and `munge` (scripts/setup installs
//! them): [`Slurm::start`] fails, saying what is missing, otherwise.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The `--mpi=` plugin that launches Debian's OpenMPI 4.1.4 ranks: OpenMPI
/// is built against the external PMIx (`ompi_info`: `MCA pmix: ext3x`) and
/// without Slurm's PMI-1/PMI-2 (`--mpi=pmi2` ranks stop in MPI_Init: "OMPI
/// was not built with SLURM's PMI support").
pub const MPI_PLUGIN: &str = "pmix";

/// How long the node may take to come up idle.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// Hard limit on one `srun` (coreutils `timeout`): a guard against a hung
/// job, not a performance target.
pub const SRUN_TIMEOUT: Duration = Duration::from_secs(300);

/// The programs a private Slurm needs, with the package holding each.
const PROGRAMS: [(&str, &str); 6] = [
    ("munged", "munge"),
    ("slurmctld", "slurmctld (slurm-wlm)"),
    ("slurmd", "slurmd (slurm-wlm)"),
    ("srun", "slurm-client (slurm-wlm)"),
    ("sinfo", "slurm-client (slurm-wlm)"),
    ("timeout", "coreutils"),
];

/// A running private Slurm; ended by [`Slurm::stop`] or when dropped.
pub struct Slurm {
    /// The temp dir (`None` once removed).
    dir: Option<tempfile::TempDir>,
    conf: PathBuf,
    node: String,
    /// Daemons in start order: munged, slurmctld, slurmd.
    daemons: Vec<(&'static str, Child)>,
}

/// What [`Slurm::stop`] left behind.
#[derive(Debug, Default)]
pub struct Teardown {
    /// Processes of the instance still alive after the teardown.
    pub left: Vec<(u32, String)>,
    /// The temp dir, if it could not be removed.
    pub dir_left: Option<PathBuf>,
    /// Problems met on the way (a daemon that would not stop, ...).
    pub problems: Vec<String>,
}

impl Teardown {
    /// True when nothing is left.
    pub fn clean(&self) -> bool {
        self.left.is_empty() && self.dir_left.is_none() && self.problems.is_empty()
    }
}

impl Slurm {
    /// Starts munged, slurmctld and slurmd in a new temp dir and waits for
    /// the node to be idle. Fails, saying why (what is missing, or the
    /// daemons' logs), when it cannot; whatever had started is torn down.
    pub fn start() -> Result<Slurm, String> {
        Self::start_with("")
    }

    /// [`Slurm::start`] with `extra` lines added to `slurm.conf` (a
    /// `HealthCheckProgram`, ...).
    pub fn start_with(extra: &str) -> Result<Slurm, String> {
        // SAFETY: geteuid has no preconditions and only reads.
        if unsafe { libc::geteuid() } != 0 {
            return Err("a private Slurm needs root (slurmd runs jobs as any user)".into());
        }
        let missing: Vec<String> = PROGRAMS
            .iter()
            .filter(|(program, _)| which(program).is_none())
            .map(|(program, package)| format!("{program} (package {package})"))
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "missing {}: scripts/setup installs them",
                missing.join(", ")
            ));
        }
        let dir = tempfile::Builder::new()
            .prefix("numabench-slurm-")
            .tempdir()
            .map_err(|error| format!("temp dir: {error}"))?;
        let mut slurm = Slurm {
            conf: dir.path().join("slurm.conf"),
            dir: Some(dir),
            node: String::new(),
            daemons: Vec::new(),
        };
        slurm.launch(extra)?;
        Ok(slurm)
    }

    /// Everything of [`Slurm::start`] after the checks; on error the
    /// caller drops `self`, which tears down what had started.
    fn launch(&mut self, extra: &str) -> Result<(), String> {
        let root = self.dir().to_path_buf();
        let io = |error: std::io::Error| format!("{}: {error}", root.display());
        // munged insists that every directory above its socket is
        // searchable by all, and that the key is readable by its owner only.
        fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).map_err(io)?;
        for sub in ["munge", "state", "spool", "log", "tmp"] {
            fs::create_dir(root.join(sub)).map_err(io)?;
            fs::set_permissions(root.join(sub), fs::Permissions::from_mode(0o755)).map_err(io)?;
        }
        let key = root.join("munge/munge.key");
        let mut bytes = vec![0u8; 1024];
        use std::io::Read as _;
        fs::File::open("/dev/urandom")
            .and_then(|mut random| random.read_exact(&mut bytes))
            .map_err(|error| format!("/dev/urandom: {error}"))?;
        fs::write(&key, &bytes).map_err(io)?;
        fs::set_permissions(&key, fs::Permissions::from_mode(0o400)).map_err(io)?;
        let socket = root.join("munge/munge.socket");
        let munged = self.spawn(
            "munged",
            Command::new(program("munged")).arg("--foreground").args([
                format!("--key-file={}", key.display()),
                format!("--socket={}", socket.display()),
                format!("--pid-file={}", root.join("munge/munged.pid").display()),
                format!("--seed-file={}", root.join("munge/munged.seed").display()),
                format!("--log-file={}", root.join("log/munged.log").display()),
            ]),
        )?;
        self.daemons.push(("munged", munged));
        self.wait_for("munged's socket", || socket.exists())?;

        let node_line = node_line()?;
        // The full gethostname (slurmd -C shortens it at the first dot), so
        // that the node is named as numabench's `params.host` names it.
        self.node = fs::read_to_string("/proc/sys/kernel/hostname")
            .map_err(|error| format!("/proc/sys/kernel/hostname: {error}"))?
            .trim()
            .to_string();
        let [controller_port, node_port] = [free_port()?, free_port()?];
        fs::write(
            &self.conf,
            config(&root, &self.node, &node_line, controller_port, node_port) + extra,
        )
        .map_err(io)?;

        let slurmctld = self.spawn(
            "slurmctld",
            Command::new(program("slurmctld")).args(["-D", "-c"]),
        )?;
        self.daemons.push(("slurmctld", slurmctld));
        let slurmd = self.spawn(
            "slurmd",
            Command::new(program("slurmd")).args(["-D", "-N", &self.node.clone()]),
        )?;
        self.daemons.push(("slurmd", slurmd));
        let conf = self.conf.clone();
        let node = self.node.clone();
        self.wait_for("the node to be idle in sinfo", || {
            node_state(&conf, &node).is_some_and(|state| state == "idle")
        })
    }

    /// The temp dir (config, logs, state).
    pub fn dir(&self) -> &Path {
        self.dir.as_ref().expect("not torn down").path()
    }

    /// The private `slurm.conf`, which names this instance.
    pub fn conf(&self) -> &Path {
        &self.conf
    }

    /// The node's name (this host's gethostname).
    pub fn node(&self) -> &str {
        &self.node
    }

    /// A command that talks to this instance (`SLURM_CONF` set).
    pub fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command.env("SLURM_CONF", &self.conf);
        command
    }

    /// `srun ARGS` against this instance, ended after [`SRUN_TIMEOUT`].
    pub fn srun(&self, args: &[&str]) -> Output {
        self.command("timeout")
            .arg(SRUN_TIMEOUT.as_secs().to_string())
            .arg("srun")
            .args(args)
            .output()
            .expect("srun runs")
    }

    /// The daemons' logs, for failure messages.
    pub fn logs(&self) -> String {
        let Some(dir) = &self.dir else {
            return String::new();
        };
        let mut text = String::new();
        for name in ["munged", "slurmctld", "slurmd"] {
            for file in [format!("{name}.log"), format!("{name}.out")] {
                if let Ok(log) = fs::read_to_string(dir.path().join("log").join(&file)) {
                    let lines: Vec<&str> = log.lines().collect();
                    let tail = &lines[lines.len().saturating_sub(30)..];
                    text.push_str(&format!("--- {file} (last lines)\n{}\n", tail.join("\n")));
                }
            }
        }
        text
    }

    /// Ends every process of the instance (daemons by SIGTERM, then
    /// anything still carrying this `SLURM_CONF` by SIGKILL) and removes
    /// the temp dir.
    pub fn stop(mut self) -> Teardown {
        self.teardown()
    }

    fn teardown(&mut self) -> Teardown {
        let mut report = Teardown::default();
        // Newest first: slurmd, slurmctld, then munged they authenticate with.
        while let Some((name, mut child)) = self.daemons.pop() {
            if let Err(problem) = terminate(name, &mut child) {
                report.problems.push(problem);
            }
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = processes_with_conf(&self.conf);
            if left.is_empty() {
                break;
            }
            if Instant::now() > deadline {
                report.left = left;
                break;
            }
            for (pid, _) in &left {
                // SAFETY: kill only sends a signal; the pid is a process of
                // this instance (its environment names this instance's conf).
                unsafe { libc::kill(*pid as libc::pid_t, libc::SIGKILL) };
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        if let Some(dir) = self.dir.take() {
            let path = dir.path().to_path_buf();
            if let Err(error) = dir.close() {
                report
                    .problems
                    .push(format!("removing {}: {error}", path.display()));
            }
            if path.exists() {
                report.dir_left = Some(path);
            }
        }
        report
    }

    /// Starts a daemon with this instance's environment, its output in
    /// `log/<name>.out`.
    fn spawn(&self, name: &str, command: &mut Command) -> Result<Child, String> {
        let out = fs::File::create(self.dir().join("log").join(format!("{name}.out")))
            .map_err(|error| format!("{name} log: {error}"))?;
        let err = out.try_clone().map_err(|error| error.to_string())?;
        command
            .env("SLURM_CONF", &self.conf)
            .current_dir(self.dir())
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .map_err(|error| format!("{name}: {error}"))
    }

    /// Polls `ready` until it holds; fails with the logs when a daemon
    /// exits or [`START_TIMEOUT`] passes.
    fn wait_for(&mut self, what: &str, mut ready: impl FnMut() -> bool) -> Result<(), String> {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if ready() {
                return Ok(());
            }
            let exited = self.daemons.iter_mut().find_map(|(name, child)| {
                child
                    .try_wait()
                    .ok()
                    .flatten()
                    .map(|status| format!("{name} exited ({status})"))
            });
            if let Some(exited) = exited {
                return Err(format!("waiting for {what}: {exited}\n{}", self.logs()));
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "{what}: not within {START_TIMEOUT:?}\n{}",
                    self.logs()
                ));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Slurm {
    fn drop(&mut self) {
        if self.dir.is_some() || !self.daemons.is_empty() {
            let report = self.teardown();
            if !report.clean() {
                eprintln!("private Slurm teardown incomplete: {report:?}");
            }
        }
    }
}

/// The slurm.conf of an instance rooted at `root`.
fn config(root: &Path, node: &str, node_line: &str, controller: u16, slurmd: u16) -> String {
    let path = |sub: &str| root.join(sub).display().to_string();
    // slurmd -C prints the hardware as `NodeName=... CPUs=... RealMemory=...`.
    let hardware: Vec<&str> = node_line
        .split_whitespace()
        .filter(|field| !field.starts_with("NodeName="))
        .collect();
    format!(
        "# A private single-node Slurm of numabench's tests (tests/mpi/slurm.rs).\n\
         ClusterName=numabenchtest\n\
         SlurmctldHost={node}(127.0.0.1)\n\
         SlurmctldPort={controller}\n\
         SlurmdPort={slurmd}\n\
         SlurmUser=root\n\
         SlurmdUser=root\n\
         AuthType=auth/munge\n\
         CredType=cred/munge\n\
         AuthInfo=socket={socket}\n\
         StateSaveLocation={state}\n\
         SlurmdSpoolDir={spool}\n\
         TmpFS={tmp}\n\
         SlurmctldPidFile={ctld_pid}\n\
         SlurmdPidFile={slurmd_pid}\n\
         SlurmctldLogFile={ctld_log}\n\
         SlurmdLogFile={slurmd_log}\n\
         ProctrackType=proctrack/linuxproc\n\
         TaskPlugin=task/none\n\
         SelectType=select/cons_tres\n\
         SelectTypeParameters=CR_Core\n\
         SchedulerType=sched/builtin\n\
         JobAcctGatherType=jobacct_gather/none\n\
         AccountingStorageType=accounting_storage/none\n\
         MpiDefault=none\n\
         ReturnToService=2\n\
         NodeName={node} NodeAddr=127.0.0.1 {hardware} State=UNKNOWN\n\
         PartitionName=test Nodes={node} Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES\n",
        socket = path("munge/munge.socket"),
        state = path("state"),
        spool = path("spool"),
        tmp = path("tmp"),
        ctld_pid = path("slurmctld.pid"),
        slurmd_pid = path("slurmd.pid"),
        ctld_log = path("log/slurmctld.log"),
        slurmd_log = path("log/slurmd.log"),
        hardware = hardware.join(" "),
    )
}

/// `slurmd -C`'s node line: this machine as slurmd sees it.
fn node_line() -> Result<String, String> {
    let output = Command::new(program("slurmd"))
        .arg("-C")
        .output()
        .map_err(|error| format!("slurmd -C: {error}"))?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find(|line| line.starts_with("NodeName="))
        .map(str::to_string)
        .ok_or_else(|| {
            format!(
                "slurmd -C printed no node line: {}",
                String::from_utf8_lossy(&output.stderr)
            )
        })
}

/// The node's state as `sinfo` reports it (`idle`, `down*`, ...).
fn node_state(conf: &Path, node: &str) -> Option<String> {
    let output = Command::new("sinfo")
        .env("SLURM_CONF", conf)
        .args(["--noheader", "--Node", "--format=%T", "--nodes", node])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines().next().map(|line| line.trim().to_string())
}

/// A TCP port nothing listens on now (the OS's pick for a bind to port 0).
fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .map_err(|error| format!("no free port: {error}"))
}

/// SIGTERM, up to 10 s to exit, then SIGKILL.
fn terminate(name: &str, child: &mut Child) -> Result<(), String> {
    if let Ok(Some(_)) = child.try_wait() {
        return Ok(());
    }
    // SAFETY: kill only sends a signal, to our own child (not yet reaped,
    // so its pid is not reused).
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    Err(format!("{name} ignored SIGTERM for 10 s and was killed"))
}

/// Live processes whose environment holds `SLURM_CONF=<conf>` (pid, name).
pub fn processes_with_conf(conf: &Path) -> Vec<(u32, String)> {
    let needle = format!("SLURM_CONF={}", conf.display());
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            fs::read(format!("/proc/{pid}/environ")).is_ok_and(|environ| {
                environ
                    .split(|byte| *byte == 0)
                    .any(|variable| variable == needle.as_bytes())
            })
        })
        .map(|pid| {
            let name = fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            (pid, name.trim().to_string())
        })
        .collect()
}

/// `name`'s path (see [`which`]), or the bare name.
fn program(name: &str) -> PathBuf {
    which(name).unwrap_or_else(|| PathBuf::from(name))
}

/// The path of `program` on `PATH` (sbin included: root's daemons).
fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    let found = path
        .split(':')
        .chain(["/usr/sbin", "/sbin"])
        .map(|dir| Path::new(dir).join(program))
        .find(|candidate| candidate.is_file());
    found
}
