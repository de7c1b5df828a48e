//! numabench as an ordinary user: every command that needs no privilege runs
//! for a user who is not root, and leaves nothing of its own behind — the
//! user's home and the temporary directories hold nothing of numabench's
//! after the runs (outputs go only where they were asked to). Needs root to
//! make the user (`useradd`) and to run as it (`runuser`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A system user made for this test and removed when it ends.
struct TestUser {
    name: String,
}

impl TestUser {
    fn create() -> TestUser {
        assert_eq!(
            real_uid(),
            0,
            "this test makes a user and runs as it: run the tests as root (scripts/test does)"
        );
        let name = format!("nbtest{}", std::process::id());
        let status = Command::new("useradd")
            .args([
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                &name,
            ])
            .status()
            .expect("useradd (passwd) runs");
        assert!(status.success(), "useradd {name} failed");
        TestUser { name }
    }

    fn uid(&self) -> u32 {
        let output = Command::new("id")
            .args(["-u", &self.name])
            .output()
            .unwrap();
        String::from_utf8(output.stdout)
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }
}

impl Drop for TestUser {
    fn drop(&mut self) {
        let _ = Command::new("userdel").arg(&self.name).status();
    }
}

/// The real user id, from /proc (no unsafe getuid call needed).
fn real_uid() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().next())
        .and_then(|uid| uid.parse().ok())
        .unwrap()
}

/// A directory the user owns.
fn owned_dir(parent: &Path, name: &str, user: &TestUser) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let status = Command::new("chown")
        .arg(&user.name)
        .arg(&dir)
        .status()
        .unwrap();
    assert!(status.success());
    dir
}

/// Files and directories below `dirs` owned by `uid` (the user's leftovers).
fn owned_by(uid: u32, dirs: &[&Path]) -> Vec<String> {
    let mut found = Vec::new();
    for dir in dirs {
        let output = Command::new("find")
            .arg(dir)
            .args(["-xdev", "-uid", &uid.to_string()])
            .output()
            .unwrap();
        found.extend(
            String::from_utf8_lossy(&output.stdout)
                .lines()
                .map(str::to_string),
        );
    }
    found
}

