//! Checks of CPU-side settings and of the environment.

use super::finding::{Finding, Severity};
use super::system_files::SystemFiles;
use super::CheckId;
use crate::parse::format_id_list;
use crate::topology::Machine;

pub fn frequency_governor(files: &SystemFiles, topology: &Machine) -> Finding {
    const WHY: &str = "power-saving governors change the clock with load, so single-thread latency and bandwidth depend on what else runs";
    let check = CheckId::CpuGovernor;
    let mut governors = std::collections::BTreeMap::<String, Vec<u32>>::new();
    for cpu in topology.nodes.iter().flat_map(|node| node.cpus.iter()) {
        if let Some(governor) = files.read(&format!(
            "/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor"
        )) {
            governors.entry(governor).or_default().push(*cpu);
        }
    }
    if governors.is_empty() {
        return Finding::new(
            check,
            Severity::Info,
            "no cpufreq governor exposed (a VM, or frequency managed by firmware)",
            WHY,
            "",
        );
    }
    let found = governors
        .iter()
        .map(|(governor, cpus)| format!("{governor} on CPUs {}", format_id_list(cpus)))
        .collect::<Vec<_>>()
        .join(", ");
    if governors.keys().all(|governor| governor == "performance") {
        Finding::new(check, Severity::Ok, found, WHY, "")
    } else {
        Finding::new(
            check,
            Severity::Warning,
            found,
            WHY,
            "sudo cpupower frequency-set -g performance",
        )
    }
}

pub fn smt(files: &SystemFiles, topology: &Machine) -> Finding {
    const WHY: &str = "with SMT two threads share a core's caches and load/store units: pin one thread per core for bandwidth peaks, and say which you used when comparing";
    let check = CheckId::Smt;
    // This kernel's SMT switch says nothing about another machine's topology.
    let active = if topology.this_system {
        files.read("/sys/devices/system/cpu/smt/active")
    } else {
        None
    };
    let threads = topology.threads_per_core();
    let found = match active.as_deref() {
        Some("1") => format!("on, {threads} thread(s) per core"),
        Some("0") => "off".to_string(),
        _ => format!("{threads} thread(s) per core"),
    };
    Finding::new(
        check,
        if threads > 1 {
            Severity::Info
        } else {
            Severity::Ok
        },
        found,
        WHY,
        "",
    )
}

pub fn process_restriction(topology: &Machine) -> Finding {
    const WHY: &str = "a process limited to some CPUs or nodes (cgroup cpuset, taskset, numactl, Slurm) measures only those, and 'all cores' means fewer than the machine has";
    let check = CheckId::ProcessRestriction;
    let allowed = &topology.allowed;
    let all_nodes = topology
        .nodes
        .iter()
        .filter(|node| node.memory_total_bytes > 0)
        .count();
    let mut found = format!(
        "allowed CPUs {} of {}, nodes {} of {}",
        format_id_list(&allowed.cpus),
        topology.cpu_count,
        format_id_list(&allowed.nodes),
        topology.node_count
    );
    if let Some(job) = &allowed.slurm_job {
        found.push_str(&format!(" (Slurm job {job})"));
    }
    if allowed.cpus.len() < topology.cpu_count || allowed.nodes.len() < all_nodes {
        Finding::new(check, Severity::Warning, found, WHY, "run without taskset/numactl, or ask the scheduler for whole nodes (e.g. Slurm --exclusive)")
    } else {
        Finding::new(check, Severity::Ok, found, WHY, "")
    }
}

pub fn hypervisor(files: &SystemFiles) -> Finding {
    const WHY: &str = "inside a VM the NUMA nodes and distances are what the hypervisor declares, vCPUs may move between host cores, and memory may not be backed where the guest thinks";
    let check = CheckId::Hypervisor;
    let path = "/proc/cpuinfo";
    let cpuinfo = match files.setting(path).known() {
        Ok(text) => text,
        Err(reason) => return Finding::unreadable(check, path, &reason, WHY),
    };
    let flagged = cpuinfo.is_some_and(|text| {
        text.lines().any(|line| {
            line.starts_with("flags") && line.split_whitespace().any(|flag| flag == "hypervisor")
        })
    });
    let vendor = files
        .read("/sys/hypervisor/type")
        .or_else(|| files.read("/sys/class/dmi/id/sys_vendor"))
        .unwrap_or_default();
    if flagged {
        let name = if vendor.is_empty() {
            "unknown hypervisor".to_string()
        } else {
            vendor
        };
        Finding::new(
            check,
            Severity::Warning,
            format!("running under a hypervisor ({name})"),
            WHY,
            "pin vCPUs and back guest memory per host node, or measure on bare metal",
        )
    } else {
        Finding::new(
            check,
            Severity::Ok,
            "bare metal (no hypervisor flag)",
            WHY,
            "",
        )
    }
}

pub fn performance_counters(files: &SystemFiles) -> Finding {
    const WHY: &str = "hardware counters (perf, likwid) explain results — remote accesses, cache misses — and are readable unprivileged only when perf_event_paranoid allows";
    let check = CheckId::PerfEventParanoid;
    let is_root = files
        .read("/proc/self/status")
        .and_then(|status| {
            status
                .lines()
                .find(|line| line.starts_with("Uid:"))
                .map(|line| line.split_whitespace().nth(2) == Some("0"))
        })
        .unwrap_or(false);
    let path = "/proc/sys/kernel/perf_event_paranoid";
    let value = match files.setting(path).known() {
        Ok(value) => value,
        Err(reason) => return Finding::unreadable(check, path, &reason, WHY),
    };
    match value.and_then(|text| text.parse::<i32>().ok()) {
        None => Finding::new(
            check,
            Severity::Info,
            "perf events not available in this kernel",
            WHY,
            "",
        ),
        Some(level) if is_root => Finding::new(
            check,
            Severity::Ok,
            format!("kernel.perf_event_paranoid = {level}; running as root"),
            WHY,
            "",
        ),
        Some(level) if level <= 1 => Finding::new(
            check,
            Severity::Ok,
            format!("kernel.perf_event_paranoid = {level}"),
            WHY,
            "",
        ),
        Some(level) => Finding::new(
            check,
            Severity::Warning,
            format!("kernel.perf_event_paranoid = {level}: CPU counters unreadable for this user"),
            WHY,
            "sudo sysctl kernel.perf_event_paranoid=1",
        ),
    }
}

pub fn node_count(topology: &Machine) -> Finding {
    const WHY: &str = "with a single NUMA node there is no remote memory: local-versus-remote results cannot be measured here";
    let check = CheckId::NumaNodes;
    let cpuless = topology.nodes.iter().filter(|node| node.cpuless).count();
    let found = format!("{} NUMA node(s), {cpuless} CPU-less", topology.node_count);
    if topology.node_count > 1 {
        Finding::new(check, Severity::Ok, found, WHY, "")
    } else {
        Finding::new(
            check,
            Severity::Info,
            found,
            WHY,
            "run on a multi-socket server, or in a VM with emulated nodes (see tests/vm)",
        )
    }
}
