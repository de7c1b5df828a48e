//! numabench inside a real memory cgroup of 150 MiB, as Slurm's `--mem`
//! or a container gives: every measuring command's defaults fit under the
//! limit (none is killed by the OOM killer, exit 137), `topo` shows the
//! limit, and an explicit size that cannot fit is refused with exit 2
//! naming the size and the limit, before anything runs. Before the limit
//! was read, `numabench bandwidth --kernel triad` there was OOM-killed
//! (exit 137, nothing printed or measured).
//!
//! Needs root to make the cgroup (cgroup v1 or v2, whichever is mounted).

use super::{params_of, typed_stdout, MEASURING_COMMANDS};
use numabench::topology::Machine;
use numabench_schema::params::BandwidthParams;
use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output};

const LIMIT: u64 = 150 << 20;

/// A memory cgroup made for this test, removed when it is dropped.
struct MemoryCgroup {
    dir: PathBuf,
}

impl MemoryCgroup {
    fn create(limit: u64) -> MemoryCgroup {
        assert_eq!(
            // SAFETY: geteuid has no preconditions and cannot fail.
            unsafe { libc::geteuid() },
            0,
            "this test makes a memory cgroup: run the tests as root (scripts/test does)"
        );
        let name = format!("nbtest-memory-{}", std::process::id());
        let membership = fs::read_to_string("/proc/self/cgroup").unwrap();
        let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap();
        let v1 = membership
            .lines()
            .find_map(|line| {
                let mut fields = line.splitn(3, ':');
                let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
                controllers
                    .split(',')
                    .any(|controller| controller == "memory")
                    .then(|| path.to_string())
            })
            .filter(|_| mountinfo.contains(" - cgroup cgroup "));
        let (dir, limit_file) = match v1 {
            // v1: a child of this process's own memory group.
            Some(path) => (
                PathBuf::from("/sys/fs/cgroup/memory")
                    .join(path.trim_start_matches('/'))
                    .join(&name),
                "memory.limit_in_bytes",
            ),
            // v2: a child of the root, where the memory controller is
            // enabled for children (the root may hold processes itself).
            None => {
                let root = PathBuf::from("/sys/fs/cgroup");
                fs::write(root.join("cgroup.subtree_control"), "+memory")
                    .expect("enable the v2 memory controller");
                (root.join(&name), "memory.max")
            }
        };
        fs::create_dir_all(&dir).unwrap_or_else(|error| panic!("mkdir {}: {error}", dir.display()));
        fs::write(dir.join(limit_file), limit.to_string()).unwrap();
        MemoryCgroup { dir }
    }

    /// Runs numabench with `arguments` as a member of the group: a shell
    /// joins it, then becomes numabench.
    fn numabench(&self, arguments: &[&str]) -> Output {
        let procs = self.dir.join("cgroup.procs");
        Command::new("sh")
            .arg("-c")
            .arg(format!(
                "echo $$ > '{}' && exec \"$0\" \"$@\"",
                procs.display()
            ))
            .arg(env!("CARGO_BIN_EXE_numabench"))
            .args(arguments)
            .output()
            .unwrap()
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        // Every member has exited: the group can go.
        let _ = fs::remove_dir(&self.dir);
    }
}

/// Every record's `size_bytes`, whichever benchmark's it is (read
/// through the shared params view).
fn sizes(records: &[numabench_schema::Record]) -> Vec<u64> {
    records
        .iter()
        .filter_map(|record| record.typed_params().size_bytes())
        .collect()
}

