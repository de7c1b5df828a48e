//! The latency chase orders and `mlp`: each record says which order it
//! chased and what that measures. (That `mlp` with one chain measures what
//! `latency` does is timed, so it runs alone, in tests/agreement.)

use super::json_document;
use serde_json::Value;

/// The records of `arguments` (with `--json`) whose metric is `metric`.
fn metric(arguments: &[&str], metric: &str) -> Vec<Value> {
    json_document(arguments)["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|record| record["metric"] == metric)
        .cloned()
        .collect()
}

/// The base page size, bytes.
fn page_bytes() -> u64 {
    // SAFETY: sysconf has no preconditions.
    (unsafe { libc::sysconf(libc::_SC_PAGESIZE) }) as u64
}

#[test]
fn latency_records_name_the_order_and_its_block() {
    let page = page_bytes();
    let default = metric(&["latency", "--size", "1M", "--repeat", "2"], "latency");
    let params = &default[0]["params"];
    assert_eq!(params["order"], "tlb-block", "the default order");
    let block = params["block_bytes"].as_u64().unwrap();
    assert!(
        block > page && block.is_multiple_of(page) && (block / page).is_power_of_two(),
        "{params}"
    );
    assert!(params["block_source"].as_str().unwrap().contains("TLB"));
    assert!(params["order_measures"]
        .as_str()
        .unwrap()
        .contains("idle memory latency"));
    for (order, block, says) in [
        ("random", 1 << 20, "page-walk"),
        ("page-local", page, "one TLB miss per page"),
    ] {
        let records = metric(
            &["latency", "--size", "1M", "--repeat", "2", "--order", order],
            "latency",
        );
        let params = &records[0]["params"];
        assert_eq!(params["order"], order);
        assert_eq!(params["block_bytes"], block, "{params}");
        assert!(
            params["order_measures"].as_str().unwrap().contains(says),
            "{params}"
        );
    }
    let mlp = metric(
        &[
            "mlp",
            "--size",
            "1M",
            "--repeat",
            "1",
            "--order",
            "page-local",
        ],
        "ns_per_load",
    );
    assert!(mlp
        .iter()
        .all(|record| record["params"]["order"] == "page-local"));
}
