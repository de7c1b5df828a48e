//! A kernel memory policy: the one definition of what bind, interleave,
//! weighted interleave and preferred mean, how they are written (`bind:1`,
//! `interleave:0-3`, `weighted:0=3,2=1`), how
//! they are applied (mbind on a buffer, set_mempolicy on a thread) and how
//! far pages followed them. The micro-benchmarks' [`MemoryPlacement`],
//! the applications' `PlacementScheme` and `numabench run`'s `RunPolicy`
//! all hold this type for their memory-policy part.
//!
//! [`MemoryPlacement`]: super::MemoryPlacement

use super::buffer::Buffer;
use super::check::interleave_fraction;
use super::errors::MemoryError;
use super::huge_pages::HUGE_PAGE_SIZE;
use super::syscalls::{
    mbind, set_mempolicy, MPOL_PREFERRED_MANY, MPOL_WEIGHTED_INTERLEAVE, PAGE_SIZE,
};
use crate::parse::{format_id_list, parse_id_list, IdListError};
use std::collections::BTreeMap;
use std::io;

/// Why a policy's text names no valid nodes ([`MemoryPolicy::parse`]),
/// without the text, which the caller names.
///
/// Fault: always the user's (the text given).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyTextError {
    /// A node list that does not parse.
    #[error(transparent)]
    Nodes(#[from] IdListError),
    /// A `weighted:` item that is not `NODE=WEIGHT`.
    #[error("'{item}' is not NODE=WEIGHT (weighted:0=3,2=1 puts 3 pages on node 0 for every 1 on node 2)")]
    NotNodeWeight { item: String },
    /// A weight the kernel does not take.
    #[error("node {node}'s weight {weight} is not from 1 to {max}", max = weighted::MAX_WEIGHT)]
    Weight { node: u32, weight: u32 },
    /// A node weighted twice.
    #[error("node {node} is given twice")]
    Twice { node: u32 },
    /// A one-node policy given several nodes.
    #[error(transparent)]
    OneNode(#[from] NotOneNode),
}

/// A one-node policy (`bind:N`, `preferred:N`) that names several nodes
/// or none ([`MemoryPolicy::single_node`]).
///
/// Fault: always the user's (the text given).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NotOneNode {
    /// `preferred` with a list.
    #[error("preferred takes one node (preferred-many takes a list)")]
    Preferred,
    /// `bind` with a list, or `all`.
    #[error("bind takes one node")]
    Bind,
}

crate::error::all_faulty!(Usage: PolicyTextError, NotOneNode);

/// A kernel memory policy mode (the MPOL_* modes of linux/mempolicy.h).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PolicyMode {
    /// Pages on one node, elsewhere when it is full (`MPOL_PREFERRED`).
    Preferred,
    /// Pages only on the nodes, strictly (`MPOL_BIND`).
    Bind,
    /// Pages round-robin over the nodes (`MPOL_INTERLEAVE`).
    Interleave,
    /// Pages on the nearest of the nodes, elsewhere when they are full
    /// (`MPOL_PREFERRED_MANY`, Linux 5.15 or later).
    PreferredMany,
    /// Pages over the nodes in proportion to weights
    /// (`MPOL_WEIGHTED_INTERLEAVE`, Linux 6.9 or later, or emulated: see
    /// [`weighted`]).
    WeightedInterleave,
}

impl PolicyMode {
    /// Every mode.
    pub const ALL: [PolicyMode; 5] = [
        PolicyMode::Preferred,
        PolicyMode::Bind,
        PolicyMode::Interleave,
        PolicyMode::PreferredMany,
        PolicyMode::WeightedInterleave,
    ];

    /// The MPOL_* value the kernel takes.
    pub fn mpol(self) -> libc::c_int {
        match self {
            PolicyMode::Preferred => libc::MPOL_PREFERRED,
            PolicyMode::Bind => libc::MPOL_BIND,
            PolicyMode::Interleave => libc::MPOL_INTERLEAVE,
            PolicyMode::PreferredMany => MPOL_PREFERRED_MANY,
            PolicyMode::WeightedInterleave => MPOL_WEIGHTED_INTERLEAVE,
        }
    }

