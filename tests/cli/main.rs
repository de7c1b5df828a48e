//! CLI behaviour of the `numabench` binary: real runs on this machine and
//! the table of bad inputs (each must give exit status 2 and one line that
//! names the bad value).

mod app_hugepages;
mod app_scaling;
mod apps;
mod budget;
mod cache;
mod chase;
mod check;
mod cluster;
mod compare;
mod documentation;
mod errors;
mod findings;
mod install_script;
mod interference;
mod measure;
mod memattrs;
mod memory_limit;
mod mpi_monitor;
mod observe;
mod output_files;
mod overdecompose;
mod pandas;
mod per_cpu;
mod plan;
mod plan_shapes;
mod plan_wire;
mod plugins;
#[path = "../shared/records.rs"]
mod records;
mod repetitions;
mod report;
mod report_browser;
mod run;
mod run_omp;
mod run_processes;
mod run_scan;
mod run_spawn;
mod scan;
mod schema;
mod setup_script;
#[path = "../shared/mod.rs"]
mod shared;
mod signals;
mod splits;
mod tables;
mod terminal_tables;
mod tiers;
mod topo_doctor;
mod topology_file;
mod unprivileged;
mod version;
mod weighted;

use assert_cmd::Command;
use numabench_schema::{PlacementCheck, Record, RunMetadata};
pub use records::{params_of, params_part, read_typed, requested};

/// An hwloc XML topology of another machine (2 sockets, 8 CPUs, 5 nodes of
/// which 3 CPU-less), described in its directory's make-xml.sh.
pub const OTHER_MACHINE_XML: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../numabench/tests/fixtures/two-sockets-hbm-cxl.xml"
);

/// The numabench binary under test.
pub fn numabench() -> Command {
    Command::new(env!("CARGO_BIN_EXE_numabench"))
}

