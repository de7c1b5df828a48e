//! Checks of memory-management settings.

use super::finding::{Finding, Severity};
use super::system_files::{selected_choice, SystemFiles};
use super::CheckId;
use crate::topology::Machine;
use crate::units::{format_bytes, format_percent};

pub fn numa_balancing(files: &SystemFiles, topology: &Machine) -> Finding {
    const WHY: &str = "automatic NUMA balancing unmaps pages and migrates them (and threads) while a benchmark runs, so placement you asked for drifts and timings include migration";
    let check = CheckId::NumaBalancing;
    let path = "/proc/sys/kernel/numa_balancing";
    let value = match files.setting(path).known() {
        Ok(value) => value,
        Err(reason) => return Finding::unreadable(check, path, &reason, WHY),
    };
    match value.as_deref() {
        None => Finding::new(
            check,
            Severity::Ok,
            "not available in this kernel (no automatic balancing)",
            WHY,
            "",
        ),
        Some("0") => Finding::new(
            check,
            Severity::Ok,
            "kernel.numa_balancing = 0 (off)",
            WHY,
            "",
        ),
        Some(value) => {
            let meaning = if value == "2" { "memory tiering" } else { "on" };
            let found = format!("kernel.numa_balancing = {value} ({meaning})");
            if topology.node_count > 1 {
                Finding::new(check, Severity::Warning, found, WHY, "sudo sysctl kernel.numa_balancing=0 for measurements (numabench's autonuma placement scheme turns it to use on purpose)")
            } else {
                Finding::new(
                    check,
                    Severity::Info,
                    format!("{found}; harmless with one NUMA node"),
                    WHY,
                    "",
                )
            }
        }
    }
}

pub fn transparent_huge_pages(files: &SystemFiles) -> Finding {
    const WHY: &str = "with THP 'always' a buffer may or may not get huge pages depending on fragmentation, so TLB costs and latencies change from run to run";
    let check = CheckId::TransparentHugePages;
    let path = "/sys/kernel/mm/transparent_hugepage/enabled";
    let text = match files.setting(path).known() {
        Ok(text) => text,
        Err(reason) => return Finding::unreadable(check, path, &reason, WHY),
    };
    match text.as_deref().and_then(selected_choice) {
        None => Finding::new(check, Severity::Info, "not available", WHY, ""),
        Some("madvise") => Finding::new(check, Severity::Ok, "enabled = madvise (huge pages only where asked, as numabench --hugepages does)", WHY, ""),
        Some("never") => Finding::new(check, Severity::Info, "enabled = never: --hugepages can only use hugetlbfs pools", WHY, "echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled to allow --hugepages via THP"),
        Some(other) => Finding::new(check, Severity::Warning, format!("enabled = {other}"), WHY, "echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled"),
    }
}

pub fn transparent_huge_pages_defrag(files: &SystemFiles) -> Finding {
    const WHY: &str = "defrag 'always' makes page faults stall for compaction, adding noise to first-touch and allocation timings";
    let check = CheckId::ThpDefrag;
    let path = "/sys/kernel/mm/transparent_hugepage/defrag";
    let text = match files.setting(path).known() {
        Ok(text) => text,
        Err(reason) => return Finding::unreadable(check, path, &reason, WHY),
    };
    match text.as_deref().and_then(selected_choice) {
        None => Finding::new(check, Severity::Info, "not available", WHY, ""),
        Some("always") => Finding::new(
            check,
            Severity::Warning,
            "defrag = always",
            WHY,
            "echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/defrag",
        ),
        Some(other) => Finding::new(check, Severity::Ok, format!("defrag = {other}"), WHY, ""),
    }
}

pub fn zone_reclaim(files: &SystemFiles, topology: &Machine) -> Finding {
    const WHY: &str = "with zone reclaim on, the kernel reclaims page cache on the local node instead of allocating on a remote one, so allocations stall and placement depends on the page cache";
    let check = CheckId::ZoneReclaimMode;
    let path = "/proc/sys/vm/zone_reclaim_mode";
    let value = match files.setting(path).known() {
        Ok(value) => value,
        Err(reason) => return Finding::unreadable(check, path, &reason, WHY),
    };
    match value.as_deref() {
        None => Finding::new(check, Severity::Info, "not available", WHY, ""),
        Some("0") => Finding::new(check, Severity::Ok, "vm.zone_reclaim_mode = 0", WHY, ""),
        Some(value) if topology.node_count > 1 => Finding::new(
            check,
            Severity::Warning,
            format!("vm.zone_reclaim_mode = {value}"),
            WHY,
            "sudo sysctl vm.zone_reclaim_mode=0",
        ),
        Some(value) => Finding::new(
            check,
            Severity::Info,
            format!("vm.zone_reclaim_mode = {value}; no effect with one node"),
            WHY,
            "",
        ),
    }
}

