//! The reader on texts written here: each format, each mode, and the ways
//! a file goes wrong (a crash mid-write, an empty file, a newer schema).

use super::*;

const RECORD: &str = r#"{"benchmark":"latency","metric":"latency","value":80.5,"unit":"ns","params":{"size_bytes":65536},"placement":{"requested":{"memory":"bind:0"},"verified":null},"stats":{"n":3,"min":80.0,"median":80.5,"mean":80.5,"max":81.0,"stddev":0.5,"cv":0.006,"p90":81.0,"p99":81.0}}"#;
/// A version-2 line: the record with its run metadata.
fn v2(record: &str) -> String {
    let run = format!(
        "{{\"tool\":\"numabench\",\"schema_version\":{RESULTS_SCHEMA_VERSION},\"host\":\"h\"}}"
    );
    format!("{},\"run\":{run}}}", &record[..record.len() - 1])
}

/// A version-1 file: the metadata line, then typed record lines.
fn v1(records: &[&str]) -> String {
    let mut text =
        "{\"type\":\"metadata\",\"tool\":\"numabench\",\"schema_version\":1,\"host\":\"h\"}\n"
            .to_string();
    for record in records {
        text.push_str(&record.replacen('{', "{\"type\":\"record\",", 1));
        text.push('\n');
    }
    text
}

#[test]
fn reads_version_2_lines_with_one_metadata_per_run() {
    let text = format!("{}\n{}\n", v2(RECORD), v2(RECORD));
    for mode in [Mode::Strict, Mode::Lenient] {
        let results = read_results("a.jsonl", &text, mode).unwrap();
        assert_eq!(results.records.len(), 2);
        assert_eq!(results.records[1].line, 2);
        assert_eq!(results.records[0].file, "a.jsonl");
        assert_eq!(results.records[0].stat("median"), Some(80.5));
        assert_eq!(results.records[0].num("size_bytes"), Some(65536.0));
        assert_eq!(results.metadata.len(), 1, "the same run once");
        assert_eq!(results.metadata[0].1["host"], "h");
        assert!(results.notes.is_empty(), "{:?}", results.notes);
    }
}

#[test]
fn reads_a_version_1_file() {
    let results = read_results("old.jsonl", &v1(&[RECORD, RECORD]), Mode::Strict).unwrap();
    assert_eq!(results.records.len(), 2);
    assert_eq!(results.records[0].line, 2);
    assert_eq!(results.metadata.len(), 1);
    assert_eq!(results.metadata[0].1.get("type"), None);
    assert_eq!(results.metadata[0].1["schema_version"], 1);
}

#[test]
fn a_truncated_last_line_is_an_error_or_a_note() {
    let text = format!("{}\n{}", v2(RECORD), &v2(RECORD)[..60]);
    let error = read_results("crash.jsonl", &text, Mode::Strict).unwrap_err();
    assert_eq!((error.file.as_str(), error.line), ("crash.jsonl", Some(2)));
    assert!(
        error
            .to_string()
            .starts_with("crash.jsonl:2: not a JSON line"),
        "{error}"
    );
    let results = read_results("crash.jsonl", &text, Mode::Lenient).unwrap();
    assert_eq!(results.records.len(), 1);
    assert_eq!(results.notes.len(), 1);
    assert!(
        results.notes[0].starts_with("crash.jsonl:2: not a JSON line"),
        "{:?}",
        results.notes
    );
}

#[test]
fn an_empty_file_is_an_error_or_a_note() {
    let error = read_results("e.jsonl", " \n", Mode::Strict).unwrap_err();
    assert_eq!(error.to_string(), "e.jsonl: empty file");
    let results = read_results("e.jsonl", "", Mode::Lenient).unwrap();
    assert!(results.records.is_empty() && results.metadata.is_empty());
    assert_eq!(results.notes, ["e.jsonl: empty file"]);
}

#[test]
fn a_newer_schema_version_stops_the_file() {
    let newer = RESULTS_SCHEMA_VERSION + 1;
    let text = format!(
        "{}\n{}\n",
        v2(RECORD).replace(
            &format!("\"schema_version\":{RESULTS_SCHEMA_VERSION}"),
            &format!("\"schema_version\":{newer}")
        ),
        v2(RECORD)
    );
    let error = read_results("new.jsonl", &text, Mode::Strict).unwrap_err();
    assert_eq!(error.line, Some(1));
    assert!(
        error
            .reason
            .starts_with(&format!("results schema version {newer}")),
        "{error}"
    );
    let results = read_results("new.jsonl", &text, Mode::Lenient).unwrap();
    assert!(
        results.records.is_empty(),
        "records of an unknown version are not read"
    );
    assert_eq!(results.notes.len(), 1, "{:?}", results.notes);
}

