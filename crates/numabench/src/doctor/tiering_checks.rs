//! Checks of the kernel's memory tiering (CXL, HBM, DRAM): which nodes it
//! put in which memory tier against what the firmware declares of them,
//! whether it demotes, and the weighted-interleave weights.
//!
//! A memory tier is the kernel's class of equally fast nodes (Linux 6.1+,
//! `/sys/devices/virtual/memory_tiering/memory_tierN/nodelist`, lower N
//! faster). Pages are demoted to a slower tier and promoted from it only
//! across tiers: a slow CXL node the kernel put in DRAM's tier (no
//! HMAT/CDAT figures, as in skhynix/hmsdk#2) is treated as DRAM.

use super::finding::{Finding, Severity};
use super::system_files::SystemFiles;
use super::CheckId;
use crate::parse::{format_id_list, parse_id_list};
use crate::topology::Machine;

const TIERS: &str = "/sys/devices/virtual/memory_tiering";
const WEIGHTS: &str = "/sys/kernel/mm/mempolicy/weighted_interleave";

/// How much slower by its declared figures a node must be than the DRAM of
/// its tier to count as another class: 30% more latency or 30% less
/// bandwidth (DRAM nodes of one machine differ by a few percent; CXL
/// expanders by 2x and more).
const SLOWER: f64 = 1.3;

/// One memory tier: its number and nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryTier {
    pub tier: u32,
    pub nodes: Vec<u32>,
}

/// The kernel's memory tiers, fastest first; `None` when the kernel has
/// none (no such folder).
pub fn memory_tiers(files: &SystemFiles) -> Option<Vec<MemoryTier>> {
    if !files.exists(TIERS) {
        return None;
    }
    let mut tiers: Vec<MemoryTier> = files
        .list(TIERS)
        .into_iter()
        .filter_map(|name| {
            let tier = name.strip_prefix("memory_tier")?.parse::<u32>().ok()?;
            let list = files.read(&format!("{TIERS}/{name}/nodelist"))?;
            let nodes = parse_id_list(&list).ok()?;
            Some(MemoryTier { tier, nodes })
        })
        .filter(|tier| !tier.nodes.is_empty())
        .collect();
    tiers.sort_by_key(|tier| tier.tier);
    Some(tiers)
}

/// A node's declared access figures from its nearest initiator (what the
/// kernel read from HMAT/CDAT): read latency in ns, read bandwidth in MB/s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Declared {
    pub latency_ns: Option<f64>,
    pub bandwidth_mbs: Option<f64>,
}

/// `node`'s declared figures; `None` when the firmware declares none.
pub fn declared(files: &SystemFiles, node: u32) -> Option<Declared> {
    let base = format!("/sys/devices/system/node/node{node}/access0/initiators");
    let figure = |name: &str| {
        files
            .read(&format!("{base}/{name}"))
            .and_then(|text| text.parse::<f64>().ok())
            .filter(|value| *value > 0.0)
    };
    let declared = Declared {
        latency_ns: figure("read_latency"),
        bandwidth_mbs: figure("read_bandwidth"),
    };
    (declared.latency_ns.is_some() || declared.bandwidth_mbs.is_some()).then_some(declared)
}

fn describe(declared: &Declared) -> String {
    let mut parts = Vec::new();
    if let Some(latency) = declared.latency_ns {
        parts.push(format!("{latency:.0} ns"));
    }
    if let Some(bandwidth) = declared.bandwidth_mbs {
        parts.push(format!("{bandwidth:.0} MB/s"));
    }
    parts.join(", ")
}

/// True when `node` is slower by its declared figures than `dram` (the
/// best DRAM figures of its tier).
fn slower(node: &Declared, dram: &Declared) -> bool {
    let latency =
        matches!((node.latency_ns, dram.latency_ns), (Some(n), Some(d)) if n > d * SLOWER);
    let bandwidth =
        matches!((node.bandwidth_mbs, dram.bandwidth_mbs), (Some(n), Some(d)) if n * SLOWER < d);
    latency || bandwidth
}

/// The best declared figures of `nodes` (lowest latency, highest bandwidth).
fn best(files: &SystemFiles, nodes: &[u32]) -> Option<Declared> {
    let figures: Vec<Declared> = nodes
        .iter()
        .filter_map(|&node| declared(files, node))
        .collect();
    let latency = figures.iter().filter_map(|d| d.latency_ns).reduce(f64::min);
    let bandwidth = figures
        .iter()
        .filter_map(|d| d.bandwidth_mbs)
        .reduce(f64::max);
    (!figures.is_empty()).then_some(Declared {
        latency_ns: latency,
        bandwidth_mbs: bandwidth,
    })
}

