//! One check item measured with the existing benchmarks: bandwidth with
//! every CPU of a node pinned and the memory bound to the node, latency
//! from one pinned CPU; each placement verified.

use super::plan::{CheckItem, CheckQuantity};
use crate::bench::{
    measure_bandwidth, measure_latency, BandwidthConfig, BenchError, Context, LatencyConfig,
};
use crate::kernels::{kernel_by_name, ChaseOrder};
use crate::memory::MemoryPlacement;
use numabench_schema::PlacementCheck;
use serde::Serialize;

/// One measurement of an item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attempt {
    /// The figure compared: the fastest repetition (a bandwidth's highest,
    /// a latency's lowest sample). A neighbour only ever slows a
    /// repetition; a slow node slows every one.
    pub value: f64,
    /// Every repetition (GB/s) or sample (ns).
    pub repetitions: Vec<f64>,
    /// Where the pages were found.
    pub placement: PlacementCheck,
}

/// Measures `item` once, with `context.repeat` repetitions for a
/// bandwidth and `latency_samples` samples for a latency.
pub fn measure_item(
    context: &Context,
    item: &CheckItem,
    latency_samples: usize,
) -> Result<Attempt, BenchError> {
    let memory = MemoryPlacement::bind(item.memory_node);
    match item.quantity {
        CheckQuantity::ReadBandwidth | CheckQuantity::TriadBandwidth => {
            let kernel = if item.quantity == CheckQuantity::ReadBandwidth {
                "read"
            } else {
                "triad"
            };
            let kernel = kernel_by_name(kernel).expect("read and triad are registered");
            let config = BandwidthConfig::new(kernel, item.cpus.clone(), item.size, memory);
            let result = measure_bandwidth(context, &config)?;
            let repetitions = result.gigabytes_per_second.values().to_vec();
            Ok(Attempt {
                value: repetitions.iter().copied().fold(f64::NAN, f64::max),
                repetitions,
                placement: result.check,
            })
        }
        CheckQuantity::Latency => {
            let config = LatencyConfig {
                sizes: vec![item.size],
                cpu: item.cpus[0],
                memory,
                order: ChaseOrder::default(),
                writer_cpu: None,
            };
            let mut context = context.clone();
            context.repeat = latency_samples;
            let measured = measure_latency(&context, &config, item.size)?;
            let repetitions = measured.nanoseconds_per_load;
            Ok(Attempt {
                value: repetitions.iter().copied().fold(f64::NAN, f64::min),
                repetitions,
                placement: measured.check,
            })
        }
    }
}
