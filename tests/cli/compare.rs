//! `numabench compare` on result sets made here by real runs.

use super::records::params_of;
use super::{numabench, succeeding, typed_jsonl, typed_stdout};
use numabench_schema::params::{CompareRatioParams, CompareUnmatchedParams};
use numabench_schema::Record;

/// A matched record's ratio params.
fn ratio_params(record: &Record) -> CompareRatioParams {
    params_of(record)
}

/// The set whose unmatched records `record` counts.
fn unmatched_set(record: &Record) -> Option<u64> {
    (record.metric == "unmatched").then(|| params_of::<CompareUnmatchedParams>(record).set)
}
use std::path::Path;

/// `latency` at the given sizes, written to `path` as JSON Lines.
fn latency_set(path: &Path, sizes: &str) {
    succeeding(&[
        "latency",
        "--size",
        sizes,
        "--repeat",
        "3",
        "--jsonl",
        path.to_str().unwrap(),
    ]);
}

/// The records of a JSON Lines file, checked against the schema and read
/// typed.
fn records(path: &Path) -> Vec<Record> {
    typed_jsonl(path).1
}

/// The records of a compare `--json` document.
fn compare_document(output: &std::process::Output) -> Vec<Record> {
    typed_stdout("compare", &output.stdout).1
}

/// Two full sets match figure by figure; the third (a JSON document) lacks a size, which is
/// counted as unmatched in the sets that have it. Without per-repetition
/// records there is no rank test: "n/a", null in the records.
#[test]
fn latency_sets_match_by_size_and_count_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        dir.path().join("a.jsonl"),
        dir.path().join("b.jsonl"),
        dir.path().join("c.json"),
    );
    latency_set(&a, "64K,1M");
    latency_set(&b, "64K,1M");
    // The third set as the JSON document --json prints.
    let document = succeeding(&["latency", "--size", "64K", "--repeat", "3", "--json"]);
    std::fs::write(&c, document.stdout).unwrap();
    let out = dir.path().join("compare.jsonl");
    let output = succeeding(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--jsonl",
        out.to_str().unwrap(),
    ]);
    let table = String::from_utf8(output.stdout).unwrap();
    assert!(table.contains("size_bytes=65536"), "{table}");
    assert!(table.contains("size_bytes=1048576"), "{table}");
    assert!(table.contains("unmatched in set 2: 0 record(s)"), "{table}");
    let compared = records(&out);
    let inputs = (records(&a), records(&b));
    // One ratio per record of a (latency and latency_cycles per size), one
    // unmatched count per set.
    assert_eq!(compared.len(), inputs.0.len() + 2);
    for (ratio, (first, second)) in compared.iter().zip(inputs.0.iter().zip(&inputs.1)) {
        assert_eq!(ratio.benchmark, "compare");
        assert_eq!(ratio.metric, first.metric);
        assert_eq!(
            ratio.typed_params().size_bytes(),
            first.typed_params().size_bytes()
        );
        let expected = second.value / first.value;
        assert!((ratio.value - expected).abs() < 1e-9);
        assert!(ratio_params(ratio).p_value.is_none(), "{ratio:?}");
    }

    let output = succeeding(&[
        "compare",
        a.to_str().unwrap(),
        c.to_str().unwrap(),
        "--json",
    ]);
    let unmatched: Vec<f64> = compare_document(&output)
        .iter()
        .filter(|record| record.metric == "unmatched")
        .map(|record| record.value)
        .collect();
    assert_eq!(
        unmatched,
        [2.0, 0.0],
        "the 1M latency and latency_cycles of a"
    );
}

