//! The library's layering rules that can be read from its sources
//! (ARCHITECTURE.md states them): a lower module never reaches up into a
//! module built on it, and the module list a newcomer reads first is
//! complete. Each rule is checked on the real sources, and each check is
//! also shown to catch an offence on a made-up file, so it cannot pass by
//! finding nothing.

mod common;

use common::{code, test_file};

use std::fs;
use std::path::Path;

/// The library's sources, paths relative to `src/`.
fn library() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = common::sources(&root, &root);
    assert!(files.len() > 100, "the sources were not found");
    files
}

/// `file:line: text` for each non-test line of the files under `folder`
/// that names one of `modules` as `crate::MODULE` (or `super::MODULE`
/// from the folder's own `mod.rs`).
fn reaches(files: &[(String, String)], folder: &str, modules: &[&str]) -> Vec<String> {
    let mut offences = Vec::new();
    for (path, text) in files {
        if !path.starts_with(&format!("{folder}/")) || test_file(path) {
            continue;
        }
        for (number, line) in code(text).lines().enumerate() {
            if modules
                .iter()
                .any(|module| line.contains(&format!("crate::{module}::")))
            {
                offences.push(format!("{path}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    offences
}

/// The modules built on records and measurements: `topology` describes the
/// machine and is read by all of them, so it may name none.
const ABOVE_TOPOLOGY: [&str; 13] = [
    "output",
    "bench",
    "workloads",
    "runtime",
    "experiments",
    "runner",
    "report",
    "compare",
    "findings",
    "cluster",
    "overdecompose",
    "memattrs",
    "stats",
];

#[test]
fn topology_builds_no_records_and_measures_nothing() {
    let offences = reaches(&library(), "topology", &ABOVE_TOPOLOGY);
    assert!(
        offences.is_empty(),
        "topology reaches into modules built on it (records belong to the command's module):\n{}",
        offences.join("\n")
    );
}

#[test]
fn runner_and_overdecompose_do_not_go_through_the_applications() {
    let files = library();
    let mut offences = reaches(&files, "runner", &APPLICATIONS);
    offences.extend(reaches(&files, "overdecompose", &APPLICATIONS));
    assert!(
        offences.is_empty(),
        "runner and overdecompose use the application modules (counters, clock and memory are shared top-level modules):\n{}",
        offences.join("\n")
    );
}

/// Questions about which nodes this process may use, answered once.
const TOPOLOGY_QUESTIONS: [&str; 2] = ["fn cpu_nodes(", "fn memory_nodes("];

/// Definitions of a topology question outside `topology/`.
fn questions_elsewhere(files: &[(String, String)]) -> Vec<String> {
    let mut offences = Vec::new();
    for (path, text) in files {
        if path.starts_with("topology/") || test_file(path) {
            continue;
        }
        for (number, line) in code(text).lines().enumerate() {
            if TOPOLOGY_QUESTIONS.iter().any(|name| line.contains(name)) {
                offences.push(format!("{path}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    offences
}

#[test]
fn topology_questions_are_answered_in_topology() {
    let files = library();
    assert!(files
        .iter()
        .any(|(path, text)| path.starts_with("topology/")
            && TOPOLOGY_QUESTIONS.iter().all(|name| text.contains(name))));
    let offences = questions_elsewhere(&files);
    assert!(
        offences.is_empty(),
        "which nodes are usable is a topology question, defined outside topology/:\n{}",
        offences.join("\n")
    );
}

/// The modules `lib.rs` declares that its doc comment does not name.
fn modules_missing_from_doc(lib: &str) -> Vec<String> {
    let doc: String = lib
        .lines()
        .filter(|line| line.starts_with("//!"))
        .collect::<Vec<_>>()
        .join("\n");
    lib.lines()
        .filter_map(|line| line.trim().strip_prefix("pub mod "))
        .map(|rest| rest.trim_end_matches(';').to_string())
        .filter(|module| !doc.contains(&format!("[`{module}`]")))
        .collect()
}

#[test]
fn lib_doc_lists_every_module() {
    let lib = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    assert!(lib.contains("pub mod topology;"));
    let missing = modules_missing_from_doc(&lib);
    assert!(
        missing.is_empty(),
        "lib.rs declares modules its doc list does not name: {missing:?}"
    );
}

/// Files or folders called `summary`: the word means one thing, a
/// sample's statistics (the schema's `Summary`, every record's `stats`);
/// characterize's findings, which once had the name, are `crate::findings`.
/// A file that sums something up names what (`pingpong_summary.rs`).
fn borrowed_names(files: &[(String, String)]) -> Vec<String> {
    files
        .iter()
        .map(|(path, _)| path)
        .filter(|path| {
            path.split('/')
                .any(|part| part == "summary" || part == "summary.rs")
        })
        .cloned()
        .collect()
}

#[test]
fn no_module_is_called_summary() {
    let files = library();
    assert!(files.iter().any(|(path, _)| path == "findings/mod.rs"));
    let offences = borrowed_names(&files);
    assert!(
        offences.is_empty(),
        "files called summary (a sample's statistics; characterize's findings are `findings`): {offences:?}"
    );
}

/// `report.rs` files in benchmark folders whose non-test code names a
/// module other than `report` (or the reader's record type,
/// `output::ReadRecord`; the schema crate is outside `crate::`): a
/// benchmark's section builds from records and the report's helpers only,
/// never from what measured them.
fn sections_reaching_past_records(files: &[(String, String)]) -> Vec<String> {
    let mut offences = Vec::new();
    for (path, text) in files {
        let in_a_benchmark = path.starts_with("bench/") && path.ends_with("/report.rs");
        if !in_a_benchmark {
            continue;
        }
        for (number, line) in code(text).lines().enumerate() {
            let outside = line.split("crate::").skip(1).any(|rest| {
                !rest.starts_with("report::") && !rest.starts_with("output::ReadRecord")
            });
            if outside || line.contains("super::") {
                offences.push(format!("{path}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    offences
}

#[test]
fn benchmark_sections_build_from_records_only() {
    let files = library();
    assert!(files.iter().any(|(path, _)| path == "bench/c2c/report.rs"));
    let offences = sections_reaching_past_records(&files);
    assert!(
        offences.is_empty(),
        "a benchmark's report section uses more than records and the report's helpers:\n{}",
        offences.join("\n")
    );
}

/// The files every benchmark folder holds.
const BENCHMARK_FILES: [&str; 4] = ["describe.rs", "plan.rs", "run.rs", "measure.rs"];

/// What breaks "a benchmark is one folder, listed once": a registry entry
/// written anywhere but a folder's `describe.rs`, a `REGISTRY` line whose
/// folder lacks one of [`BENCHMARK_FILES`], and a folder with a
/// `describe.rs` that `REGISTRY` does not list.
fn benchmarks_outside_their_folders(files: &[(String, String)]) -> Vec<String> {
    let mut offences = Vec::new();
    let registry = files
        .iter()
        .find(|(path, _)| path == "bench/registry.rs")
        .map(|(_, text)| code(text))
        .unwrap_or_default();
    let listed: Vec<&str> = registry
        .lines()
        .filter_map(|line| line.trim().strip_prefix("super::"))
        .filter_map(|rest| rest.split("::").next())
        .collect();
    for (path, text) in files {
        let literal = code(text).contains("BenchmarkInfo {");
        let allowed = path.ends_with("/describe.rs") || path == "bench/registry.rs";
        if literal && !allowed && !test_file(path) {
            offences.push(format!("{path}: writes a registry entry"));
        }
        if let Some(folder) = path
            .strip_prefix("bench/")
            .and_then(|rest| rest.strip_suffix("/describe.rs"))
        {
            if !listed.contains(&folder) {
                offences.push(format!("{path}: not listed in REGISTRY"));
            }
        }
    }
    for folder in &listed {
        for file in BENCHMARK_FILES {
            let path = format!("bench/{folder}/{file}");
            if !files.iter().any(|(have, _)| *have == path) {
                offences.push(format!("{path}: missing"));
            }
        }
    }
    if listed.is_empty() || registry.contains("    BenchmarkInfo {") {
        offences.push("bench/registry.rs: REGISTRY lists entries inline".into());
    }
    offences
}

#[test]
fn a_benchmark_is_one_folder_listed_once() {
    let offences = benchmarks_outside_their_folders(&library());
    assert!(
        offences.is_empty(),
        "a benchmark lives in bench/<name>/ and is listed once in REGISTRY (docs/adding-a-benchmark.md):\n{}",
        offences.join("\n")
    );
}

#[test]
fn each_check_catches_an_offence() {
    let files = vec![
        (
            "topology/export.rs".to_string(),
            "use crate::output::Record;\n#[cfg(test)]\nmod tests { use crate::bench::x; }\n"
                .to_string(),
        ),
        (
            "topology/fixture_tests.rs".to_string(),
            "use crate::bench::working_set_for;\n".to_string(),
        ),
        (
            "runner/counted.rs".to_string(),
            "// crate::runtime:: in a comment\nuse crate::runtime::{perf_params};\n".to_string(),
        ),
        (
            "bench/placed.rs".to_string(),
            "pub fn memory_nodes(topology: &Machine) -> Vec<u32> {".to_string(),
        ),
        (
            "topology/usable_nodes.rs".to_string(),
            "pub fn memory_nodes(topology: &Machine) -> Vec<u32> {".to_string(),
        ),
    ];
    assert_eq!(
        reaches(&files, "topology", &ABOVE_TOPOLOGY),
        ["topology/export.rs:1: use crate::output::Record;"]
    );
    assert_eq!(
        reaches(&files, "runner", &APPLICATIONS),
        ["runner/counted.rs:2: use crate::runtime::{perf_params};"]
    );
    assert_eq!(
        questions_elsewhere(&files),
        ["bench/placed.rs:1: pub fn memory_nodes(topology: &Machine) -> Vec<u32> {"]
    );
    assert_eq!(
        borrowed_names(&[
            ("mpi_monitor/summary.rs".to_string(), String::new()),
            ("summary/doctor.rs".to_string(), String::new()),
            ("findings/doctor.rs".to_string(), String::new()),
            ("cluster/pingpong_summary.rs".to_string(), String::new()),
        ]),
        ["mpi_monitor/summary.rs", "summary/doctor.rs"]
    );
    assert_eq!(
        modules_missing_from_doc("//! - [`parse`]: lists\npub mod parse;\npub mod units;\n"),
        ["units"]
    );
    assert_eq!(
        sections_reaching_past_records(&[
            (
                "bench/c2c/report.rs".to_string(),
                "use crate::report::load::Dataset;\nuse crate::bench::c2c_pairs;\n".to_string(),
            ),
            (
                "report/sections/meta.rs".to_string(),
                "use crate::topology::Machine;\n".to_string(),
            ),
        ]),
        ["bench/c2c/report.rs:2: use crate::bench::c2c_pairs;"]
    );
    let folder = |name: &str, files: &[&str]| -> Vec<(String, String)> {
        files
            .iter()
            .map(|file| {
                let text = if *file == "describe.rs" {
                    "BenchmarkInfo {"
                } else {
                    ""
                };
                (format!("bench/{name}/{file}"), text.to_string())
            })
            .collect()
    };
    let mut tree = vec![(
        "bench/registry.rs".to_string(),
        "const REGISTRY: &[BenchmarkInfo] = &[\n    super::c2c::BENCHMARK,\n    super::mlp::BENCHMARK,\n];\n"
            .to_string(),
    )];
    tree.extend(folder(
        "c2c",
        &["describe.rs", "plan.rs", "run.rs", "measure.rs"],
    ));
    tree.extend(folder("mlp", &["describe.rs", "plan.rs", "measure.rs"]));
    tree.extend(folder("cache", &["describe.rs"]));
    tree.push(("bench/steps.rs".to_string(), "BenchmarkInfo {".to_string()));
    assert_eq!(
        benchmarks_outside_their_folders(&tree),
        [
            "bench/cache/describe.rs: not listed in REGISTRY",
            "bench/steps.rs: writes a registry entry",
            "bench/mlp/run.rs: missing",
        ]
    );
}

/// The application modules, bottom up: the runtime (team, shared arrays,
/// placement), the workloads on it, the experiments with them.
const APPLICATIONS: [&str; 3] = ["runtime", "workloads", "experiments"];

/// Each application module reaches only the ones below it in
/// [`APPLICATIONS`]: `file:line: text` of each offence.
fn application_layers(files: &[(String, String)]) -> Vec<String> {
    let mut offences = Vec::new();
    for (level, module) in APPLICATIONS.iter().enumerate() {
        offences.extend(reaches(files, module, &APPLICATIONS[level + 1..]));
    }
    offences
}

#[test]
fn runtime_then_workloads_then_experiments() {
    let files = library();
    assert!(files.iter().any(|(path, _)| path == "runtime/team.rs"));
    let offences = application_layers(&files);
    assert!(
        offences.is_empty(),
        "an application module reaches one built on it (runtime <- workloads <- experiments):\n{}",
        offences.join("\n")
    );
}

#[test]
fn application_layers_catch_an_offence() {
    let files = vec![
        (
            "runtime/team.rs".to_string(),
            "use crate::workloads::AppKernel;\n#[cfg(test)]\nmod tests { use crate::experiments::x; }\n"
                .to_string(),
        ),
        (
            "workloads/cg/mod.rs".to_string(),
            "use crate::runtime::Team;\nuse crate::experiments::run_once;\n".to_string(),
        ),
        (
            "experiments/execute.rs".to_string(),
            "use crate::workloads::AppKernel;\nuse crate::runtime::Team;\n".to_string(),
        ),
    ];
    assert_eq!(
        application_layers(&files),
        [
            "runtime/team.rs:1: use crate::workloads::AppKernel;",
            "workloads/cg/mod.rs:2: use crate::experiments::run_once;"
        ]
    );
}