#[test]
fn unknown_kinds_and_records_outside_the_schema() {
    let bad_unit = v2(RECORD).replace("\"ns\"", "\"furlongs\"");
    let text = format!(
        "{}\n{{\"type\":\"gizmo\"}}\n{bad_unit}\n{RECORD}\n[1]\n",
        v2(RECORD)
    );
    let error = read_results("k.jsonl", &text, Mode::Strict).unwrap_err();
    assert_eq!(
        error.to_string(),
        "k.jsonl:2: unknown kind \"gizmo\" skipped"
    );
    let results = read_results("k.jsonl", &text, Mode::Lenient).unwrap();
    assert_eq!(results.records.len(), 1);
    let lines: Vec<&str> = results
        .notes
        .iter()
        .map(|note| note.split(": ").next().unwrap())
        .collect();
    assert_eq!(lines, ["k.jsonl:2", "k.jsonl:3", "k.jsonl:4", "k.jsonl:5"]);
    assert!(results.notes[1].contains("not a record of the results schema"));
    assert!(results.notes[2].contains("neither a record with its \"run\""));
}

#[test]
fn reads_the_monitor_s_version_1_lines() {
    let monitor = "{\"type\":\"metadata\",\"tool\":\"numabench-mpi-monitor\",\"version\":\"0.1.0\",\"schema_version\":1,\"command_line\":[],\"host\":\"h\",\"kernel\":\"6\",\"cpu_model\":\"c\",\"topology\":\"\",\"utc_time\":\"t\"}\n";
    let record = RECORD
        .replace(
            "\"latency\",\"metric\":\"latency\"",
            "\"mpi-monitor\",\"metric\":\"wall_time\"",
        )
        .replace("\"ns\"", "\"s\"");
    let text = format!("{monitor}{}", v1(&[&record]).lines().nth(1).unwrap());
    let results = read_results("m.jsonl", &text, Mode::Strict).unwrap();
    assert_eq!(results.records[0].benchmark, "mpi-monitor");
    assert_eq!(results.metadata[0].1["tool"], "numabench-mpi-monitor");
}

#[test]
fn documents_whole_and_cut() {
    let whole = format!(
        "{{\n\"metadata\": {{\"tool\":\"numabench\",\"schema_version\":{RESULTS_SCHEMA_VERSION}}},\n\"records\": [\n{RECORD},\n{RECORD}\n]\n}}\n"
    );
    for mode in [Mode::Strict, Mode::Lenient] {
        let results = read_results("r.json", &whole, mode).unwrap();
        assert_eq!(results.records.len(), 2);
        assert_eq!(results.records[1].line, 5);
        assert_eq!(results.metadata.len(), 1);
        assert!(results.notes.is_empty(), "{:?}", results.notes);
    }
    let cut = format!(
        "{{\n\"metadata\": {{\"tool\":\"numabench\"}},\n\"records\": [\n{RECORD},\n{}",
        &RECORD[..30]
    );
    let error = read_results("cut.json", &cut, Mode::Strict).unwrap_err();
    assert_eq!(error.line, Some(5), "{error}");
    let results = read_results("cut.json", &cut, Mode::Lenient).unwrap();
    assert_eq!(results.records.len(), 1);
    assert_eq!(results.notes.len(), 1, "{:?}", results.notes);
    assert!(
        results.notes[0].starts_with("cut.json:5: the JSON document is not complete"),
        "{:?}",
        results.notes
    );
    let error = read_results("m.json", "{\"metadata\": {}}", Mode::Strict).unwrap_err();
    assert_eq!(
        error.to_string(),
        "m.json: a JSON document without a \"records\" list"
    );
}

#[test]
fn a_missing_file_names_its_path() {
    let error = read_results_file(Path::new("/nonexistent/r.jsonl"), Mode::Lenient).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("/nonexistent/r.jsonl: cannot read"),
        "{error}"
    );
}