/// `run` writes a record per repetition: compare tests them. The same
/// command, slowed by its environment in the second set, differs
/// significantly; a rerun of the first does not differ by a factor of 5.
#[test]
fn run_repetitions_get_a_p_value() {
    let dir = tempfile::tempdir().unwrap();
    let run_set = |name: &str, delay: &str| {
        let path = dir.path().join(name);
        let output = numabench()
            .env("NUMABENCH_TEST_DELAY", delay)
            .args([
                "run", "--repeat", "5", "--warmup", "0", "--policy", "as-is", "--jsonl",
            ])
            .arg(&path)
            .args(["--", "sh", "-c", "sleep $NUMABENCH_TEST_DELAY"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        path
    };
    let fast = run_set("fast.jsonl", "0.01");
    let slow = run_set("slow.jsonl", "0.5");
    let output = succeeding(&[
        "compare",
        fast.to_str().unwrap(),
        slow.to_str().unwrap(),
        "--json",
    ]);
    let records = compare_document(&output);
    let per_run = records
        .iter()
        .find(|record| record.metric == "run_wall_time")
        .expect("the per-repetition wall times match");
    let params = ratio_params(per_run);
    assert_eq!(params.repetitions, [5, 5]);
    assert!(params.p_value.is_some_and(|p| p < 0.05), "{per_run:?}");
    assert!(per_run.value > 5.0, "{per_run:?}");
}

/// Bad inputs: one line naming the file or the count, exit 2, no output
/// file created.
#[test]
fn bad_inputs_are_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.jsonl");
    latency_set(&good, "64K");
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let metadata_only = dir.path().join("metadata.jsonl");
    // A version-1 file cut after its metadata line.
    std::fs::write(
        &metadata_only,
        "{\"type\":\"metadata\",\"tool\":\"numabench\",\"schema_version\":1}\n",
    )
    .unwrap();
    let missing = dir.path().join("missing.jsonl");
    let out = dir.path().join("out.jsonl");
    let path = |path: &Path| path.to_str().unwrap().to_string();
    let cases: Vec<(Vec<String>, String)> = vec![
        (vec![path(&good)], "got 1".into()),
        (vec![path(&good), path(&missing)], path(&missing)),
        (
            vec![path(&good), path(&empty)],
            format!("{}: empty file", path(&empty)),
        ),
        (
            vec![path(&good), path(&metadata_only)],
            format!("{}: no records", path(&metadata_only)),
        ),
        (
            vec![path(&good), path(&good), "--jsonl".into(), path(&good)],
            "--jsonl".into(),
        ),
        (
            vec![path(&good), path(&good), "--by".into(), "nope".into()],
            "invalid value 'nope' for '--by <HOW>'".into(),
        ),
    ];
    for (arguments, expected) in cases {
        let output = numabench()
            .arg("compare")
            .args(&arguments)
            .args(["--csv", out.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(&expected), "{arguments:?}: {stderr}");
        assert!(!out.exists(), "{arguments:?} created the output");
    }
}

/// Records of a real `characterize` in the emulated four-node VM
/// (crates/numabench/tests/fixtures/records/README.md says how it was made).
const FOUR_NODE_VM: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../numabench/tests/fixtures/records/four-node-vm.jsonl"
);

/// Per `compare` record, its role (`params.role`).
fn roles(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .filter(|record| record.metric != "unmatched")
        .filter_map(|record| {
            ratio_params(record)
                .key
                .get("role")
                .and_then(|role| role.as_str().map(str::to_string))
        })
        .collect()
}

/// The roles a set's records give its latency sweep's levels and its
/// bandwidth kernels at DRAM size, from the records themselves.
fn levels_and_kernels(records: &[Record]) -> (Vec<String>, Vec<String>) {
    let mut levels: Vec<String> = records
        .iter()
        .filter(|r| r.benchmark == "latency" && r.metric == "latency")
        .map(|r| match r.typed_params().cache_level().unwrap() {
            "memory" => "DRAM".to_string(),
            level => level.to_string(),
        })
        .collect();
    levels.dedup();
    let kernels = records
        .iter()
        .filter(|r| r.benchmark == "bandwidth" && r.typed_params().cache_level() == Some("memory"))
        .map(|r| r.typed_params().kernel().unwrap().to_string())
        .collect();
    (levels, kernels)
}

/// This machine's characterize (run here, now) against the four-node VM's:
/// their working sets, CPUs and nodes differ, so exact matching pairs
/// almost nothing; matched by role (chosen automatically: the metadata name
/// different machines), every latency level, every bandwidth kernel at DRAM
/// size and the local matrix figures pair up, the VM's remote ones are
/// counted as unmatched (this machine has one node), the findings stand
/// side by side, and every line fits 100 columns.
#[test]
fn two_machines_match_by_role() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path().join("here.jsonl");
    succeeding(&[
        "characterize",
        "--only",
        "latency,bandwidth,matrix-latency,matrix-bandwidth",
        "--repeat",
        "1",
        "--jsonl",
        here.to_str().unwrap(),
    ]);
    let out = dir.path().join("compare.jsonl");
    let output = numabench()
        .env("COLUMNS", "100")
        .args(["compare", here.to_str().unwrap(), FOUR_NODE_VM, "--jsonl"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let table = String::from_utf8(output.stdout).unwrap();
    eprintln!("{table}");
    for line in table.lines() {
        assert!(line.chars().count() <= 100, "over 100 columns: {line}");
    }
    let compared = records(&out);
    assert!(compared.iter().all(|r| match unmatched_set(r) {
        Some(_) => params_of::<CompareUnmatchedParams>(r).matched_by == "role",
        None => ratio_params(r).matched_by == "role",
    }));
    let matched = roles(&compared);
    let (vm, mine) = (records(Path::new(FOUR_NODE_VM)), records(&here));
    let (my_levels, my_kernels) = levels_and_kernels(&mine);
    let (vm_levels, vm_kernels) = levels_and_kernels(&vm);
    assert!(
        my_levels.len() >= 3 && my_kernels.len() >= 4,
        "{my_levels:?} {my_kernels:?}"
    );
    for level in my_levels.iter().filter(|level| vm_levels.contains(level)) {
        for role in [
            format!("{level} latency"),
            format!("{level} latency, cycles"),
        ] {
            assert!(matched.contains(&role), "{role} not matched: {table}");
            assert!(table.contains(&format!("| {role} ")), "{table}");
        }
    }
    assert!(vm_levels.contains(&"L1".to_string()) && vm_levels.contains(&"DRAM".to_string()));
    assert_eq!(my_kernels, vm_kernels, "the same kernels on both machines");
    for kernel in &my_kernels {
        let role = format!("{kernel} bandwidth, all threads, DRAM");
        assert!(matched.contains(&role), "{role} not matched: {table}");
    }
    for role in [
        "DRAM latency local",
        "read bandwidth, 1 thread, DRAM local",
        "read bandwidth, all threads of a node, DRAM local",
    ] {
        assert!(
            matched.iter().any(|m| m == role),
            "{role} not matched: {table}"
        );
    }
    // Each ratio is the VM's figure over this machine's.
    for record in &compared {
        if record.metric != "unmatched" {
            let params = ratio_params(record);
            let (set, baseline) = (params.set_value, params.baseline_value);
            assert!((record.value - set / baseline).abs() < 1e-9);
        }
    }
    // The VM's remote cells have no counterpart on a one-node machine.
    let remote_cells = vm
        .iter()
        .filter(|r| r.benchmark == "matrix-latency" && r.metric == "latency")
        .filter(|r| r.typed_params().cpu_node() != r.typed_params().mem_node())
        .count();
    let unmatched_vm = compared
        .iter()
        .find(|r| unmatched_set(r) == Some(2))
        .unwrap();
    assert!(remote_cells > 0);
    assert!(
        unmatched_vm.value >= remote_cells as f64,
        "{unmatched_vm:?}"
    );
    assert!(
        !matched.iter().any(|role| role.contains("remote")),
        "{table}"
    );
    assert!(table.contains("Findings side by side:"), "{table}");
    assert!(table.contains("idle_latency:"), "{table}");

    // Forced exact: the per-machine params keep most records apart.
    let output = succeeding(&[
        "compare",
        here.to_str().unwrap(),
        FOUR_NODE_VM,
        "--by",
        "exact",
        "--json",
    ]);
    let exact = compare_document(&output);
    let unmatched_here = exact.iter().find(|r| unmatched_set(r) == Some(1)).unwrap();
    assert!(
        2.0 * unmatched_here.value > mine.len() as f64,
        "{unmatched_here:?}"
    );
}

/// `--by role` on the four-node VM's records twice: the matrices' remote
/// cells take their rank by SLIT distance per row (nearest and farthest
/// remote, latency and both bandwidth modes), each row naming its role,
/// within 100 columns; a set against itself gives ratio 1.
#[test]
fn the_four_node_matrices_match_local_and_remote_by_rank() {
    let output = numabench()
        .env("COLUMNS", "100")
        .args([
            "compare",
            FOUR_NODE_VM,
            FOUR_NODE_VM,
            "--by",
            "role",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let compared = compare_document(&output);
    let matched = roles(&compared);
    for rank in ["local", "remote (nearest)", "remote (farthest)"] {
        for role in [
            format!("DRAM latency {rank}"),
            format!("read bandwidth, 1 thread, DRAM {rank}"),
            format!("read bandwidth, all threads of a node, DRAM {rank}"),
        ] {
            assert!(matched.contains(&role), "{role}: {matched:?}");
        }
    }
    for record in compared.iter().filter(|r| r.metric != "unmatched") {
        assert_eq!(record.value, 1.0, "{record:?}");
    }
    let table = numabench()
        .env("COLUMNS", "100")
        .args(["compare", FOUR_NODE_VM, FOUR_NODE_VM, "--by", "role"])
        .output()
        .unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(
        table.contains("| DRAM latency remote (nearest) "),
        "{table}"
    );
    assert!(
        table.lines().all(|line| line.chars().count() <= 100),
        "{table}"
    );
}

/// A results file of schema version 1 (a metadata line, then typed record
/// lines, as numabench wrote before version 2) compares with a version-2
/// file figure by figure.
#[test]
fn an_old_file_compares_with_a_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let (new, old, out) = (
        dir.path().join("new.jsonl"),
        dir.path().join("old.jsonl"),
        dir.path().join("compare.jsonl"),
    );
    latency_set(&new, "64K");
    let mut text = String::new();
    // Written by hand from the new file's lines: this builds the old wire
    // format, so it works on the JSON text.
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&new)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    for (index, mut record) in lines.into_iter().enumerate() {
        let fields = record.as_object_mut().unwrap();
        let mut run = fields.remove("run").unwrap();
        if index == 0 {
            run["schema_version"] = 1.into();
            let mut metadata = serde_json::json!({"type": "metadata"});
            metadata
                .as_object_mut()
                .unwrap()
                .extend(run.as_object().unwrap().clone());
            text.push_str(&format!("{metadata}\n"));
        }
        let mut line = serde_json::json!({"type": "record"});
        line.as_object_mut().unwrap().extend(fields.clone());
        text.push_str(&format!("{line}\n"));
    }
    std::fs::write(&old, text).unwrap();
    let output = succeeding(&[
        "compare",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
        "--jsonl",
        out.to_str().unwrap(),
    ]);
    let table = String::from_utf8(output.stdout).unwrap();
    assert!(table.contains("size_bytes=65536"), "{table}");
    assert!(table.contains("unmatched in set 2: 0 record(s)"), "{table}");
    let ratios: Vec<_> = records(&out)
        .into_iter()
        .filter(|record| record.metric == "latency")
        .collect();
    assert_eq!(ratios.len(), 1, "one latency ratio");
    assert!((ratios[0].value - 1.0).abs() < 1e-9);
}
