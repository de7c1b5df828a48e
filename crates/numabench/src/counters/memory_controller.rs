//! Memory traffic as the memory controllers count it: the uncore PMUs
//! perf exposes under `/sys/bus/event_source/devices` whose events count
//! the data read and written at the DRAM, counted on the CPUs of each
//! PMU's `cpumask` (one per socket):
//! - Intel's `uncore_imc_N` `cas_count_read`/`cas_count_write` and the
//!   client parts' `uncore_imc_free_running_N` `data_read`/`data_write`,
//!   each decoded from its sysfs description (`events/NAME` terms placed by
//!   the PMU's `format/` bit ranges, `NAME.scale` and `NAME.unit` into
//!   bytes);
//! - AMD's `amd_umc_N` (Zen 4 and later, Linux 6.8+), whose events sysfs
//!   does not name: perf's own tables define `umc_cas_cmd.rd` and
//!   `umc_cas_cmd.wr` as event 0x0a with read/write mask 1 and 2, one
//!   64-byte CAS each, placed here by the PMU's `format/` (`event`,
//!   `rdwrmask`).
//!
//! Beside the traffic generators' own counts, they say what reached memory
//! (with the prefetchers' and the write-backs' traffic, and every other
//! process's). Where no such PMU exists (older AMD parts' data-fabric
//! counters have no named events, virtual machines have none) or it cannot
//! be opened (privilege), the reason is given, never an estimate.

use super::perf::{open_on_cpu, read_count};
use crate::parse::parse_id_list;
use std::os::fd::OwnedFd;
use std::path::Path;

/// Where the kernel lists its PMUs.
pub const PMU_DIR: &str = "/sys/bus/event_source/devices";

/// Events counting the data read from DRAM, by the name sysfs gives them.
const READ_EVENTS: &[&str] = &["cas_count_read", "data_read"];
/// Events counting the data written to DRAM.
const WRITE_EVENTS: &[&str] = &["cas_count_write", "data_write"];

/// AMD's UMC events, as perf's tables define them (sysfs names none):
/// (name, terms, bytes per count, direction).
const AMD_UMC_EVENTS: &[(&str, &str, f64, Direction)] = &[
    (
        "umc_cas_cmd.rd",
        "event=0x0a,rdwrmask=0x1",
        64.0,
        Direction::Read,
    ),
    (
        "umc_cas_cmd.wr",
        "event=0x0a,rdwrmask=0x2",
        64.0,
        Direction::Write,
    ),
];

/// Whether an event counts reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Read,
    Write,
}

/// One memory-controller event, decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct ControllerEvent {
    /// The PMU's name (`uncore_imc_0`).
    pub pmu: String,
    /// The event's name (`cas_count_read`).
    pub event: String,
    /// The PMU's perf type.
    pub kind: u32,
    pub config: u64,
    pub config1: u64,
    /// Bytes per count (`scale` x `unit`).
    pub bytes_per_count: f64,
    /// The CPUs to count it on (its `cpumask`: one per socket).
    pub cpus: Vec<u32>,
    pub direction: Direction,
}

/// Places `value` into the bits `ranges` names (`0-7`, `8-15,32-35`, `21`),
/// low bits first.
fn place(value: u64, ranges: &str) -> Option<u64> {
    let mut placed = 0u64;
    let mut shift = 0u32;
    for range in ranges.split(',') {
        let (low, high) = match range.split_once('-') {
            Some((low, high)) => (
                low.trim().parse::<u32>().ok()?,
                high.trim().parse::<u32>().ok()?,
            ),
            None => {
                let bit = range.trim().parse::<u32>().ok()?;
                (bit, bit)
            }
        };
        if high < low || high > 63 {
            return None;
        }
        let width = high - low + 1;
        let mask = if width == 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        placed |= ((value >> shift) & mask) << low;
        shift += width;
    }
    Some(placed)
}

/// `config` and `config1` of an event's terms (`event=0x04,umask=0x03`)
/// by the PMU's `format` folder (`event` -> `config:0-7`).
fn encode(terms: &str, format: &Path) -> Option<(u64, u64)> {
    let (mut config, mut config1) = (0u64, 0u64);
    for term in terms.trim().split(',').filter(|term| !term.is_empty()) {
        let (name, value) = term.split_once('=').unwrap_or((term, "1"));
        let value = match value.trim().strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).ok()?,
            None => value.trim().parse().ok()?,
        };
        let field = std::fs::read_to_string(format.join(name.trim())).ok()?;
        let (register, ranges) = field.trim().split_once(':')?;
        let bits = place(value, ranges)?;
        match register {
            "config" => config |= bits,
            "config1" => config1 |= bits,
            _ => return None,
        }
    }
    Some((config, config1))
}

