//! Steps of the single-benchmark commands: each command builds its steps
//! from the same work values as `characterize`, then either prints
//! their plan (`--plan`) or runs them ([`super::StepRunner`]).

use super::bandwidth::BandwidthConfig;
use super::characterize::one_cpu_label;
use super::contention::ContentionWork;
use super::latency::LatencyConfig;
use super::loaded_latency::LoadedLatencyConfig;
use super::matrix::{CpuRow, MatrixKind, MatrixMode, MatrixWork, MATRIX_ORDER};
use super::mlp::MlpConfig;
use super::mlp_threads::MlpThreadsConfig;
use super::per_cpu::{EachCpu, PerCpuMeasure};
use super::scaling::ScalingWork;
use super::step::Step;
use crate::kernels::KernelSpec;
use crate::threads::CpuOrder;
use crate::topology::Machine;
use crate::units::format_bytes;

impl Step {
    /// One step per CPU of `each`, in its order, measuring `measure`; the
    /// last also emits every CPU's ratio to its node's median.
    pub fn each_cpu(topology: &Machine, each: &EachCpu, measure: &PerCpuMeasure) -> Vec<Self> {
        let what = match measure {
            PerCpuMeasure::Latency(_) => "latency",
            PerCpuMeasure::Bandwidth(_) => "bandwidth",
        };
        each.split(topology, measure)
            .into_iter()
            .map(|one| Self::of(each.benchmark, one_cpu_label(what, &one), one))
            .collect()
    }

    /// One row of a per-CPU matrix: one thread on `cpu`, memory on every
    /// memory node in turn, working set `size`.
    pub fn cpu_matrix_row(cpu: u32, kind: MatrixKind, size: u64) -> Self {
        let (benchmark, what) = match kind {
            MatrixKind::Latency => ("matrix-latency", "latency"),
            MatrixKind::Bandwidth(_) => ("matrix-bandwidth", "read bandwidth"),
        };
        Self::of(
            benchmark,
            format!("{what} matrix row of CPU {cpu}"),
            CpuRow { cpu, kind, size },
        )
        .in_order(MATRIX_ORDER)
    }

    /// A latency run of every size of `config`, in order.
    pub fn latency(config: LatencyConfig) -> Self {
        let sizes: Vec<String> = config.sizes.iter().map(|&s| format_bytes(s)).collect();
        let label = format!("latency {}", sizes.join(", "));
        Self::of("latency", label, config)
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
        Self::of(config.benchmark, label, config)
    }

    /// The latency matrix, every CPU node x every memory node.
    pub fn latency_matrix(size: u64) -> Self {
        Self::of(
            "matrix-latency",
            "latency matrix".to_string(),
            MatrixWork {
                kind: MatrixKind::Latency,
                size,
                sample: None,
            },
        )
        .in_order(MATRIX_ORDER)
    }

    /// The bandwidth matrix in `mode`.
    pub fn bandwidth_matrix(mode: MatrixMode, size: u64) -> Self {
        Self::of(
            "matrix-bandwidth",
            format!("bandwidth matrix ({})", mode.name()),
            MatrixWork {
                kind: MatrixKind::Bandwidth(mode),
                size,
                sample: None,
            },
        )
        .in_order(MATRIX_ORDER)
    }

    /// Contention of `cpus` on `node`.
    pub fn contention(cpus: Vec<u32>, node: u32, size: u64) -> Self {
        Self::of(
            "contention",
            format!("contention on node {node}"),
            ContentionWork {
                alone: cpus.clone(),
                cpus,
                node,
                size,
            },
        )
    }

    /// Bandwidth scaling of `kernel` for memory on `node`, threads added
    /// in `order`.
    pub fn scaling(kernel: &'static KernelSpec, node: u32, size: u64, order: CpuOrder) -> Self {
        Self::of(
            "scaling",
            format!("scaling of node {node}"),
            ScalingWork {
                kernel,
                node,
                size,
                order,
                stride: 1,
            },
        )
        .in_order(order)
    }

    /// A loaded-latency run.
    pub fn loaded_latency(config: LoadedLatencyConfig) -> Self {
        Self::of("loaded-latency", "loaded latency".to_string(), config)
    }

    /// Memory-level parallelism.
    pub fn mlp(config: MlpConfig) -> Self {
        Self::of("mlp", "memory-level parallelism".to_string(), config)
    }

    /// Another core's caches, by state x level x relation.
    pub fn cache(config: super::cache::CacheConfig) -> Self {
        Self::of(
            "cache",
            format!(
                "another core's caches: owner CPU {}, {} measuring CPUs",
                config.owner,
                config.measurers.len()
            ),
            config,
        )
    }

    /// Many threads chasing at once, pinned and/or unpinned.
    pub fn mlp_threads(config: MlpThreadsConfig) -> Self {
        Self::of(
            "mlp",
            format!(
                "memory-level parallelism, {} threads ({})",
                config.cpus.len(),
                match config.pinning {
                    super::mlp_threads::Pinning::Pinned => "pinned",
                    super::mlp_threads::Pinning::Unpinned => "unpinned",
                    super::mlp_threads::Pinning::Both => "pinned against unpinned",
                }
            ),
            config,
        )
    }
}
