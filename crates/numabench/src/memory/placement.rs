//! Where a micro-benchmark buffer's pages should go: left to first touch,
//! or a kernel memory policy.

use super::buffer::Buffer;
use super::errors::MemoryError;
use super::policy::MemoryPolicy;
use numabench_schema::{RequestedMemory, RequestedPlacement};
use serde_json::Value;

/// A placement for a buffer's pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryPlacement {
    /// Default policy: each page goes to the node of the thread that
    /// first touches it (used for "each thread touches its own part").
    FirstTouch {
        /// The nodes the touching threads run on (what verification expects).
        nodes: Vec<u32>,
    },
    /// A kernel memory policy set on the buffer before it is touched.
    Policy(MemoryPolicy),
}

impl MemoryPlacement {
    /// All pages on one node (`MPOL_BIND`).
    pub fn bind(node: u32) -> Self {
        MemoryPlacement::Policy(MemoryPolicy::bind(node))
    }

    /// Pages spread round-robin over nodes (`MPOL_INTERLEAVE`).
    pub fn interleave(nodes: Vec<u32>) -> Self {
        MemoryPlacement::Policy(MemoryPolicy::interleave(nodes))
    }

    /// The nodes pages may legitimately sit on under this placement.
    pub fn expected_nodes(&self) -> Vec<u32> {
        match self {
            MemoryPlacement::FirstTouch { nodes } => nodes.clone(),
            MemoryPlacement::Policy(policy) => policy.nodes.clone(),
        }
    }

    /// Short text used in records and tables: `first-touch`, or the
    /// policy's label (`bind:1`, `interleave:0-3`).
    pub fn label(&self) -> String {
        match self {
            MemoryPlacement::FirstTouch { .. } => "first-touch".to_string(),
            MemoryPlacement::Policy(policy) => policy.label(),
        }
    }

    /// JSON form for a record's `placement.requested`.
    pub fn to_json(&self) -> Value {
        Value::String(self.label())
    }

    /// `requested` with this placement added: `memory` ([`Self::label`])
    /// and, for a weighted interleave, `weighted_mode` (`kernel` or
    /// `emulated`).
    pub fn requested_on(&self, requested: RequestedPlacement) -> RequestedPlacement {
        RequestedPlacement {
            memory: Some(RequestedMemory::Label(self.label())),
            weighted_mode: match self {
                MemoryPlacement::Policy(policy) => policy.weighted_mode_label().map(str::to_string),
                MemoryPlacement::FirstTouch { .. } => None,
            },
            ..requested
        }
    }

    /// Sets the policy on the (untouched) buffer (see
    /// [`MemoryPolicy::apply`]); first touch needs nothing.
    pub fn apply(&self, buffer: &Buffer) -> Result<(), MemoryError> {
        match self {
            MemoryPlacement::FirstTouch { .. } => Ok(()),
            MemoryPlacement::Policy(policy) => policy.apply(buffer),
        }
    }
}
