//! Where an application's main arrays go and where its threads run.

use crate::memory::{MemoryPolicy, PolicyMode, PolicyTextError};
use crate::threads::CpuOrder;
use std::fmt;

/// Placement scheme for the main arrays (`--placement`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlacementScheme {
    /// Each worker first touches the block it later computes on.
    FirstTouch,
    /// Worker 0 touches everything: all pages on its node, as a serial
    /// initialisation leaves them.
    Serial,
    /// A kernel memory policy on the arrays: `bind:N` (all pages on one
    /// node) or `interleave[:LIST]` (round-robin over the nodes, every
    /// allowed node with memory when the list is empty).
    Policy(MemoryPolicy),
    /// Serial initialisation, then before the first iteration each worker
    /// moves the pages of its block to its own node (move_pages).
    SerialMigrate,
    /// Serial initialisation, then each page moves to the node of the first
    /// worker that touches it after the marker (emulated migrate-on-next-
    /// touch: pages are protected and migrated in a SIGSEGV handler).
    NextTouch,
    /// Serial initialisation, then left to the kernel's automatic NUMA
    /// balancing.
    AutoNuma,
}

/// Why a placement (`--placement`) or thread placement
/// (`--threads-placement`) was refused.
///
/// Fault: always the user's (the text given).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlacementError {
    /// No placement is called that.
    #[error("unknown placement '{text}' (valid: first-touch, serial, interleave[:LIST], weighted:N=W,..., bind:N, serial+migrate, next-touch, autonuma)")]
    Unknown { text: String },
    /// A policy form whose nodes are wrong.
    #[error("placement '{text}': {reason}")]
    Invalid {
        text: String,
        reason: PolicyTextError,
    },
    /// No thread placement is called that.
    #[error("unknown thread placement '{text}' (valid: compact, scatter, unpinned)")]
    UnknownThreads { text: String },
}

crate::error::all_faulty!(Usage: PlacementError);

impl PlacementScheme {
    /// All pages on one node (`bind:N`).
    pub fn bind(node: u32) -> Self {
        PlacementScheme::Policy(MemoryPolicy::bind(node))
    }

    /// Pages round-robin over `nodes`, every allowed node when empty
    /// (`interleave[:LIST]`).
    pub fn interleave(nodes: Vec<u32>) -> Self {
        PlacementScheme::Policy(MemoryPolicy::interleave(nodes))
    }

    /// Parses `first-touch`, `serial`, `interleave[:LIST]`, `bind:N`,
    /// `serial+migrate`, `next-touch`, `autonuma`. The policy forms are
    /// read by [`MemoryPolicy::parse`]; of them, applications take `bind:N`
    /// and `interleave[:LIST|all]`.
    pub fn parse(text: &str) -> Result<Self, PlacementError> {
        let invalid = |reason: PolicyTextError| PlacementError::Invalid {
            text: text.to_string(),
            reason,
        };
        let scheme = match text {
            "first-touch" => PlacementScheme::FirstTouch,
            "serial" => PlacementScheme::Serial,
            "serial+migrate" => PlacementScheme::SerialMigrate,
            "next-touch" => PlacementScheme::NextTouch,
            "autonuma" => PlacementScheme::AutoNuma,
            _ => match MemoryPolicy::parse(text) {
                Some(Ok(policy)) if Self::takes_form(text) => {
                    if policy.mode == PolicyMode::Bind {
                        policy
                            .single_node()
                            .map_err(|reason| invalid(reason.into()))?;
                    }
                    PlacementScheme::Policy(policy)
                }
                Some(Err(reason)) if Self::takes_form(text) => return Err(invalid(reason)),
                _ => {
                    return Err(PlacementError::Unknown {
                        text: text.to_string(),
                    })
                }
            },
        };
        Ok(scheme)
    }

    /// Whether `text` is written in one of the policy forms applications
    /// take: `bind:N`, `interleave[:LIST]`, `weighted[:LIST]`,
    /// `weighted:N=W,...`.
    fn takes_form(text: &str) -> bool {
        ["interleave", "weighted"].contains(&text)
            || ["interleave:", "bind:", "weighted:"]
                .iter()
                .any(|prefix| text.starts_with(prefix))
    }

    /// This scheme as a record's params: `placement` (its text) and, for
    /// a weighted interleave, `weighted_mode` (`kernel` or `emulated`).
    pub fn scheme_params(&self) -> numabench_schema::params::AppScheme {
        numabench_schema::params::AppScheme {
            placement: Some(self.to_string()),
            weighted_mode: self
                .memory_policy()
                .and_then(MemoryPolicy::weighted_mode_label)
                .map(str::to_string),
        }
    }

