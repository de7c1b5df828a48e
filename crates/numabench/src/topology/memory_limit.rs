//! The memory this process may use, beyond the nodes' free memory: the
//! limits of its memory cgroup (v2 `memory.max` and `memory.high`, v1
//! `memory.limit_in_bytes`, each up the hierarchy, as Slurm's `--mem` or a
//! container sets them) and its `RLIMIT_AS` and `RLIMIT_DATA`. A working
//! set larger than the tightest of them gets the process killed by the OOM
//! killer (exit 137, nothing measured), throttled in reclaim (over
//! `memory.high`: the figures are then the reclaimer's) or its allocation
//! refused, so default sizes are chosen under it and explicit ones checked
//! against it before anything is allocated. A group's page cache counts as
//! free (the kernel reclaims it first), but not its shared memory and
//! tmpfs (`shmem`: `/dev/shm`, MPI segments), which cannot be reclaimed
//! without swap.
//!
//! A limit remembers where it was read ([`LimitOrigin`]), so it is read
//! again, cheaply (a few small files), each time a size is checked against
//! it ([`MemoryLimit::now`]): a long run sees what other processes of its
//! group have taken meanwhile.
//!
//! What numabench itself needs beside its buffers ([`MemoryLimit::headroom_bytes`])
//! grows with its worker threads: under `RLIMIT_AS` each thread's stack and
//! the malloc arena glibc reserves for it (64 MiB of address space each) count.
//!
//! Swap limits (`memory.swap.max`, `memory.memsw.limit_in_bytes`) are not
//! read: numabench's buffers must stay resident to be measured at all.

use nix::sys::resource::{getrlimit, Resource, RLIM_INFINITY};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};

/// Limits at or above this many bytes mean "no limit" (cgroup v1 writes
/// `PAGE_COUNTER_MAX` pages, about 2^63 bytes, for an unlimited group).
const UNLIMITED_FROM: u64 = 1 << 60;

/// Bytes numabench keeps for itself under a process memory limit before
/// sizing working sets (its code, heap and records), besides what each of
/// its worker threads needs ([`MemoryLimit::headroom_bytes`]).
pub const PROCESS_HEADROOM: u64 = 24 << 20;

/// The stack of a worker thread (Rust's default for spawned threads).
const THREAD_STACK: u64 = 2 << 20;

/// The address space glibc reserves for each malloc arena on 64-bit
/// (`HEAP_MAX_SIZE`, twice the largest mmap threshold); a thread that
/// allocates gets its own arena, up to 8 per CPU, more than numabench's
/// threads.
const ARENA_RESERVATION: u64 = 64 << 20;

/// What a worker thread keeps resident or writable: the stack pages it
/// touches and its arena's first heap (132 KiB), with room to spare.
const THREAD_RESIDENT: u64 = 1 << 20;

/// Where a limit was read, to read it again ([`MemoryLimit::now`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LimitOrigin {
    /// A cgroup's limit file (`memory.max`, `memory.high`,
    /// `memory.limit_in_bytes`) in the group's directory.
    Cgroup {
        group: PathBuf,
        version: u32,
        file: &'static str,
    },
    /// `RLIMIT_AS`: the address space (every mapping, reserved or not).
    AddressSpace,
    /// `RLIMIT_DATA`: private writable mappings (heap, thread stacks).
    Data,
}

/// One limit on the memory this process may use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryLimit {
    /// What sets it: `cgroup v2 memory.max`, `cgroup v2 memory.high`,
    /// `cgroup v1 memory.limit_in_bytes` (each with the group's directory),
    /// `RLIMIT_AS` or `RLIMIT_DATA`.
    pub source: String,
    /// The limit, bytes.
    pub limit_bytes: u64,
    /// What already counted against it when it was read: the group's usage
    /// less its reclaimable page cache (shared memory and tmpfs count as
    /// used), the process's address space (`VmSize`) or data (`VmData`).
    pub used_bytes: u64,
    /// Where it was read (not recorded: `None` for a limit read from a
    /// results file or made by a test).
    #[serde(skip)]
    pub origin: Option<LimitOrigin>,
}

impl MemoryLimit {
    /// Bytes still free under this limit.
    pub fn available_bytes(&self) -> u64 {
        self.limit_bytes.saturating_sub(self.used_bytes)
    }