pub fn huge_page_pools(files: &SystemFiles, topology: &Machine) -> Finding {
    const WHY: &str = "hugetlbfs pools are reserved per node; a pool on one node only cannot back huge-page buffers bound elsewhere";
    let check = CheckId::HugePagePools;
    let mut per_node = Vec::new();
    for node in &topology.nodes {
        let base = format!("/sys/devices/system/node/node{}/hugepages", node.index);
        for size in files.list(&base) {
            let count = files
                .read(&format!("{base}/{size}/nr_hugepages"))
                .and_then(|text| text.parse::<u64>().ok())
                .unwrap_or(0);
            let free = files
                .read(&format!("{base}/{size}/free_hugepages"))
                .and_then(|text| text.parse::<u64>().ok())
                .unwrap_or(0);
            if count > 0 {
                per_node.push((
                    node.index,
                    size.trim_start_matches("hugepages-").to_string(),
                    count,
                    free,
                ));
            }
        }
    }
    if per_node.is_empty() {
        return Finding::new(check, Severity::Info, "no hugetlbfs pages reserved on any node; --hugepages will use transparent huge pages", WHY, "to reserve: echo N | sudo tee /sys/devices/system/node/nodeX/hugepages/hugepages-2048kB/nr_hugepages");
    }
    let text: Vec<String> = per_node
        .iter()
        .map(|(node, size, count, free)| format!("node {node}: {count} x {size} ({free} free)"))
        .collect();
    let nodes_with_pool: std::collections::BTreeSet<u32> =
        per_node.iter().map(|entry| entry.0).collect();
    let memory_nodes = topology
        .nodes
        .iter()
        .filter(|node| node.memory_total_bytes > 0)
        .count();
    if nodes_with_pool.len() < memory_nodes {
        Finding::new(
            check,
            Severity::Warning,
            format!("{} — not every node has a pool", text.join(", ")),
            WHY,
            "reserve pages on every node you bind to",
        )
    } else {
        Finding::new(check, Severity::Ok, text.join(", "), WHY, "")
    }
}

pub fn node_memory_balance(files: &SystemFiles, topology: &Machine) -> Finding {
    const WHY: &str = "a node short of free memory spills allocations to other nodes (or fails them under strict binding), so 'local' buffers end up remote";
    let check = CheckId::NodeMemory;
    let mut problems = Vec::new();
    let mut summary = Vec::new();
    for node in topology
        .nodes
        .iter()
        .filter(|node| node.memory_total_bytes > 0)
    {
        let Some(free) = node.memory_free_bytes else {
            continue;
        };
        let fraction = free as f64 / node.memory_total_bytes as f64;
        summary.push(format!(
            "node {}: {} free of {}",
            node.index,
            format_bytes(free),
            format_bytes(node.memory_total_bytes)
        ));
        if fraction < 0.10 {
            problems.push(format!(
                "node {} has only {} free",
                node.index,
                format_percent(fraction)
            ));
        }
    }
    let frees: Vec<u64> = topology
        .nodes
        .iter()
        .filter_map(|node| node.memory_free_bytes)
        .collect();
    if let (Some(&least), Some(&most)) = (frees.iter().min(), frees.iter().max()) {
        if frees.len() > 1 && most > 0 && (least as f64) < 0.5 * most as f64 {
            problems
                .push("free memory is unbalanced across nodes (least < half of most)".to_string());
        }
    }
    let node_total: u64 = topology
        .nodes
        .iter()
        .map(|node| node.memory_total_bytes)
        .sum();
    if let Some(system_total) = files
        .read("/proc/meminfo")
        .and_then(|text| meminfo_total(&text))
    {
        if node_total > 0 && (node_total as f64) < 0.9 * system_total as f64 {
            problems.push(format!(
                "the nodes account for {} but the system reports {} (memory outside any node, e.g. hot-plugged or ballooned by a hypervisor)",
                format_bytes(node_total),
                format_bytes(system_total)
            ));
        }
    }
    if summary.is_empty() {
        return Finding::new(
            check,
            Severity::Info,
            "free memory per node unknown",
            WHY,
            "",
        );
    }
    if problems.is_empty() {
        Finding::new(check, Severity::Ok, summary.join("; "), WHY, "")
    } else {
        Finding::new(check, Severity::Warning, format!("{}; {}", summary.join("; "), problems.join("; ")), WHY, "free memory (drop caches: sync; echo 3 | sudo tee /proc/sys/vm/drop_caches) or size buffers to fit the smallest node")
    }
}

/// `node_memory` on another machine's topology: the memory of each node
/// as the topology shows it; free memory is this kernel's, not checked.
pub fn node_memory_of_other_machine(topology: &Machine) -> Finding {
    let mut finding = Finding::not_checked(CheckId::NodeMemory, &topology.source);
    let totals: Vec<String> = topology
        .nodes
        .iter()
        .map(|node| {
            format!(
                "node {}: {}",
                node.index,
                format_bytes(node.memory_total_bytes)
            )
        })
        .collect();
    finding.found = format!("{} (free memory {})", totals.join("; "), finding.found);
    finding
}