pub fn tiers(files: &SystemFiles, topology: &Machine) -> Finding {
    const WHY: &str = "the kernel demotes pages to a slower memory tier and promotes them back only across tiers: a slow (CXL) node in DRAM's tier is used as DRAM, and a placement on a tiered machine can move mid-run";
    let check = CheckId::MemoryTiers;
    let Some(tiers) = memory_tiers(files) else {
        return Finding::new(
            check,
            Severity::Info,
            "no memory tiers in this kernel (Linux 6.1 or later with memory tiering)",
            WHY,
            "",
        );
    };
    let listed: Vec<String> = tiers
        .iter()
        .map(|tier| format!("tier {}: nodes {}", tier.tier, format_id_list(&tier.nodes)))
        .collect();
    let found = match listed.is_empty() {
        true => "no tier lists a node".to_string(),
        false => listed.join("; "),
    };
    let cpuless = |node: u32| {
        topology
            .node(node)
            .is_some_and(|info| info.cpuless || info.cpus.is_empty())
    };
    let mut slow = Vec::new();
    let mut unknown = Vec::new();
    for tier in &tiers {
        let dram: Vec<u32> = tier
            .nodes
            .iter()
            .copied()
            .filter(|&n| !cpuless(n))
            .collect();
        if dram.is_empty() {
            continue;
        }
        let dram_figures = best(files, &dram);
        for &node in tier.nodes.iter().filter(|&&n| cpuless(n)) {
            match (declared(files, node), &dram_figures) {
                (Some(figures), Some(dram_best)) if slower(&figures, dram_best) => slow.push(format!(
                    "node {node} ({}) shares tier {} with DRAM nodes {} ({})",
                    describe(&figures),
                    tier.tier,
                    format_id_list(&dram),
                    describe(dram_best)
                )),
                (None, _) => unknown.push(format!(
                    "node {node} has no CPUs and no declared figures, in tier {} with DRAM nodes {}",
                    tier.tier,
                    format_id_list(&dram)
                )),
                _ => {}
            }
        }
    }
    if !slow.is_empty() {
        return Finding::new(
            check,
            Severity::Warning,
            format!("{found}: {}", slow.join("; ")),
            WHY,
            "the kernel never demotes to it or promotes from it: check that the firmware's HMAT/CDAT reach the kernel (a kernel with CXL CDAT support), or load the node's tier by hand (memory_tier driver / kmem's adistance); measure it with numabench matrix latency",
        );
    }
    if !unknown.is_empty() {
        return Finding::new(
            check,
            Severity::Info,
            format!("{found}: {}", unknown.join("; ")),
            WHY,
            "if the node is slower memory (CXL), the kernel treats it as DRAM: measure it with numabench matrix latency and compare",
        );
    }
    Finding::new(check, Severity::Ok, found, WHY, "")
}

pub fn demotion(files: &SystemFiles) -> Finding {
    const WHY: &str = "with demotion on, reclaim moves pages of a fast tier to a slower one instead of dropping them: under memory pressure a buffer placed on DRAM ends partly on CXL mid-run";
    let check = CheckId::Demotion;
    let path = "/sys/kernel/mm/numa/demotion_enabled";
    let value = match files.setting(path).known() {
        Ok(value) => value,
        Err(reason) => return Finding::unreadable(check, path, &reason, WHY),
    };
    let tiered = memory_tiers(files).is_some_and(|tiers| tiers.len() > 1);
    match (value.as_deref(), tiered) {
        (None, _) => Finding::new(check, Severity::Ok, "not in this kernel", WHY, ""),
        (Some("true" | "1" | "Y" | "y"), true) => Finding::new(
            check,
            Severity::Info,
            "demotion_enabled = true, with several memory tiers: pages may move to a slower tier under memory pressure",
            WHY,
            "keep measurements well inside each node's free memory; echo false | sudo tee /sys/kernel/mm/numa/demotion_enabled for measurements",
        ),
        (Some(value), true) => Finding::new(
            check,
            Severity::Ok,
            format!("demotion_enabled = {value}: reclaim does not move pages between tiers"),
            WHY,
            "",
        ),
        (Some(value), false) => Finding::new(
            check,
            Severity::Ok,
            format!("demotion_enabled = {value}; one memory tier, nowhere to demote to"),
            WHY,
            "",
        ),
    }
}

pub fn weighted_interleave(files: &SystemFiles) -> Finding {
    const WHY: &str = "weighted interleave (MPOL_WEIGHTED_INTERLEAVE, numactl --weighted-interleave, numabench's weighted:...) spreads pages by these system-wide weights, set by the kernel from firmware bandwidth while auto is on, else by hand";
    let check = CheckId::WeightedInterleave;
    if !files.exists(WEIGHTS) {
        return Finding::new(
            check,
            Severity::Info,
            "not in this kernel (Linux 6.9 or later); numabench emulates weighted:N=W,... for its own buffers",
            WHY,
            "",
        );
    }
    let weights: Vec<String> = files
        .list(WEIGHTS)
        .into_iter()
        .filter_map(|name| {
            let node = name.strip_prefix("node")?.parse::<u32>().ok()?;
            let weight = files.read(&format!("{WEIGHTS}/{name}"))?;
            Some((node, weight))
        })
        .collect::<std::collections::BTreeMap<u32, String>>()
        .into_iter()
        .map(|(node, weight)| format!("node {node}: {weight}"))
        .collect();
    let auto = crate::memory::set_weights::AUTO_NAMES
        .iter()
        .find_map(|name| files.read(&format!("{WEIGHTS}/{name}")));
    let mode = match auto.as_deref() {
        Some("true") => "; auto: the kernel's, from firmware bandwidth",
        Some(_) => "; auto off: set by hand",
        None => "",
    };
    Finding::new(
        check,
        Severity::Info,
        format!("weights {}{mode}", weights.join(", ")),
        WHY,
        "",
    )
}
