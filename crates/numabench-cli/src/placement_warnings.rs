//! Warnings on stderr for results whose placement was not achieved. The
//! library never prints: whether pages landed where asked travels with
//! each record (`placement.verified`), and this observer, added to the
//! output pipeline, tells the user.

use numabench::output::{PlacementStatus, Record, RunMetadata, Sink};
use std::io::{self, Write};

/// A sink that writes one warning line per record whose placement was
/// checked and not achieved. Consecutive records of one measurement (the
/// same benchmark and placement, for example `latency` in ns then cycles)
/// warn once.
pub struct PlacementWarnings<W: Write> {
    out: W,
    last: Option<String>,
}

impl<W: Write> PlacementWarnings<W> {
    pub fn new(out: W) -> Self {
        Self { out, last: None }
    }
}

/// The warning for `record`, or `None` when its placement was achieved or
/// not checked. A check that saw no page says the placement could not be
/// verified, with the reason, rather than that it was not achieved.
pub fn placement_warning(record: &Record) -> Option<String> {
    let check = record.placement.verified.as_ref()?;
    let memory = match record
        .placement
        .requested_as()
        .and_then(|requested| requested.memory)
    {
        Some(memory) => match serde_json::to_value(memory) {
            Ok(serde_json::Value::String(text)) => text,
            Ok(other) => other.to_string(),
            Err(_) => String::new(),
        },
        None => "as requested".into(),
    };
    let moved = check.moved.as_ref().map(|moved| {
        format!(
            "{} of its {} pages moved while it was measured (pages per node afterwards: {})",
            moved.pages,
            check.pages,
            per_node_text(&moved.pages_per_node)
        )
    });
    match check.status() {
        PlacementStatus::Verified => {
            return moved.map(|moved| {
                format!(
                    "numabench: warning: {}: placement {memory}: {moved}",
                    record.benchmark
                )
            })
        }
        PlacementStatus::Unverifiable(reason) => {
            return Some(format!(
                "numabench: warning: {}: placement {memory} could not be verified: {reason}",
                record.benchmark
            ))
        }
        PlacementStatus::Misplaced(_) => {}
    }
    let mut line = format!(
        "numabench: warning: {}: placement {memory} not achieved: {:.1}% of {} pages placed as requested (pages per node: {})",
        record.benchmark,
        check.fraction_as_requested * 100.0,
        check.pages,
        per_node_text(&check.pages_per_node)
    );
    if let Some(huge) = &check.huge_pages {
        line.push_str(&format!(
            "; {:.1}% on huge pages ({})",
            huge.fraction * 100.0,
            huge.source
        ));
    }
    if let Some(moved) = moved {
        line.push_str(&format!("; then {moved}"));
    }
    Some(line)
}

/// `node 0: 12, node 2: 4`.
fn per_node_text(pages_per_node: &std::collections::BTreeMap<u32, u64>) -> String {
    let per_node: Vec<String> = pages_per_node
        .iter()
        .map(|(node, pages)| format!("node {node}: {pages}"))
        .collect();
    per_node.join(", ")
}

/// The warning for a record during whose measurement the kernel demoted
/// or promoted pages (`params.vmstat_delta`): they moved between memory
/// tiers, maybe this run's own.
pub fn movement_warning(record: &Record) -> Option<String> {
    let delta = record.params.get("vmstat_delta")?.as_object()?;
    let counted = |wanted: &dyn Fn(&str) -> bool| -> u64 {
        delta
            .iter()
            .filter(|(name, _)| wanted(name))
            .filter_map(|(_, value)| value.as_u64())
            .sum()
    };
    let demoted = counted(&|name| name.starts_with("pgdemote_"));
    let promoted = counted(&|name| name == "pgpromote_success");
    (demoted + promoted > 0).then(|| {
        format!(
            "numabench: warning: {}: the kernel demoted {demoted} and promoted {promoted} pages between memory tiers while it ran (/proc/vmstat, system-wide): its pages may have left the placement asked for",
            record.benchmark
        )
    })
}

impl<W: Write> Sink for PlacementWarnings<W> {
    fn begin(&mut self, _metadata: &RunMetadata) -> io::Result<()> {
        Ok(())
    }

