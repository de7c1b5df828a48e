//! Which CPUs this process may run on and which cores they belong to: the
//! `cores` of a host in TLP_N is the number of distinct (package, core)
//! pairs its ranks may run on.

use numabench_schema::affinity::{cpus_in_mask, WORD_BITS};
use std::collections::BTreeSet;

/// The CPUs of this process's affinity mask (`sched_getaffinity`, glibc's
/// `cpu_set_t` size: 1024 CPUs), decoded by the schema crate.
pub fn allowed_cpus() -> Vec<u32> {
    let mut mask = vec![0u64; libc::CPU_SETSIZE as usize / WORD_BITS];
    let bytes = mask.len() * std::mem::size_of::<u64>();
    // SAFETY: `mask` is a writable, 8-byte-aligned buffer of `bytes` bytes
    // (a cpu_set_t's size); the kernel writes at most `bytes` bytes into it.
    let status =
        unsafe { libc::sched_getaffinity(0, bytes, mask.as_mut_ptr().cast::<libc::cpu_set_t>()) };
    if status != 0 {
        return Vec::new();
    }
    cpus_in_mask(&mask)
        .into_iter()
        .filter_map(|cpu| u32::try_from(cpu).ok())
        .collect()
}

/// A core's identity on this host: `physical_package_id << 32 | core_id`
/// from sysfs, or the CPU itself (as its own core) where sysfs has neither.
pub fn core_key(cpu: u32) -> u64 {
    let read = |name: &str| {
        std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu{cpu}/topology/{name}"))
            .ok()
            .and_then(|text| text.trim().parse::<i64>().ok())
    };
    match (read("physical_package_id"), read("core_id")) {
        (Some(package), Some(core)) => {
            ((package as u64 & 0xffff_ffff) << 32) | core as u64 & 0xffff_ffff
        }
        _ => (1 << 63) | u64::from(cpu),
    }
}

/// Distinct cores among the given core keys (at least 1, so that a host
/// whose ranks reported nothing still has a defined TLP).
pub fn distinct_cores(keys: impl IntoIterator<Item = u64>) -> usize {
    keys.into_iter().collect::<BTreeSet<_>>().len().max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_may_run_somewhere_and_siblings_share_a_core() {
        let cpus = allowed_cpus();
        assert!(!cpus.is_empty());
        // Every CPU of a core's sibling list maps to the same key.
        for &cpu in &cpus {
            let path = format!("/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list");
            if let Ok(list) = std::fs::read_to_string(path) {
                for sibling in list
                    .trim()
                    .split(',')
                    .filter_map(|part| part.split('-').next())
                {
                    if let Ok(sibling) = sibling.parse::<u32>() {
                        assert_eq!(core_key(sibling), core_key(cpu), "cpu {cpu} / {sibling}");
                    }
                }
            }
        }
    }

    #[test]
    fn counts_distinct_cores_at_least_one() {
        assert_eq!(distinct_cores([1, 2, 2, 3]), 3);
        assert_eq!(distinct_cores([]), 1);
    }
}
