//! `--hugepages` for the application kernels: the arrays get huge pages
//! under every placement scheme, the records say so and how much they got
//! (`placement.verified.huge_pages`, as for the micro-benchmarks), how many
//! pages moved as huge pages, and the first iteration's extra cost.

use super::apps::{cg_study, STREAM_PLACEMENTS};
use super::json_document as document;
use serde_json::Value;

/// The `time` record of an app run.
fn time_record(arguments: &[&str]) -> Value {
    let document = document(arguments);
    document["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|record| record["metric"] == "time")
        .unwrap()
        .clone()
}

/// True unless this kernel's THP setting is `never` (then madvise grants nothing).
fn thp_possible() -> bool {
    std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        .is_ok_and(|setting| !setting.contains("[never]"))
}

/// What every record with huge pages asked for must say.
fn assert_huge_pages_recorded(record: &Value, what: &str) {
    let params = &record["params"];
    assert_eq!(params["hugepages"], true, "{what}");
    assert_eq!(params["verification"]["passed"], true, "{what}");
    let verified = &record["placement"]["verified"];
    let huge = &verified["huge_pages"];
    let source = huge["source"].as_str().unwrap();
    assert!(
        ["thp", "hugetlbfs", "mixed"].contains(&source),
        "{what}: {huge}"
    );
    let resident = huge["resident_bytes"].as_u64().unwrap();
    let huge_bytes = huge["huge_bytes"].as_u64().unwrap();
    let fraction = huge["fraction"].as_f64().unwrap();
    assert!(resident > 0, "{what}: {huge}");
    assert!(huge_bytes <= resident, "{what}: {huge}");
    assert!((0.0..=1.0).contains(&fraction), "{what}: {huge}");
    if fraction < 0.9 {
        assert_eq!(verified["achieved"], false, "{what}: too few huge pages");
    }
    // Counted where page flags are readable (root), else unknown: never a made-up zero.
    assert!(
        params["huge_pages_migrated"].is_u64() || params["huge_pages_migrated"].is_null(),
        "{what}"
    );
}

#[test]
fn stream_gets_huge_pages_under_every_placement_scheme() {
    for &placement in STREAM_PLACEMENTS {
        let record = time_record(&[
            "stream",
            "--size",
            "16MiB",
            "--repeat",
            "1",
            "--iterations",
            "3",
            "--placement",
            placement,
            "--hugepages",
        ]);
        assert_huge_pages_recorded(&record, placement);
        let huge = &record["placement"]["verified"]["huge_pages"];
        if thp_possible() {
            // 16 MiB arrays: THP (madvise) or a pool backs most of them.
            assert!(
                huge["huge_bytes"].as_u64().unwrap() > 0,
                "{placement}: {huge}"
            );
        }
    }
}

#[test]
fn cg_and_mg_get_huge_pages_under_first_touch_and_serial_migrate() {
    for kernel in ["cg", "mg"] {
        for placement in ["first-touch", "serial+migrate", "next-touch"] {
            let record = time_record(&[
                kernel,
                "--class",
                "S",
                "--repeat",
                "1",
                "--placement",
                placement,
                "--hugepages",
            ]);
            assert_huge_pages_recorded(&record, &format!("{kernel} {placement}"));
        }
    }
}

#[test]
fn the_placement_study_passes_hugepages_to_every_run() {
    let document = document(&cg_study(
        "first-touch,serial+migrate",
        &["--threads-placements", "compact", "--hugepages"],
    ));
    let times: Vec<&Value> = document["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|record| record["metric"] == "time")
        .collect();
    assert_eq!(times.len(), 2);
    for time in times {
        assert_huge_pages_recorded(time, "placement-study");
    }
}

/// Without `--hugepages` nothing about huge pages is claimed.
#[test]
fn without_hugepages_records_claim_none() {
    let record = time_record(&["cg", "--class", "S", "--repeat", "1"]);
    assert_eq!(record["params"]["hugepages"], false);
    assert!(record["params"]["huge_pages_migrated"].is_null());
    assert!(record["placement"]["verified"]["huge_pages"].is_null());
}

/// `migration_cost_seconds` is the first iteration minus the median of the
/// others, in every app record (the median run's iterations).
#[test]
fn every_app_record_gives_the_first_iteration_cost() {
    let document = document(&[
        "stream",
        "--size",
        "4MiB",
        "--repeat",
        "1",
        "--iterations",
        "4",
        "--placement",
        "serial+migrate",
    ]);
    for record in document["records"].as_array().unwrap() {
        let params = &record["params"];
        let iterations: Vec<f64> = params["iteration_seconds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|value| value.as_f64().unwrap())
            .collect();
        let mut rest = iterations[1..].to_vec();
        rest.sort_by(f64::total_cmp);
        let expected = iterations[0] - rest[1];
        let cost = params["migration_cost_seconds"].as_f64().unwrap();
        assert!((cost - expected).abs() < 1e-12, "{cost} vs {expected}");
    }
}
