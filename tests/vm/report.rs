//! `numabench report` on records made in the emulated four-node VM (nodes
//! 0-2 with CPUs, node 3 CPU-less, HMAT attributes): a small matrix and
//! latency set runs in the guest, its JSON documents and `topo --json` come
//! back, and `report` on the host draws them. Set
//! `NUMABENCH_VM_REPORT_DIR=DIR` to keep the inputs and the page in DIR (to
//! look at it or screenshot it).

use super::boot::Part;
use super::{numabench, FIRST_EXTRA_COMMAND};
use std::fs;
use std::path::Path;
use std::process::Command;

/// Kept small: TCG is slow and the nodes hold 256-512 MiB.
const REPORT_COMMANDS: [&str; 5] = [
    "numabench matrix latency --size 4M --repeat 1 --json | tee /tmp/latency.json",
    "numabench matrix bandwidth --size 4M --repeat 1 --json | tee /tmp/bandwidth.json",
    "numabench latency --size 16K,4M --repeat 1 --cpu-node 1 --mem-node 1 --json",
    "numabench latency --size 16K,4M --repeat 1 --cpu-node 1 --mem-node 3 --json",
    // The measured matrices into the guest's hwloc XML, read back on the host.
    "numabench export-memattrs /tmp/latency.json /tmp/bandwidth.json -o /tmp/measured.xml >&2 && cat /tmp/measured.xml",
];

/// The HTML of the section with this id (up to the next section).
fn section<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("<section id=\"{id}\""))
        .unwrap_or_else(|| panic!("no section {id}"));
    let rest = &html[start..];
    &rest[..rest.find("</section>").unwrap_or(rest.len())]
}

/// This test's part of the four-node boot.
pub fn part() -> Part {
    Part::new("report", &REPORT_COMMANDS, 600)
}

#[test]
fn report_of_the_four_node_vm_records() {
    let run = super::four_nodes::boot().part("report");
    let temp = tempfile::tempdir().unwrap();
    let kept = std::env::var_os("NUMABENCH_VM_REPORT_DIR");
    let dir = kept.as_deref().map(Path::new).unwrap_or(temp.path());
    fs::create_dir_all(dir).unwrap();
    let mut inputs = vec![dir.join("topo.json")];
    fs::write(&inputs[0], run.stdout_ok(1)).unwrap();
    check_exported_memattrs(&run, dir);
    for k in 0..4 {
        let file = dir.join(format!("vm-{k}.json"));
        fs::write(&file, run.stdout_ok(FIRST_EXTRA_COMMAND + k)).unwrap();
        inputs.push(file);
    }
    let page = dir.join("vm-report.html");
    let output = Command::new(numabench())
        .arg("report")
        .args(&inputs)
        .arg("-o")
        .arg(&page)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.is_empty(), "no notes on whole files: {stderr}");
    let html = fs::read_to_string(&page).unwrap();

    // Exactly the sections of what was measured: no bandwidth curves, apps
    // or cluster. The chases' core cycles (`latency_cycles`, from the core
    // clock measured in the guest) are drawn by no section: they, and only
    // they, are listed under "Other records", which the notes point to.
    let ids: Vec<&str> = html
        .split("<section id=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    assert_eq!(
        ids,
        ["notes", "metadata", "latency", "matrices", "other"],
        "{html}"
    );
    let other = section(&html, "other");
    let rows = other.matches("<tr><td").count();
    assert!(rows > 0, "{other}");
    assert_eq!(
        other.matches("<td>latency_cycles</td>").count(),
        rows,
        "only latency_cycles under Other records: {other}"
    );

    // Both matrices: three CPU nodes as rows, four memory nodes as columns,
    // the CPU-less node 3 a target only, every cell measured.
    let matrices = section(&html, "matrices");
    // Each measured heatmap and its ratio-to-local view.
    assert_eq!(matrices.matches("<svg").count(), 4, "{matrices}");
    assert_eq!(matrices.matches("ratio to local</h4>").count(), 2);
    for table in matrices.split("<table>").skip(1) {
        let header = "<th>from \\ memory</th><th>node 0</th><th>node 1</th><th>node 2</th><th>node 3</th></tr>";
        assert!(table.contains(header), "{table}");
        for node in 0..3 {
            assert!(
                table.contains(&format!("<tr><td>node {node}</td>")),
                "{table}"
            );
        }
        assert!(!table.contains("<tr><td>node 3</td>"), "{table}");
        assert!(
            !table.contains("<td>-</td>"),
            "a cell not measured: {table}"
        );
    }

    // Topology: four nodes, node 3 CPU-less, distances and HMAT attributes,
    // and the node diagram.
    let metadata = section(&html, "metadata");
    assert_eq!(metadata.matches("none (CPU-less)").count(), 1, "{metadata}");
    assert!(metadata.contains("HMAT memory attributes"), "{metadata}");
    // HMAT's declared latency and bandwidth, each with the measured /
    // declared ratio of the matrix cells beside it.
    for attribute in ["latency", "bandwidth"] {
        assert!(
            metadata.contains(&format!("HMAT {attribute}: measured / declared")),
            "{metadata}"
        );
    }
    assert!(metadata.contains("node diagram"), "{metadata}");

    // Latency: one curve per memory node, both sizes on each.
    let latency = section(&html, "latency");
    assert!(
        latency.contains("bind:1") && latency.contains("bind:3"),
        "{latency}"
    );
    assert!(latency.contains("data (4 rows)"), "{latency}");
}

