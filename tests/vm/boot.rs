//! One boot per topology: every test that needs a topology hands its
//! commands over as a [`Part`], the first test to ask boots the guest once
//! with every part's commands (in the order the topology's list gives), and
//! each test then checks its own part's results ([`SharedBoot::part`]).
//!
//! A boot under TCG costs 10-15 s before the first command runs and the
//! topology checks (sysfs and `numabench topo --json`) another few; the
//! suite booted the two-socket machine ten times and the four-node one four
//! times before the parts shared their boots.
//!
//! Between two parts the guest is put back as it booted: hugetlbfs pools
//! emptied, transparent huge pages as the kernel set them, every CPU online,
//! and each part's commands run in a working directory of their own
//! (`/tmp/<part>`), so no part sees what another one left.
//!
//! A boot that fails (QEMU, a stall, its time limit, the topology checks)
//! fails every part's test with the same message; it is not booted again.

use super::harness::{self, CommandOutput, VmOptions, VmRun, VmTopology};
use super::{check_run, STANDARD_COMMANDS};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;
use std::time::Duration;

/// One test's share of a boot.
#[derive(Debug)]
pub struct Part {
    /// The part's name, as its test asks for it.
    pub name: &'static str,
    /// Its commands, run one by one after the standard ones.
    pub commands: Vec<String>,
    /// Host files it needs in the guest's `/usr/local/bin` besides numabench
    /// (MPI programs, plugins, the monitor library).
    pub binaries: Vec<PathBuf>,
    /// What its commands may take, added to the boot's time limit.
    pub limit: Duration,
    /// Directories holding `binaries`, kept (never read) until the guest
    /// is packed.
    #[allow(dead_code)]
    pub keep: Vec<tempfile::TempDir>,
}

impl Part {
    /// A part of `commands` with a time limit of `limit_secs`.
    pub fn new(name: &'static str, commands: &[&str], limit_secs: u64) -> Part {
        Part {
            name,
            commands: commands.iter().map(|c| c.to_string()).collect(),
            binaries: Vec::new(),
            limit: Duration::from_secs(limit_secs),
            keep: Vec::new(),
        }
    }
}

/// What a boot before the first part saves: the transparent huge page
/// setting the kernel booted with, to put back after each part.
const SAVE_STATE: &str = "sed -n 's/.*\\[\\(.*\\)\\].*/\\1/p' \
     /sys/kernel/mm/transparent_hugepage/enabled > /vm/thp-enabled";

/// Puts the guest back as it booted after a part (see the module's doc).
const RESTORE_STATE: &str = "cd / && \
     for f in /sys/devices/system/node/node*/hugepages/hugepages-*/nr_hugepages; do echo 0 > $f; done; \
     cat /vm/thp-enabled > /sys/kernel/mm/transparent_hugepage/enabled && \
     for c in /sys/devices/system/cpu/cpu[0-9]*/online; do echo 1 > $c; done; \
     rm -rf /tmp/part-*";

/// Time for booting and the commands that are no part's.
const BOOT_LIMIT: Duration = Duration::from_secs(120);

/// A topology's boot, shared by the tests of its parts.
#[derive(Debug)]
pub struct SharedBoot {
    topology: String,
    /// The whole run (after the topology checks passed), or why it failed.
    run: Result<VmRun, String>,
    /// Each part's commands in `run.commands`.
    parts: BTreeMap<&'static str, Range<usize>>,
}

impl SharedBoot {
    /// Boots `topo` once with every part's commands and checks the
    /// topology (as `check_topology` does). Never panics: a failure is kept
    /// and given to every part.
    pub fn run(topo: &VmTopology, options: VmOptions, parts: Vec<Part>) -> SharedBoot {
        let mut commands: Vec<String> = STANDARD_COMMANDS.iter().map(|c| c.to_string()).collect();
        commands.push(SAVE_STATE.to_string());
        let mut binaries: Vec<PathBuf> = vec![super::numabench().to_path_buf()];
        let mut ranges = BTreeMap::new();
        let mut limit = BOOT_LIMIT;
        for part in &parts {
            let start = commands.len();
            for command in &part.commands {
                commands.push(format!(
                    "mkdir -p /tmp/part-{name} && cd /tmp/part-{name} && {command}",
                    name = part.name
                ));
            }
            ranges.insert(part.name, start..commands.len());
            commands.push(RESTORE_STATE.to_string());
            for binary in &part.binaries {
                if !binaries.contains(binary) {
                    binaries.push(binary.clone());
                }
            }
            limit += part.limit;
        }
        let options = VmOptions {
            time_limit: Some(options.time_limit.unwrap_or(limit)),
            ..options
        };
        let binaries: Vec<&std::path::Path> = binaries.iter().map(PathBuf::as_path).collect();
        let commands_ref: Vec<&str> = commands.iter().map(String::as_str).collect();
        let run = harness::run_in_vm_with(topo, &binaries, &commands_ref, options)
            .and_then(|run| check_run(topo, run));
        // Each part's own commands, as it wrote them (not the working
        // directory around them).
        let run = run.map(|mut run| {
            for part in &parts {
                for (k, command) in part.commands.iter().enumerate() {
                    run.commands[ranges[part.name].start + k].command = command.clone();
                }
            }
            run
        });
        if let Ok(run) = &run {
            for (i, c) in run.commands.iter().enumerate() {
                if ranges.values().all(|r| !r.contains(&i)) && c.status != 0 {
                    return SharedBoot {
                        topology: topo.name.to_string(),
                        run: Err(format!(
                            "[{}] the boot's own command `{}` failed with status {}:\n{}{}",
                            topo.name, c.command, c.status, c.stdout, c.stderr
                        )),
                        parts: ranges,
                    };
                }
            }
        }
        drop(parts);
        SharedBoot {
            topology: topo.name.to_string(),
            run,
            parts: ranges,
        }
    }

    /// Part `name`'s results as a run of its own: the standard commands
    /// first (`FIRST_EXTRA_COMMAND` is its first command), then its
    /// commands. Panics with the boot's error if the boot failed.
    pub fn part(&self, name: &str) -> VmRun {
        let run = match &self.run {
            Ok(run) => run,
            Err(e) => panic!("[{}] the shared boot failed:\n{e}", self.topology),
        };
        let range = self
            .parts
            .get(name)
            .unwrap_or_else(|| panic!("[{}] no part {name} in the boot", self.topology))
            .clone();
        let commands: Vec<CommandOutput> = run.commands[..STANDARD_COMMANDS.len()]
            .iter()
            .chain(&run.commands[range])
            .cloned()
            .collect();
        VmRun {
            commands,
            ..run.clone()
        }
    }
}
