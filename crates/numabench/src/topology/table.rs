//! The readable form of `numabench topo`.

use super::machine::Machine;
use crate::parse::format_id_list;
use crate::units::format_bytes;
use std::fmt::Write;

/// Renders the report as the text `numabench topo` prints.
pub fn render_table(report: &Machine) -> String {
    let mut out = String::new();
    if !report.this_system {
        let _ = writeln!(
            out,
            "Topology from {}: not this machine (described, never measured)\n",
            report.source
        );
    }
    let _ = writeln!(
        out,
        "Machine: {} package(s), {} core(s), {} CPU(s), {} NUMA node(s)",
        report.packages.len(),
        report.core_count,
        report.cpu_count,
        report.node_count
    );
    for package in &report.packages {
        let _ = writeln!(
            out,
            "  package {}: CPUs {}, nodes {}",
            package.index,
            format_id_list(&package.cpus),
            format_id_list(&package.nodes)
        );
    }
    let _ = writeln!(out, "\nNUMA nodes:");
    let _ = writeln!(
        out,
        "  {:<6}{:<18}{:>12}{:>12}  note",
        "node", "CPUs", "total", "free"
    );
    for node in &report.nodes {
        let cpus = if node.cpuless {
            "-".to_string()
        } else {
            format_id_list(&node.cpus)
        };
        let free = node.memory_free_bytes.map_or("?".to_string(), format_bytes);
        let mut note = Vec::new();
        if node.cpuless {
            note.push(format!(
                "CPU-less, near CPUs {}",
                format_id_list(&node.locality_cpus)
            ));
        }
        if let Some(kind) = &node.kind {
            note.push(kind.clone());
        }
        if !report.allowed.nodes.contains(&node.index) {
            note.push("not allowed".to_string());
        }
        let _ = writeln!(
            out,
            "  {:<6}{:<18}{:>12}{:>12}  {}",
            node.index,
            cpus,
            format_bytes(node.memory_total_bytes),
            free,
            note.join("; ")
        );
    }
    let _ = writeln!(out, "\nDistances (node latency, ACPI SLIT, 10 = local):");
    match &report.distances {
        Some(matrix) => {
            let header: String = report
                .nodes
                .iter()
                .map(|node| format!("{:>5}", node.index))
                .collect();
            let _ = writeln!(out, "  from\\to{header}");
            for (node, row) in report.nodes.iter().zip(matrix) {
                let cells: String = row.iter().map(|value| format!("{value:>5}")).collect();
                let _ = writeln!(out, "  {:<7}{cells}", node.index);
            }
        }
        None => {
            let _ = writeln!(
                out,
                "  none: the firmware declares no node latency matrix (SLIT)"
            );
        }
    }
    let _ = writeln!(out, "\nCPU caches:");
    for cache in &report.caches {
        let _ = writeln!(
            out,
            "  L{} {:<12} {:>10} x {:<4} line {} B, shared by {} CPU(s)",
            cache.level,
            cache.cache_type,
            format_bytes(cache.size_bytes),
            cache.count,
            cache.line_bytes,
            cache.cpus_per_cache
        );
    }
    let _ = writeln!(
        out,
        "\nMemory-side caches (cache a node's memory for every CPU):"
    );
    if report.memory_side_caches.is_empty() {
        let _ = writeln!(out, "  none");
    }
    for cache in &report.memory_side_caches {
        let _ = writeln!(
            out,
            "  {:>10} in front of node(s) {} (memory-side level {}, line {} B)",
            format_bytes(cache.size_bytes),
            format_id_list(&cache.nodes),
            cache.level,
            cache.line_bytes
        );
    }
    let _ = writeln!(out, "\nMemory attributes (ACPI HMAT):");
    if report.memory_attributes.is_empty() {
        let _ = writeln!(out, "  none declared by the firmware");
    }
    for value in &report.memory_attributes {
        let initiator = value.initiator_node.map_or(
            format!("CPUs {}", format_id_list(&value.initiator_cpus)),
            |node| format!("node {node}"),
        );
        let _ = writeln!(
            out,
            "  {:<16} {initiator} -> node {}: {} {}",
            value.name, value.target_node, value.value, value.unit
        );
    }
    let allowed = &report.allowed;
    let whom = if report.this_system {
        "this process"
    } else {
        "the process that recorded it"
    };
    let _ = writeln!(
        out,
        "\nAllowed to {whom}: CPUs {}, nodes {}",
        format_id_list(&allowed.cpus),
        format_id_list(&allowed.nodes)
    );
    if allowed.cpus.len() < report.cpu_count {
        let _ = writeln!(
            out,
            "  restricted: cgroup cpuset {}, affinity mask {}",
            format_id_list(&allowed.cgroup_cpus),
            format_id_list(&allowed.affinity_cpus)
        );
    }
    if let Some(job) = &allowed.slurm_job {
        let _ = writeln!(out, "  inside Slurm job {job}");
    }
    match allowed.memory_limit() {
        Some(limit) => {
            let _ = writeln!(
                out,
                "  memory limit: {} ({}), {} in use, {} available",
                format_bytes(limit.limit_bytes),
                limit.source,
                format_bytes(limit.used_bytes),
                format_bytes(limit.available_bytes())
            );
        }
        None if report.this_system => {
            let _ = writeln!(
                out,
                "  memory limit: none (no memory cgroup limit, RLIMIT_AS or RLIMIT_DATA)"
            );
        }
        None => {}
    }
    out
}