    /// The kernel memory policy the arrays get before they are touched,
    /// if any (`bind`, `interleave`).
    pub fn memory_policy(&self) -> Option<&MemoryPolicy> {
        match self {
            PlacementScheme::Policy(policy) => Some(policy),
            _ => None,
        }
    }

    /// Every scheme a placement study tries.
    pub fn study_set() -> Vec<Self> {
        vec![
            PlacementScheme::FirstTouch,
            PlacementScheme::Serial,
            PlacementScheme::interleave(Vec::new()),
            PlacementScheme::SerialMigrate,
            PlacementScheme::NextTouch,
        ]
    }

    /// Every scheme: the study set, `bind:node` and `autonuma`.
    pub fn every_scheme(node: u32) -> Vec<Self> {
        let mut schemes = Self::study_set();
        schemes.push(PlacementScheme::bind(node));
        schemes.push(PlacementScheme::AutoNuma);
        schemes
    }
}

impl fmt::Display for PlacementScheme {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlacementScheme::FirstTouch => write!(formatter, "first-touch"),
            PlacementScheme::Serial => write!(formatter, "serial"),
            PlacementScheme::Policy(policy) => write!(formatter, "{}", policy.label()),
            PlacementScheme::SerialMigrate => write!(formatter, "serial+migrate"),
            PlacementScheme::NextTouch => write!(formatter, "next-touch"),
            PlacementScheme::AutoNuma => write!(formatter, "autonuma"),
        }
    }
}

/// How threads are placed (`--threads-placement`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadScheme {
    /// Worker n on the n-th allowed CPU in compact order (tree order: SMT
    /// siblings together, fills a node before the next).
    Compact,
    /// Worker n on the n-th allowed CPU in scatter order (round robin over
    /// nodes, and over L3 domains within a node).
    Scatter,
    /// Not pinned: the OS decides and may move threads.
    Unpinned,
}

impl ThreadScheme {
    pub fn parse(text: &str) -> Result<Self, PlacementError> {
        match text {
            "compact" => Ok(ThreadScheme::Compact),
            "scatter" => Ok(ThreadScheme::Scatter),
            "unpinned" => Ok(ThreadScheme::Unpinned),
            _ => Err(PlacementError::UnknownThreads {
                text: text.to_string(),
            }),
        }
    }

    /// The order pinned workers take CPUs in; `None` when unpinned.
    pub fn cpu_order(self) -> Option<CpuOrder> {
        match self {
            ThreadScheme::Compact => Some(CpuOrder::Compact),
            ThreadScheme::Scatter => Some(CpuOrder::Scatter),
            ThreadScheme::Unpinned => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ThreadScheme::Compact => "compact",
            ThreadScheme::Scatter => "scatter",
            ThreadScheme::Unpinned => "unpinned",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_round_trip_through_text() {
        for text in [
            "first-touch",
            "serial",
            "interleave",
            "interleave:0-1",
            "bind:1",
            "serial+migrate",
            "next-touch",
            "autonuma",
        ] {
            assert_eq!(PlacementScheme::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(
            PlacementScheme::parse("interleave:all").unwrap(),
            PlacementScheme::interleave(Vec::new())
        );
        assert!(PlacementScheme::parse("bind:x")
            .unwrap_err()
            .to_string()
            .contains("bind:x"));
        assert!(PlacementScheme::parse("bind:0-1")
            .unwrap_err()
            .to_string()
            .contains("placement 'bind:0-1': bind takes one node"));
        assert!(PlacementScheme::parse("bind:all").is_err());
        // The run-only memory policies are not application placements.
        for text in [
            "membind:0",
            "preferred:0",
            "preferred-many:0",
            "bind",
            "membind",
        ] {
            assert!(
                PlacementScheme::parse(text)
                    .unwrap_err()
                    .to_string()
                    .starts_with(&format!("unknown placement '{text}'")),
                "{text}"
            );
        }
        assert!(PlacementScheme::parse("scattered")
            .unwrap_err()
            .to_string()
            .contains("unknown placement 'scattered'"));
        assert_eq!(ThreadScheme::parse("scatter"), Ok(ThreadScheme::Scatter));
        assert!(ThreadScheme::parse("loose").is_err());
    }
}
