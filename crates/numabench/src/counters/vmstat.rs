//! The kernel's page-movement counters from `/proc/vmstat`, read before
//! and after a measurement: pages promoted to a faster memory tier
//! (`pgpromote_*`), demoted to a slower one (`pgdemote_*`), migrated
//! (`pgmigrate_*`) and NUMA balancing's and allocation counters (`numa_*`).
//! System-wide, like numastat: every process adds to them.
//!
//! A page demoted while a benchmark runs moved from the node it was
//! placed on to a slower tier: the figure no longer measures the
//! placement asked for, and the record says so (`vmstat_delta`,
//! [`moved_pages`]).
//!
//! One read costs the kernel a sum of per-CPU counters over every CPU, so
//! it is read only on machines with more than one NUMA node, where pages
//! have somewhere to move to ([`worth_reading`]).

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The counters kept, by prefix.
pub const VMSTAT_PREFIXES: [&str; 4] = ["pgpromote_", "pgdemote_", "pgmigrate_", "numa_"];

/// Counters by name.
pub type Vmstat = BTreeMap<String, u64>;

/// The kept counters of a `/proc/vmstat` text (`name value` lines).
pub fn parse_vmstat(text: &str) -> Vmstat {
    text.lines()
        .filter_map(|line| {
            let (name, value) = line.split_once(' ')?;
            VMSTAT_PREFIXES
                .iter()
                .any(|prefix| name.starts_with(prefix))
                .then(|| Some((name.to_string(), value.trim().parse().ok()?)))?
        })
        .collect()
}

/// True when this machine has more than one NUMA node online (read once).
pub fn worth_reading() -> bool {
    static SEVERAL: OnceLock<bool> = OnceLock::new();
    *SEVERAL.get_or_init(|| {
        std::fs::read_to_string("/sys/devices/system/node/online")
            .ok()
            .and_then(|online| crate::parse::parse_id_list(online.trim()).ok())
            .is_some_and(|nodes| nodes.len() > 1)
    })
}

/// The kept counters now, when [`worth_reading`] and readable.
pub fn read_vmstat() -> Option<Vmstat> {
    if !worth_reading() {
        return None;
    }
    std::fs::read_to_string("/proc/vmstat")
        .ok()
        .map(|text| parse_vmstat(&text))
}

/// `after - before` for the counters in both that grew.
pub fn vmstat_delta(before: &Vmstat, after: &Vmstat) -> Vmstat {
    after
        .iter()
        .filter_map(|(name, value)| {
            let grown = value.saturating_sub(*before.get(name)?);
            (grown > 0).then(|| (name.clone(), grown))
        })
        .collect()
}

/// Pages promoted and demoted in a delta (`pgpromote_success` counts the
/// promotions done; the other `pgpromote_*` count candidates and rates).
pub fn moved_pages(delta: &Vmstat) -> (u64, u64) {
    let promoted = delta.get("pgpromote_success").copied().unwrap_or(0);
    let demoted = delta
        .iter()
        .filter(|(name, _)| name.starts_with("pgdemote_"))
        .map(|(_, value)| value)
        .sum();
    (promoted, demoted)
}

/// Records a delta since a mark, record after record.
#[derive(Debug, Clone, Default)]
pub struct VmstatMark {
    last: Option<Vmstat>,
}

impl VmstatMark {
    /// A mark now (none on a one-node machine).
    pub fn now() -> Self {
        Self {
            last: read_vmstat(),
        }
    }

    /// The delta since the mark, which moves to now; `None` without a mark.
    pub fn take(&mut self) -> Option<Vmstat> {
        let before = self.last.as_ref()?;
        let now = read_vmstat()?;
        let delta = vmstat_delta(before, &now);
        self.last = Some(now);
        Some(delta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = "nr_free_pages 100\nnuma_hit 1000\nnuma_miss 0\npgpromote_success 0\npgpromote_candidate 5\npgdemote_kswapd 10\npgdemote_direct 0\npgmigrate_success 7\npgfault 99\n";
    const AFTER: &str = "nr_free_pages 50\nnuma_hit 1500\nnuma_miss 0\npgpromote_success 3\npgpromote_candidate 9\npgdemote_kswapd 130\npgdemote_direct 2\npgmigrate_success 7\npgfault 200\nnuma_new 1\n";

    #[test]
    fn the_kept_counters_that_grew_are_the_delta() {
        let before = parse_vmstat(BEFORE);
        assert!(!before.contains_key("pgfault"));
        assert_eq!(before["pgdemote_kswapd"], 10);
        let delta = vmstat_delta(&before, &parse_vmstat(AFTER));
        let expected: Vmstat = [
            ("numa_hit", 500),
            ("pgdemote_direct", 2),
            ("pgdemote_kswapd", 120),
            ("pgpromote_candidate", 4),
            ("pgpromote_success", 3),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_string(), value))
        .collect();
        assert_eq!(delta, expected);
        assert_eq!(moved_pages(&delta), (3, 122));
    }
}
