//! Steps of the single-benchmark commands: each command builds its steps
//! from the same [`Work`] values as `characterize`, then either prints
//! their plan (`--plan`) or runs them ([`super::run_step`]).

use super::bandwidth::BandwidthConfig;
use super::characterize::{Step, Work};
use super::latency::LatencyConfig;
use super::loaded_latency::LoadedLatencyConfig;
use super::matrix::MatrixMode;
use super::mlp::MlpConfig;
use crate::kernels::KernelSpec;
use crate::units::format_bytes;

impl Step {
    fn of(benchmark: &'static str, label: String, work: Work) -> Self {
        Step {
            benchmark,
            label,
            work,
        }
    }

    /// A latency run of every size of `config`, in order.
    pub fn latency(config: LatencyConfig) -> Self {
        let sizes: Vec<String> = config.sizes.iter().map(|&s| format_bytes(s)).collect();
        let label = format!("latency {}", sizes.join(", "));
        Self::of("latency", label, Work::Latency(config))
    }

    /// A bandwidth run of one kernel, CPU set and size.
    pub fn bandwidth(config: BandwidthConfig) -> Self {
        let label = format!(
            "{} {} x{} {}",
            config.benchmark,
            config.kernel.name,
            config.cpus.len(),
            format_bytes(config.size)
        );
        Self::of(config.benchmark, label, Work::Bandwidth(config))
    }

    /// The latency matrix, every CPU node x every memory node.
    pub fn latency_matrix(size: u64) -> Self {
        Self::of(
            "matrix-latency",
            "latency matrix".to_string(),
            Work::LatencyMatrix(size),
        )
    }

    /// The bandwidth matrix in `mode`.
    pub fn bandwidth_matrix(mode: MatrixMode, size: u64) -> Self {
        Self::of(
            "matrix-bandwidth",
            format!("bandwidth matrix ({})", mode.name()),
            Work::BandwidthMatrix(mode, size),
        )
    }

    /// Contention of `cpus` on `node`.
    pub fn contention(cpus: Vec<u32>, node: u32, size: u64) -> Self {
        Self::of(
            "contention",
            format!("contention on node {node}"),
            Work::Contention { cpus, node, size },
        )
    }

    /// Bandwidth scaling of `kernel` for memory on `node`.
    pub fn scaling(kernel: &'static KernelSpec, node: u32, size: u64) -> Self {
        Self::of(
            "scaling",
            format!("scaling of node {node}"),
            Work::Scaling { kernel, node, size },
        )
    }

    /// A loaded-latency run.
    pub fn loaded_latency(config: LoadedLatencyConfig) -> Self {
        Self::of(
            "loaded-latency",
            "loaded latency".to_string(),
            Work::LoadedLatency(config),
        )
    }

    /// Memory-level parallelism.
    pub fn mlp(config: MlpConfig) -> Self {
        Self::of(
            "mlp",
            "memory-level parallelism".to_string(),
            Work::Mlp(config),
        )
    }

    /// Cache-to-cache latency of every pair (or a sample).
    pub fn c2c() -> Self {
        Self::of("c2c", "cache-to-cache latency".to_string(), Work::C2c)
    }
}
