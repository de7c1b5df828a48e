//! The micro-benchmarks and their registry. Each benchmark validates its
//! configuration against the topology before allocating anything, places
//! and verifies its memory, pins its threads, and emits records through the
//! output pipeline as each one is measured.

mod bandwidth;
mod clock;
mod context;
mod error;
mod interrupt;
mod latency;
mod placed;
mod registry;

pub use bandwidth::{measure_bandwidth, run_bandwidth, BandwidthConfig, BandwidthResult};
pub use clock::{tsc_ghz, Stopwatch};
pub use context::Context;
pub use error::BenchError;
pub use interrupt::{install_interrupt_handler, interrupted};
pub use latency::{default_sweep_sizes, run_latency, LatencyConfig};
pub use placed::{
    check_memory_fits, cpus_of_node, resolve_cpu, resolve_node_with_memory, PlacedBuffer,
};
pub use registry::{registry, select, BenchmarkInfo, SelectionError};
