//! Benchmark plugins: the example plugin (built with its Makefile) listed,
//! run and placement-verified; a crashing plugin reported failed with the
//! records before it kept; a wrong-version plugin, a library without the
//! entry symbol and a missing file each refused with one line naming it.

use super::errors::assert_refused;
use super::{numabench, param, typed_stdout, verified};
use numabench_schema::Unit;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs numabench with `arguments`, finding plugins only in `path`.
fn with_plugin_path(path: impl AsRef<Path>, arguments: &[&str]) -> std::process::Output {
    numabench()
        .env("NUMABENCH_PLUGIN_PATH", path.as_ref())
        .args(arguments)
        .output()
        .unwrap()
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Builds the test plugin `tests/plugins/NAME.c` with cc into `directory`.
fn build_one(directory: &Path, name: &str) -> PathBuf {
    let out = directory.join(format!("lib{name}.so"));
    let status = Command::new("cc")
        .args(["-O1", "-fPIC", "-shared", "-I"])
        .arg(repository().join("include"))
        .arg("-o")
        .arg(&out)
        .arg(repository().join(format!("tests/plugins/{name}.c")))
        .status()
        .expect("cc");
    assert!(status.success(), "{name}");
    out
}

/// Builds the example plugin with its Makefile and the test plugins with
/// cc into `directory`; returns (example, crash, wrong version, no symbol).
fn build(directory: &Path) -> [PathBuf; 4] {
    let status = Command::new("make")
        .arg("-C")
        .arg(repository().join("examples/plugins"))
        .arg(format!("OUT={}", directory.display()))
        .status()
        .expect("make (scripts/setup installs build-essential)");
    assert!(status.success());
    let mut built = vec![directory.join("libnumabench_read_bandwidth.so")];
    for name in ["crash", "wrong_version", "no_symbol"] {
        built.push(build_one(directory, name));
    }
    built.try_into().unwrap()
}

#[test]
fn the_example_plugin_is_listed_from_the_path_and_from_a_file() {
    let directory = tempfile::tempdir().unwrap();
    let [example, ..] = build(directory.path());
    let only_example = tempfile::tempdir().unwrap();
    std::fs::copy(&example, only_example.path().join("libexample.so")).unwrap();
    let listed = with_plugin_path(only_example.path(), &["list", "--describe"]);
    assert!(listed.status.success(), "{listed:?}");
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(text.contains("read-bandwidth (plugin "), "{text}");
    assert!(text.contains("--param passes=VALUE"), "{text}");
    let listed = numabench()
        .args(["list", "--plugin", example.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(
        text.contains("read-bandwidth") && text.contains("(plugin)"),
        "{text}"
    );
}

#[test]
fn the_example_plugin_runs_on_placed_verified_buffers() {
    let directory = tempfile::tempdir().unwrap();
    let [example, ..] = build(directory.path());
    let threads = super::run::allowed_cpus().len().min(2);
    let output = numabench()
        .args([
            "plugin",
            "read-bandwidth",
            "--plugin",
            example.to_str().unwrap(),
            "--threads",
            &threads.to_string(),
            "--size",
            "4M",
            "--param",
            "passes=2",
            "--repeat",
            "3",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let (_, records) = typed_stdout("plugin read-bandwidth", &output.stdout);
    assert_eq!(records.len(), 1, "{records:?}");
    let record = &records[0];
    assert_eq!(record.benchmark, "read-bandwidth");
    assert_eq!(record.metric, "read_bandwidth");
    assert_eq!(record.unit, Unit::GigabytesPerSecond);
    // One sample per thread and repetition.
    assert_eq!(record.stats.n, threads * 3, "{record:?}");
    assert!(record.value > 0.0);
    // A plugin's params are its own.
    assert_eq!(param(record, "plugin_params")["passes"], "2");
    assert!(verified(record).achieved, "{record:?}");
    assert_eq!(
        super::requested(record).cpus.map(|cpus| cpus.len()),
        Some(threads)
    );
}

#[test]
fn a_crashing_plugin_fails_and_the_records_before_it_stay() {
    let directory = tempfile::tempdir().unwrap();
    let [example, crash, ..] = build(directory.path());
    let results = directory.path().join("out.jsonl");
    let output = numabench()
        .args([
            "plugin",
            "--plugin",
            example.to_str().unwrap(),
            "--plugin",
            crash.to_str().unwrap(),
            "--size",
            "1M",
            "--repeat",
            "2",
            "--jsonl",
            results.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("plugin crash crashed: signal 11"),
        "{stderr}"
    );
    let written = std::fs::read_to_string(&results).unwrap();
    assert!(
        written
            .lines()
            .any(|line| line.contains(r#""benchmark":"read-bandwidth""#)),
        "{written}"
    );
    assert!(!written.contains(r#""benchmark":"crash""#), "{written}");
}

#[test]
fn bad_plugins_are_refused_with_one_line_naming_the_file() {
    let directory = tempfile::tempdir().unwrap();
    let [_, _, wrong, no_symbol] = build(directory.path());
    let wrong = wrong.to_str().unwrap().to_string();
    let no_symbol = no_symbol.to_str().unwrap().to_string();
    let missing = directory.path().join("libmissing.so");
    let missing = missing.to_str().unwrap().to_string();
    for (arguments, expected) in [
        (
            vec!["list", "--plugin", &wrong],
            format!("plugin {wrong}: ABI version 99"),
        ),
        (
            vec!["plugin", "--plugin", &no_symbol],
            format!("plugin {no_symbol}: no numabench_plugin_v1 symbol"),
        ),
        (
            vec!["plugin", "--plugin", &missing],
            format!("plugin {missing}: no such file"),
        ),
    ] {
        let output = numabench().args(&arguments).output().unwrap();
        assert_refused(&output, &format!("{arguments:?}"), &expected);
    }
    let output = with_plugin_path(&wrong, &["list"]);
    assert_refused(&output, "NUMABENCH_PLUGIN_PATH", "ABI version 99");
}

/// `characterize --only`/`--skip` select plugins like built-ins: a plugin
/// named in --only runs after the built-ins; skipped, it does not; a name
/// neither has is refused, listing both.
#[test]
fn characterize_selects_plugins_like_builtins() {
    let directory = tempfile::tempdir().unwrap();
    let [example, ..] = build(directory.path());
    let example = example.to_str().unwrap();
    let benchmarks = |selection: &[&str]| -> Vec<String> {
        let output = numabench()
            .args([
                "characterize",
                "--plugin",
                example,
                "--repeat",
                "1",
                "--json",
            ])
            .args(selection)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        let (_, records) = typed_stdout("characterize --plugin", &output.stdout);
        let mut names: Vec<String> = records
            .iter()
            .map(|r| r.benchmark.clone())
            .filter(|name| name != "summary")
            .collect();
        names.dedup();
        names
    };
    assert_eq!(
        benchmarks(&["--only", "c2c,read-bandwidth"]),
        ["c2c", "read-bandwidth"]
    );
    assert_eq!(
        benchmarks(&["--only", "c2c", "--skip", "read-bandwidth"]),
        ["c2c"]
    );
    let output = numabench()
        .args(["characterize", "--plugin", example, "--only", "nope"])
        .output()
        .unwrap();
    assert_refused(
        &output,
        "--only nope",
        "unknown benchmark 'nope' (valid: latency",
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("read-bandwidth"));
}

/// Runs `plugin --plugin FILE --size 1M --repeat 1` plus `extra`; returns
/// the output and the JSONL records written.
fn run_one(plugin: &Path, extra: &[&str]) -> (std::process::Output, String) {
    let results = plugin.with_extension("jsonl");
    let output = numabench()
        .args(["plugin", "--plugin", plugin.to_str().unwrap()])
        .args(["--size", "1M", "--repeat", "1", "--jsonl"])
        .arg(&results)
        .args(extra)
        .output()
        .unwrap();
    (
        output,
        std::fs::read_to_string(&results).unwrap_or_default(),
    )
}

/// A plugin that calls exit() in run(): before the fix the parent checked
/// only WIFSIGNALED, so `exit(3)` and `exit(0)` both passed (status 0, no
/// record, nothing said). Now each is one line naming the plugin and the
/// status, exit status 3; a plugin that reports no sample fails the same way.
#[test]
fn a_plugin_that_exits_or_reports_nothing_fails_naming_it() {
    let directory = tempfile::tempdir().unwrap();
    let exits = build_one(directory.path(), "exits");
    let no_sample = build_one(directory.path(), "no_sample");
    for (plugin, extra, expected) in [
        (
            &exits,
            &[][..],
            "plugin exits failed: its process exited with status 3",
        ),
        (
            &exits,
            &["--param", "status=0"][..],
            "plugin exits failed: its process exited with status 0 before",
        ),
        (
            &no_sample,
            &[][..],
            "plugin no-sample failed: it reported no sample",
        ),
    ] {
        let (output, written) = run_one(plugin, extra);
        assert_eq!(output.status.code(), Some(3), "{extra:?}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expected), "{expected}: {stderr}");
        assert!(!written.contains(r#""benchmark":"#), "{written}");
    }
}

/// The live process ids in process group `group` (from /proc). Zombies
/// (state Z) are left out: they have ended and wait for their reaper
/// (PID 1 for an orphaned grandchild, which in a container may never reap).
fn group_members(group: u32) -> Vec<u32> {
    process_ids()
        .filter(|&pid| {
            stat_fields(pid).and_then(|fields| {
                if fields.first()? == "Z" {
                    return None;
                }
                fields.get(2)?.parse::<u32>().ok()
            }) == Some(group)
        })
        .collect()
}

/// The ids of the processes in /proc.
fn process_ids() -> impl Iterator<Item = u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
}

/// The fields of /proc/`pid`/stat after the command name (state first),
/// or None once the process is gone.
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    Some(
        stat.rsplit_once(')')?
            .1
            .split_whitespace()
            .map(str::to_string)
            .collect(),
    )
}

/// The plugin child's pid: the process in /proc whose parent is `parent`.
fn child_of(parent: u32) -> Option<u32> {
    process_ids().find(|&pid| {
        stat_fields(pid).and_then(|fields| fields.get(1)?.parse::<u32>().ok()) == Some(parent)
    })
}

/// A plugin that never returns (and forks a grandchild that never
/// returns) is stopped at --timeout: before the fix numabench waited for
/// ever (there was no --timeout). Now it fails naming the plugin and the
/// timeout, and no process of the plugin's group is left.
#[test]
fn a_hanging_plugin_is_stopped_at_the_timeout() {
    let directory = tempfile::tempdir().unwrap();
    let hang = build_one(directory.path(), "hang");
    let started = std::time::Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_numabench"))
        .args(["plugin", "--plugin", hang.to_str().unwrap()])
        .args(["--size", "1M", "--repeat", "1", "--timeout", "2s"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let parent = child.id();
    let mut group = None;
    while group.is_none() && started.elapsed().as_secs() < 10 {
        group = child_of(parent);
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("plugin hang timed out after 2 s (--timeout)"),
        "{stderr}"
    );
    let group = group.expect("the plugin's child was seen");
    assert_eq!(group_members(group), Vec::<u32>::new());
}

/// SIGINT or SIGTERM sent to numabench alone (not to its group) while a
/// plugin child runs: before the fix SIGTERM killed numabench and left the
/// child running as an orphan, and SIGINT was not acted on until the child
/// ended. Now the signal is forwarded, the child and its own child are
/// stopped, the records measured before are flushed, and numabench exits
/// 130 or 143.
#[test]
fn a_signal_to_numabench_alone_stops_the_plugin_child() {
    let directory = tempfile::tempdir().unwrap();
    let [example, ..] = build(directory.path());
    let hang = build_one(directory.path(), "hang");
    for (signal, status) in [(libc::SIGTERM, 143), (libc::SIGINT, 130)] {
        let results = directory.path().join(format!("signal-{signal}.jsonl"));
        let child = Command::new(env!("CARGO_BIN_EXE_numabench"))
            .args(["plugin", "--plugin", example.to_str().unwrap()])
            .args(["--plugin", hang.to_str().unwrap()])
            .args(["--size", "1M", "--repeat", "1", "--jsonl"])
            .arg(&results)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let parent = child.id();
        let started = std::time::Instant::now();
        // Wait for the hanging plugin's child and its grandchild.
        let group = loop {
            assert!(started.elapsed().as_secs() < 30, "no hanging child seen");
            if let Some(pid) = child_of(parent) {
                if group_members(pid).len() >= 2 {
                    break pid;
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        // SAFETY: parent is the numabench process this test started.
        unsafe { libc::kill(parent as i32, signal) };
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(status), "{output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("plugin hang interrupted by signal {signal}")),
            "{stderr}"
        );
        assert_eq!(group_members(group), Vec::<u32>::new(), "signal {signal}");
        let written = std::fs::read_to_string(&results).unwrap();
        assert!(
            written.contains(r#""benchmark":"read-bandwidth""#),
            "{written}"
        );
    }
}

/// `plugin NAME` with no plugin found at all named nothing before ("no
/// plugins: set NUMABENCH_PLUGIN_PATH ..."); now the line names NAME.
#[test]
fn an_unknown_plugin_name_is_named_even_when_none_is_found() {
    let empty = tempfile::tempdir().unwrap();
    let output = with_plugin_path(empty.path(), &["plugin", "no-such-plugin"]);
    assert_refused(&output, "plugin no-such-plugin", "no-such-plugin");
}

/// `list --describe` states the plugin timeout's default.
#[test]
fn list_describe_states_the_plugin_timeout() {
    let directory = tempfile::tempdir().unwrap();
    let no_sample = build_one(directory.path(), "no_sample");
    let listed = numabench()
        .args([
            "list",
            "--describe",
            "--plugin",
            no_sample.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(text.contains("after --timeout (default 1h)"), "{text}");
}
