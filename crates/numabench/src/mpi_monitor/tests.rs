use super::*;
use crate::output::{read_results, Mode, Record};

/// The records of a monitor file's text, read strictly.
fn read_records(text: &str) -> Vec<Record> {
    read_results("monitor.jsonl", text, Mode::Strict)
        .unwrap()
        .into_records()
}

/// What the monitor writes for one rank on host `a` and that host's TLP.
const MONITOR_FILE: &str = r#"{"type":"metadata","tool":"numabench-mpi-monitor","version":"0.1.0","schema_version":1,"command_line":["./prog"],"host":"a","kernel":"6.1","cpu_model":"cpu","topology":"","utc_time":"2026-11-23T00:00:00Z"}
{"type":"record","benchmark":"mpi-monitor","metric":"wall_time","value":2.0,"unit":"s","params":{"host":"a","rank":0,"ranks":1,"local_rank":0,"cpus_allowed":[0],"program":"./prog"},"placement":{"requested":{},"verified":null},"stats":{"n":1,"min":2.0,"median":2.0,"mean":2.0,"max":2.0,"stddev":0.0,"cv":0.0,"p90":2.0,"p99":2.0}}
{"type":"record","benchmark":"mpi-monitor","metric":"mpi_share","value":0.25,"unit":"ratio","params":{"host":"a","rank":0,"ranks":1,"local_rank":0,"cpus_allowed":[0],"program":"./prog"},"placement":{"requested":{},"verified":null},"stats":{"n":1,"min":0.25,"median":0.25,"mean":0.25,"max":0.25,"stddev":0.0,"cv":0.0,"p90":0.25,"p99":0.25}}
{"type":"record","benchmark":"mpi-monitor","metric":"small_messages","value":7.0,"unit":"count","params":{"host":"a","rank":0,"ranks":1,"local_rank":0,"cpus_allowed":[0],"program":"./prog"},"placement":{"requested":{},"verified":null},"stats":{"n":1,"min":7.0,"median":7.0,"mean":7.0,"max":7.0,"stddev":0.0,"cv":0.0,"p90":7.0,"p99":7.0}}
{"type":"record","benchmark":"mpi-monitor","metric":"tlp_1","value":0.75,"unit":"ratio","params":{"host":"a","ranks_on_host":1,"cores":1},"placement":{"requested":{},"verified":null},"stats":{"n":1,"min":0.75,"median":0.75,"mean":0.75,"max":0.75,"stddev":0.0,"cv":0.0,"p90":0.75,"p99":0.75}}
"#;

#[test]
fn reads_the_monitor_records_with_their_units() {
    let records = read_records(MONITOR_FILE);
    assert_eq!(records.len(), 4);
    assert_eq!(records[0].benchmark, BENCHMARK);
    assert_eq!(records[1].unit, crate::output::Unit::Ratio);
    assert_eq!(records[3].params["cores"], 1);
    assert!(records[0].placement.verified.is_none());
}

#[test]
fn the_summary_has_a_row_per_rank_and_the_host_tlp() {
    let table = summary_table(&read_records(MONITOR_FILE));
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3, "{table}");
    assert!(
        lines[1].contains("25.0%") && lines[1].contains("7/-/-"),
        "{table}"
    );
    assert!(
        lines[2].starts_with("host a: 1 rank(s) on 1 core(s): TLP_1 75.0%"),
        "{table}"
    );
}

/// Issue 21 item 9: a job killed before MPI_Finalize leaves only the
/// ranks' partial files; they are read (in rank order) and said partial;
/// a complete file, when there is one, wins.
#[test]
fn partial_files_are_read_when_the_job_did_not_finish() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    assert!(read_monitor_output(&out).is_none());
    let partial = |rank: i64| {
        format!(
            "{{\"type\":\"metadata\",\"tool\":\"numabench-mpi-monitor\",\"partial\":true}}\n{{\"type\":\"record\",\"benchmark\":\"mpi-monitor\",\"metric\":\"wall_time\",\"value\":1.5,\"unit\":\"s\",\"params\":{{\"host\":\"a\",\"rank\":{rank},\"partial\":true}},\"placement\":{{\"requested\":{{}},\"verified\":null}},\"stats\":{{\"n\":1,\"min\":1.5,\"median\":1.5,\"mean\":1.5,\"max\":1.5,\"stddev\":0.0,\"cv\":0.0,\"p90\":1.5,\"p99\":1.5}}}}\n"
        )
    };
    for rank in [10, 2] {
        std::fs::write(
            dir.path().join(format!("out.jsonl.partial-{rank}")),
            partial(rank),
        )
        .unwrap();
    }
    std::fs::write(dir.path().join("out.jsonl.partial-x"), "not a rank").unwrap();
    let output = read_monitor_output(&out).unwrap().unwrap();
    assert!(output.partial);
    assert_eq!(output.files.len(), 2);
    let ranks: Vec<_> = output
        .records
        .iter()
        .map(|record| record.params["rank"].clone())
        .collect();
    assert_eq!(ranks, [2, 10]);
    assert_eq!(output.records[0].params["partial"], true);
    std::fs::write(&out, MONITOR_FILE).unwrap();
    let complete = read_monitor_output(&out).unwrap().unwrap();
    assert!(!complete.partial);
    assert_eq!(complete.records.len(), 4);
}
