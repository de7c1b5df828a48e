//! `latency`'s parameters: one pointer chase of a working set from one
//! CPU (`bench/latency` writes them; `matrix-latency` and `per-cpu` write
//! the same after labels of their own).

use super::{BenchmarkParams, ChaseOrderParams, ConvergenceParams, TailParams, WorkingSetParams};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The params of a `latency` or `latency_cycles` record. Each field reads
/// as `None` where a record lacks it; the schema requires what numabench
/// always writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LatencyParams {
    #[serde(flatten)]
    pub working_set: WorkingSetParams,
    /// The chasing CPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpu: Option<u32>,
    /// Its node; written as null when the topology places it on none.
    pub cpu_node: Option<u32>,
    #[serde(flatten)]
    pub chase: ChaseOrderParams,
    /// Whether the buffer was backed by 2 MiB pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub hugepages: Option<bool>,
    /// Dependent loads per timed sample.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub loads_per_sample: Option<u64>,
    /// How many samples the stopping rule took and the interval reached
    /// ([`ConvergenceParams`]); absent where a fixed count was taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub convergence: Option<ConvergenceParams>,
    /// Percentiles of batches timed one by one (the library's
    /// kernel's tail); absent where not measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tail: Option<TailParams>,
    /// The remote-cache chase's figures (`--writer-cpu`).
    #[serde(flatten)]
    pub writer: Option<WriterParams>,
    /// The median over the firmware's declared latency (a matrix cell
    /// with HMAT figures).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_over_declared: Option<f64>,
    /// How a `latency_cycles` record counts cycles.
    #[serde(flatten)]
    pub cycles: Option<CyclesParams>,
}

impl BenchmarkParams for LatencyParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::LATENCY];
}

/// The remote-cache chase: a writer CPU rewrites the chain before every
/// pass, the chasing CPU follows it without a flush. Present on a record
/// that names its `writer_cpu`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WriterParams {
    /// The CPU that wrote the chain.
    pub writer_cpu: u32,
    /// Its node; written as null when the topology places it on none.
    pub writer_node: Option<u32>,
    /// Whether the writer CPU is the chasing CPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub writer_same_cpu: Option<bool>,
    /// ns per load of the very first pass; absent when not finite.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_pass_ns: Option<f64>,
    /// Passes over the whole chain in each sample.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub passes_per_sample: Option<u64>,
    /// The CPU the writer thread ran on while writing (sched_getcpu).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub writer_cpu_seen: Option<u32>,
    /// The CPU the chasing thread ran on while chasing (sched_getcpu).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpu_seen: Option<u32>,
    /// What a sample measures, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub samples_measure: Option<String>,
}

/// A `latency_cycles` record's clock: ns per load times the chasing
/// CPU's core clock. Present on a record that names its `core_ghz`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CyclesParams {
    /// The median core clock, GHz, measured after each sample.
    pub core_ghz: f64,
    /// What the cycles count, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cycles_measures: Option<String>,
    /// The TSC's rate, GHz, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tsc_ghz: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{to_labelled_params, to_params};
    use serde_json::json;
    use serde_json::Value;

    /// Written params read back as the type and written again are the
    /// same text: same keys, same order, integers and floats as they were.
    fn round_trips(params: Value) {
        let typed: LatencyParams = serde_json::from_value(params.clone()).unwrap();
        let written = Value::Object(to_params(&typed));
        assert_eq!(written.to_string(), params.to_string());
    }

    #[test]
    fn a_cycles_record_of_a_plain_chase_round_trips() {
        round_trips(
            json!({"size_bytes": 32768, "cache_bytes_in_front": 17367040,
            "cache_affected": true, "cache_level": "L1", "cache_level_bytes": 49152,
            "cpu": 0, "cpu_node": null, "order": "tlb-block", "order_measures": "idle",
            "block_bytes": 32768, "block_source": "cpuid", "hugepages": false,
            "loads_per_sample": 1508308,
            "convergence": {"repetitions": 1, "max_repetitions": 1, "ci95_rel": null,
                "ci95_target_rel": 0.01, "stopped_by": "maximum"},
            "tail": {"p50": 9.5, "p90": 10.0, "p99": 11.0, "p99_9": 12.0, "max": 20.0, "method": "m", "batch_loads": 8, "batches": 4096, "timer_resolution_ns": 0.5, "timing_overhead_ns": 3.0},
            "measured_over_declared": 1.25,
            "core_ghz": 2.0, "cycles_measures": "core cycles", "tsc_ghz": 2.5}),
        );
    }

    #[test]
    fn a_written_chase_round_trips_and_absent_options_stay_absent() {
        round_trips(json!({"size_bytes": 4096, "cache_bytes_in_front": 1024,
            "cache_affected": false, "cache_level": "memory", "cpu": 1, "cpu_node": 0,
            "order": "random", "order_measures": "all", "block_bytes": 4096,
            "block_source": "buffer", "hugepages": true, "loads_per_sample": 16384,
            "writer_cpu": 2, "writer_node": null, "writer_same_cpu": false,
            "passes_per_sample": 16, "writer_cpu_seen": 2, "cpu_seen": 1,
            "samples_measure": "each pass"}));
    }

    #[test]
    fn labels_before_the_params_keep_their_place() {
        let typed = LatencyParams {
            cpu: Some(3),
            cpu_node: Some(1),
            ..LatencyParams::default()
        };
        let labels = json!({"cpu_node": 9, "mem_node": 0});
        let params = to_labelled_params(labels.as_object().unwrap(), &typed);
        let keys: Vec<&str> = params.keys().map(String::as_str).collect();
        assert_eq!(keys, ["cpu_node", "mem_node", "cpu"]);
        assert_eq!(
            params["cpu_node"], 1,
            "the measured node replaces the label's"
        );
    }

    /// A record written by hand or by an older version reads with what
    /// it has.
    #[test]
    fn a_partial_record_reads_with_what_it_has() {
        let typed: LatencyParams =
            serde_json::from_value(json!({"size_bytes": 1024, "cpu": 0, "writer_cpu": 1})).unwrap();
        assert_eq!(typed.working_set.size_bytes, Some(1024));
        assert_eq!(typed.cpu, Some(0));
        assert_eq!(typed.writer.map(|writer| writer.writer_cpu), Some(1));
        assert_eq!((typed.chase.order, typed.cycles), (None, None));
    }

    /// A key of another type reads as absent; the others still read.
    #[test]
    fn a_mistyped_key_reads_as_absent() {
        let record = crate::Record {
            benchmark: benchmark::LATENCY.into(),
            metric: "latency".into(),
            value: 1.0,
            unit: crate::Unit::Nanoseconds,
            params: json!({"size_bytes": 1024, "cpu": "zero", "order": "random"})
                .as_object()
                .unwrap()
                .clone(),
            placement: crate::Placement::default(),
            stats: crate::Summary::single(1.0),
        };
        assert!(record.params_as::<LatencyParams>().is_err());
        let params: LatencyParams = record.params_or_default();
        assert_eq!(params.cpu, None);
        assert_eq!(params.working_set.size_bytes, Some(1024));
        assert_eq!(params.chase.order.as_deref(), Some("random"));
    }
}
