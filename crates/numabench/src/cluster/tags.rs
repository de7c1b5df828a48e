//! The `params` keys that tie a cluster record to where it was measured
//! and to what it is compared with (docs/results.md, "cluster").

use crate::output::Record;
use serde_json::json;

/// Host name (gethostname) of the rank that measured.
pub const HOST: &str = "host";
/// MPI_COMM_WORLD rank that measured.
pub const RANK: &str = "rank";
/// The compared unit: `HOST`, `HOST/node N` (`--per numa`) or
/// `HOST/rank R` (`--per rank`).
pub const UNIT: &str = "unit";
/// The part that made the record.
pub const PART: &str = "part";
/// What the record's value is compared with across units; records
/// without it are kept but not compared.
pub const KEY: &str = "cluster_key";
/// What tells a record from its unit's other records of the same key
/// (`--per numa` remote latencies: `memory node N`); absent when a unit
/// has one record per key.
pub const TARGET: &str = "cluster_target";
/// A retest's attempt (2): the record measures a suspect again; first
/// attempts carry none. The verdict takes each unit's better attempt.
pub const ATTEMPT: &str = "attempt";
/// A host's settings (`topo` part), compared across hosts.
pub const SETTINGS: &str = "settings";

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
        let params = &mut record.params;
        params.insert(HOST.into(), json!(self.host));
        params.insert(RANK.into(), json!(self.rank));
        params.insert(UNIT.into(), json!(unit));
        params.insert(PART.into(), json!(part));
        if let Some(key) = key {
            params.insert(KEY.into(), json!(key));
        }
    }
}

/// Names the target of a record (`--per numa` remote latencies), before
/// it is tagged.
pub fn mark_target(record: &mut Record, target: &str) {
    record.params.insert(TARGET.into(), json!(target));
}

/// Marks a retest's record with its attempt, after it is tagged.
pub fn mark_attempt(record: &mut Record, attempt: u32) {
    record.params.insert(ATTEMPT.into(), json!(attempt));
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
