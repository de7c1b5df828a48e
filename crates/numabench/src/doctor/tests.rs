//! Doctor checks run against prepared /proc and /sys trees.

use super::*;
use std::fs;
use std::path::Path;

/// A two-node machine taken as this one (the prepared tree plays its kernel).
fn two_node_topology() -> Machine {
    let mut report = crate::topology::synthetic("pack:2 [numa(memory=8GiB)] core:2 pu:2");
    for node in &mut report.nodes {
        node.memory_free_bytes = Some(6 << 30);
    }
    report.this_system = true;
    report
}

fn write(root: &Path, path: &str, text: &str) {
    let full = root.join(path.trim_start_matches('/'));
    fs::create_dir_all(full.parent().unwrap()).unwrap();
    fs::write(full, text).unwrap();
}

fn finding(report: &DoctorReport, check: CheckId) -> &Finding {
    report
        .findings
        .iter()
        .find(|finding| finding.check == check)
        .unwrap()
}

/// A well-tuned two-node server.
fn clean_tree(root: &Path) {
    write(root, "/proc/sys/kernel/numa_balancing", "0\n");
    write(
        root,
        "/sys/kernel/mm/transparent_hugepage/enabled",
        "always [madvise] never\n",
    );
    write(
        root,
        "/sys/kernel/mm/transparent_hugepage/defrag",
        "always defer [madvise] never\n",
    );
    write(root, "/proc/sys/vm/zone_reclaim_mode", "0\n");
    for cpu in 0..8 {
        write(
            root,
            &format!("/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor"),
            "performance\n",
        );
    }
    for node in 0..2 {
        write(
            root,
            &format!("/sys/devices/system/node/node{node}/hugepages/hugepages-2048kB/nr_hugepages"),
            "512\n",
        );
        write(
            root,
            &format!(
                "/sys/devices/system/node/node{node}/hugepages/hugepages-2048kB/free_hugepages"
            ),
            "512\n",
        );
    }
    write(
        root,
        "/proc/cpuinfo",
        "model name\t: Test CPU\nflags\t\t: fpu sse2 avx2\n",
    );
    write(root, "/proc/meminfo", "MemTotal:       16777216 kB\n");
    write(root, "/proc/sys/kernel/perf_event_paranoid", "1\n");
    write(root, "/proc/self/status", "Uid:\t1000\t1000\t1000\t1000\n");
}

#[test]
fn a_tuned_server_is_clean() {
    let dir = tempfile::tempdir().unwrap();
    clean_tree(dir.path());
    let report = run_doctor(&SystemFiles::under(dir.path()), &two_node_topology());
    let warnings: Vec<_> = report
        .findings
        .iter()
        .filter(|finding| finding.severity == Severity::Warning)
        .collect();
    assert!(warnings.is_empty(), "{warnings:#?}");
    assert_eq!(report.status, "clean");
}

