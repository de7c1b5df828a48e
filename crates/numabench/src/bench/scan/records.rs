//! scan's records: one `range_bandwidth` per measured range, one
//! `node_ranges` per node (its ranges' spread and how much of the node was
//! covered), one `slow_range` per range the findings name.

use super::config::{ScanConfig, ScanNode};
use super::findings::{NodeVerdict, RangeVerdict, SLOW_DEFICIT};
use super::ranges::PhysicalRange;
use crate::bench::placed::PlacedBuffer;
use crate::kernels::SimdLevel;
use crate::memory::{HugePageCheck, PlacementCheck};
use crate::output::{Placement, Record, Unit};
use crate::stats::Sample;
use crate::study::SIGNIFICANCE;
use numabench_schema::benchmark;
use numabench_schema::Summary;
use serde_json::{json, Map, Value};

/// What a node's records share.
pub struct NodeScan<'a> {
    pub node: &'a ScanNode,
    pub config: &'a ScanConfig,
    pub placed: &'a PlacedBuffer,
    pub check: &'a PlacementCheck,
    pub huge: Option<&'a HugePageCheck>,
    pub level: SimdLevel,
    pub pages_without_frame: u64,
    pub ranges_below_minimum: usize,
    pub bytes_below_minimum: u64,
}

impl NodeScan<'_> {
    /// The params every record of the node carries.
    fn params(&self) -> Map<String, Value> {
        let mut params = Map::new();
        params.insert("node".into(), json!(self.node.node));
        params.insert("threads".into(), json!(self.node.cpus.len()));
        params.insert("rounds".into(), json!(self.config.rounds));
        params.insert("range_size_bytes".into(), json!(self.config.range_size));
        params.insert("kernel".into(), json!("read"));
        params.insert("simd".into(), json!(self.level.name()));
        params
    }

    /// The placement asked (the node's CPUs, memory bound to it) and found.
    fn placement(&self) -> Placement {
        let mut requested = Map::new();
        requested.insert("cpus".into(), json!(self.node.cpus));
        self.placed.placement.insert_requested(&mut requested);
        Placement {
            requested,
            verified: Some(self.check.clone()),
        }
    }
}

/// `0x40000000-0x7fffffff`: a range's physical addresses, inclusive.
pub fn range_text(range: &PhysicalRange) -> String {
    format!("{:#x}-{:#x}", range.start, range.end - 1)
}

/// One range: the median GB/s of its rounds, every round in `stats`.
pub fn range_record(
    scan: &NodeScan,
    range: &PhysicalRange,
    sample: &Sample,
    judged: &RangeVerdict,
    node_median: f64,
) -> Record {
    let mut params = scan.params();
    params.insert("range".into(), json!(range_text(range)));
    params.insert("range_start".into(), json!(range.start));
    params.insert("range_end".into(), json!(range.end));
    params.insert("bytes".into(), json!(range.bytes()));
    params.insert("pages".into(), json!(range.pages));
    params.insert(
        "passes".into(),
        json!(super::read::passes_for(range.bytes())),
    );
    params.insert("samples_gbs".into(), json!(sample.values()));
    params.insert("node_median_gbs".into(), json!(node_median));
    params.insert("deficit".into(), json!(judged.deficit));
    params.insert("p_value".into(), json!(judged.p_value));
    params.insert("slow".into(), json!(judged.slow));
    Record::of_median(
        benchmark::SCAN,
        "range_bandwidth",
        Unit::GigabytesPerSecond,
        sample.summary(),
        params,
        scan.placement(),
    )
}

/// One node: the median of its ranges' medians, their spread, the share
/// of the node covered, the slow ranges named.
pub fn node_record(
    scan: &NodeScan,
    kept: &[(PhysicalRange, Sample)],
    verdict: &NodeVerdict,
) -> Record {
    let mut params = scan.params();
    let measured: u64 = kept.iter().map(|(range, _)| range.bytes()).sum();
    params.insert("ranges".into(), json!(kept.len()));
    params.insert(
        "ranges_below_minimum".into(),
        json!(scan.ranges_below_minimum),
    );
    params.insert(
        "bytes_below_minimum".into(),
        json!(scan.bytes_below_minimum),
    );
    params.insert("min_range_bytes".into(), json!(scan.config.min_range_bytes));
    params.insert("size_bytes".into(), json!(scan.placed.buffer.len()));
    params.insert("bytes_measured".into(), json!(measured));
    params.insert("node_bytes".into(), json!(scan.node.node_bytes));
    params.insert(
        "coverage".into(),
        json!(measured as f64 / scan.node.node_bytes.max(1) as f64),
    );
    params.insert(
        "pages_without_frame".into(),
        json!(scan.pages_without_frame),
    );
    if let Some(huge) = scan.huge {
        params.insert("huge_page_fraction".into(), json!(huge.fraction));
    }
    params.insert("slow_deficit".into(), json!(SLOW_DEFICIT));
    params.insert("significance".into(), json!(SIGNIFICANCE));
    let slow: Vec<String> = verdict
        .slow()
        .into_iter()
        .map(|index| range_text(&kept[index].0))
        .collect();
    params.insert("slow_ranges".into(), json!(slow));
    let stats = Sample::new(verdict.ranges.iter().map(|judged| judged.median))
        .map_or(Summary::single(0.0), |medians| medians.summary());
    Record::of_median(
        benchmark::SCAN,
        "node_ranges",
        Unit::GigabytesPerSecond,
        stats,
        params,
        scan.placement(),
    )
}

/// A slow range, the finding: its [`range_record`] filed as `slow_range`.
pub fn slow_record(range_record: &Record) -> Record {
    Record {
        metric: "slow_range".into(),
        ..range_record.clone()
    }
}
