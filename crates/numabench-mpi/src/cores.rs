//! Which CPUs this process may run on and which cores they belong to: the
//! `cores` of a host in TLP_N is the number of distinct (package, core)
//! pairs its ranks may run on.

use std::collections::BTreeSet;

/// The CPUs of this process's affinity mask (`sched_getaffinity`).
pub fn allowed_cpus() -> Vec<u32> {
    // SAFETY: cpu_set_t is plain data; all zeroes is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid cpu_set_t of the size passed.
    let status = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
    if status != 0 {
        return Vec::new();
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: cpu < CPU_SETSIZE, and `set` is initialised.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .map(|cpu| cpu as u32)
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
