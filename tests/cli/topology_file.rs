//! `--topology FILE`: topo, list and doctor describe another machine from
//! its hwloc XML file; every measuring command refuses it, and refuses
//! HWLOC_XMLFILE and HWLOC_SYNTHETIC, before anything runs.

use super::errors::assert_refused;
use super::{numabench, succeeding, MEASURING_COMMANDS, OTHER_MACHINE_XML};

/// Every command that measures on this machine.
const MEASURING: &[&[&str]] = MEASURING_COMMANDS;

fn json(output: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap()
}

fn node_indices(report: &serde_json::Value) -> Vec<u64> {
    report["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| node["index"].as_u64().unwrap())
        .collect()
}

#[test]
fn every_measuring_command_refuses_a_topology_file() {
    let expected = format!("topology file '{OTHER_MACHINE_XML}' is not this machine");
    for (position, command) in MEASURING.iter().enumerate() {
        // The flag is global: before the command or among its own flags.
        let arguments: Vec<&str> = if position % 2 == 0 {
            [&["--topology", OTHER_MACHINE_XML][..], *command].concat()
        } else {
            let mut arguments = command.to_vec();
            let at = arguments
                .iter()
                .position(|argument| *argument == "--")
                .unwrap_or(arguments.len());
            arguments.insert(at, OTHER_MACHINE_XML);
            arguments.insert(at, "--topology");
            arguments
        };
        let output = numabench().args(&arguments).output().unwrap();
        assert_refused(&output, &format!("{arguments:?}"), &expected);
    }
}

/// hwloc would load these instead of this machine, and a measurement would
/// pin this machine's threads by another machine's CPU numbers.
#[test]
fn every_measuring_command_refuses_hwloc_topology_variables() {
    for (variable, value) in [
        ("HWLOC_XMLFILE", OTHER_MACHINE_XML),
        ("HWLOC_SYNTHETIC", "pack:4 core:2 pu:1"),
    ] {
        for command in MEASURING {
            let output = numabench()
                .args(*command)
                .env(variable, value)
                .output()
                .unwrap();
            assert_refused(
                &output,
                &format!("{variable} {command:?}"),
                &format!("{variable} is set ('{value}')"),
            );
        }
    }
}

#[test]
fn topo_describes_the_file_as_another_machine() {
    for arguments in [
        &["--topology", OTHER_MACHINE_XML, "topo", "--json"][..],
        &["topo", "--json", "--topology", OTHER_MACHINE_XML],
    ] {
        let report = json(&succeeding(arguments));
        assert_eq!(node_indices(&report), vec![0, 1, 2, 3, 4], "{arguments:?}");
        assert_eq!(report["cpu_count"], 8);
        assert_eq!(report["packages"].as_array().unwrap().len(), 2);
        assert_eq!(report["this_system"], false);
        assert_eq!(report["source"], OTHER_MACHINE_XML);
        assert_eq!(report["nodes"][4]["cpuless"], true);
        assert!(report["distances"].is_array());
    }
    let here = json(&succeeding(&["topo", "--json"]));
    assert_eq!(here["this_system"], true);
    assert_eq!(here["source"], "this machine");

    let table =
        String::from_utf8(succeeding(&["--topology", OTHER_MACHINE_XML, "topo"]).stdout).unwrap();
    assert!(
        table.starts_with(&format!(
            "Topology from {OTHER_MACHINE_XML}: not this machine"
        )),
        "{table}"
    );
    assert!(table.contains("5 NUMA node(s)"), "{table}");
}

/// For topo (and doctor, list) the hwloc variables are honoured as hwloc
/// honours them, and labelled as not this machine.
#[test]
fn topo_honours_hwloc_topology_variables_as_another_machine() {
    let output = numabench()
        .args(["topo", "--json"])
        .env("HWLOC_XMLFILE", OTHER_MACHINE_XML)
        .output()
        .unwrap();
    assert!(output.status.success());
    let report = json(&output);
    assert_eq!(node_indices(&report), vec![0, 1, 2, 3, 4]);
    assert_eq!(report["this_system"], false);
    assert_eq!(
        report["source"],
        format!("{OTHER_MACHINE_XML} (HWLOC_XMLFILE)")
    );

    let output = numabench()
        .args(["topo", "--json"])
        .env("HWLOC_SYNTHETIC", "pack:3 [numa(memory=1GiB)] core:2 pu:2")
        .output()
        .unwrap();
    assert!(output.status.success());
    let report = json(&output);
    assert_eq!(node_indices(&report), vec![0, 1, 2]);
    assert_eq!(report["cpu_count"], 12);
    assert_eq!(report["this_system"], false);

    // A variable naming a file that does not load is named, as the flag is.
    let output = numabench()
        .args(["doctor"])
        .env("HWLOC_XMLFILE", "/nonexistent/machine.xml")
        .output()
        .unwrap();
    assert_refused(
        &output,
        "doctor with a missing HWLOC_XMLFILE",
        "cannot load topology file '/nonexistent/machine.xml' (HWLOC_XMLFILE): No such file",
    );
}

#[test]
fn list_works_with_a_topology_file() {
    let plain = succeeding(&["list"]).stdout;
    let with_file = succeeding(&["--topology", OTHER_MACHINE_XML, "list"]).stdout;
    assert_eq!(with_file, plain);
}

#[test]
fn doctor_checks_what_the_file_shows_and_not_this_kernel() {
    let output = numabench()
        .args(["--topology", OTHER_MACHINE_XML, "doctor", "--json"])
        .output()
        .unwrap();
    let report = json(&output);
    let warnings = report["warnings"].as_u64().unwrap();
    assert_eq!(
        output.status.code(),
        Some(if warnings == 0 { 0 } else { 1 })
    );
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 18);
    let finding = |check: &str| {
        findings
            .iter()
            .find(|finding| finding["check"] == check)
            .unwrap_or_else(|| panic!("no {check} finding"))
    };
    let not_this_machine = format!("not checked: {OTHER_MACHINE_XML} is not this machine");
    for check in [
        "numa_balancing",
        "transparent_huge_pages",
        "thp_defrag",
        "zone_reclaim_mode",
        "huge_page_pools",
        "node_memory",
        "memory_limit",
        "damon",
        "memory_tiers",
        "demotion",
        "weighted_interleave",
        "hidden_memory",
        "cpu_governor",
        "hypervisor",
        "perf_event_paranoid",
    ] {
        let finding = finding(check);
        assert_eq!(finding["severity"], "not_checked", "{finding}");
        assert!(
            finding["found"]
                .as_str()
                .unwrap()
                .contains(&not_this_machine),
            "{finding}"
        );
    }
    assert_eq!(report["not_checked"], 15);
    // What the file shows is checked.
    assert_eq!(finding("numa_nodes")["found"], "5 NUMA node(s), 3 CPU-less");
    assert_eq!(finding("smt")["found"], "2 thread(s) per core");
    assert!(finding("node_memory")["found"]
        .as_str()
        .unwrap()
        .starts_with("node 0: 1 GiB; node 1: 1 GiB; node 2: 512 MiB"));
    // Nothing in the file is badly set: clean, status 0.
    assert_eq!(warnings, 0, "{report}");
}

