//! Where a buffer's pages should go, and applying that with mbind.

use super::buffer::Buffer;
use super::errors::MemoryError;
use super::syscalls::mbind;
use crate::parse::format_id_list;
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
    /// All pages on one node (`MPOL_BIND`).
    Bind(u32),
    /// Pages spread round-robin over nodes (`MPOL_INTERLEAVE`).
    Interleave(Vec<u32>),
}

impl MemoryPlacement {
    /// The nodes pages may legitimately sit on under this placement.
    pub fn expected_nodes(&self) -> Vec<u32> {
        match self {
            MemoryPlacement::FirstTouch { nodes } | MemoryPlacement::Interleave(nodes) => {
                nodes.clone()
            }
            MemoryPlacement::Bind(node) => vec![*node],
        }
    }

    /// Short text used in records and tables: `bind:1`, `interleave:0-3`,
    /// `first-touch`.
    pub fn label(&self) -> String {
        match self {
            MemoryPlacement::FirstTouch { .. } => "first-touch".to_string(),
            MemoryPlacement::Bind(node) => format!("bind:{node}"),
            MemoryPlacement::Interleave(nodes) => format!("interleave:{}", format_id_list(nodes)),
        }
    }

    /// JSON form for a record's `placement.requested`.
    pub fn to_json(&self) -> Value {
        Value::String(self.label())
    }

    /// Sets the policy on the (untouched) buffer; pages are placed when
    /// first touched. `Bind` is strict: if the node cannot hold the pages
    /// the touch fails with SIGBUS/OOM rather than spilling silently, and
    /// the verification step reports anything that still landed elsewhere.
    pub fn apply(&self, buffer: &Buffer) -> Result<(), MemoryError> {
        let (mode, nodes) = match self {
            MemoryPlacement::FirstTouch { .. } => return Ok(()),
            MemoryPlacement::Bind(node) => (libc::MPOL_BIND, vec![*node]),
            MemoryPlacement::Interleave(nodes) => (libc::MPOL_INTERLEAVE, nodes.clone()),
        };
        // SAFETY: the buffer's range is a page-aligned mapping we own.
        unsafe { mbind(buffer.as_ptr(), buffer.len(), mode, &nodes, 0) }.map_err(|source| {
            MemoryError::Policy {
                policy: self.label(),
                source,
            }
        })
    }
}
