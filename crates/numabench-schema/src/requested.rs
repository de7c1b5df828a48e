//! A record's `placement.requested`: what the benchmark asked of the kernel
//! for its threads and pages. Written through [`RequestedPlacement`] (and
//! [`crate::params::to_params`]) and read back with
//! [`crate::Placement::requested_as`].
//!
//! One field order serves every writer: each writes a subsequence of it
//! (`cpus`, then a run's `policy`, `pin_order`, `affinity` or
//! interference's `policy`, `nodes`; a cache's `owner_cpu`, a latency's
//! `writer_cpu`, overdecompose's `ranks_per_core`; then `memory` and a
//! weighted interleave's `weighted_mode`).

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// The keys of `placement.requested`; each writer sets the ones it asked
/// for, the others are absent.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct RequestedPlacement {
    /// The CPUs of the threads in thread order; `null` for a thread left
    /// unpinned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpus: Option<Vec<Option<u32>>>,
    /// A run's policy as the user wrote it, or interference's `bind`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    /// A run's CPUs in the order threads get them; `null` when not pinning.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some"
    )]
    pub pin_order: Option<Option<Vec<u32>>>,
    /// A run's CPU affinity set; `null` when not restricted.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some"
    )]
    pub affinity: Option<Option<Vec<u32>>>,
    /// The nodes memory is bound to (interference's victim node).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<u32>>,
    /// cache: the CPU that owns (first touches) the lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner_cpu: Option<u32>,
    /// latency: the CPU writing the chased lines, when one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writer_cpu: Option<u32>,
    /// overdecompose: the ranks sharing each core.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranks_per_core: Option<usize>,
    /// The memory placement asked (a run's `null` reads as
    /// [`RequestedMemory::Unset`]).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some"
    )]
    pub memory: Option<RequestedMemory>,
    /// A weighted interleave's mode (`kernel` or `emulated`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weighted_mode: Option<String>,
}

impl RequestedPlacement {
    /// A request for threads pinned to `cpus`, in thread order.
    pub fn on_cpus(cpus: &[u32]) -> Self {
        RequestedPlacement {
            cpus: Some(cpus.iter().copied().map(Some).collect()),
            ..Self::default()
        }
    }

    /// The memory placement's text (`bind:1`, `first-touch`), when it was
    /// written as text.
    pub fn memory_label(&self) -> Option<&str> {
        match &self.memory {
            Some(RequestedMemory::Label(label)) => Some(label),
            _ => None,
        }
    }
}

/// `memory`: a label (`bind:1`, `first-touch`, `first-touch by the
/// owner`), a run's memory policy, or `null` for a run that set none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum RequestedMemory {
    Label(String),
    Policy(RequestedMemoryPolicy),
    /// A run with no memory policy: written as `null`.
    Unset,
}

/// A run's memory policy: the kernel's MPOL_* mode and its nodes, with
/// the weights and `weighted_mode` of a weighted interleave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RequestedMemoryPolicy {
    pub mode: i32,
    pub nodes: Vec<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weights: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weighted_mode: Option<String>,
}

/// A key that is present reads as `Some` (its `null` included, as `T`
/// reads it); an absent one stays `None` (`default`).
fn some<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::to_params;

    fn text(requested: &RequestedPlacement) -> String {
        serde_json::Value::Object(to_params(requested)).to_string()
    }

    /// Every writer's keys come out in its order, and read back the same.
    #[test]
    fn every_shape_keeps_its_key_order_and_reads_back() {
        let run = RequestedPlacement {
            policy: Some("as-is".into()),
            pin_order: Some(None),
            affinity: Some(Some(vec![2, 3])),
            memory: Some(RequestedMemory::Unset),
            ..RequestedPlacement::default()
        };
        let latency = RequestedPlacement {
            writer_cpu: Some(3),
            memory: Some(RequestedMemory::Label("bind:1".into())),
            weighted_mode: Some("kernel".into()),
            ..RequestedPlacement::on_cpus(&[0])
        };
        let interference = RequestedPlacement {
            policy: Some("bind".into()),
            nodes: Some(vec![1]),
            ..RequestedPlacement::on_cpus(&[0, 4])
        };
        let unpinned = RequestedPlacement {
            cpus: Some(vec![None, None]),
            ranks_per_core: Some(2),
            ..RequestedPlacement::default()
        };
        for (requested, expected) in [
            (
                &run,
                r#"{"policy":"as-is","pin_order":null,"affinity":[2,3],"memory":null}"#,
            ),
            (
                &latency,
                r#"{"cpus":[0],"writer_cpu":3,"memory":"bind:1","weighted_mode":"kernel"}"#,
            ),
            (
                &interference,
                r#"{"cpus":[0,4],"policy":"bind","nodes":[1]}"#,
            ),
            (&unpinned, r#"{"cpus":[null,null],"ranks_per_core":2}"#),
        ] {
            assert_eq!(text(requested), expected);
            let read: RequestedPlacement = serde_json::from_str(expected).unwrap();
            assert_eq!(&read, requested, "{expected}");
        }
        assert_eq!(latency.memory_label(), Some("bind:1"));
    }
}
