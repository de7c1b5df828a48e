//! The labels that tie a cluster record to where it was measured and to
//! what it is compared with (docs/results.md, "cluster"): typed as
//! [`ClusterLabels`], appended after each record's own params.

use crate::output::Record;
use numabench_schema::params::{to_params, ClusterLabels};

/// Who measured: added to every record a rank makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub host: String,
    pub rank: i32,
}

impl Origin {
    /// Tags `record` with host, rank, unit, part and (when comparable)
    /// its comparison key.
    pub fn tag(&self, record: &mut Record, unit: &str, part: &str, key: Option<String>) {
        add_labels(
            record,
            &ClusterLabels {
                host: Some(self.host.clone()),
                rank: Some(i64::from(self.rank)),
                unit: Some(unit.to_string()),
                part: Some(part.to_string()),
                cluster_key: key,
                ..ClusterLabels::default()
            },
        );
    }
}

/// `labels` appended to `record`'s params (a key it has keeps its place).
fn add_labels(record: &mut Record, labels: &ClusterLabels) {
    record.params.extend(to_params(labels));
}

/// Names the target of a record (`--per numa` remote latencies: what
/// tells it from its unit's other records of the same key), before it is
/// tagged.
pub fn mark_target(record: &mut Record, target: &str) {
    add_labels(
        record,
        &ClusterLabels {
            cluster_target: Some(target.to_string()),
            ..ClusterLabels::default()
        },
    );
}

/// Marks a retest's record with its attempt, after it is tagged: the
/// verdict takes each unit's better attempt.
#[cfg(any(feature = "mpi", test))]
pub fn mark_attempt(record: &mut Record, attempt: u32) {
    add_labels(
        record,
        &ClusterLabels {
            attempt: Some(attempt),
            ..ClusterLabels::default()
        },
    );
}

/// A record's cluster labels (none: not a cluster record).
pub fn labels(record: &Record) -> ClusterLabels {
    record.params_or_default()
}

/// This machine's host name (gethostname), as MPI users know their nodes.
pub fn host_name() -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname writes at
    // most that many bytes.
    let status = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) };
    if status != 0 {
        return "unknown".to_string();
    }
    let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
    String::from_utf8_lossy(&buffer[..end]).into_owned()
}

/// Every rank's host name ([`host_name`]), by rank: one all-gather of
/// fixed slots of [`HOST_SLOT`] bytes (longer names are cut).
#[cfg(feature = "mpi")]
pub fn every_rank_host(world: &mpi::topology::SimpleCommunicator) -> Vec<String> {
    use mpi::traits::{Communicator, CommunicatorCollectives};
    let mut mine = [0u8; HOST_SLOT];
    let name = host_name();
    let bytes = &name.as_bytes()[..name.len().min(HOST_SLOT - 1)];
    mine[..bytes.len()].copy_from_slice(bytes);
    let mut all = vec![0u8; HOST_SLOT * world.size() as usize];
    world.all_gather_into(&mine[..], &mut all[..]);
    all.chunks(HOST_SLOT)
        .map(|slot| {
            let end = slot.iter().position(|&b| b == 0).unwrap_or(slot.len());
            String::from_utf8_lossy(&slot[..end]).into_owned()
        })
        .collect()
}

/// Host names travel in fixed slots of this many bytes.
#[cfg(feature = "mpi")]
const HOST_SLOT: usize = 256;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_name_is_the_kernels() {
        let kernel = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
        assert_eq!(host_name(), kernel.trim());
    }
}
