//! `characterize` ends with findings computed from its own records.

use super::{succeeding, typed_jsonl};

/// On this machine (however many nodes): the printed summary lines are the
/// `summary` records' sentences, the saturation figure is the one the
/// scaling records give, and remote memory is mentioned only when the
/// latency matrix has more than one CPU node.
#[test]
fn characterize_summarises_its_own_records() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("characterize.jsonl");
    let output = succeeding(&[
        "characterize",
        "--only",
        "matrix-latency,scaling",
        "--repeat",
        "1",
        "--jsonl",
        jsonl.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    // The end of the output: the run's cuts and time ("This run:"), the
    // doctor's caveats, the findings, the advice last.
    let start = crate::shared::closing_block_start(&stdout).expect(&stdout);
    let summary = &stdout[start..];
    assert!(
        summary.contains("\nWhat this machine's NUMA costs:\n"),
        "{summary}"
    );
    // Items start with "  - "; wrapped lines continue them; headings
    // ("What to do about it:") and blank lines separate the lists. No
    // line is wider than the default 100 columns.
    let mut printed: Vec<String> = Vec::new();
    for line in summary.lines() {
        assert!(line.chars().count() <= 100, "{line}");
        if let Some(item) = line.strip_prefix("  - ") {
            printed.push(item.to_string());
        } else if let Some(more) = line.strip_prefix("    ") {
            let last = printed.last_mut().expect(line);
            last.push(' ');
            last.push_str(more);
        }
    }
    let (_, records) = typed_jsonl(&jsonl);
    let sentences: Vec<&str> = records
        .iter()
        .filter(|record| record.benchmark == "summary")
        .map(|record| record.typed_params().sentence().unwrap())
        .collect();
    // The same sentences, each once (printed grouped under their headings).
    let mut printed_sorted: Vec<&str> = printed.iter().map(String::as_str).collect();
    printed_sorted.sort_unstable();
    let mut sentences_sorted = sentences.clone();
    sentences_sorted.sort_unstable();
    assert_eq!(printed_sorted, sentences_sorted);

    // Saturation of the local read curve of the first node measured.
    // Scaling params are not typed yet: the shared view.
    let first_memory = records[0].typed_params().mem_node();
    let curve: Vec<(u64, f64)> = records
        .iter()
        .filter(|record| record.benchmark == "scaling")
        .map(|record| (record, record.typed_params()))
        .filter(|(_, params)| params.cpu_node() == params.mem_node())
        .filter(|(_, params)| params.mem_node() == first_memory)
        .map(|(record, params)| (params.threads().unwrap(), record.value))
        .collect();
    if curve.len() > 1 {
        let peak = curve.iter().map(|point| point.1).fold(0.0, f64::max);
        let saturated = curve
            .iter()
            .filter(|point| point.1 >= 0.9 * peak)
            .map(|point| point.0)
            .min()
            .unwrap();
        let expected = format!(
            "bandwidth saturates at {saturated} of {} threads",
            curve.len()
        );
        assert!(
            sentences
                .iter()
                .any(|sentence| sentence.contains(&expected)),
            "{expected} not in {sentences:?}"
        );
    }
    let cpu_nodes: std::collections::BTreeSet<u64> = records
        .iter()
        .filter(|record| record.benchmark == "matrix-latency")
        .map(|record| record.typed_params().cpu_node().unwrap())
        .collect();
    let remote = sentences
        .iter()
        .any(|sentence| sentence.starts_with("memory latency"));
    assert_eq!(remote, cpu_nodes.len() > 1, "{sentences:?}");
    assert!(
        sentences
            .iter()
            .any(|sentence| sentence.starts_with("the requested placement was verified on")),
        "{sentences:?}"
    );
}
