//! Terminal output stays readable: `--records` rows summarise long params
//! (a `run --observe` timeline, STREAM's per-iteration times and
//! calibration), while JSON Lines keep every value.

use super::records::params_of;
use super::run::observed;
use super::run::run_args;
use super::{succeeding, typed_jsonl};
use numabench_schema::params::AppParams;
use numabench_schema::Record;

/// Widest table row allowed: the fixed columns take about 80 characters;
/// a summarised params column of a run or an app (about 20 params) stays
/// inside this, where the unsummarised ones took 1500 or more.
const MAX_ROW: usize = 700;

fn rows_and_records(arguments: &[&str], jsonl: &std::path::Path) -> (String, Vec<Record>) {
    // `--jsonl FILE` goes first: after `--` everything is the program's.
    let (command, rest) = arguments.split_first().unwrap();
    let output = succeeding(
        &[
            &[*command, "--records", "--jsonl", jsonl.to_str().unwrap()],
            rest,
        ]
        .concat(),
    );
    let (_, records) = typed_jsonl(jsonl);
    (String::from_utf8(output.stdout).unwrap(), records)
}

fn assert_narrow(table: &str, benchmark: &str) {
    let rows: Vec<&str> = table
        .lines()
        .filter(|line| line.starts_with(&format!("{benchmark} ")))
        .collect();
    assert!(!rows.is_empty(), "{table}");
    for row in rows {
        assert!(row.len() <= MAX_ROW, "{} characters: {row}", row.len());
    }
}

#[test]
fn a_run_observe_row_summarises_its_timeline() {
    let dir = tempfile::tempdir().unwrap();
    let (table, records) = rows_and_records(
        &run_args(
            "1",
            &[
                "--observe",
                "--policy",
                "as-is",
                "--",
                "sh",
                "-c",
                "sleep 0.5",
            ],
        ),
        &dir.path().join("run.jsonl"),
    );
    assert_narrow(&table, "run");
    let observation = observed(
        records
            .iter()
            .find(|record| record.metric == "run_wall_time")
            .unwrap(),
    );
    let samples = observation.samples.len();
    assert!(samples >= 10, "a 0.5 s run sampled {samples} times");
    assert!(
        table.contains(&format!("{samples} samples")),
        "the row counts the timeline's samples: {table}"
    );
    assert!(table.contains("observation=peak "), "{table}");
}

#[test]
fn a_stream_row_summarises_its_iterations() {
    let dir = tempfile::tempdir().unwrap();
    let (table, records) = rows_and_records(
        &["stream", "--threads", "1", "--size", "1M", "--repeat", "1"],
        &dir.path().join("stream.jsonl"),
    );
    assert_narrow(&table, "stream");
    let times = params_of::<AppParams>(&records[0])
        .run
        .iteration_seconds
        .expect("iteration_seconds");
    assert!(times.len() > 1, "{times:?}");
    assert!(
        table.contains(&format!(
            "iteration_seconds={} iterations: first ",
            times.len()
        )),
        "{table}"
    );
    assert!(table.contains("verification=passed"), "{table}");
}
