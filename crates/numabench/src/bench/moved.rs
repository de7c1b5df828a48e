//! Pages that moved while a measurement ran. A placement is checked once
//! its buffer is touched, before the timed runs; the kernel may then move
//! pages under the measurement (demotion to a slower memory tier,
//! promotion, NUMA balancing). A [`MoveWatch`] started before the timed
//! runs reads the kernel's page-movement counters; when they grew, the
//! buffer is checked again after the runs and the check notes where its
//! pages went ([`PlacementCheck::moved`]), so the record says that the
//! figure measured a placement that changed under it. When nothing moved
//! anywhere (the usual case) nothing is read twice.

use super::BenchError;
use crate::counters::vmstat::{read_vmstat, vmstat_delta, Vmstat};
use crate::memory::PlacementCheck;
use numabench_schema::MovedPages;

/// The counters that grow when the kernel moves a page between nodes.
fn counts_movement(name: &str) -> bool {
    name.starts_with("pgdemote_")
        || name == "pgpromote_success"
        || name == "pgmigrate_success"
        || name == "numa_pages_migrated"
}

/// The page-movement counters when a measurement's timed runs began.
#[derive(Debug, Clone)]
pub struct MoveWatch {
    before: Option<Vmstat>,
}

impl MoveWatch {
    /// Reads the counters now (nothing on a one-node machine, where pages
    /// have nowhere to move).
    pub fn start() -> Self {
        Self {
            before: read_vmstat(),
        }
    }

    /// Whether the kernel moved any page since the watch started
    /// (system-wide: maybe another process's).
    pub fn saw_movement(&self) -> bool {
        let Some(before) = &self.before else {
            return false;
        };
        read_vmstat().is_some_and(|after| moved(before, &after))
    }
}

fn moved(before: &Vmstat, after: &Vmstat) -> bool {
    vmstat_delta(before, after)
        .keys()
        .any(|name| counts_movement(name))
}

/// After the timed runs: when the kernel moved pages since `watch`
/// started, checks the buffer again (`recheck`) and notes in `check` the
/// pages that left their node, where they are now, and whether what is
/// left still passes (`achieved`).
pub fn note_moved(
    watch: &MoveWatch,
    check: &mut PlacementCheck,
    recheck: impl FnOnce() -> Result<PlacementCheck, BenchError>,
) -> Result<(), BenchError> {
    if !watch.saw_movement() {
        return Ok(());
    }
    apply(check, &recheck()?);
    Ok(())
}

/// Notes in `check` what moved by `after`, a check of the same buffer.
fn apply(check: &mut PlacementCheck, after: &PlacementCheck) {
    if let Some(moved) = MovedPages::between(
        &check.pages_per_node,
        &after.pages_per_node,
        after.fraction_as_requested,
    ) {
        check.achieved &= after.achieved;
        check.moved = Some(moved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn check(per_node: &[(u32, u64)], fraction: f64) -> PlacementCheck {
        let pages_per_node: BTreeMap<u32, u64> = per_node.iter().copied().collect();
        PlacementCheck {
            pages: pages_per_node.values().sum(),
            pages_per_node,
            fraction_as_requested: fraction,
            achieved: fraction >= 0.9,
            huge_pages: None,
            moved: None,
        }
    }

    #[test]
    fn demoted_pages_are_noted_and_the_placement_no_longer_holds() {
        let mut before = check(&[(0, 100)], 1.0);
        apply(&mut before, &check(&[(0, 30), (2, 70)], 0.3));
        let moved = before.moved.as_ref().unwrap();
        assert_eq!(moved.pages, 70);
        assert_eq!(moved.pages_per_node[&2], 70);
        assert!(!before.achieved);
        // What was checked stays: the pages when the timed runs began.
        assert_eq!(before.pages_per_node[&0], 100);
    }

    #[test]
    fn a_few_moved_pages_are_noted_but_the_placement_still_holds() {
        let mut before = check(&[(0, 100)], 1.0);
        apply(&mut before, &check(&[(0, 95), (2, 5)], 0.95));
        assert_eq!(before.moved.as_ref().unwrap().pages, 5);
        assert!(before.achieved);
        let mut still = check(&[(0, 100)], 1.0);
        apply(&mut still, &check(&[(0, 100)], 1.0));
        assert!(still.moved.is_none());
    }

    #[test]
    fn only_the_counters_of_moved_pages_count() {
        let counters = |pairs: &[(&str, u64)]| -> Vmstat {
            pairs
                .iter()
                .map(|(name, value)| (name.to_string(), *value))
                .collect()
        };
        let before = counters(&[
            ("numa_hit", 1),
            ("pgdemote_direct", 0),
            ("pgmigrate_success", 0),
        ]);
        assert!(!moved(
            &before,
            &counters(&[
                ("numa_hit", 900),
                ("pgdemote_direct", 0),
                ("pgmigrate_success", 0)
            ])
        ));
        assert!(moved(
            &before,
            &counters(&[
                ("numa_hit", 1),
                ("pgdemote_direct", 16),
                ("pgmigrate_success", 0)
            ])
        ));
        assert!(moved(
            &before,
            &counters(&[
                ("numa_hit", 1),
                ("pgdemote_direct", 0),
                ("pgmigrate_success", 3)
            ])
        ));
    }
}