    /// What numabench needs under this limit beside its buffers, running
    /// `threads` worker threads: [`PROCESS_HEADROOM`], and per thread its
    /// stack and malloc arena as this limit counts them (under `RLIMIT_AS`
    /// the whole stack and the arena's 64 MiB reservation, under
    /// `RLIMIT_DATA` the stack and the arena's first heap, under a cgroup
    /// the pages they touch).
    pub fn headroom_bytes(&self, threads: usize) -> u64 {
        let each = match self.origin {
            Some(LimitOrigin::AddressSpace) => THREAD_STACK + ARENA_RESERVATION,
            Some(LimitOrigin::Data) => THREAD_STACK + THREAD_RESIDENT,
            _ => THREAD_RESIDENT,
        };
        PROCESS_HEADROOM.saturating_add(each.saturating_mul(threads as u64))
    }

    /// The most all the buffers of one measurement may take under this
    /// limit with `threads` worker threads: 95% of what it leaves
    /// available less [`MemoryLimit::headroom_bytes`].
    pub fn usable_bytes(&self, threads: usize) -> u64 {
        self.available_bytes()
            .saturating_sub(self.headroom_bytes(threads))
            / 20
            * 19
    }

    /// This limit as it is now, read again where it was read (its usage
    /// and its value); `None` once it no longer limits. A limit with no
    /// origin is returned as it is.
    pub fn now(&self) -> Option<MemoryLimit> {
        match &self.origin {
            None => Some(self.clone()),
            Some(LimitOrigin::Cgroup {
                group,
                version,
                file,
            }) => group_limit(group, *version, file),
            Some(LimitOrigin::AddressSpace) => rlimit(LimitOrigin::AddressSpace),
            Some(LimitOrigin::Data) => rlimit(LimitOrigin::Data),
        }
    }
}

/// The limit of `limits` that leaves the fewest bytes usable with
/// `threads` worker threads ([`MemoryLimit::usable_bytes`]).
pub fn tightest(limits: &[MemoryLimit], threads: usize) -> Option<&MemoryLimit> {
    limits
        .iter()
        .min_by_key(|limit| limit.usable_bytes(threads))
}

/// Every memory limit on this process: its memory cgroup's (v2 and v1,
/// each level up the hierarchy that sets one), `RLIMIT_AS` and
/// `RLIMIT_DATA`. Empty when nothing limits it.
pub fn discover_memory_limits() -> Vec<MemoryLimit> {
    let membership = fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let mounts = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let mut limits = cgroup_limits(&membership, &mounts, Path::new("/"));
    limits.extend(rlimit(LimitOrigin::AddressSpace));
    limits.extend(rlimit(LimitOrigin::Data));
    limits
}