#[test]
fn each_bad_setting_is_a_warning_with_advice() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    clean_tree(root);
    write(root, "/proc/sys/kernel/numa_balancing", "1\n");
    write(
        root,
        "/sys/kernel/mm/transparent_hugepage/enabled",
        "[always] madvise never\n",
    );
    write(
        root,
        "/sys/kernel/mm/transparent_hugepage/defrag",
        "[always] defer madvise never\n",
    );
    write(root, "/proc/sys/vm/zone_reclaim_mode", "1\n");
    write(
        root,
        "/sys/devices/system/cpu/cpu3/cpufreq/scaling_governor",
        "powersave\n",
    );
    write(
        root,
        "/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages",
        "0\n",
    );
    write(root, "/proc/cpuinfo", "flags\t\t: fpu hypervisor\n");
    write(root, "/sys/class/dmi/id/sys_vendor", "QEMU\n");
    write(root, "/proc/sys/kernel/perf_event_paranoid", "3\n");
    write(root, "/proc/meminfo", "MemTotal:       67108864 kB\n");
    let mut topology = two_node_topology();
    topology.nodes[1].memory_free_bytes = Some(100 << 20);
    topology.allowed.cpus = vec![0, 1];
    let report = run_doctor(&SystemFiles::under(root), &topology);
    for check in [
        CheckId::NumaBalancing,
        CheckId::TransparentHugePages,
        CheckId::ThpDefrag,
        CheckId::ZoneReclaimMode,
        CheckId::CpuGovernor,
        CheckId::HugePagePools,
        CheckId::Hypervisor,
        CheckId::PerfEventParanoid,
        CheckId::NodeMemory,
        CheckId::ProcessRestriction,
    ] {
        let finding = finding(&report, check);
        assert_eq!(finding.severity, Severity::Warning, "{finding:#?}");
        assert!(!finding.advice.is_empty(), "{check} gives advice");
    }
    assert!(finding(&report, CheckId::CpuGovernor)
        .found
        .contains("powersave on CPUs 3"));
    assert!(finding(&report, CheckId::Hypervisor).found.contains("QEMU"));
    assert!(finding(&report, CheckId::NodeMemory)
        .found
        .contains("the system reports 64 GiB"));
    assert_eq!(report.status, "warnings");
    assert_eq!(report.warnings, 10);
}

/// Nothing readable under /proc and /sys (masked, as in some containers):
/// every setting that decides results is unknown and a warning, never ok.
#[test]
fn settings_that_cannot_be_read_are_unknown_warnings_not_ok() {
    let dir = tempfile::tempdir().unwrap();
    let report = run_doctor(&SystemFiles::under(dir.path()), &two_node_topology());
    assert_eq!(
        finding(&report, CheckId::CpuGovernor).severity,
        Severity::Info
    );
    for (check, path) in [
        (
            CheckId::NumaBalancing,
            "/proc/sys/kernel/numa_balancing: /proc is missing",
        ),
        (
            CheckId::ZoneReclaimMode,
            "/proc/sys/vm/zone_reclaim_mode: /proc is missing",
        ),
        (
            CheckId::TransparentHugePages,
            "/sys/kernel/mm/transparent_hugepage/enabled: /sys is missing",
        ),
        (
            CheckId::ThpDefrag,
            "/sys/kernel/mm/transparent_hugepage/defrag: /sys is missing",
        ),
        (CheckId::Hypervisor, "/proc/cpuinfo: /proc is missing"),
        (
            CheckId::PerfEventParanoid,
            "/proc/sys/kernel/perf_event_paranoid: /proc is missing",
        ),
    ] {
        let finding = finding(&report, check);
        assert_eq!(finding.severity, Severity::Warning, "{finding:#?}");
        assert_eq!(finding.found, format!("unknown (could not read {path})"));
        assert!(!finding.advice.is_empty());
    }
    assert_eq!(report.status, "warnings");
}

/// An empty /proc/sys (a tmpfs over it) or a file that cannot be read
/// is unknown too; a setting missing from a populated directory is a
/// kernel without it.
#[test]
fn masked_and_unreadable_settings_differ_from_absent_ones() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    clean_tree(root);
    fs::remove_file(root.join("proc/sys/kernel/numa_balancing")).unwrap();
    let absent = run_doctor(&SystemFiles::under(root), &two_node_topology());
    let balancing = finding(&absent, CheckId::NumaBalancing);
    assert_eq!(balancing.severity, Severity::Ok, "{balancing:#?}");
    assert!(balancing.found.contains("not available"), "{balancing:#?}");

    // A directory where the file should be: reading it fails (EISDIR), even as root.
    fs::create_dir(root.join("proc/sys/kernel/numa_balancing")).unwrap();
    let unreadable = run_doctor(&SystemFiles::under(root), &two_node_topology());
    let balancing = finding(&unreadable, CheckId::NumaBalancing);
    assert_eq!(balancing.severity, Severity::Warning, "{balancing:#?}");
    assert!(
        balancing
            .found
            .starts_with("unknown (could not read /proc/sys/kernel/numa_balancing: "),
        "{balancing:#?}"
    );

    fs::remove_dir_all(root.join("proc/sys")).unwrap();
    fs::create_dir(root.join("proc/sys")).unwrap();
    let masked = run_doctor(&SystemFiles::under(root), &two_node_topology());
    assert_eq!(
        finding(&masked, CheckId::ZoneReclaimMode).found,
        "unknown (could not read /proc/sys/vm/zone_reclaim_mode: /proc/sys is empty or unreadable)"
    );
}

