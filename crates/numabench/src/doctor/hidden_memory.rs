//! Memory a node holds that its DIMMs do not explain: the firmware's
//! memory devices (SMBIOS type 17, `/sys/firmware/dmi/entries/17-*/raw`,
//! readable by root) against what the nodes hold. A flat memory mode
//! (Xeon 6's Flat Memory Mode, which interleaves CXL memory with DRAM in
//! hardware) folds CXL memory into a DRAM node: the OS sees one node, more
//! memory than the DIMMs, and no CPU-less node to place on or measure. CXL
//! memory devices (`/sys/bus/cxl/devices/memN`) with no CPU-less node say
//! the same, or that their regions were never onlined.

use super::finding::{Finding, Severity};
use super::system_files::SystemFiles;
use super::CheckId;
use crate::topology::Machine;

const ENTRIES: &str = "/sys/firmware/dmi/entries";
const CXL_DEVICES: &str = "/sys/bus/cxl/devices";
const GIB: f64 = (1u64 << 30) as f64;

/// How much more than the DIMMs the nodes may hold before it counts:
/// nothing, in fact (firmware and the kernel keep some of the DIMMs for
/// themselves, so the nodes hold less), with 1/32 for rounding.
const MORE_THAN_DIMMS: f64 = 1.0 + 1.0 / 32.0;

const WHY: &str = "a flat memory mode folds CXL memory into a DRAM node: the node is slower and larger than its DIMMs, and no placement can tell its two kinds of memory apart";

/// The size of one SMBIOS memory device entry (type 17), bytes; `None`
/// for an empty slot or an unknown size (SMBIOS 3.x: the Size word at
/// offset 0x0C, in KiB where bit 15 is set, else MiB; 0x7FFF means the
/// Extended Size double word at 0x1C, in MiB).
pub fn device_bytes(raw: &[u8]) -> Option<u64> {
    if raw.len() < 0x0E || raw[0] != 17 {
        return None;
    }
    let size = u16::from_le_bytes([raw[0x0C], raw[0x0D]]);
    match size {
        0 | 0xFFFF => None,
        0x7FFF => {
            let extended = raw.get(0x1C..0x20)?;
            let mib = u32::from_le_bytes(extended.try_into().ok()?) & 0x7FFF_FFFF;
            Some(u64::from(mib) << 20)
        }
        kib if kib & 0x8000 != 0 => Some(u64::from(kib & 0x7FFF) << 10),
        mib => Some(u64::from(mib) << 20),
    }
}

/// An SMBIOS memory device's entry that only root may read (the DIMMs are
/// then not compared with the nodes).
///
/// Fault: the user's (not root).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{ENTRIES}/{device}/raw is readable by root only")]
struct RootOnly {
    device: String,
}

crate::error::all_faulty!(Usage: RootOnly);

/// Every DIMM's bytes added up; `Ok(None)` without SMBIOS memory devices,
/// `Err` when they cannot be read (not root).
fn dimm_bytes(files: &SystemFiles) -> Result<Option<u64>, RootOnly> {
    let devices: Vec<String> = files
        .list(ENTRIES)
        .into_iter()
        .filter(|name| name.starts_with("17-"))
        .collect();
    if devices.is_empty() {
        return Ok(None);
    }
    let mut total = 0;
    for device in devices {
        let raw = files
            .read_bytes(&format!("{ENTRIES}/{device}/raw"))
            .ok_or_else(|| RootOnly {
                device: device.clone(),
            })?;
        total += device_bytes(&raw).unwrap_or(0);
    }
    Ok((total > 0).then_some(total))
}

