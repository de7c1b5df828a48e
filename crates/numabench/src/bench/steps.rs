//! Steps of the single-benchmark commands: each command builds its steps
//! from the same work values as `characterize`, then either prints
//! their plan (`--plan`) or runs them ([`super::StepRunner`]).

use super::mlp_threads::MlpThreadsConfig;
use super::step::Step;

impl Step {
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