#[test]
fn damon_acting_on_memory_is_a_warning_monitoring_alone_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    clean_tree(root);
    let clean = run_doctor(&SystemFiles::under(root), &two_node_topology());
    assert_eq!(finding(&clean, CheckId::Damon).severity, Severity::Ok);

    // As found on this project's build machine: paddr, pageout after 12 x 5 s.
    let kdamond = "/sys/kernel/mm/damon/admin/kdamonds/0";
    let context = format!("{kdamond}/contexts/0");
    write(root, &format!("{kdamond}/state"), "on\n");
    write(root, &format!("{context}/operations"), "paddr\n");
    write(
        root,
        &format!("{context}/monitoring_attrs/intervals/aggr_us"),
        "5000000\n",
    );
    write(root, &format!("{context}/schemes/nr_schemes"), "1\n");
    write(root, &format!("{context}/schemes/0/action"), "stat\n");
    let monitoring = run_doctor(&SystemFiles::under(root), &two_node_topology());
    let damon = finding(&monitoring, CheckId::Damon);
    assert_eq!(damon.severity, Severity::Info, "{damon:#?}");
    assert!(damon.found.contains("kdamond 0 (paddr)"), "{damon:#?}");

    write(root, &format!("{context}/schemes/0/action"), "pageout\n");
    write(
        root,
        &format!("{context}/schemes/0/access_pattern/age/min"),
        "12\n",
    );
    let acting = run_doctor(&SystemFiles::under(root), &two_node_topology());
    let damon = finding(&acting, CheckId::Damon);
    assert_eq!(damon.severity, Severity::Warning, "{damon:#?}");
    assert!(
        damon.found.contains("pageout of memory idle for 60 s"),
        "{damon:#?}"
    );
    assert!(!damon.advice.is_empty());

    write(root, &format!("{kdamond}/state"), "off\n");
    let stopped = run_doctor(&SystemFiles::under(root), &two_node_topology());
    assert_eq!(finding(&stopped, CheckId::Damon).severity, Severity::Ok);
}