pub fn hidden_memory(files: &SystemFiles, topology: &Machine) -> Finding {
    let check = CheckId::HiddenMemory;
    let held: u64 = topology
        .nodes
        .iter()
        .map(|node| node.memory_total_bytes)
        .sum();
    let cpuless = topology.nodes.iter().any(|node| node.cpuless);
    let cxl_devices = files
        .list(CXL_DEVICES)
        .iter()
        .filter(|name| {
            name.strip_prefix("mem")
                .is_some_and(|rest| rest.parse::<u32>().is_ok())
        })
        .count();
    if cxl_devices > 0 && !cpuless {
        return Finding::new(
            check,
            Severity::Warning,
            format!("{cxl_devices} CXL memory device(s) in {CXL_DEVICES}, but no CPU-less node"),
            WHY,
            "check the BIOS memory mode (a flat or 1LM+CXL mode hides the CXL node); or online the devices' regions (cxl list -R; cxl create-region, daxctl reconfigure-device --mode=system-ram)",
        );
    }
    match dimm_bytes(files) {
        Ok(Some(dimms)) if held as f64 > dimms as f64 * MORE_THAN_DIMMS => Finding::new(
            check,
            Severity::Warning,
            format!(
                "the nodes hold {:.1} GiB, more than the {:.1} GiB of DIMMs the firmware lists (SMBIOS type 17): memory beyond the DIMMs, as a flat memory mode folds CXL memory into a node",
                held as f64 / GIB,
                dimms as f64 / GIB
            ),
            WHY,
            "check the BIOS memory mode (Xeon 6: Flat Memory Mode); to measure and place on the CXL memory, expose it as a node of its own",
        ),
        Ok(Some(dimms)) => Finding::new(
            check,
            Severity::Ok,
            format!(
                "the nodes hold {:.1} GiB of the {:.1} GiB of DIMMs the firmware lists",
                held as f64 / GIB,
                dimms as f64 / GIB
            ),
            WHY,
            "",
        ),
        Ok(None) => Finding::new(
            check,
            Severity::Ok,
            "no SMBIOS memory devices to compare the nodes' memory with",
            WHY,
            "",
        ),
        Err(reason) => Finding::new(
            check,
            Severity::Info,
            format!("not compared: {reason}"),
            WHY,
            "run doctor as root to compare the nodes' memory with the DIMMs",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// A type 17 entry of `size` (the Size word) and `extended` MiB.
    fn entry(size: u16, extended: u32) -> Vec<u8> {
        let mut raw = vec![0u8; 0x28];
        raw[0] = 17;
        raw[1] = 0x28;
        raw[0x0C..0x0E].copy_from_slice(&size.to_le_bytes());
        raw[0x1C..0x20].copy_from_slice(&extended.to_le_bytes());
        raw
    }

    #[test]
    fn device_sizes_decode_in_each_unit() {
        assert_eq!(device_bytes(&entry(16384, 0)), Some(16 << 30));
        assert_eq!(device_bytes(&entry(0x8000 | 512, 0)), Some(512 << 10));
        assert_eq!(device_bytes(&entry(0x7FFF, 65536)), Some(64 << 30));
        assert_eq!(device_bytes(&entry(0, 0)), None);
        assert_eq!(device_bytes(&entry(0xFFFF, 0)), None);
        assert_eq!(device_bytes(&[4, 0x10]), None);
    }

    /// A system whose SMBIOS lists DIMMs of these MiB (extended sizes).
    fn machine_with(root: &Path, dimms_mib: &[u32]) -> SystemFiles {
        for (index, mib) in dimms_mib.iter().enumerate() {
            let dir = root.join(format!("sys/firmware/dmi/entries/17-{index}"));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("raw"), entry(0x7FFF, *mib)).unwrap();
        }
        SystemFiles::under(root)
    }

    #[test]
    fn more_memory_than_dimms_is_named_and_less_is_fine() {
        let topology = crate::topology::fixture_tests::load("two-socket-smt");
        let held: u64 = topology.nodes.iter().map(|n| n.memory_total_bytes).sum();
        let held_mib = (held >> 20) as u32;
        assert!(held_mib > 1024, "{held}");
        // DIMMs of half what the nodes hold: memory beyond them.
        let half = tempfile::tempdir().unwrap();
        let files = machine_with(half.path(), &[held_mib / 4, held_mib / 4]);
        let finding = hidden_memory(&files, &topology);
        assert_eq!(finding.severity, Severity::Warning, "{finding:?}");
        assert!(finding.found.contains("more than the"), "{finding:?}");
        // DIMMs a little larger than what the nodes hold (the firmware keeps some): fine.
        let plenty = tempfile::tempdir().unwrap();
        let files = machine_with(plenty.path(), &[held_mib / 2 + 64, held_mib / 2 + 64]);
        let finding = hidden_memory(&files, &topology);
        assert_eq!(finding.severity, Severity::Ok, "{finding:?}");
        // No SMBIOS at all: nothing to compare.
        let none = tempfile::tempdir().unwrap();
        let finding = hidden_memory(&SystemFiles::under(none.path()), &topology);
        assert_eq!(finding.severity, Severity::Ok, "{finding:?}");
    }

    #[test]
    fn cxl_devices_without_a_cpuless_node_are_named() {
        let topology = crate::topology::fixture_tests::load("two-socket-smt");
        assert!(!topology.nodes.iter().any(|node| node.cpuless));
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("sys/bus/cxl/devices/mem0")).unwrap();
        let finding = hidden_memory(&SystemFiles::under(root.path()), &topology);
        assert_eq!(finding.severity, Severity::Warning, "{finding:?}");
        assert!(finding.found.contains("no CPU-less node"), "{finding:?}");
    }
}
