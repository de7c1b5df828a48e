//! The memory this process may use, beyond the nodes' free memory: the
//! limit of its memory cgroup (v2 `memory.max`, v1
//! `memory.limit_in_bytes`, each up the hierarchy, as Slurm's `--mem` or a
//! container sets it) and its `RLIMIT_AS` and `RLIMIT_DATA`. A working set
//! larger than the tightest of them gets the process killed by the OOM
//! killer (exit 137, nothing measured) or its allocation refused, so
//! default sizes are chosen under it and explicit ones checked against it
//! before anything runs.
//!
//! Swap limits (`memory.swap.max`, `memory.memsw.limit_in_bytes`) are not
//! read: numabench's buffers must stay resident to be measured at all.

use nix::sys::resource::{getrlimit, Resource, RLIM_INFINITY};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::Path;

/// Limits at or above this many bytes mean "no limit" (cgroup v1 writes
/// `PAGE_COUNTER_MAX` pages, about 2^63 bytes, for an unlimited group).
const UNLIMITED_FROM: u64 = 1 << 60;

/// One limit on the memory this process may use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryLimit {
    /// What sets it: `cgroup v2 memory.max`, `cgroup v1
    /// memory.limit_in_bytes` (each with the group's directory), `RLIMIT_AS`
    /// or `RLIMIT_DATA`.
    pub source: String,
    /// The limit, bytes.
    pub limit_bytes: u64,
    /// What already counted against it when the topology was read: the
    /// group's usage less its page cache (the kernel reclaims that first),
    /// the process's address space (`VmSize`) or data (`VmData`).
    pub used_bytes: u64,
}

impl MemoryLimit {
    /// Bytes still free under this limit.
    pub fn available_bytes(&self) -> u64 {
        self.limit_bytes.saturating_sub(self.used_bytes)
    }
}

/// The limit of `limits` with the fewest bytes still available.
pub fn tightest(limits: &[MemoryLimit]) -> Option<&MemoryLimit> {
    limits.iter().min_by_key(|limit| limit.available_bytes())
}

/// Every memory limit on this process: its memory cgroup's (v2 and v1,
/// each level up the hierarchy that sets one), `RLIMIT_AS` and
/// `RLIMIT_DATA`. Empty when nothing limits it.
pub fn discover_memory_limits() -> Vec<MemoryLimit> {
    let membership = fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let mounts = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    let mut limits = cgroup_limits(&membership, &mounts, Path::new("/"));
    for (resource, name, field) in [
        (Resource::RLIMIT_AS, "RLIMIT_AS", "VmSize:"),
        (Resource::RLIMIT_DATA, "RLIMIT_DATA", "VmData:"),
    ] {
        if let Some(limit_bytes) = soft_rlimit(resource) {
            limits.push(MemoryLimit {
                source: name.to_string(),
                limit_bytes,
                used_bytes: status_kib(&status, field).unwrap_or(0) * 1024,
            });
        }
    }
    limits
}

/// The soft limit on `resource`, `None` when unlimited or unreadable.
fn soft_rlimit(resource: Resource) -> Option<u64> {
    let (soft, _hard) = getrlimit(resource).ok()?;
    (soft != RLIM_INFINITY && soft < UNLIMITED_FROM).then_some(soft)
}

/// A `kB` field of /proc/self/status.
fn status_kib(status: &str, field: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|value| value.parse().ok())
}

/// The memory cgroup limits of a process whose /proc/self/cgroup is
/// `membership`, with the mounts of `mountinfo`, files read under `root`
/// (`/` on this machine; a test's directory otherwise). Every level from
/// the process's group up to the mount's root that sets a limit gives one.
pub fn cgroup_limits(membership: &str, mountinfo: &str, root: &Path) -> Vec<MemoryLimit> {
    let mut limits = Vec::new();
    for line in membership.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let version = if id == "0" && controllers.is_empty() {
            2
        } else if controllers.split(',').any(|name| name == "memory") {
            1
        } else {
            continue;
        };
        let Some((mount_root, mount_point)) = cgroup_mount(mountinfo, version) else {
            continue;
        };
        // Inside a cgroup namespace or a bind mount, the mount shows the
        // hierarchy from `mount_root` down.
        let relative = path
            .strip_prefix(mount_root.as_str())
            .unwrap_or(path)
            .trim_start_matches('/');
        let base = root.join(mount_point.trim_start_matches('/'));
        let mut group = base.join(relative);
        loop {
            if let Some(limit) = group_limit(&group, version) {
                limits.push(limit);
            }
            if group == base || !group.pop() || !group.starts_with(&base) {
                break;
            }
        }
    }
    limits
}

