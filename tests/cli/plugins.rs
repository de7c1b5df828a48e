//! Benchmark plugins: the example plugin (built with its Makefile) listed,
//! run and placement-verified; a crashing plugin reported failed with the
//! records before it kept; a wrong-version plugin, a library without the
//! entry symbol and a missing file each refused with one line naming it.

use super::errors::assert_refused;
use super::numabench;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
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
    let include = repository().join("include");
    let mut built = vec![directory.join("libnumabench_read_bandwidth.so")];
    for name in ["crash", "wrong_version", "no_symbol"] {
        let out = directory.join(format!("lib{name}.so"));
        let status = Command::new("cc")
            .args(["-O1", "-fPIC", "-shared", "-I"])
            .arg(&include)
            .arg("-o")
            .arg(&out)
            .arg(repository().join(format!("tests/plugins/{name}.c")))
            .status()
            .expect("cc");
        assert!(status.success(), "{name}");
        built.push(out);
    }
    built.try_into().unwrap()
}

#[test]
fn the_example_plugin_is_listed_from_the_path_and_from_a_file() {
    let directory = tempfile::tempdir().unwrap();
    let [example, ..] = build(directory.path());
    let only_example = tempfile::tempdir().unwrap();
    std::fs::copy(&example, only_example.path().join("libexample.so")).unwrap();
    let listed = numabench()
        .env("NUMABENCH_PLUGIN_PATH", only_example.path())
        .args(["list", "--describe"])
        .output()
        .unwrap();
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
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let records = document["records"].as_array().unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    let record = &records[0];
    assert_eq!(record["benchmark"], "read-bandwidth");
    assert_eq!(record["metric"], "read_bandwidth");
    assert_eq!(record["unit"], "GB/s");
    // One sample per thread and repetition.
    assert_eq!(record["stats"]["n"], threads * 3, "{record}");
    assert!(record["value"].as_f64().unwrap() > 0.0);
    assert_eq!(record["params"]["plugin_params"]["passes"], "2");
    assert_eq!(
        record["placement"]["verified"]["achieved"], true,
        "{record}"
    );
    assert_eq!(
        record["placement"]["requested"]["cpus"]
            .as_array()
            .unwrap()
            .len(),
        threads
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
    let output = numabench()
        .env("NUMABENCH_PLUGIN_PATH", &wrong)
        .args(["list"])
        .output()
        .unwrap();
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
        let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let mut names: Vec<String> = document["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["benchmark"].as_str().unwrap().to_string())
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
