//! `--hugepages` for the application kernels in the two_sockets VM (node 0
//! = CPUs 0-1, node 1 = CPUs 2-3): through transparent huge pages, then
//! from hugetlbfs pools reserved on both nodes. With the workers scattered
//! over the two nodes, serial+migrate moves worker 1's half of STREAM's
//! arrays to node 1 as whole huge pages; first-touch places them where
//! they are computed on; CG and MG (class S) run on pool pages under both
//! schemes.

use super::boot::Part;
use super::{app_time, records, verified, FIRST_EXTRA_COMMAND};
use serde_json::Value;

const STREAM: &str = "numabench stream --size 8M --iterations 2 --repeat 1 --threads 2 --threads-placement scatter --hugepages --json";
const POOL: &str = "for n in 0 1; do echo 40 > /sys/devices/system/node/node$n/hugepages/hugepages-2048kB/nr_hugepages; done";

fn commands() -> Vec<String> {
    vec![
        format!("echo madvise > /sys/kernel/mm/transparent_hugepage/enabled && {STREAM} --placement serial+migrate"),
        format!("{STREAM} --placement first-touch"),
        format!("{POOL} && {STREAM} --placement serial+migrate"),
        format!("{STREAM} --placement first-touch"),
        "numabench cg --class S --repeat 1 --threads 2 --threads-placement scatter --hugepages --placement serial+migrate --json".into(),
        "numabench mg --class S --repeat 1 --threads 2 --threads-placement scatter --hugepages --placement first-touch --json".into(),
    ]
}

/// The huge-page check of an app's time record: its source and fraction.
fn huge(run: &super::harness::VmRun, i: usize, benchmark: &str) -> (Value, Value) {
    let time = records(run, i, benchmark)
        .into_iter()
        .find(|r| r["metric"] == "time")
        .expect("a time record");
    let check = time["placement"]["verified"]["huge_pages"].clone();
    (time, check)
}

/// This test's part of the two-socket boot.
pub fn part() -> Part {
    Part {
        commands: commands(),
        ..Part::new("huge_pages", &[], 600)
    }
}

#[test]
fn two_sockets_app_huge_pages_thp_and_pool() {
    let run = super::two_sockets::boot().part("huge_pages");
    let i = FIRST_EXTRA_COMMAND;
    let cases = [
        (0, "thp", "stream"),
        (1, "thp", "stream"),
        (2, "hugetlbfs", "stream"),
        (3, "hugetlbfs", "stream"),
        (4, "hugetlbfs", "cg"),
        (5, "hugetlbfs", "mg"),
    ];
    for (k, _, benchmark) in cases {
        let (time, check) = huge(&run, i + k, benchmark);
        let v = verified(&run, i + k, &time);
        eprintln!(
            "huge pages: command {k} {benchmark} {}: {check}, achieved {}, fraction {}, huge_pages_migrated {}, pages after run {}",
            time["params"]["placement"], v.achieved, time["placement"]["verified"]["fraction"],
            time["params"]["huge_pages_migrated"], time["params"]["pages_after_run"]["pages_per_node"]
        );
    }
    for (k, source, benchmark) in cases {
        let params = app_time(&run, i + k, benchmark);
        assert_eq!(params["hugepages"], true, "{params}");
        let (time, check) = huge(&run, i + k, benchmark);
        assert_eq!(
            check["source"],
            source,
            "command {k}: {time}\n{}",
            run.transcript()
        );
        assert!(
            check["fraction"].as_f64().unwrap() >= 0.9,
            "command {k}: {check}\n{}",
            run.transcript()
        );
    }
    // serial+migrate: worker 1's half moved to node 1 as whole huge pages.
    for k in [0, 2] {
        let params = app_time(&run, i + k, "stream");
        let moved = params["huge_pages_migrated"].as_u64().unwrap_or_else(|| {
            panic!(
                "command {k}: huge_pages_migrated: {params}\n{}",
                run.transcript()
            )
        });
        // Three arrays of 8 MiB, half of each computed on node 1: 6 huge pages.
        assert!(
            moved >= 6,
            "command {k}: {moved} huge pages moved: {params}"
        );
        let share = super::applications::node_share(&params["pages_after_run"], "1");
        assert!(
            share >= 0.4,
            "command {k}: {share} of the pages on node 1 after the run: {params}"
        );
    }
    // first-touch: each whole huge page on the node of the worker whose
    // block it begins in; STREAM's 8 MiB arrays split on a 2 MiB boundary,
    // so nothing is remote.
    for k in [1, 3] {
        let params = app_time(&run, i + k, "stream");
        let placed = &params["pages_after_placement"];
        let share = super::applications::node_share(placed, "1");
        assert!(
            (0.4..=0.6).contains(&share),
            "command {k}: {share} of the pages on node 1 after first touch: {params}"
        );
        let remote = placed["remote_share"].as_f64().unwrap_or(1.0);
        assert!(
            remote < 0.01,
            "command {k}: remote share {remote} after first touch: {params}"
        );
    }
}