/// The (root, mount point) of the cgroup hierarchy of `version` (v1: the
/// one holding the memory controller) in `mountinfo`.
fn cgroup_mount(mountinfo: &str, version: u32) -> Option<(String, String)> {
    mountinfo.lines().find_map(|line| {
        let (mount, rest) = line.split_once(" - ")?;
        let mut after = rest.split_whitespace();
        let fs_type = after.next()?;
        let options = after.nth(1).unwrap_or("");
        let fields: Vec<&str> = mount.split_whitespace().collect();
        let (root, point) = (fields.get(3)?, fields.get(4)?);
        let matches = match version {
            2 => fs_type == "cgroup2",
            _ => fs_type == "cgroup" && options.split(',').any(|option| option == "memory"),
        };
        matches.then(|| (root.to_string(), point.to_string()))
    })
}

/// The limit one group directory sets, if any.
fn group_limit(group: &Path, version: u32) -> Option<MemoryLimit> {
    let (limit_file, usage_file, cache_field) = match version {
        2 => ("memory.max", "memory.current", "file"),
        _ => (
            "memory.limit_in_bytes",
            "memory.usage_in_bytes",
            "total_cache",
        ),
    };
    let read = |name: &str| fs::read_to_string(group.join(name)).ok();
    let limit_bytes: u64 = read(limit_file)?.trim().parse().ok()?;
    if limit_bytes >= UNLIMITED_FROM {
        return None;
    }
    let usage: u64 = read(usage_file)
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(0);
    let cache: u64 = read("memory.stat")
        .and_then(|stat| {
            stat.lines().find_map(|line| {
                let (name, value) = line.split_once(' ')?;
                (name == cache_field).then(|| value.trim().parse().ok())?
            })
        })
        .unwrap_or(0);
    Some(MemoryLimit {
        source: format!("cgroup v{version} {limit_file} ({})", group.display()),
        limit_bytes,
        used_bytes: usage.saturating_sub(cache),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) {
        fs::create_dir_all(dir).unwrap();
        fs::write(dir.join(name), text).unwrap();
    }

    #[test]
    fn a_v2_limit_is_found_up_the_hierarchy_and_the_tightest_wins() {
        let root = tempfile::tempdir().unwrap();
        let base = root.path().join("sys/fs/cgroup");
        let job = base.join("slurm/job_7");
        let step = job.join("step_0");
        write(&job, "memory.max", "1073741824\n");
        write(&job, "memory.current", "209715200\n");
        write(&job, "memory.stat", "anon 5\nfile 104857600\n");
        write(&step, "memory.max", "max\n");
        write(&base, "memory.max", "max\n");
        let mountinfo = "41 31 0:38 / /sys/fs/cgroup rw,relatime - cgroup2 cgroup2 rw\n";
        let limits = cgroup_limits("0::/slurm/job_7/step_0\n", mountinfo, root.path());
        assert_eq!(limits.len(), 1, "{limits:?}");
        assert_eq!(limits[0].limit_bytes, 1 << 30);
        assert_eq!(limits[0].available_bytes(), (1 << 30) - (100 << 20));
        assert!(limits[0].source.starts_with("cgroup v2 memory.max"));
        let rlimit = MemoryLimit {
            source: "RLIMIT_AS".into(),
            limit_bytes: 2 << 30,
            used_bytes: 1800 << 20,
        };
        let all = [limits[0].clone(), rlimit];
        assert_eq!(tightest(&all).unwrap().source, "RLIMIT_AS");
    }

    #[test]
    fn a_v1_limit_is_read_from_the_memory_hierarchy_only() {
        let root = tempfile::tempdir().unwrap();
        let memory = root.path().join("sys/fs/cgroup/memory");
        write(&memory, "memory.limit_in_bytes", "9223372036854771712\n");
        write(&memory.join("box"), "memory.limit_in_bytes", "157286400\n");
        write(&memory.join("box"), "memory.usage_in_bytes", "10485760\n");
        write(
            &memory.join("box"),
            "memory.stat",
            "cache 0\ntotal_cache 0\n",
        );
        let cpu = root.path().join("sys/fs/cgroup/cpu/box");
        write(&cpu, "memory.limit_in_bytes", "1\n");
        let mountinfo = "\
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
";
        let membership = "4:memory:/box\n3:cpu:/box\n0::/\n";
        let limits = cgroup_limits(membership, mountinfo, root.path());
        assert_eq!(limits.len(), 1, "{limits:?}");
        assert_eq!(limits[0].limit_bytes, 150 << 20);
        assert_eq!(limits[0].available_bytes(), 140 << 20);
    }

    #[test]
    fn an_unlimited_process_reports_no_cgroup_limit() {
        let root = tempfile::tempdir().unwrap();
        let base = root.path().join("sys/fs/cgroup");
        write(&base.join("user"), "memory.max", "max\n");
        let mountinfo = "41 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
        assert!(cgroup_limits("0::/user\n", mountinfo, root.path()).is_empty());
    }
}