/// The XML `export-memattrs` wrote in the guest, read by hwloc's lstopo on
/// the host: every initiator (nodes 0-2) x target (nodes 0-3, the CPU-less
/// node 3 included) pair of both matrices, with the records' values
/// (rounded; GB/s as MiB/s), beside the firmware's HMAT attributes.
fn check_exported_memattrs(run: &super::harness::VmRun, dir: &Path) {
    let xml = dir.join("measured.xml");
    fs::write(&xml, run.stdout_ok(FIRST_EXTRA_COMMAND + 4)).unwrap();
    let output = Command::new("lstopo-no-graphics")
        .args(["--memattrs", "-i"])
        .arg(&xml)
        .output()
        .expect("lstopo-no-graphics (hwloc) is installed by scripts/setup");
    assert!(output.status.success(), "{output:?}");
    let listing = String::from_utf8_lossy(&output.stdout);
    let mut listed: std::collections::BTreeMap<String, Vec<u64>> = Default::default();
    let mut current = String::new();
    for line in listing.lines() {
        if let Some(rest) = line.strip_prefix("Memory attribute #") {
            let name = rest.split('`').nth(1).unwrap_or("");
            current = name.split('\'').next().unwrap_or("").to_string();
        } else if let Some((_, value)) = line.trim().split_once(" = ") {
            if let Ok(number) = value.split_whitespace().next().unwrap_or("").parse() {
                listed.entry(current.clone()).or_default().push(number);
            }
        }
    }
    for (k, attribute, metric, scale) in [
        (0, "NumabenchLatency", "latency", 1.0),
        (
            1,
            "NumabenchReadBandwidth",
            "read_bandwidth",
            1e9 / 1048576.0,
        ),
    ] {
        let records = super::placement_checks::with_metric(run, FIRST_EXTRA_COMMAND + k, metric);
        let mut expected: Vec<u64> = records
            .iter()
            .map(|r| (r.value * scale).round() as u64)
            .collect();
        expected.sort_unstable();
        assert_eq!(expected.len(), 12, "3 initiators x 4 targets: {records:?}");
        let mut values = listed.get(attribute).cloned().unwrap_or_default();
        values.sort_unstable();
        assert_eq!(values, expected, "{attribute}:\n{listing}");
    }
    assert!(
        listed.contains_key("Latency"),
        "the firmware's HMAT beside: {listing}"
    );
}