    /// The mode of an MPOL_* value; `None` for the modes without nodes
    /// (default, local) and unknown values.
    pub fn from_mpol(mode: libc::c_int) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|candidate| candidate.mpol() == mode)
    }
}

/// A memory policy: a mode over nodes. An empty node list stands for
/// every node the process may use (`interleave`, `interleave:all`), which
/// whoever applies the policy fills in ([`MemoryPolicy::or_nodes`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MemoryPolicy {
    pub mode: PolicyMode,
    pub nodes: Vec<u32>,
    /// A weighted interleave's weight of each node (as `nodes`, 1..=255);
    /// empty for every other mode, and for a weighted interleave with the
    /// kernel's own weights (`weighted`, `weighted:LIST`).
    pub weights: Vec<u32>,
}

impl MemoryPolicy {
    /// All pages on `node` (`bind:N`).
    pub fn bind(node: u32) -> Self {
        Self::new(PolicyMode::Bind, vec![node])
    }

    /// A policy of `mode` over `nodes`, without weights.
    pub fn new(mode: PolicyMode, nodes: Vec<u32>) -> Self {
        Self {
            mode,
            nodes,
            weights: Vec::new(),
        }
    }

    /// Pages round-robin over `nodes` (`interleave:LIST`; empty: every
    /// allowed node).
    pub fn interleave(nodes: Vec<u32>) -> Self {
        Self::new(PolicyMode::Interleave, nodes)
    }

    /// Parses the memory-policy forms shared by `--placement` and `run
    /// --policy`: `bind:N` and `preferred:N` (one node), `membind:LIST`,
    /// `interleave[:LIST]`, `preferred-many:LIST` and `weighted[:LIST]`,
    /// where a LIST may be `all` (an empty node list), and
    /// `weighted:N=W,...` (weights). `None` when `text` is not one of these
    /// forms (the caller says which forms it knows); otherwise the policy
    /// or why its nodes are wrong (without the text, which the caller
    /// names). Nodes are not checked against the machine here.
    pub fn parse(text: &str) -> Option<Result<Self, PolicyTextError>> {
        let (name, list) = match text.split_once(':') {
            Some((name, list)) => (name, Some(list)),
            None => (text, None),
        };
        let (mode, one_node) = match name {
            "bind" => (PolicyMode::Bind, true),
            "membind" => (PolicyMode::Bind, false),
            "interleave" => (PolicyMode::Interleave, false),
            "preferred" => (PolicyMode::Preferred, true),
            "preferred-many" => (PolicyMode::PreferredMany, false),
            "weighted" => {
                return Some(match list {
                    None | Some("all") => Ok(Self::new(PolicyMode::WeightedInterleave, Vec::new())),
                    Some(list) if list.contains('=') => Self::weighted_from(list),
                    Some(list) => parse_id_list(list)
                        .map(|nodes| Self::new(PolicyMode::WeightedInterleave, nodes))
                        .map_err(PolicyTextError::from),
                })
            }
            _ => return None,
        };
        let nodes = match list {
            None if mode == PolicyMode::Interleave => Vec::new(),
            None => return None,
            Some("all") => Vec::new(),
            Some(list) => match parse_id_list(list) {
                Ok(nodes) => nodes,
                Err(error) => return Some(Err(error.into())),
            },
        };
        let policy = Self::new(mode, nodes);
        if one_node && !policy.nodes.is_empty() {
            if let Err(reason) = policy.single_node() {
                return Some(Err(reason.into()));
            }
        }
        Some(Ok(policy))
    }

    /// A weighted interleave from `N=W,...` (nodes in any order, each
    /// once, weights 1..=255 as the kernel takes them), nodes ascending.
    fn weighted_from(list: &str) -> Result<Self, PolicyTextError> {
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for item in list.split(',') {
            let parsed = item.split_once('=').and_then(|(node, weight)| {
                Some((
                    node.trim().parse::<u32>().ok()?,
                    weight.trim().parse::<u32>().ok()?,
                ))
            });
            let Some((node, weight)) = parsed else {
                return Err(PolicyTextError::NotNodeWeight {
                    item: item.to_string(),
                });
            };
            if !(1..=weighted::MAX_WEIGHT).contains(&weight) {
                return Err(PolicyTextError::Weight { node, weight });
            }
            if pairs.iter().any(|(seen, _)| *seen == node) {
                return Err(PolicyTextError::Twice { node });
            }
            pairs.push((node, weight));
        }
        pairs.sort_unstable();
        Ok(Self {
            mode: PolicyMode::WeightedInterleave,
            nodes: pairs.iter().map(|(node, _)| *node).collect(),
            weights: pairs.iter().map(|(_, weight)| *weight).collect(),
        })
    }

