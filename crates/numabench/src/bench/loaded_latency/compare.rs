//! loaded-latency's roles for `numabench compare`: the curve's two ends.

use crate::compare::roles::RoleSet;
use crate::output::Record;
use numabench_schema::params::LoadedLatencyParams;

/// `loaded latency, idle` and `loaded latency, most traffic (delay 0)`.
pub(super) fn roles(record: &Record, _set: &RoleSet) -> Vec<String> {
    (|| {
        (record.metric == "loaded_latency").then_some(())?;
        let params: LoadedLatencyParams = record.params_or_default();
        match (params.generators?, params.delay) {
            (0, _) => Some("loaded latency, idle".into()),
            (_, Some(0)) => Some("loaded latency, most traffic (delay 0)".into()),
            _ => None,
        }
    })()
    .into_iter()
    .collect()
}
