//! The params text of `check`'s records, pinned on the map writers before
//! they were typed: keys, order, value types, null as they were.

use super::*;
use numabench_schema::PlacementCheck;
use serde_json::Value;

fn text(record: &crate::output::Record) -> String {
    Value::Object(record.params.clone()).to_string()
}

/// `actual` is `expected`; else (`NUMABENCH_PIN_DUMP` set) the actual
/// texts are written to `/tmp/pins/NAME` for pinning.
fn pinned(name: &str, actual: &[String], expected: &[&str]) {
    if actual != expected && std::env::var_os("NUMABENCH_PIN_DUMP").is_some() {
        std::fs::create_dir_all("/tmp/pins").unwrap();
        std::fs::write(format!("/tmp/pins/{name}"), actual.join("\n")).unwrap();
    }
    assert_eq!(actual, expected, "{name}");
}

fn attempt(value: f64) -> Attempt {
    Attempt {
        value,
        repetitions: vec![value * 0.9, value],
        placement: PlacementCheck {
            moved: None,
            pages: 4096,
            pages_per_node: [(1, 4096)].into_iter().collect(),
            fraction_as_requested: 1.0,
            achieved: true,
            huge_pages: None,
        },
    }
}

const CHECK: &[&str] = &[
    r#"{"key":"node1.read_bandwidth","check":"node 1 read bandwidth from node 0's CPUs","node":1,"cpu_node":0,"threads":2,"size_bytes":16777216}"#,
    r#"{"key":"node1.read_bandwidth","check":"node 1 read bandwidth from node 0's CPUs","node":1,"cpu_node":0,"threads":2,"size_bytes":16777216,"reference":10.0,"lower":9.5,"upper":null,"tolerance":"+950%","verdict":"ok","attempts":[8.0,9.75],"ratio":0.975}"#,
    r#"{"key":"node0.latency_local","check":"node 0 latency local","node":0,"cpu_node":0,"threads":1,"size_bytes":67108864,"reference":90.0,"lower":80.0,"upper":99.0,"tolerance":"+8000%/+9900%","verdict":"fail","attempts":[120.0],"ratio":1.3333333333333333}"#,
    r#"{"key":"node0.latency_local","check":"node 0 latency local","node":0,"cpu_node":0,"threads":1,"size_bytes":67108864,"reference":0.0,"lower":null,"upper":null,"tolerance":"no bound","verdict":"misplaced","attempts":[1.0],"ratio":null}"#,
    r#"{"differences":[{"what":"node 1 memory","measured":"30 GiB","reference":"32 GiB","tolerance":"±2%"}]}"#,
    r#"{"differences":[]}"#,
];

/// An item's record, an outcome's (a bandwidth with a lower bound only, a
/// latency with both, a reference of 0), the node type's.
#[test]
fn the_check_records_keep_their_params_text() {
    let bandwidth = CheckItem {
        key: "node1.read_bandwidth".into(),
        quantity: CheckQuantity::ReadBandwidth,
        cpu_node: 0,
        memory_node: 1,
        cpus: vec![0, 1],
        size: 16 << 20,
        cache_affected: true,
    };
    let latency = CheckItem {
        key: "node0.latency_local".into(),
        quantity: CheckQuantity::Latency,
        cpu_node: 0,
        memory_node: 0,
        cpus: vec![0],
        size: 64 << 20,
        cache_affected: false,
    };
    let reference = |value: f64, lower: Option<f64>, upper: Option<f64>| Reference {
        value,
        lower,
        upper,
        unit: "GB/s".into(),
        spread: None,
    };
    let outcomes = [
        Outcome {
            item: bandwidth.clone(),
            reference: reference(10.0, Some(9.5), None),
            attempts: vec![attempt(8.0), attempt(9.75)],
            verdict: Verdict::Ok,
        },
        Outcome {
            item: latency.clone(),
            reference: reference(90.0, Some(80.0), Some(99.0)),
            attempts: vec![attempt(120.0)],
            verdict: Verdict::Fail,
        },
        Outcome {
            item: latency.clone(),
            reference: reference(0.0, None, None),
            attempts: vec![attempt(1.0)],
            verdict: Verdict::Misplaced,
        },
    ];
    let differences = [Difference {
        what: "node 1 memory".into(),
        measured: "30 GiB".into(),
        reference: "32 GiB".into(),
        tolerance: "±2%".into(),
    }];
    let mut actual = vec![text(&item_record(&bandwidth, &attempt(10.0)))];
    actual.extend(
        outcomes
            .iter()
            .map(|outcome| text(&outcome_record(outcome))),
    );
    actual.push(text(&node_type_record(&differences)));
    actual.push(text(&node_type_record(&[])));
    pinned("CHECK", &actual, CHECK);
}
