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

/// `latency --writer-cpu`: the record names the writer, both threads ran
/// where they were pinned (sched_getcpu during the work), and the first
/// pass is reported apart from the samples. With one allowed CPU the
/// writer is the chasing CPU, which the record notes.
#[test]
fn the_remote_cache_chase_names_its_writer_and_ran_on_the_intended_cpus() {
    let allowed = super::run::allowed_cpus();
    let chaser = allowed[0].to_string();
    let writer = allowed.get(1).unwrap_or(&allowed[0]).to_string();
    let records = metric(
        &[
            "latency",
            "--writer-cpu",
            &writer,
            "--cpu",
            &chaser,
            "--size",
            "64K",
            "--repeat",
            "3",
        ],
        "latency",
    );
    assert_eq!(records.len(), 1);
    let record = &records[0];
    let params = &record["params"];
    assert_eq!(params["writer_cpu"].to_string(), writer, "{params}");
    assert_eq!(params["writer_cpu_seen"].to_string(), writer, "{params}");
    assert_eq!(params["cpu"].to_string(), chaser, "{params}");
    assert_eq!(params["cpu_seen"].to_string(), chaser, "{params}");
    assert_eq!(params["writer_same_cpu"], writer == chaser, "{params}");
    assert_eq!(
        record["placement"]["requested"]["writer_cpu"].to_string(),
        writer
    );
    assert_eq!(
        record["placement"]["verified"]["achieved"], true,
        "{record}"
    );
    // 64 KiB of 64-byte lines: 1024 loads a pass, 16 passes a sample.
    assert_eq!(params["passes_per_sample"], 16, "{params}");
    assert_eq!(params["loads_per_sample"], 16 * 1024, "{params}");
    assert_eq!(record["stats"]["n"], 3, "{record}");
    let first = params["first_pass_ns"].as_f64().unwrap();
    assert!(first > 0.0 && first.is_finite(), "{params}");
    assert!(params["samples_measure"]
        .as_str()
        .unwrap()
        .contains("without flushing"));
}
