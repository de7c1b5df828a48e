//! Steps of the single-benchmark commands: each command builds its steps
//! from the same work values as `characterize`, then either prints
//! their plan (`--plan`) or runs them ([`super::StepRunner`]).

use super::characterize::one_cpu_label;
use super::matrix::{CpuRow, MatrixKind, MatrixMode, MatrixWork, MATRIX_ORDER};
use super::mlp_threads::MlpThreadsConfig;
use super::per_cpu::{EachCpu, PerCpuMeasure};
use super::step::Step;
use crate::topology::Machine;

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