/// The `RLIMIT_AS` or `RLIMIT_DATA` limit of this process, if set, with
/// what it counts now (`VmSize`, `VmData`).
fn rlimit(origin: LimitOrigin) -> Option<MemoryLimit> {
    let (resource, name, field) = match origin {
        LimitOrigin::Data => (Resource::RLIMIT_DATA, "RLIMIT_DATA", "VmData:"),
        _ => (Resource::RLIMIT_AS, "RLIMIT_AS", "VmSize:"),
    };
    let limit_bytes = soft_rlimit(resource)?;
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    Some(MemoryLimit {
        source: name.to_string(),
        limit_bytes,
        used_bytes: status_kib(&status, field).unwrap_or(0) * 1024,
        origin: Some(origin),
    })
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
        let files: &[&'static str] = match version {
            2 => &["memory.max", "memory.high"],
            _ => &["memory.limit_in_bytes"],
        };
        loop {
            limits.extend(
                files
                    .iter()
                    .filter_map(|file| group_limit(&group, version, file)),
            );
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

/// The limit the file `limit_file` of one group directory sets, if any,
/// with the group's usage less its reclaimable page cache: the page cache
/// (v2 `file`, v1 `total_cache`) less its shared memory and tmpfs (v2
/// `shmem`, v1 `total_shmem`), which the kernel cannot drop.
fn group_limit(group: &Path, version: u32, limit_file: &'static str) -> Option<MemoryLimit> {
    let (usage_file, cache_field, shmem_field) = match version {
        2 => ("memory.current", "file", "shmem"),
        _ => ("memory.usage_in_bytes", "total_cache", "total_shmem"),
    };
    let read = |name: &str| fs::read_to_string(group.join(name)).ok();
    let limit_bytes: u64 = read(limit_file)?.trim().parse().ok()?;
    if limit_bytes >= UNLIMITED_FROM {
        return None;
    }
    let usage: u64 = read(usage_file)
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(0);
    let stat = read("memory.stat").unwrap_or_default();
    let field = |wanted: &str| -> u64 {
        stat.lines()
            .find_map(|line| {
                let (name, value) = line.split_once(' ')?;
                (name == wanted).then(|| value.trim().parse().ok())?
            })
            .unwrap_or(0)
    };
    let reclaimable = field(cache_field).saturating_sub(field(shmem_field));
    Some(MemoryLimit {
        source: format!("cgroup v{version} {limit_file} ({})", group.display()),
        limit_bytes,
        used_bytes: usage.saturating_sub(reclaimable),
        origin: Some(LimitOrigin::Cgroup {
            group: group.to_path_buf(),
            version,
            file: limit_file,
        }),
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
            origin: Some(LimitOrigin::AddressSpace),
        };
        let all = [limits[0].clone(), rlimit];
        assert_eq!(tightest(&all, 1).unwrap().source, "RLIMIT_AS");
    }

    /// Issue 34 item 16: a v2 group's `memory.high` (the reclaim throttle
    /// a job's memory runs into before `memory.max`) is a limit too, and
    /// the tighter of the two wins.
    #[test]
    fn a_v2_memory_high_is_a_limit() {
        let root = tempfile::tempdir().unwrap();
        let job = root.path().join("sys/fs/cgroup/job");
        write(&job, "memory.max", "1073741824\n");
        write(&job, "memory.high", "536870912\n");
        write(&job, "memory.current", "0\n");
        let mountinfo = "41 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
        let limits = cgroup_limits("0::/job\n", mountinfo, root.path());
        let tightest = tightest(&limits, 2).unwrap();
        assert_eq!(tightest.limit_bytes, 512 << 20, "{limits:?}");
        assert!(tightest.source.starts_with("cgroup v2 memory.high"));
        write(&job, "memory.high", "max\n");
        let limits = cgroup_limits("0::/job\n", mountinfo, root.path());
        assert_eq!(limits.len(), 1, "{limits:?}");
        assert_eq!(limits[0].limit_bytes, 1 << 30);
    }

    /// Issue 34 item 16: shared memory and tmpfs (`/dev/shm`, MPI
    /// segments) are in the page cache figures but cannot be reclaimed:
    /// they count as used, in v2 (`shmem` of `file`) and v1 (`total_shmem`
    /// of `total_cache`).
    #[test]
    fn shared_memory_counts_as_used_in_v2_and_v1() {
        let root = tempfile::tempdir().unwrap();
        // 200 MiB in use, of which 100 MiB page cache, 60 MiB of it shmem.
        for (group, files, stat, mountinfo, membership) in [
            (
                "sys/fs/cgroup/job",
                ["memory.max", "memory.current"],
                "anon 5\nfile 104857600\nshmem 62914560\n",
                "41 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
                "0::/job\n",
            ),
            (
                "sys/fs/cgroup/memory/box",
                ["memory.limit_in_bytes", "memory.usage_in_bytes"],
                "cache 104857600\nshmem 62914560\ntotal_cache 104857600\ntotal_shmem 62914560\n",
                "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n",
                "4:memory:/box\n",
            ),
        ] {
            let group = root.path().join(group);
            write(&group, files[0], "1073741824\n");
            write(&group, files[1], "209715200\n");
            write(&group, "memory.stat", stat);
            let limits = cgroup_limits(membership, mountinfo, root.path());
            assert_eq!(limits[0].used_bytes, 160 << 20, "{limits:?}");
        }
    }

    /// Issue 34 item 16: under `RLIMIT_AS` every worker thread takes its
    /// stack and a 64 MiB malloc arena reservation of address space, so
    /// the headroom grows with the threads; under a cgroup (resident
    /// memory) far less.
    #[test]
    fn the_headroom_grows_with_the_worker_threads() {
        let limit = |origin| MemoryLimit {
            source: String::new(),
            limit_bytes: 32 << 30,
            used_bytes: 1 << 30,
            origin: Some(origin),
        };
        let address_space = limit(LimitOrigin::AddressSpace);
        assert_eq!(address_space.headroom_bytes(0), PROCESS_HEADROOM);
        assert!(address_space.headroom_bytes(192) >= 192 * (66 << 20));
        assert!(address_space.usable_bytes(192) < (31u64 << 30) - 192 * (64 << 20));
        let data = limit(LimitOrigin::Data);
        assert!(data.headroom_bytes(192) >= 192 * (2 << 20));
        let cgroup = limit(LimitOrigin::Cgroup {
            group: PathBuf::from("/sys/fs/cgroup/job"),
            version: 2,
            file: "memory.max",
        });
        assert!(cgroup.headroom_bytes(192) < data.headroom_bytes(192));
        assert!(cgroup.headroom_bytes(192) > cgroup.headroom_bytes(1));
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
