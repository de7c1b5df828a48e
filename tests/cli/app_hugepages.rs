//! `--hugepages` for the application kernels: the arrays get huge pages
//! under every placement scheme, the records say so and how much they got
//! (`placement.verified.huge_pages`, as for the micro-benchmarks), how many
//! pages moved as huge pages, and the first iteration's extra cost.

use super::apps::{cg_study, STREAM_PLACEMENTS};
use super::records::params_of;
use super::{typed_records, verified};
use numabench_schema::params::AppParams;
use numabench_schema::{HugePageCheck, Record};

/// The `time` record of an app run.
fn time_record(arguments: &[&str]) -> Record {
    typed_records(arguments)
        .into_iter()
        .find(|record| record.metric == "time")
        .unwrap()
}

/// The huge-page coverage a record's placement check found, if any.
fn huge_pages(record: &Record) -> Option<&HugePageCheck> {
    record.placement.verified.as_ref()?.huge_pages.as_ref()
}

/// True unless this kernel's THP setting is `never` (then madvise grants nothing).
fn thp_possible() -> bool {
    std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        .is_ok_and(|setting| !setting.contains("[never]"))
}

/// What every record with huge pages asked for must say.
fn assert_huge_pages_recorded(record: &Record, what: &str) {
    // Read strictly: `huge_pages_migrated` is a count or null, never
    // another type.
    let params = params_of::<AppParams>(record).run;
    assert_eq!(params.hugepages, Some(true), "{what}");
    assert_eq!(
        params.verification.as_ref().map(|v| v.passed),
        Some(true),
        "{what}"
    );
    let verified = verified(record);
    let huge = verified
        .huge_pages
        .as_ref()
        .unwrap_or_else(|| panic!("{what}: no huge_pages: {record:?}"));
    let source = huge.source.as_str();
    assert!(
        ["thp", "hugetlbfs", "mixed"].contains(&source),
        "{what}: {huge:?}"
    );
    let resident = huge.resident_bytes;
    let huge_bytes = huge.huge_bytes;
    let fraction = huge.fraction;
    assert!(resident > 0, "{what}: {huge:?}");
    assert!(huge_bytes <= resident, "{what}: {huge:?}");
    assert!((0.0..=1.0).contains(&fraction), "{what}: {huge:?}");
    if fraction < 0.9 {
        assert!(!verified.achieved, "{what}: too few huge pages");
    }
    // Counted where page flags are readable (root), else unknown (null):
    // never a made-up zero.
    if let Some(moved) = params.huge_pages_migrated {
        eprintln!("{what}: {moved} huge pages migrated");
    }
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
        let huge = huge_pages(&record).unwrap();
        if thp_possible() {
            // 16 MiB arrays: THP (madvise) or a pool backs most of them.
            assert!(huge.huge_bytes > 0, "{placement}: {huge:?}");
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
    let records = typed_records(&cg_study(
        "first-touch,serial+migrate",
        &["--threads-placements", "compact", "--hugepages"],
    ));
    let times: Vec<&Record> = records
        .iter()
        .filter(|record| record.metric == "time")
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
    let params = params_of::<AppParams>(&record).run;
    assert_eq!(params.hugepages, Some(false), "{record:?}");
    assert!(params.huge_pages_migrated.is_none(), "{record:?}");
    assert!(huge_pages(&record).is_none(), "{record:?}");
}

/// `migration_cost_seconds` is the first iteration minus the median of the
/// others, in every app record (the median run's iterations).
#[test]
fn every_app_record_gives_the_first_iteration_cost() {
    let records = typed_records(&[
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
    for record in &records {
        let params = params_of::<AppParams>(record).run;
        let iterations = params.iteration_seconds.expect("iteration_seconds");
        let mut rest = iterations[1..].to_vec();
        rest.sort_by(f64::total_cmp);
        let expected = iterations[0] - rest[1];
        let cost = params
            .migration_cost_seconds
            .expect("migration_cost_seconds");
        assert!((cost - expected).abs() < 1e-12, "{cost} vs {expected}");
    }
}
