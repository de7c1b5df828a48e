//! The counters as record parameters ([`CountsParams`]'s parts): numastat
//! deltas and perf counts in the shapes `docs/results.md` describes, the
//! same for applications and `numabench run`.

use super::{PerfReport, ThreadUsage, Tlp};
use numabench_schema::params::{PerfParams, ThreadUsageParams, TlpParams};

/// Whose pages `numastat_delta` counts: every process's (the kernel's
/// per-node numastat is system-wide).
pub const NUMASTAT_SCOPE: &str = "system";

/// `perf`, `perf_unavailable` and (when not empty) `perf_multiplexed`.
pub fn perf_params(report: &PerfReport) -> PerfParams {
    PerfParams {
        perf: report.counts.clone(),
        perf_unavailable: report.unavailable.clone(),
        perf_multiplexed: report.multiplexed.clone(),
    }
}

/// One thread's CPU time and switches.
pub fn usage_params(usage: &ThreadUsage) -> ThreadUsageParams {
    ThreadUsageParams {
        tid: usage.tid,
        cpu: usage.cpu,
        user_seconds: usage.user_seconds,
        system_seconds: usage.system_seconds,
        voluntary_switches: usage.voluntary_switches,
        involuntary_switches: usage.involuntary_switches,
    }
}

/// Thread-level parallelism.
pub fn tlp_params(tlp: &Tlp) -> TlpParams {
    TlpParams {
        tlp_1: tlp.tlp_1,
        tlp_2: tlp.tlp_2,
        tlp_3: tlp.tlp_3,
        tlp_4: tlp.tlp_4,
        samples: tlp.samples,
        cores: tlp.cores as u64,
        mean_interval_ms: tlp.mean_interval_ms,
    }
}