    /// How this weighted interleave runs here ([`weighted::mode_for`] with
    /// this kernel's weights); `None` for every other mode.
    pub fn weighted_mode(
        &self,
    ) -> Option<Result<weighted::WeightedMode, weighted::NoKernelWeights>> {
        (self.mode == PolicyMode::WeightedInterleave).then(|| {
            let kernel = weighted::kernel_weights();
            // --set-weights writes the policy's weights before it is used.
            if kernel.is_some() && !self.weights.is_empty() && set_weights::enabled() {
                return Ok(weighted::WeightedMode::Kernel);
            }
            weighted::mode_for(&self.nodes, &self.weights, kernel.as_ref())
        })
    }

    /// Writes this weighted interleave's weights into the kernel's when
    /// `--set-weights` asked for it ([`set_weights`]), or for a policy of
    /// the kernel's own weights puts back what was there before numabench
    /// wrote; nothing otherwise. Called just before the policy is put on a
    /// buffer or a program.
    pub fn write_kernel_weights(&self) -> io::Result<()> {
        if self.mode == PolicyMode::WeightedInterleave {
            match self.weights.is_empty() {
                true => set_weights::put_back(&self.nodes)?,
                false => {
                    set_weights::write(&self.nodes, &self.weights)?;
                }
            }
        }
        Ok(())
    }

