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

/// A call type's record as the monitor writes it (issue 37 item 7).
fn call_record(call: &str, metric: &str, value: f64, rank_max: f64) -> Record {
    let unit = if metric == "call_time" { "s" } else { "count" };
    let line = format!(
        r#"{{"type":"record","benchmark":"mpi-monitor","metric":"{metric}","value":{value},"unit":"{unit}","params":{{"call":"{call}","ranks":2,"ranks_calling":2,"rank_min":0.1,"rank_mean":0.2,"rank_max":{rank_max},"mpi_share":0.5}},"placement":{{"requested":{{}},"verified":null}},"stats":{{"n":1,"min":{value},"median":{value},"mean":{value},"max":{value},"stddev":0.0,"cv":0.0,"p90":{value},"p99":{value}}}}}"#
    );
    read_records(&line).remove(0)
}

/// The call table lists the call types longest first, with their counts,
/// share of MPI time, the spread over ranks and bytes, and stays out of the
/// summary when the records have none.
#[test]
fn the_call_table_lists_call_types_longest_first() {
    assert_eq!(call_table(&read_records(MONITOR_FILE)), "");
    let records = vec![
        call_record("MPI_Wait", "call_time", 0.25, 0.2),
        call_record("MPI_Wait", "call_count", 3360.0, 1680.0),
        call_record("MPI_Send", "call_time", 1.5, 1.0),
        call_record("MPI_Send", "call_count", 3360.0, 1680.0),
        call_record("MPI_Send", "call_bytes", 93_200_000.0, 46_600_000.0),
    ];
    let table = call_table(&records);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3, "{table}");
    assert!(lines[0].starts_with("MPI call"), "{table}");
    assert!(
        lines[1].starts_with("MPI_Send") && lines[1].contains("93200000"),
        "{table}"
    );
    assert!(
        lines[1].contains("3360") && lines[1].contains("50.0%"),
        "{table}"
    );
    assert!(lines[2].starts_with("MPI_Wait"), "{table}");
    assert!(lines.iter().all(|line| line.len() <= 100), "{table}");
}

/// Issue 37 item 8: the summary's buffer line adds the ranks' sampled
/// pages and names the rank with the least on its own node.
#[test]
fn the_summary_says_where_the_buffers_were() {
    let line = |rank: i64, local: u64, remote: u64| {
        let share = local as f64 / (local + remote) as f64;
        format!(
            r#"{{"type":"record","benchmark":"mpi-monitor","metric":"buffer_local_share","value":{share},"unit":"ratio","params":{{"host":"a","rank":{rank},"pages_local":{local},"pages_remote":{remote},"pages_absent":0,"min_buffer_bytes":16384}},"placement":{{"requested":{{}},"verified":null}},"stats":{{"n":1,"min":{share},"median":{share},"mean":{share},"max":{share},"stddev":0.0,"cv":0.0,"p90":{share},"p99":{share}}}}}"#
        )
    };
    let text = format!("{}\n{}\n", line(0, 40, 0), line(1, 10, 30));
    let table = summary_table(&read_records(&text));
    let buffers = table
        .lines()
        .find(|line| line.starts_with("MPI buffers"))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(
        buffers.contains("MPI buffers >= 16384 B (80 pages sampled)"),
        "{buffers}"
    );
    assert!(buffers.contains("62.5% on the rank's node"), "{buffers}");
    assert!(buffers.ends_with("least: rank 1 25.0%"), "{buffers}");
    assert!(!summary_table(&read_records(MONITOR_FILE)).contains("MPI buffers"));
}
