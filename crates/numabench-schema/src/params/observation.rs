//! A program's observation from outside while it ran (`run --observe`,
//! params key `observation` of its `run_wall_time` records): where its
//! memory was per node and which CPU each thread was on, at each sample,
//! and what that adds up to. The library's `runner::observe::Observation`
//! writes it; the report's timelines and the tests read it through these
//! types.

use super::node_keyed::node_keyed;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The observation of one run: its timeline and totals.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ObservationParams {
    /// The sampling interval, milliseconds.
    pub interval_ms: u64,
    /// Every sample, in time order.
    pub samples: Vec<ObservationSample>,
    /// Thread migrations over every thread seen (see
    /// `thread_migrations_source`).
    pub thread_migrations: u64,
    /// Where `thread_migrations` comes from: `kernel` (its per-thread
    /// `se.nr_migrations`) or `cpu-changes-between-samples`.
    pub thread_migrations_source: String,
    /// Times a thread was seen on another CPU than at the sample before.
    pub cpu_changes_between_samples: u64,
    /// Of those, changes to a CPU of another node.
    pub node_changes_between_samples: u64,
    /// Resident bytes per node at the last sample.
    #[serde(deserialize_with = "node_keyed")]
    pub final_bytes_per_node: BTreeMap<u32, u64>,
    /// Resident bytes per node at the sample with the most resident memory.
    #[serde(deserialize_with = "node_keyed")]
    pub peak_bytes_per_node: BTreeMap<u32, u64>,
}

/// One sample of an observation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ObservationSample {
    /// Seconds since the program started.
    pub t: f64,
    /// Resident anonymous bytes per node over the process tree (empty in
    /// the samples between memory samples).
    #[serde(deserialize_with = "node_keyed")]
    pub bytes_per_node: BTreeMap<u32, u64>,
    /// Thread id -> the CPU it last ran on.
    #[serde(deserialize_with = "node_keyed")]
    pub thread_cpus: BTreeMap<u32, u32>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What `run --observe` writes reads back, keys as text included.
    #[test]
    fn an_observation_reads_back() {
        let written = json!({
            "interval_ms": 10,
            "samples": [
                {"t": 0.01, "bytes_per_node": {"0": 4096, "1": 8192}, "thread_cpus": {"4711": 3}},
                {"t": 0.02, "bytes_per_node": {}, "thread_cpus": {"4711": 1}}
            ],
            "thread_migrations": 1,
            "thread_migrations_source": "kernel",
            "cpu_changes_between_samples": 1,
            "node_changes_between_samples": 0,
            "final_bytes_per_node": {"0": 4096},
            "peak_bytes_per_node": {"0": 4096, "1": 8192}
        });
        let read: ObservationParams = serde_json::from_value(written.clone()).unwrap();
        assert_eq!(read.samples[0].bytes_per_node[&1], 8192);
        assert_eq!(read.samples[1].thread_cpus[&4711], 1);
        assert_eq!(read.peak_bytes_per_node.len(), 2);
        assert_eq!(serde_json::to_value(&read).unwrap(), written);
    }
}