/// An XML file that is no hwloc topology: one line naming it, status 2,
/// nothing of hwloc's or Rust's on stderr.
#[test]
fn an_xml_file_hwloc_rejects_is_named() {
    let directory = tempfile::tempdir().unwrap();
    let truncated = std::fs::read_to_string(OTHER_MACHINE_XML).unwrap();
    let truncated = &truncated[..truncated.len() / 2];
    for (name, contents) in [
        (
            "catalog.xml",
            "<?xml version=\"1.0\"?>\n<catalog><book/></catalog>\n",
        ),
        ("truncated.xml", truncated),
    ] {
        let file = directory.path().join(name);
        std::fs::write(&file, contents).unwrap();
        let output = numabench()
            .arg("--topology")
            .arg(&file)
            .arg("topo")
            .output()
            .unwrap();
        assert_refused(
            &output,
            name,
            &format!(
                "cannot load topology file '{}': hwloc rejects it",
                file.display()
            ),
        );
    }
}

/// Any other way hwloc is led away from this machine (here its Linux
/// backend reading an empty directory instead of /sys) is refused too:
/// status 2, and numabench's line says why (hwloc may add its own).
#[test]
fn a_measurement_refuses_any_topology_hwloc_did_not_discover_here() {
    let root = tempfile::tempdir().unwrap();
    let output = numabench()
        .args(["latency", "--size", "64K"])
        .env("HWLOC_FSROOT", root.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.lines().last().unwrap_or_default().starts_with(
            "numabench: error: hwloc's input is not this machine: measurements run on this machine only"
        ),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

/// A file's memory-side caches survive loading it: `--topology` builds with
/// the same type filter as this machine's discovery (hwloc drops them by
/// default), so a KNL in cache mode shows its MCDRAM in front of each node.
#[test]
fn a_topology_file_keeps_its_memory_side_caches() {
    let knl = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../numabench/tests/fixtures/knl-snc4-cache.xml"
    );
    let report = json(&succeeding(&["--topology", knl, "topo", "--json"]));
    let caches = report["memory_side_caches"].as_array().unwrap();
    assert_eq!(caches.len(), 4, "{caches:?}");
    assert!(caches
        .iter()
        .all(|cache| cache["size_bytes"] == 4u64 << 30
            && cache["nodes"].as_array().unwrap().len() == 1));
    assert!(report["distances"].is_null());
}
