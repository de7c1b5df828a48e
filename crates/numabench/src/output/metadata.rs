//! Run metadata: what every output file starts with.

use crate::topology::Machine;
use serde::{Deserialize, Serialize};
use std::fs;
use std::time::{SystemTime, UNIX_EPOCH};

/// Who ran what, where and when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMetadata {
    /// Always `numabench`.
    pub tool: String,
    /// numabench's version.
    pub version: String,
    /// The commit numabench was built from (`unknown` outside a checkout,
    /// empty in files written before it was recorded).
    #[serde(default)]
    pub commit: String,
    /// Version of the results schema.
    pub schema_version: u32,
    /// The full command line, program name included.
    pub command_line: Vec<String>,
    pub host: String,
    /// Kernel release (`uname -r`).
    pub kernel: String,
    /// CPU model name.
    pub cpu_model: String,
    /// One line: packages, cores, CPUs, nodes (CPU-less count); for a
    /// topology that is not this machine's, where it comes from.
    pub topology: String,
    /// Start of the run, UTC, RFC 3339.
    pub utc_time: String,
}

impl RunMetadata {
    /// Collects the metadata of this run on this machine.
    pub fn collect(command_line: Vec<String>, topology: &Machine) -> Self {
        Self::collect_described(command_line, topology_summary(topology))
    }

    /// The metadata of a run that reads results rather than measuring
    /// (`compare`): `topology` says what stands in the topology line
    /// instead of this machine's.
    pub fn collect_described(command_line: Vec<String>, topology: String) -> Self {
        let read = |path: &str| {
            fs::read_to_string(path)
                .map(|text| text.trim().to_string())
                .unwrap_or_else(|_| "unknown".to_string())
        };
        let cpu_model = fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|text| {
                text.lines()
                    .find(|line| line.starts_with("model name"))
                    .and_then(|line| line.split_once(':'))
                    .map(|(_, model)| model.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".to_string());
        Self {
            tool: "numabench".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            commit: crate::BUILD_COMMIT.to_string(),
            schema_version: super::RESULTS_SCHEMA_VERSION,
            command_line,
            host: read("/proc/sys/kernel/hostname"),
            kernel: read("/proc/sys/kernel/osrelease"),
            cpu_model,
            topology,
            utc_time: utc_timestamp(SystemTime::now()),
        }
    }
}

fn topology_summary(topology: &Machine) -> String {
    let cpuless = topology.nodes.iter().filter(|node| node.cpuless).count();
    let mut text = format!(
        "{} package(s), {} core(s), {} CPU(s), {} NUMA node(s)",
        topology.packages.len(),
        topology.core_count,
        topology.cpu_count,
        topology.node_count
    );
    if cpuless > 0 {
        text.push_str(&format!(" ({cpuless} CPU-less)"));
    }
    if !topology.this_system {
        text.push_str(&format!("; from {}, not this machine", topology.source));
    }
    text
}

/// Formats a time as RFC 3339 UTC (`2026-11-21T23:52:00Z`).
pub fn utc_timestamp(time: SystemTime) -> String {
    let seconds = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |duration| duration.as_secs());
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Days since 1970-01-01 to a (year, month, day) in the proleptic
/// Gregorian calendar (Howard Hinnant's public-domain algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_index + 2) / 5 + 1) as u32;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_topology_line_says_when_it_is_not_this_machine() {
        let mut topology = crate::topology::synthetic(
            "pack:2 [numa(memory=1GiB)] [numa(memory=1GiB)] core:2 pu:2",
        );
        topology.source = "server.xml".to_string();
        assert_eq!(
            topology_summary(&topology),
            "2 package(s), 4 core(s), 8 CPU(s), 4 NUMA node(s) (2 CPU-less); from server.xml, not this machine"
        );
        topology.this_system = true;
        assert!(!topology_summary(&topology).contains("not this machine"));
    }

    #[test]
    fn formats_utc_timestamps() {
        assert_eq!(utc_timestamp(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        // 2026-11-21T23:52:00Z, computed with `date -u -d @1795305120`.
        let time = UNIX_EPOCH + Duration::from_secs(1_795_305_120);
        assert_eq!(utc_timestamp(time), "2026-11-21T23:52:00Z");
        // A leap day: 2024-02-29T12:00:00Z = 1709208000.
        assert_eq!(
            utc_timestamp(UNIX_EPOCH + Duration::from_secs(1_709_208_000)),
            "2024-02-29T12:00:00Z"
        );
    }
}