/// Bytes per count from an event's `.scale` and `.unit` files (a count of
/// 64-byte lines is usually scale 6.103515625e-5 in MiB).
fn bytes_per_count(events: &Path, name: &str) -> f64 {
    let scale = std::fs::read_to_string(events.join(format!("{name}.scale")))
        .ok()
        .and_then(|text| text.trim().parse::<f64>().ok())
        .unwrap_or(1.0);
    let unit = std::fs::read_to_string(events.join(format!("{name}.unit"))).unwrap_or_default();
    let multiplier = match unit.trim() {
        "MiB" => 1048576.0,
        "KiB" => 1024.0,
        "GiB" => 1073741824.0,
        "MB" => 1e6,
        "GB" => 1e9,
        _ => 1.0,
    };
    scale * multiplier
}

/// Every memory-controller event of the PMUs under `root` (a copy of
/// [`PMU_DIR`]), PMUs by name.
pub fn discover(root: &Path) -> Vec<ControllerEvent> {
    let mut pmus: Vec<_> = std::fs::read_dir(root)
        .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
        .unwrap_or_default();
    pmus.sort();
    let mut found = Vec::new();
    for pmu in pmus {
        let name = pmu
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let intel = name.starts_with("uncore_imc");
        let amd = name.starts_with("amd_umc");
        if !intel && !amd {
            continue;
        }
        let Some(kind) = std::fs::read_to_string(pmu.join("type"))
            .ok()
            .and_then(|text| text.trim().parse::<u32>().ok())
        else {
            continue;
        };
        let cpus = std::fs::read_to_string(pmu.join("cpumask"))
            .ok()
            .and_then(|text| parse_id_list(text.trim()).ok())
            .unwrap_or_else(|| vec![0]);
        let events = pmu.join("events");
        let mut defined: Vec<(String, String, f64, Direction)> = Vec::new();
        if amd {
            for (event, terms, bytes, direction) in AMD_UMC_EVENTS {
                defined.push((event.to_string(), terms.to_string(), *bytes, *direction));
            }
        }
        for (names, direction) in [
            (READ_EVENTS, Direction::Read),
            (WRITE_EVENTS, Direction::Write),
        ] {
            for event in names.iter().filter(|_| intel) {
                if let Ok(terms) = std::fs::read_to_string(events.join(event)) {
                    let bytes = bytes_per_count(&events, event);
                    defined.push((event.to_string(), terms, bytes, direction));
                }
            }
        }
        for (event, terms, bytes_per_count, direction) in defined {
            let Some((config, config1)) = encode(&terms, &pmu.join("format")) else {
                continue;
            };
            found.push(ControllerEvent {
                pmu: name.clone(),
                event,
                kind,
                config,
                config1,
                bytes_per_count,
                cpus: cpus.clone(),
                direction,
            });
        }
    }
    found
}

/// Why the memory controllers' traffic was not counted (a loaded-latency
/// point records it in place of the figures).
///
/// Fault: always the system's (no such PMU here, or the kernel refused).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ControllerError {
    /// No memory-controller PMU with named read/write events.
    #[error("no memory-controller PMU with named read/write events in {PMU_DIR} (Intel's uncore_imc, AMD's amd_umc; none in a virtual machine)")]
    NoPmu,
    /// No event opened; `event` is the last refused (`PMU/EVENT`), `error`
    /// the kernel's reason as text (so that a point stays comparable).
    #[error("the memory-controller counters could not be opened ({event}: {error}; needs CAP_PERFMON or kernel.perf_event_paranoid 0 or below)")]
    Refused { event: String, error: String },
    /// The counters opened but were not read around the measurement.
    #[error("the memory-controller counters were not read")]
    NotRead,
}

crate::error::all_faulty!(System: ControllerError);

/// The memory controllers' counters, open.
#[derive(Debug)]
pub struct ControllerCounters {
    opened: Vec<(ControllerEvent, OwnedFd)>,
    pmus: Vec<String>,
}

/// Bytes read and written at the controllers since the counters opened.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ControllerBytes {
    pub read: f64,
    pub write: f64,
}

impl ControllerCounters {
    /// Opens every memory-controller event of this machine; the reason
    /// when there is none or none opens.
    pub fn open() -> Result<Self, ControllerError> {
        Self::open_events(discover(Path::new(PMU_DIR)))
    }

    fn open_events(events: Vec<ControllerEvent>) -> Result<Self, ControllerError> {
        if events.is_empty() {
            return Err(ControllerError::NoPmu);
        }
        let mut opened = Vec::new();
        let mut failure = None;
        for event in events {
            for &cpu in &event.cpus {
                match open_on_cpu(event.kind, event.config, event.config1, cpu as i32) {
                    Ok(fd) => opened.push((event.clone(), fd)),
                    Err(error) => {
                        failure = Some(ControllerError::Refused {
                            event: format!("{}/{}", event.pmu, event.event),
                            error: error.to_string(),
                        })
                    }
                }
            }
        }
        if let Some(failure) = failure.filter(|_| opened.is_empty()) {
            return Err(failure);
        }
        let mut pmus: Vec<String> = opened.iter().map(|(event, _)| event.pmu.clone()).collect();
        pmus.dedup();
        Ok(Self { opened, pmus })
    }