fn meminfo_total(text: &str) -> Option<u64> {
    let line = text.lines().find(|line| line.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// DAMON (the kernel's data access monitor): a running kdamond whose
/// schemes act on memory (page-out of idle memory, node migration of hot or
/// cold pages) changes where pages are, or whether they are resident,
/// behind any placement numabench or the application chose.
pub fn damon(files: &SystemFiles) -> Finding {
    const WHY: &str = "DAMON samples pages' accessed bits and its schemes act on what it finds: `pageout` reclaims memory idle long enough (buffers and arrays idle between runs come back as major faults), `migrate_hot`/`migrate_cold` move pages between nodes behind the placement you asked for";
    let check = CheckId::Damon;
    let admin = "/sys/kernel/mm/damon/admin/kdamonds";
    let mut acting = Vec::new();
    let mut monitoring = Vec::new();
    for kdamond in files
        .list(admin)
        .into_iter()
        .filter(|name| name.parse::<u32>().is_ok())
    {
        let base = format!("{admin}/{kdamond}");
        if files.read(&format!("{base}/state")).as_deref() != Some("on") {
            continue;
        }
        for context in files.list(&format!("{base}/contexts")) {
            let context_base = format!("{base}/contexts/{context}");
            let operations = files
                .read(&format!("{context_base}/operations"))
                .unwrap_or_else(|| "?".into());
            let aggregation_seconds = files
                .read(&format!(
                    "{context_base}/monitoring_attrs/intervals/aggr_us"
                ))
                .and_then(|text| text.parse::<f64>().ok())
                .map(|microseconds| microseconds / 1e6);
            let mut actions = Vec::new();
            for scheme in files
                .list(&format!("{context_base}/schemes"))
                .into_iter()
                .filter(|name| name.parse::<u32>().is_ok())
            {
                let scheme_base = format!("{context_base}/schemes/{scheme}");
                let action = files
                    .read(&format!("{scheme_base}/action"))
                    .unwrap_or_else(|| "?".into());
                if action == "stat" {
                    continue;
                }
                let min_age = files
                    .read(&format!("{scheme_base}/access_pattern/age/min"))
                    .and_then(|text| text.parse::<f64>().ok());
                actions.push(match (min_age, aggregation_seconds) {
                    (Some(age), Some(seconds)) if action == "pageout" => {
                        format!("pageout of memory idle for {:.0} s", age * seconds)
                    }
                    _ => action,
                });
            }
            let label = format!("kdamond {kdamond} ({operations})");
            if actions.is_empty() {
                monitoring.push(label);
            } else {
                acting.push(format!("{label}: {}", actions.join(", ")));
            }
        }
    }
    if files
        .read("/sys/module/damon_reclaim/parameters/enabled")
        .is_some_and(|value| value == "Y")
    {
        acting.push("DAMON_RECLAIM enabled (pageout of cold memory)".into());
    }
    if !acting.is_empty() {
        Finding::new(
            check,
            Severity::Warning,
            format!("DAMON is acting on memory: {}", acting.join("; ")),
            WHY,
            format!("echo off | sudo tee {admin}/N/state (or: echo N | sudo tee /sys/module/damon_reclaim/parameters/enabled); on a shared host, ask its administrator"),
        )
    } else if !monitoring.is_empty() {
        Finding::new(
            check,
            Severity::Info,
            format!("DAMON monitors without acting: {}", monitoring.join(", ")),
            WHY,
            "",
        )
    } else {
        Finding::new(check, Severity::Ok, "no DAMON monitor running", WHY, "")
    }
}

/// The tightest limit on the memory this process may use (memory cgroup,
/// `RLIMIT_AS`, `RLIMIT_DATA`): default working sets shrink under it, and
/// where they must shrink below 4x the caches, DRAM figures become partly
/// cache figures (`cache_affected`).
pub fn memory_limit(topology: &Machine) -> Finding {
    const WHY: &str = "a process over its memory limit is killed by the OOM killer (exit 137, nothing measured): numabench sizes its default working sets under the limit, and a working set smaller than 4x the caches in front measures partly the caches";
    let check = CheckId::MemoryLimit;
    let Some(limit) = topology.allowed.memory_limit() else {
        return Finding::new(
            check,
            Severity::Ok,
            "no memory cgroup limit, RLIMIT_AS or RLIMIT_DATA",
            WHY,
            "",
        );
    };
    let found = format!(
        "{} ({}), {} in use, {} available",
        format_bytes(limit.limit_bytes),
        limit.source,
        format_bytes(limit.used_bytes),
        format_bytes(limit.available_bytes())
    );
    let usable = crate::bench::limit_usable_bytes(topology).unwrap_or(0);
    let caches = topology.cache_bytes_in_front(&topology.allowed.cpus, &topology.allowed.nodes);
    if usable / 2 < crate::bench::CACHE_MULTIPLE.saturating_mul(caches) {
        Finding::new(
            check,
            Severity::Warning,
            found,
            WHY,
            format!(
                "default working sets ({} at most) are below 4x the {} of caches in front: ask the scheduler for more memory (e.g. Slurm --mem) to measure DRAM",
                format_bytes(usable / 2),
                format_bytes(caches)
            ),
        )
    } else {
        Finding::new(check, Severity::Info, found, WHY, "")
    }
}