#[test]
fn every_default_fits_a_150_mib_memory_cgroup() {
    let group = MemoryCgroup::create(LIMIT);

    let topo = group.numabench(&["topo", "--json"]);
    assert!(topo.status.success(), "{topo:?}");
    let topo: Machine = serde_json::from_slice(&topo.stdout).unwrap();
    let limits = &topo.allowed.memory_limits;
    assert!(
        limits.iter().any(|limit| limit.limit_bytes == LIMIT
            && limit.source.contains(group.dir.to_str().unwrap())),
        "{limits:?}"
    );
    let table = group.numabench(&["topo"]);
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(table.contains("memory limit: 150 MiB"), "{table}");
    let doctor = group.numabench(&["doctor"]);
    let doctor = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        doctor.contains("memory_limit") && doctor.contains("150 MiB"),
        "{doctor}"
    );

    // Every measuring command with its default sizes (`run` measures a
    // program of the user's; characterize is in the list).
    for command in MEASURING_COMMANDS
        .iter()
        .filter(|command| command[0] != "run")
    {
        // One repetition: the sizes, not the figures, are tested here.
        let mut arguments = command.to_vec();
        arguments.extend(["--repeat", "1", "--json"]);
        // One kernel of the several, at the same default size.
        if command[0] == "bandwidth" {
            arguments.extend(["--kernel", "triad"]);
        }
        // One placement of the grid, at the same default class and size.
        if command[0] == "placement-study" {
            arguments.extend([
                "--placements",
                "first-touch",
                "--threads-placements",
                "compact",
            ]);
        }
        let output = group.numabench(&arguments);
        assert_ne!(
            output.status.code(),
            Some(137),
            "{command:?} was killed by the OOM killer"
        );
        assert!(
            output.status.success(),
            "{command:?}: {:?}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        let (_, records) = typed_stdout(&format!("{command:?}"), &output.stdout);
        for size in sizes(&records) {
            assert!(size < LIMIT, "{command:?}: a working set of {size} bytes");
        }
        // The default working set is 4x the caches in front of memory
        // (numabench's CACHE_MULTIPLE) where the limit allows it; where it
        // had to be capped (caches over a sixteenth of the 150 MiB, 34 MiB
        // on some hosts here), the record says its DRAM figure is partly a
        // cache's. Either way `cache_affected` must follow the size.
        if command[..] == ["bandwidth"] {
            let (_, records) = typed_stdout("bandwidth", &output.stdout);
            assert!(!records.is_empty());
            for record in &records {
                let params = params_of::<BandwidthParams>(record).working_set;
                let size = params.size_bytes.unwrap();
                let in_front = params.cache.cache_bytes_in_front.unwrap();
                let affected = params.cache.cache_affected;
                assert_eq!(affected, Some(size < 4 * in_front), "{record:?}");
                if 4 * in_front >= LIMIT / 2 {
                    assert_eq!(affected, Some(true), "{record:?}");
                }
            }
        }
    }
}

#[test]
fn an_explicit_size_beyond_the_memory_limit_is_refused_before_anything_runs() {
    let group = MemoryCgroup::create(LIMIT);
    for arguments in [
        &["bandwidth", "--kernel", "triad", "--size", "200MiB"][..],
        &["latency", "--size", "1GiB"],
        &["matrix", "bandwidth", "--size", "140MiB"],
        &["stream", "--size", "400MiB"],
    ] {
        let output = group.numabench(arguments);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {output:?}");
        assert!(output.stdout.is_empty(), "{arguments:?}: nothing runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.lines().count(), 1, "{arguments:?}: {stderr}");
        assert!(
            stderr.contains("memory limit of 150 MiB"),
            "{arguments:?}: {stderr}"
        );
    }
}

/// `RLIMIT_AS` (`ulimit -v`) is a limit too: `topo` reports it, defaults fit
/// under it and a size beyond it is refused naming it.
#[test]
fn the_address_space_limit_counts_too() {
    let limited = |arguments: &[&str]| -> Output {
        Command::new("sh")
            .arg("-c")
            // 700,000 KiB: room for the debug binary and a 256 MiB buffer.
            .arg("ulimit -v 700000 && exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_numabench"))
            .args(arguments)
            .output()
            .unwrap()
    };
    let topo = limited(&["topo", "--json"]);
    assert!(topo.status.success(), "{topo:?}");
    let topo: Machine = serde_json::from_slice(&topo.stdout).unwrap();
    let limits = &topo.allowed.memory_limits;
    assert!(
        limits
            .iter()
            .any(|limit| limit.source == "RLIMIT_AS" && limit.limit_bytes == 700_000 * 1024),
        "{limits:?}"
    );
    let refused = limited(&["bandwidth", "--kernel", "triad", "--size", "1GiB"]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("size 1 GiB") && stderr.contains("RLIMIT_AS"),
        "{stderr}"
    );
    let fits = limited(&["latency", "--repeat", "1", "--json"]);
    assert!(fits.status.success(), "{fits:?}");
}
