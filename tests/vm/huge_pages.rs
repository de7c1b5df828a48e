//! `--hugepages` for the application kernels in the two_sockets VM (node 0
//! = CPUs 0-1, node 1 = CPUs 2-3): through transparent huge pages, then
//! from hugetlbfs pools reserved on both nodes. With the workers scattered
//! over the two nodes, serial+migrate moves worker 1's half of STREAM's
//! arrays to node 1 as whole huge pages; first-touch places them where
//! they are computed on; CG and MG (class S) run on pool pages under both
//! schemes.

use super::applications::{node_share, pages, time_record};
use super::boot::Part;
use super::placement_checks::huge_page_check;
use super::records::app_run_params;
use super::{verified, FIRST_EXTRA_COMMAND};
use numabench_schema::{HugePageCheck, Record};

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
fn huge(run: &super::harness::VmRun, i: usize, benchmark: &str) -> (Record, HugePageCheck) {
    let time = time_record(run, i, benchmark);
    let check = huge_page_check(run, &time);
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
        let params = app_run_params(&time);
        eprintln!(
            "huge pages: command {k} {benchmark} {:?}: {check:?}, achieved {}, fraction {}, huge_pages_migrated {:?}, pages after run {:?}",
            params.configuration.scheme.placement,
            v.achieved,
            v.fraction,
            params.huge_pages_migrated,
            params.pages_after_run.as_ref().map(|pages| &pages.pages_per_node)
        );
    }
    for (k, source, benchmark) in cases {
        let (time, check) = huge(&run, i + k, benchmark);
        let params = app_run_params(&time);
        assert_eq!(params.hugepages, Some(true), "{params:?}");
        assert_eq!(
            check.source,
            source,
            "command {k}: {time:?}\n{}",
            run.transcript()
        );
        assert!(
            check.fraction >= 0.9,
            "command {k}: {check:?}\n{}",
            run.transcript()
        );
    }
    for k in [0, 2] {
        let params = app_run_params(&time_record(&run, i + k, "stream"));
        let moved = params.huge_pages_migrated.unwrap_or_else(|| {
            panic!(
                "command {k}: huge_pages_migrated: {params:?}\n{}",
                run.transcript()
            )
        });
        assert!(
            moved >= 6,
            "command {k}: {moved} huge pages moved: {params:?}"
        );
        let share = node_share(pages(&params, &params.pages_after_run), 1);
        assert!(
            share >= 0.4,
            "command {k}: {share} of the pages on node 1 after the run: {params:?}"
        );
    }
    for k in [1, 3] {
        let params = app_run_params(&time_record(&run, i + k, "stream"));
        let placed = pages(&params, &params.pages_after_placement);
        let share = node_share(placed, 1);
        assert!(
            (0.4..=0.6).contains(&share),
            "command {k}: {share} of the pages on node 1 after first touch: {params:?}"
        );
        let remote = placed.remote_share.unwrap_or(1.0);
        assert!(
            remote < 0.01,
            "command {k}: remote share {remote} after first touch: {params:?}"
        );
    }
}