/// On another machine's topology (`--topology FILE`) the settings of the
/// running kernel are not checked, whatever they are: badly tuned ones give
/// no warning, and SMT is what the topology shows, not this kernel's switch.
/// What the topology shows is still checked.
#[test]
fn another_machines_topology_reports_host_settings_as_not_checked() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    clean_tree(root);
    write(root, "/proc/sys/kernel/numa_balancing", "1\n");
    write(root, "/proc/sys/vm/zone_reclaim_mode", "1\n");
    write(root, "/proc/cpuinfo", "flags\t\t: fpu hypervisor\n");
    write(root, "/sys/devices/system/cpu/smt/active", "0\n");
    let files = SystemFiles::under(root);
    let here = run_doctor(&files, &two_node_topology());
    assert!(here.warnings >= 3, "{here:#?}");
    assert_eq!(here.not_checked, 0);

    let mut other = crate::topology::synthetic("pack:2 [numa(memory=8GiB)] core:2 pu:2");
    other.source = "big-server.xml".to_string();
    let report = run_doctor(&files, &other);
    assert_eq!(report.warnings, 0, "{report:#?}");
    assert_eq!(report.status, "clean");
    // The same checks, in the same order.
    let checks = |report: &DoctorReport| -> Vec<CheckId> {
        report.findings.iter().map(|f| f.check).collect()
    };
    assert_eq!(checks(&report), checks(&here));
    let host = [
        CheckId::NumaBalancing,
        CheckId::TransparentHugePages,
        CheckId::ThpDefrag,
        CheckId::ZoneReclaimMode,
        CheckId::HugePagePools,
        CheckId::NodeMemory,
        CheckId::MemoryLimit,
        CheckId::Damon,
        CheckId::MemoryTiers,
        CheckId::Demotion,
        CheckId::WeightedInterleave,
        CheckId::HiddenMemory,
        CheckId::CpuGovernor,
        CheckId::Hypervisor,
        CheckId::PerfEventParanoid,
    ];
    for finding in &report.findings {
        if host.contains(&finding.check) {
            assert_eq!(finding.severity, Severity::NotChecked, "{finding:#?}");
            assert!(
                finding
                    .found
                    .contains("not checked: big-server.xml is not this machine"),
                "{finding:#?}"
            );
        } else {
            assert_ne!(finding.severity, Severity::NotChecked, "{finding:#?}");
        }
    }
    assert_eq!(report.not_checked, host.len());
    let node_memory = finding(&report, CheckId::NodeMemory);
    assert!(
        node_memory
            .found
            .starts_with("node 0: 8 GiB; node 1: 8 GiB"),
        "{node_memory:#?}"
    );
    assert_eq!(finding(&report, CheckId::Smt).found, "2 thread(s) per core");
    assert_eq!(finding(&report, CheckId::NumaNodes).severity, Severity::Ok);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["not_checked"], host.len());
    assert_eq!(json["findings"][0]["severity"], "not_checked");
    let text = report.render_text();
    assert!(
        text.contains("[skip] numa_balancing: not checked"),
        "{text}"
    );
    assert!(text.contains("15 not checked"), "{text}");
}

#[test]
fn the_memory_limit_is_reported_and_a_tight_one_warns() {
    let dir = tempfile::tempdir().unwrap();
    clean_tree(dir.path());
    let mut topology = two_node_topology();
    let free = run_doctor(&SystemFiles::under(dir.path()), &topology);
    assert_eq!(finding(&free, CheckId::MemoryLimit).severity, Severity::Ok);
    topology.allowed.memory_limits = vec![crate::topology::MemoryLimit {
        source: "cgroup v2 memory.max (/sys/fs/cgroup/job)".into(),
        limit_bytes: 150 << 20,
        used_bytes: 10 << 20,
        origin: None,
    }];
    let limited = run_doctor(&SystemFiles::under(dir.path()), &topology);
    let found = finding(&limited, CheckId::MemoryLimit);
    assert!(found.found.contains("150 MiB"), "{found:?}");
    assert!(found.found.contains("memory.max"), "{found:?}");
    // Synthetic topologies have no caches: 150 MiB is plenty for DRAM.
    assert_eq!(found.severity, Severity::Info);
    topology.caches =
        crate::topology::synthetic("pack:1 [numa(memory=8GiB)] l3:1(size=64MiB) core:2 pu:1")
            .caches;
    let tight = run_doctor(&SystemFiles::under(dir.path()), &topology);
    assert_eq!(
        finding(&tight, CheckId::MemoryLimit).severity,
        Severity::Warning
    );
}

/// Two DRAM nodes with CPUs and two CPU-less ones (2, 3), as CXL
/// expanders appear, in a prepared tree whose tiers and declared figures
/// each test sets.
fn tiered_topology() -> Machine {
    let mut topology = two_node_topology();
    for index in [2, 3] {
        let mut node = topology.nodes[0].clone();
        node.index = index;
        node.cpus.clear();
        node.cpuless = true;
        topology.nodes.push(node);
    }
    topology.node_count = 4;
    topology
}

fn declare(root: &Path, node: u32, latency: u32, bandwidth: u32) {
    let base = format!("/sys/devices/system/node/node{node}/access0/initiators");
    write(
        root,
        &format!("{base}/read_latency"),
        &format!("{latency}\n"),
    );
    write(
        root,
        &format!("{base}/read_bandwidth"),
        &format!("{bandwidth}\n"),
    );
}