    /// `kernel` or `emulated` for a weighted interleave that can run here
    /// (what records carry as `weighted_mode`), else `None`.
    pub fn weighted_mode_label(&self) -> Option<&'static str> {
        self.weighted_mode()?
            .ok()
            .map(weighted::WeightedMode::as_str)
    }

    /// The node of a one-node policy (`bind:N`, `preferred:N`), or why it
    /// does not name exactly one.
    pub fn single_node(&self) -> Result<u32, NotOneNode> {
        match (self.mode, &self.nodes[..]) {
            (_, [node]) => Ok(*node),
            (PolicyMode::Preferred, _) => Err(NotOneNode::Preferred),
            _ => Err(NotOneNode::Bind),
        }
    }

    /// Short text used in records, tables and errors, which [`Self::parse`]
    /// reads back: `bind:1`, `membind:0-1`, `interleave:0-3`,
    /// `interleave` (every allowed node), `preferred:1`,
    /// `preferred-many:0,2`.
    pub fn label(&self) -> String {
        if !self.weights.is_empty() {
            let pairs: Vec<String> = self
                .nodes
                .iter()
                .zip(&self.weights)
                .map(|(node, weight)| format!("{node}={weight}"))
                .collect();
            return format!("weighted:{}", pairs.join(","));
        }
        let name = match (self.mode, self.nodes.len()) {
            (PolicyMode::WeightedInterleave, 0) => return "weighted".to_string(),
            (PolicyMode::WeightedInterleave, _) => "weighted",
            (PolicyMode::Interleave, 0) => return "interleave".to_string(),
            (PolicyMode::Bind, 1) => "bind",
            (PolicyMode::Bind, _) => "membind",
            (PolicyMode::Interleave, _) => "interleave",
            (PolicyMode::Preferred, _) => "preferred",
            (PolicyMode::PreferredMany, _) => "preferred-many",
        };
        match self.nodes.is_empty() {
            true => format!("{name}:all"),
            false => format!("{name}:{}", format_id_list(&self.nodes)),
        }
    }

    /// This policy with `allowed` as its nodes when it names none (every
    /// allowed node).
    pub fn or_nodes(&self, allowed: &[u32]) -> Self {
        match self.nodes.is_empty() {
            true => Self::new(self.mode, allowed.to_vec()),
            false => self.clone(),
        }
    }

    /// Sets the policy on the (untouched) buffer; pages are placed when
    /// first touched. `Bind` is strict: if the nodes cannot hold the pages
    /// the touch fails with SIGBUS/OOM rather than spilling silently, and
    /// the verification step reports anything that still landed elsewhere.
    pub fn apply(&self, buffer: &Buffer) -> Result<(), MemoryError> {
        if let Some(mode) = self.weighted_mode() {
            let mode = mode.map_err(|reason| MemoryError::Policy {
                policy: self.label(),
                source: io::Error::new(io::ErrorKind::Unsupported, reason),
            })?;
            if mode == weighted::WeightedMode::Emulated {
                return self.apply_emulated(buffer);
            }
            self.write_kernel_weights()
                .map_err(|source| MemoryError::Policy {
                    policy: self.label(),
                    source,
                })?;
        }
        // SAFETY: the buffer's range is a page-aligned mapping we own.
        unsafe {
            mbind(
                buffer.as_ptr(),
                buffer.len(),
                self.mode.mpol(),
                &self.nodes,
                0,
            )
        }
        .map_err(|source| MemoryError::Policy {
            policy: self.label(),
            source,
        })
    }

    /// An emulated weighted interleave ([`weighted`]): the buffer's chunks
    /// bound to the nodes in the weights' pattern.
    fn apply_emulated(&self, buffer: &Buffer) -> Result<(), MemoryError> {
        let granule = if buffer.is_hugetlb() {
            HUGE_PAGE_SIZE
        } else {
            PAGE_SIZE
        };
        let chunk = weighted::chunk_bytes(buffer.len(), granule);
        let pattern = weighted::pattern(&self.nodes, &self.weights);
        for (offset, length, node) in weighted::runs(buffer.len(), chunk, &pattern) {
            // SAFETY: every run lies inside the buffer's page-aligned mapping
            // (offsets are whole chunks of whole granules), which we own.
            unsafe {
                mbind(
                    buffer.as_ptr().add(offset),
                    length,
                    PolicyMode::Bind.mpol(),
                    &[node],
                    0,
                )
            }
            .map_err(|source| MemoryError::Policy {
                policy: format!("{} (emulated: node {node})", self.label()),
                source,
            })?;
        }
        Ok(())
    }

    /// Sets the policy for the calling thread's future allocations
    /// (set_mempolicy). Async-signal-safe (one system call, no allocation),
    /// so it can run between fork and exec.
    pub fn set_for_this_thread(&self) -> io::Result<()> {
        set_mempolicy(self.mode.mpol(), &self.nodes)
    }

    /// The share of `pages` (resident or not, counted per node in
    /// `pages_per_node`) placed as this policy asks: on its nodes, split
    /// evenly for an interleave (see [`interleave_fraction`];
    /// `granule_pages` is how many base pages the kernel places as one).
    /// 0.0 when there are no pages.
    pub fn fraction_placed(
        &self,
        pages_per_node: &BTreeMap<u32, u64>,
        pages: u64,
        granule_pages: u64,
    ) -> f64 {
        if self.mode == PolicyMode::Interleave {
            return interleave_fraction(pages_per_node, pages, &self.nodes, granule_pages);
        }
        if self.mode == PolicyMode::WeightedInterleave {
            // The kernel's own weights when the policy gives none (equal
            // ones where it holds none).
            let weights = match self.weights.is_empty() {
                false => self.weights.clone(),
                true => weighted::kernel_weights()
                    .and_then(|kernel| weighted::kernel_weights_of(&self.nodes, &kernel))
                    .unwrap_or_else(|| vec![1; self.nodes.len()]),
            };
            return weighted::weighted_fraction(
                pages_per_node,
                pages,
                &self.nodes,
                &weights,
                granule_pages,
            );
        }
        if pages == 0 {
            return 0.0;
        }
        let on_nodes: u64 = self
            .nodes
            .iter()
            .filter_map(|node| pages_per_node.get(node))
            .sum();
        on_nodes as f64 / pages as f64
    }
}

pub mod auto_weights;
pub mod set_weights;
pub mod weighted;

#[cfg(test)]
mod tests;