/// Runs numabench, asserts success, and returns what it printed.
pub fn succeeding(arguments: &[&str]) -> std::process::Output {
    let output = numabench().args(arguments).output().unwrap();
    assert!(
        output.status.success(),
        "{arguments:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// A prepared command that [`succeeded`] and [`json_of`] can run: the
/// `assert_cmd` builder of [`numabench`] or a plain `std::process::Command`.
pub trait Runnable {
    /// Runs the command to completion and collects what it printed.
    fn collect_output(&mut self) -> std::io::Result<std::process::Output>;
}

impl Runnable for Command {
    fn collect_output(&mut self) -> std::io::Result<std::process::Output> {
        self.output()
    }
}

impl Runnable for std::process::Command {
    fn collect_output(&mut self) -> std::io::Result<std::process::Output> {
        self.output()
    }
}

/// Runs a prepared command, asserts it exited successfully (showing its
/// stderr if not), and returns what it printed.
pub fn succeeded(command: &mut impl Runnable) -> std::process::Output {
    let output = command.collect_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Runs a prepared command like [`succeeded`] and returns the JSON document
/// it printed on stdout (without checking it against the schema).
pub fn json_of(command: &mut impl Runnable) -> serde_json::Value {
    serde_json::from_slice(&succeeded(command).stdout).unwrap()
}

/// Runs numabench with `--json` appended, asserts success, and returns the
/// JSON document it printed, after checking a results document against
/// the shipped schema ([`schema::assert_document_matches`]).
pub fn json_document(arguments: &[&str]) -> serde_json::Value {
    let output = succeeding(&[arguments, &["--json"]].concat());
    let document = serde_json::from_slice(&output.stdout).unwrap();
    schema::assert_document_matches(&document, &format!("{arguments:?}"));
    document
}

/// This machine as `topo --json` describes it (checked against the
/// shipped schema), read as the library's [`numabench::topology::Machine`].
pub fn machine() -> numabench::topology::Machine {
    serde_json::from_value(json_document(&["topo"]))
        .unwrap_or_else(|error| panic!("topo --json is not a Machine: {error}"))
}

/// Asserts that a run was refused with exit status 2 and one line on
/// stderr, and returns stderr for the caller to check what the line names.
pub fn refusal(output: &std::process::Output) -> String {
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr
}

/// Runs numabench with `--json` appended, asserts success, checks the
/// results document it printed against the shipped schema (as
/// [`json_document`] does) and reads it typed ([`read_typed`]).
pub fn records(arguments: &[&str]) -> (RunMetadata, Vec<Record>) {
    let output = succeeding(&[arguments, &["--json"]].concat());
    typed_stdout(&format!("{arguments:?}"), &output.stdout)
}

/// The records of `arguments` ([`records`]), without the metadata.
pub fn typed_records(arguments: &[&str]) -> Vec<Record> {
    records(arguments).1
}

/// The records of `arguments` ([`records`]) whose metric is `metric`.
pub fn typed_records_of(arguments: &[&str], metric: &str) -> Vec<Record> {
    typed_records(arguments)
        .into_iter()
        .filter(|record| record.metric == metric)
        .collect()
}

/// The records of `records` whose metric is `metric`.
pub fn with_metric<'a>(records: &'a [Record], metric: &str) -> Vec<&'a Record> {
    records
        .iter()
        .filter(|record| record.metric == metric)
        .collect()
}

/// A record's params as the open JSON object they are on the wire, for
/// the benchmarks whose params have no type in the schema crate yet:
/// indexing it reads null for an absent key, as the document's did.
pub fn params_object(record: &Record) -> serde_json::Value {
    serde_json::Value::Object(record.params.clone())
}

/// Runs a prepared command like [`succeeded`], checks the results document
/// it printed against the shipped schema and reads it typed
/// ([`read_typed`]).
pub fn typed_of(command: &mut impl Runnable) -> (RunMetadata, Vec<Record>) {
    typed_stdout("stdout", &succeeded(command).stdout)
}

/// A results document printed on stdout, checked against the shipped
/// schema ([`schema::assert_document_matches`]) and read typed
/// ([`read_typed`]).
pub fn typed_stdout(origin: &str, stdout: &[u8]) -> (RunMetadata, Vec<Record>) {
    let document: serde_json::Value = serde_json::from_slice(stdout).unwrap();
    schema::assert_document_matches(&document, origin);
    read_typed(origin, std::str::from_utf8(stdout).unwrap())
}

/// The records of a JSON Lines results file, each line checked against the
/// shipped schema ([`schema::assert_jsonl_matches`]), read typed
/// ([`read_typed`]).
pub fn typed_jsonl(path: &std::path::Path) -> (RunMetadata, Vec<Record>) {
    schema::assert_jsonl_matches(path);
    let text = std::fs::read_to_string(path).unwrap();
    read_typed(&path.display().to_string(), &text)
}

/// A param of a record whose benchmark has no typed params (an
/// application kernel's, a summary's, a plugin's), as `record["params"][key]`
/// read it: null when absent.
pub fn param<'a>(record: &'a Record, key: &str) -> &'a serde_json::Value {
    static NULL: serde_json::Value = serde_json::Value::Null;
    record.params.get(key).unwrap_or(&NULL)
}

/// What a record's placement check found; a record without one fails the
/// test, naming the record.
pub fn verified(record: &Record) -> &PlacementCheck {
    record
        .placement
        .verified
        .as_ref()
        .unwrap_or_else(|| panic!("no placement check: {record:?}"))
}

/// Every command that measures on this machine, with the arguments it needs
/// (`run` needs a program, so it is listed with one: `true`).
pub const MEASURING_COMMANDS: &[&[&str]] = &[
    &["latency"],
    &["latency", "--each-cpu"],
    &["bandwidth"],
    &["bandwidth", "--each-cpu"],
    &["matrix", "latency"],
    &["matrix", "latency", "--per-cpu"],
    &["matrix", "bandwidth"],
    &["matrix", "bandwidth", "--per-cpu"],
    &["contention"],
    &["scaling"],
    &["loaded-latency"],
    &["mlp"],
    &["mlp", "--threads", "1"],
    &["cache"],
    &["c2c"],
    &["characterize"],
    &["stream"],
    &["cg"],
    &["mg"],
    &["placement-study", "stream"],
    &["run", "--", "true"],
];

/// Copies an executable with `cp` in a child process. Copying it from this
/// process (`std::fs::copy`) holds a write descriptor that a child forked
/// meanwhile by another test's thread inherits until it execs, and running
/// the copy then fails with "Text file busy" (ETXTBSY).
pub fn copy_executable(from: &std::path::Path, to: &std::path::Path) {
    let status = std::process::Command::new("cp")
        .arg(from)
        .arg(to)
        .status()
        .expect("cp runs");
    assert!(status.success(), "cp {} {}", from.display(), to.display());
}