fn tier(root: &Path, tier: u32, nodes: &str) {
    write(
        root,
        &format!("/sys/devices/virtual/memory_tiering/memory_tier{tier}/nodelist"),
        &format!("{nodes}\n"),
    );
}

#[test]
fn a_slower_node_in_drams_tier_is_a_warning_and_separate_tiers_are_ok() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    clean_tree(root);
    for node in [0, 1] {
        declare(root, node, 90, 20480);
    }
    for node in [2, 3] {
        declare(root, node, 250, 8192);
    }
    // As skhynix/hmsdk#2 found them: every node in the default tier.
    tier(root, 4, "0-3");
    write(root, "/sys/kernel/mm/numa/demotion_enabled", "true\n");
    let report = run_doctor(&SystemFiles::under(root), &tiered_topology());
    let tiers = finding(&report, CheckId::MemoryTiers);
    assert_eq!(tiers.severity, Severity::Warning, "{tiers:#?}");
    assert!(
        tiers.found.contains(
            "node 2 (250 ns, 8192 MB/s) shares tier 4 with DRAM nodes 0-1 (90 ns, 20480 MB/s)"
        ),
        "{}",
        tiers.found
    );
    assert!(tiers.found.contains("node 3 "), "{}", tiers.found);
    // One tier: nowhere to demote to.
    assert_eq!(finding(&report, CheckId::Demotion).severity, Severity::Ok);

    fs::remove_dir_all(root.join("sys/devices/virtual/memory_tiering")).unwrap();
    tier(root, 4, "0-1");
    tier(root, 22, "2-3");
    let report = run_doctor(&SystemFiles::under(root), &tiered_topology());
    let tiers = finding(&report, CheckId::MemoryTiers);
    assert_eq!(tiers.severity, Severity::Ok, "{tiers:#?}");
    assert_eq!(tiers.found, "tier 4: nodes 0-1; tier 22: nodes 2-3");
    let demotion = finding(&report, CheckId::Demotion);
    assert_eq!(demotion.severity, Severity::Info, "{demotion:#?}");
    assert!(
        demotion.found.contains("several memory tiers"),
        "{}",
        demotion.found
    );
}

#[test]
fn a_cpuless_node_without_declared_figures_in_drams_tier_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    clean_tree(root);
    tier(root, 4, "0-3");
    let report = run_doctor(&SystemFiles::under(root), &tiered_topology());
    let tiers = finding(&report, CheckId::MemoryTiers);
    assert_eq!(tiers.severity, Severity::Info, "{tiers:#?}");
    assert!(
        tiers
            .found
            .contains("node 2 has no CPUs and no declared figures, in tier 4 with DRAM nodes 0-1"),
        "{}",
        tiers.found
    );
    // DRAM alike by declaration: no finding.
    for node in 0..4 {
        declare(root, node, 100, 20000);
    }
    let report = run_doctor(&SystemFiles::under(root), &tiered_topology());
    assert_eq!(
        finding(&report, CheckId::MemoryTiers).severity,
        Severity::Ok
    );
}

#[test]
fn the_weighted_interleave_weights_and_auto_mode_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    clean_tree(root);
    let report = run_doctor(&SystemFiles::under(root), &two_node_topology());
    let weights = finding(&report, CheckId::WeightedInterleave);
    assert!(weights.found.contains("not in this kernel"), "{weights:#?}");
    let base = "/sys/kernel/mm/mempolicy/weighted_interleave";
    write(root, &format!("{base}/node0"), "3\n");
    write(root, &format!("{base}/node1"), "1\n");
    // Linux 6.18's name for the `auto` switch.
    write(root, &format!("{base}/__auto_type"), "true\n");
    let report = run_doctor(&SystemFiles::under(root), &two_node_topology());
    let weights = finding(&report, CheckId::WeightedInterleave);
    assert_eq!(
        weights.found,
        "weights node 0: 3, node 1: 1; auto: the kernel's, from firmware bandwidth"
    );
    assert_eq!(weights.severity, Severity::Info);
}
