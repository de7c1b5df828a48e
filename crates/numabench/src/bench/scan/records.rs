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
use numabench_schema::params::{to_params, ScanNodeParams, ScanNodeRangesParams, ScanRangeParams};
use numabench_schema::RequestedPlacement;
use numabench_schema::Summary;

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
    fn params(&self) -> ScanNodeParams {
        ScanNodeParams {
            node: Some(self.node.node),
            threads: Some(self.node.cpus.len() as u64),
            rounds: Some(self.config.rounds as u64),
            range_size_bytes: Some(self.config.range_size),
            kernel: Some("read".into()),
            simd: Some(self.level.name().to_string()),
        }
    }

    /// The placement asked (the node's CPUs, memory bound to it) and found.
    fn placement(&self) -> Placement {
        let requested = to_params(
            &self
                .placed
                .placement
                .requested_on(RequestedPlacement::on_cpus(&self.node.cpus)),
        );
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
    let params = to_params(&ScanRangeParams {
        node: scan.params(),
        range: Some(range_text(range)),
        range_start: Some(range.start),
        range_end: Some(range.end),
        bytes: Some(range.bytes()),
        pages: Some(range.pages),
        passes: Some(super::read::passes_for(range.bytes())),
        samples_gbs: Some(sample.values().to_vec()),
        node_median_gbs: Some(node_median),
        deficit: Some(judged.deficit),
        p_value: Some(judged.p_value),
        slow: Some(judged.slow),
    });
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
    let measured: u64 = kept.iter().map(|(range, _)| range.bytes()).sum();
    let slow: Vec<String> = verdict
        .slow()
        .into_iter()
        .map(|index| range_text(&kept[index].0))
        .collect();
    let params = to_params(&ScanNodeRangesParams {
        node: scan.params(),
        ranges: Some(kept.len() as u64),
        ranges_below_minimum: Some(scan.ranges_below_minimum as u64),
        bytes_below_minimum: Some(scan.bytes_below_minimum),
        min_range_bytes: Some(scan.config.min_range_bytes),
        size_bytes: Some(scan.placed.buffer.len() as u64),
        bytes_measured: Some(measured),
        node_bytes: Some(scan.node.node_bytes),
        coverage: Some(measured as f64 / scan.node.node_bytes.max(1) as f64),
        pages_without_frame: Some(scan.pages_without_frame),
        huge_page_fraction: scan.huge.map(|huge| huge.fraction),
        slow_deficit: Some(SLOW_DEFICIT),
        significance: Some(SIGNIFICANCE),
        slow_ranges: Some(slow),
    });
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