    /// The PMUs counted.
    pub fn pmus(&self) -> &[String] {
        &self.pmus
    }

    /// Bytes so far; counters that could not be read are left out.
    pub fn bytes(&self) -> ControllerBytes {
        let mut bytes = ControllerBytes::default();
        for (event, fd) in &self.opened {
            let Ok(count) = read_count(fd) else {
                continue;
            };
            let counted = count as f64 * event.bytes_per_count;
            match event.direction {
                Direction::Read => bytes.read += counted,
                Direction::Write => bytes.write += counted,
            }
        }
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PMU folder as the kernel lays one out.
    fn pmu(root: &Path, name: &str, events: &[(&str, &str, &str, &str)]) {
        let dir = root.join(name);
        std::fs::create_dir_all(dir.join("events")).unwrap();
        std::fs::create_dir_all(dir.join("format")).unwrap();
        std::fs::write(dir.join("type"), "17\n").unwrap();
        std::fs::write(dir.join("cpumask"), "0,48\n").unwrap();
        std::fs::write(dir.join("format/event"), "config:0-7\n").unwrap();
        std::fs::write(dir.join("format/umask"), "config:8-15\n").unwrap();
        for (event, terms, scale, unit) in events {
            std::fs::write(dir.join("events").join(event), format!("{terms}\n")).unwrap();
            std::fs::write(dir.join("events").join(format!("{event}.scale")), scale).unwrap();
            std::fs::write(dir.join("events").join(format!("{event}.unit")), unit).unwrap();
        }
    }

    #[test]
    fn an_imc_pmus_events_decode_as_perf_decodes_them() {
        let root = tempfile::tempdir().unwrap();
        pmu(
            root.path(),
            "uncore_imc_0",
            &[
                (
                    "cas_count_read",
                    "event=0x04,umask=0x03",
                    "6.103515625e-5",
                    "MiB",
                ),
                (
                    "cas_count_write",
                    "event=0x04,umask=0x0c",
                    "6.103515625e-5",
                    "MiB",
                ),
            ],
        );
        // Not a memory controller: left out.
        pmu(
            root.path(),
            "uncore_cha_0",
            &[("clockticks", "event=0x00", "1", "")],
        );
        let events = discover(root.path());
        assert_eq!(events.len(), 2);
        let read = &events[0];
        assert_eq!(read.direction, Direction::Read);
        assert_eq!(read.config, 0x0304);
        assert_eq!(read.kind, 17);
        assert_eq!(read.cpus, [0, 48]);
        // One count is a 64-byte line.
        assert!((read.bytes_per_count - 64.0).abs() < 1e-9);
        assert_eq!(events[1].config, 0x0c04);
    }

    #[test]
    fn an_amd_umc_pmu_gets_perfs_cas_events_placed_by_its_format() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("amd_umc_3");
        std::fs::create_dir_all(dir.join("format")).unwrap();
        std::fs::write(dir.join("type"), "21\n").unwrap();
        std::fs::write(dir.join("cpumask"), "0,96\n").unwrap();
        std::fs::write(dir.join("format/event"), "config:0-7\n").unwrap();
        std::fs::write(dir.join("format/rdwrmask"), "config:8-9\n").unwrap();
        // A data-fabric PMU without the UMC's format: not a controller here.
        let df = root.path().join("amd_df");
        std::fs::create_dir_all(df.join("format")).unwrap();
        std::fs::write(df.join("type"), "20\n").unwrap();
        let events = discover(root.path());
        assert_eq!(events.len(), 2, "{events:?}");
        assert_eq!(events[0].event, "umc_cas_cmd.rd");
        assert_eq!(events[0].config, 0x10a);
        assert_eq!(events[0].direction, Direction::Read);
        assert_eq!(events[1].config, 0x20a);
        assert_eq!(events[1].direction, Direction::Write);
        assert_eq!(events[1].cpus, [0, 96]);
        assert!((events[0].bytes_per_count - 64.0).abs() < 1e-9);
        // Without `rdwrmask` in its format, the events cannot be placed.
        std::fs::remove_file(dir.join("format/rdwrmask")).unwrap();
        assert!(discover(root.path()).is_empty());
    }

    #[test]
    fn split_bit_ranges_take_the_low_bits_first() {
        assert_eq!(place(0xab, "0-7"), Some(0xab));
        assert_eq!(place(0x1f, "0-3,32-35"), Some(0xf | (1 << 32)));
        assert_eq!(place(1, "21"), Some(1 << 21));
        assert_eq!(place(1, "9-3"), None);
    }

    #[test]
    fn no_pmu_is_a_reason_not_a_figure() {
        let empty = tempfile::tempdir().unwrap();
        let error = ControllerCounters::open_events(discover(empty.path()))
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("no memory-controller PMU"), "{error}");
    }
}