    fn record(&mut self, record: &Record) -> io::Result<()> {
        if let Some(moved) = movement_warning(record) {
            writeln!(self.out, "{moved}")?;
            self.out.flush()?;
        }
        let warning = placement_warning(record);
        if warning.is_some() && warning != self.last {
            writeln!(self.out, "{}", warning.as_deref().unwrap_or_default())?;
            self.out.flush()?;
        }
        self.last = warning;
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use numabench::output::{Pipeline, Placement, PlacementCheck, Unit};
    use numabench::stats::Sample;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// A writer the test reads while the sink holds it.
    #[derive(Clone, Default)]
    struct Shared(Rc<RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn record(metric: &str, achieved: Option<bool>) -> Record {
        let mut requested = serde_json::Map::new();
        requested.insert("memory".into(), "interleave:0-1".into());
        Record {
            benchmark: "bandwidth".into(),
            metric: metric.into(),
            value: 1.0,
            unit: Unit::GigabytesPerSecond,
            params: serde_json::Map::new(),
            placement: Placement {
                requested,
                verified: achieved.map(|achieved| PlacementCheck {
                    moved: None,
                    pages: 100,
                    pages_per_node: [(0, 100)].into_iter().collect(),
                    fraction_as_requested: 0.5,
                    achieved,
                    huge_pages: None,
                }),
            },
            stats: Sample::new([1.0]).unwrap().summary(),
        }
    }

    fn metadata() -> RunMetadata {
        RunMetadata::example()
    }

    /// Through the pipeline, as the command uses it: a record whose
    /// placement was not achieved warns (once for the records of one
    /// measurement); achieved or unchecked ones do not.
    #[test]
    fn a_placement_not_achieved_is_warned_about_once() {
        let out = Shared::default();
        let mut pipeline = Pipeline::with_sinks(Vec::new(), &metadata()).unwrap();
        pipeline
            .add_sink(Box::new(PlacementWarnings::new(out.clone())), &metadata())
            .unwrap();
        for record in [
            record("copy_bandwidth", Some(true)),
            record("copy_bandwidth", None),
            record("copy_bandwidth", Some(false)),
            record("copy_bandwidth_again", Some(false)),
        ] {
            pipeline.emit(&record).unwrap();
        }
        let text = String::from_utf8(out.0.borrow().clone()).unwrap();
        assert_eq!(
            text,
            "numabench: warning: bandwidth: placement interleave:0-1 not achieved: 50.0% of 100 pages placed as requested (pages per node: node 0: 100)\n"
        );
    }

    /// Structural: a check that saw every page not present warns that the
    /// placement could not be verified, with the reason; before, it read
    /// "not achieved: 0.0% of 100 pages".
    #[test]
    fn an_unverifiable_placement_is_not_called_not_achieved() {
        let mut unseen = record("copy_bandwidth", Some(false));
        if let Some(check) = unseen.placement.verified.as_mut() {
            check.pages_per_node.clear();
            check.fraction_as_requested = 0.0;
        }
        assert_eq!(
            placement_warning(&unseen).unwrap(),
            "numabench: warning: bandwidth: placement interleave:0-1 could not be verified: all 100 pages not present when read"
        );
    }
}

#[cfg(test)]
mod movement_tests {
    use super::*;
    use numabench::output::{Placement, Unit};
    use numabench::stats::Sample;

    fn with_delta(delta: serde_json::Value) -> Record {
        let mut params = serde_json::Map::new();
        params.insert("vmstat_delta".into(), delta);
        Record {
            benchmark: "latency".into(),
            metric: "latency".into(),
            value: 1.0,
            unit: Unit::Nanoseconds,
            params,
            placement: Placement::default(),
            stats: Sample::new([1.0]).unwrap().summary(),
        }
    }

    /// Pages demoted or promoted during a measurement are named; numa_*
    /// allocation counts and promotion candidates alone are not moves.
    #[test]
    fn pages_moved_between_tiers_are_warned_about() {
        let moved = with_delta(serde_json::json!({
            "pgdemote_kswapd": 120, "pgdemote_direct": 2, "pgpromote_success": 3, "numa_hit": 500
        }));
        assert_eq!(
            movement_warning(&moved).unwrap(),
            "numabench: warning: latency: the kernel demoted 122 and promoted 3 pages between memory tiers while it ran (/proc/vmstat, system-wide): its pages may have left the placement asked for"
        );
        let quiet = with_delta(serde_json::json!({"numa_hit": 500, "pgpromote_candidate": 4}));
        assert_eq!(movement_warning(&quiet), None);
    }

    /// The run's own pages that moved while it was measured are named, with
    /// where they went, whether the placement still holds or not.
    #[test]
    fn the_runs_own_moved_pages_are_named() {
        use numabench::output::{MovedPages, PlacementCheck};
        let mut requested = serde_json::Map::new();
        requested.insert("memory".into(), "bind:0".into());
        let mut record = with_delta(serde_json::json!({"pgdemote_direct": 70}));
        let check = |achieved: bool, moved: u64| PlacementCheck {
            pages: 100,
            pages_per_node: [(0, 100)].into_iter().collect(),
            fraction_as_requested: 1.0,
            achieved,
            huge_pages: None,
            moved: Some(MovedPages {
                pages: moved,
                pages_per_node: [(0, 100 - moved), (2, moved)].into_iter().collect(),
                fraction_as_requested: (100 - moved) as f64 / 100.0,
            }),
        };
        record.placement = Placement {
            requested,
            verified: Some(check(false, 70)),
        };
        assert_eq!(
            placement_warning(&record).unwrap(),
            "numabench: warning: latency: placement bind:0 not achieved: 100.0% of 100 pages placed as requested (pages per node: node 0: 100); then 70 of its 100 pages moved while it was measured (pages per node afterwards: node 0: 30, node 2: 70)"
        );
        record.placement.verified = Some(check(true, 2));
        assert_eq!(
            placement_warning(&record).unwrap(),
            "numabench: warning: latency: placement bind:0: 2 of its 100 pages moved while it was measured (pages per node afterwards: node 0: 98, node 2: 2)"
        );
    }
}
