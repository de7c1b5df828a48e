//! A kernel memory policy: the one definition of what bind, interleave and
//! preferred mean, how they are written (`bind:1`, `interleave:0-3`), how
//! they are applied (mbind on a buffer, set_mempolicy on a thread) and how
//! far pages followed them. The micro-benchmarks' [`MemoryPlacement`],
//! the applications' `PlacementScheme` and `numabench run`'s `RunPolicy`
//! all hold this type for their memory-policy part.
//!
//! [`MemoryPlacement`]: super::MemoryPlacement

use super::buffer::Buffer;
use super::check::interleave_fraction;
use super::errors::MemoryError;
use super::syscalls::{mbind, set_mempolicy, MPOL_PREFERRED_MANY};
use crate::parse::{format_id_list, parse_id_list};
use std::collections::BTreeMap;
use std::io;

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
}

impl PolicyMode {
    /// Every mode.
    pub const ALL: [PolicyMode; 4] = [
        PolicyMode::Preferred,
        PolicyMode::Bind,
        PolicyMode::Interleave,
        PolicyMode::PreferredMany,
    ];

    /// The MPOL_* value the kernel takes.
    pub fn mpol(self) -> libc::c_int {
        match self {
            PolicyMode::Preferred => libc::MPOL_PREFERRED,
            PolicyMode::Bind => libc::MPOL_BIND,
            PolicyMode::Interleave => libc::MPOL_INTERLEAVE,
            PolicyMode::PreferredMany => MPOL_PREFERRED_MANY,
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
}

impl MemoryPolicy {
    /// All pages on `node` (`bind:N`).
    pub fn bind(node: u32) -> Self {
        Self {
            mode: PolicyMode::Bind,
            nodes: vec![node],
        }
    }

    /// Pages round-robin over `nodes` (`interleave:LIST`; empty: every
    /// allowed node).
    pub fn interleave(nodes: Vec<u32>) -> Self {
        Self {
            mode: PolicyMode::Interleave,
            nodes,
        }
    }

    /// Parses the memory-policy forms shared by `--placement` and `run
    /// --policy`: `bind:N` and `preferred:N` (one node), `membind:LIST`,
    /// `interleave[:LIST]` and `preferred-many:LIST`, where a LIST may be
    /// `all` (an empty node list). `None` when `text` is not one of these
    /// forms (the caller says which forms it knows); otherwise the policy
    /// or why its nodes are wrong (without the text, which the caller
    /// names). Nodes are not checked against the machine here.
    pub fn parse(text: &str) -> Option<Result<Self, String>> {
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
            _ => return None,
        };
        let nodes = match list {
            None if mode == PolicyMode::Interleave => Vec::new(),
            None => return None,
            Some("all") => Vec::new(),
            Some(list) => match parse_id_list(list) {
                Ok(nodes) => nodes,
                Err(error) => return Some(Err(error.to_string())),
            },
        };
        let policy = Self { mode, nodes };
        if one_node && !policy.nodes.is_empty() {
            if let Err(reason) = policy.single_node() {
                return Some(Err(reason));
            }
        }
        Some(Ok(policy))
    }

    /// The node of a one-node policy (`bind:N`, `preferred:N`), or why it
    /// does not name exactly one.
    pub fn single_node(&self) -> Result<u32, String> {
        match (self.mode, &self.nodes[..]) {
            (_, [node]) => Ok(*node),
            (PolicyMode::Preferred, _) => {
                Err("preferred takes one node (preferred-many takes a list)".to_string())
            }
            _ => Err("bind takes one node".to_string()),
        }
    }

    /// Short text used in records, tables and errors, which [`Self::parse`]
    /// reads back: `bind:1`, `membind:0-1`, `interleave:0-3`,
    /// `interleave` (every allowed node), `preferred:1`,
    /// `preferred-many:0,2`.
    pub fn label(&self) -> String {
        let name = match (self.mode, self.nodes.len()) {
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
            true => Self {
                mode: self.mode,
                nodes: allowed.to_vec(),
            },
            false => self.clone(),
        }
    }

    /// Sets the policy on the (untouched) buffer; pages are placed when
    /// first touched. `Bind` is strict: if the nodes cannot hold the pages
    /// the touch fails with SIGBUS/OOM rather than spilling silently, and
    /// the verification step reports anything that still landed elsewhere.
    pub fn apply(&self, buffer: &Buffer) -> Result<(), MemoryError> {
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

#[cfg(test)]
mod tests;
