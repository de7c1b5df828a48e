//! latency's roles for `numabench compare`: the sweep's record that stands
//! for each level, with memory on the measuring CPU's node.

use crate::compare::roles::{level, local_memory, RoleSet};
use crate::output::Record;
use numabench_schema::params::LatencyParams;

/// What follows a latency role's words: nothing for `latency` (ns),
/// `, cycles` for `latency_cycles`; None for other metrics.
pub(in crate::bench) fn latency_metric(metric: &str) -> Option<&'static str> {
    match metric {
        "latency" => Some(""),
        "latency_cycles" => Some(", cycles"),
        _ => None,
    }
}

/// `L2 latency`, `DRAM latency, cycles`, ...
pub(super) fn roles(record: &Record, set: &RoleSet) -> Vec<String> {
    (|| {
        let metric = latency_metric(&record.metric)?;
        let level = level(record)?;
        let params: LatencyParams = record.params_or_default();
        let size = params.working_set.size_bytes?;
        let chosen = set.sweep_size(&record.metric, &level)?;
        (size == chosen && local_memory(record)).then(|| format!("{level} latency{metric}"))
    })()
    .into_iter()
    .collect()
}