#[test]
fn every_unprivileged_command_runs_as_a_user_and_leaves_nothing_behind() {
    let user = TestUser::create();
    let root = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        root.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let home = owned_dir(root.path(), "home", &user);
    let tmp = owned_dir(root.path(), "tmp", &user);
    let out = owned_dir(root.path(), "out", &user);
    // The binary and its shim copied where the user can reach them (the
    // checkout may sit below a directory only root may enter).
    let bin = root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let built = Path::new(env!("CARGO_BIN_EXE_numabench"));
    let numabench = bin.join("numabench");
    super::copy_executable(built, &numabench);
    let shim = [
        built.with_file_name("libnumabench_pin.so"),
        built.with_file_name("deps").join("libnumabench_pin.so"),
    ]
    .into_iter()
    .find(|path| path.is_file())
    .expect("libnumabench_pin.so is built beside numabench (cargo test --workspace)");
    std::fs::copy(shim, bin.join("libnumabench_pin.so")).unwrap();
    let as_user = |arguments: &[&str]| -> Output {
        Command::new("runuser")
            .args(["-u", &user.name, "--", "env", "-i"])
            .arg(format!(
                "PATH={}",
                std::env::var("PATH").unwrap_or_default()
            ))
            .arg(format!("HOME={}", home.display()))
            .arg(format!("TMPDIR={}", tmp.display()))
            .arg(&numabench)
            .args(arguments)
            .current_dir(&out)
            .output()
            .expect("runuser (util-linux) runs")
    };
    let jsonl = |name: &str| out.join(format!("{name}.jsonl")).display().to_string();
    let (latency, stream) = (jsonl("latency"), jsonl("stream"));
    let commands: Vec<Vec<String>> = [
        vec!["topo"],
        vec!["list", "--describe"],
        vec![
            "latency", "--size", "1M", "--repeat", "1", "--jsonl", &latency,
        ],
        vec![
            "bandwidth",
            "--kernel",
            "triad",
            "--size",
            "8M",
            "--repeat",
            "1",
        ],
        vec!["matrix", "latency", "--size", "4M", "--repeat", "1"],
        vec!["contention", "--size", "8M", "--repeat", "1"],
        vec!["scaling", "--size", "8M", "--repeat", "1"],
        vec!["mlp", "--size", "4M", "--repeat", "1"],
        vec!["c2c", "--repeat", "1"],
        vec!["cache", "--levels", "L1", "--repeat", "1"],
        vec![
            "stream", "--size", "1M", "--repeat", "1", "--jsonl", &stream,
        ],
        vec!["cg", "--class", "S", "--repeat", "1"],
        vec!["mg", "--class", "S", "--repeat", "1"],
        vec![
            "placement-study",
            "stream",
            "--size",
            "1M",
            "--repeat",
            "1",
            "--placements",
            "first-touch,interleave",
        ],
        vec![
            "run",
            "--repeat",
            "1",
            "--policy",
            "as-is",
            "--policy",
            "pin-compact",
            "--",
            "true",
        ],
        vec![
            "characterize",
            "--only",
            "latency,bandwidth",
            "--repeat",
            "1",
        ],
        vec!["compare", &latency, &latency],
        vec!["report", &latency, &stream, "-o", "report.html"],
    ]
    .iter()
    .map(|command| command.iter().map(|word| word.to_string()).collect())
    .collect();
    for command in &commands {
        let words: Vec<&str> = command.iter().map(String::as_str).collect();
        let output = as_user(&words);
        assert!(
            output.status.success(),
            "as a user, numabench {}: exit {:?}\n{}",
            words.join(" "),
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    // --set-weights writes system-wide files: refused for a user with one
    // line and exit 2 before anything runs (or, on a kernel without
    // weighted interleave, refused for that).
    let weights = as_user(&[
        "bandwidth",
        "--set-weights",
        "--interleave",
        "0=3",
        "--size",
        "1M",
    ]);
    let stderr = String::from_utf8_lossy(&weights.stderr);
    assert_eq!(weights.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--set-weights needs root") || stderr.contains("Linux 6.9"),
        "{stderr}"
    );
    assert!(weights.stdout.is_empty(), "nothing ran");
    // scan needs physical addresses, hidden from a user: one line, exit 2,
    // nothing allocated or printed; its plan still works.
    let scan = as_user(&["scan", "--size", "64MiB"]);
    let stderr = String::from_utf8_lossy(&scan.stderr);
    assert_eq!(scan.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("CAP_SYS_ADMIN"), "{stderr}");
    assert!(scan.stdout.is_empty(), "nothing ran");
    let plan = as_user(&["scan", "--size", "64MiB", "--plan"]);
    assert!(
        plan.status.success(),
        "{}",
        String::from_utf8_lossy(&plan.stderr)
    );
    // doctor: 0 or 1 (warnings), never a failure for want of privilege.
    let doctor = as_user(&["doctor"]);
    assert!(
        matches!(doctor.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&doctor.stderr)
    );

    assert!(out.join("report.html").is_file());
    let home_left: Vec<_> = std::fs::read_dir(&home).unwrap().collect();
    assert!(
        home_left.is_empty(),
        "numabench wrote into the user's home: {home_left:?}"
    );
    let tmp_left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(
        tmp_left.is_empty(),
        "numabench left temporary files: {tmp_left:?}"
    );
    let ours = root.path().display().to_string();
    let elsewhere: Vec<String> = owned_by(
        user.uid(),
        &[
            Path::new("/tmp"),
            Path::new("/dev/shm"),
            Path::new("/var/tmp"),
        ],
    )
    .into_iter()
    .filter(|path| !path.starts_with(&ours))
    .collect();
    assert!(
        elsewhere.is_empty(),
        "the user's numabench left files: {elsewhere:?}"
    );
}
