//! Choosing the topology: files, and what measuring refuses.

use super::*;
use crate::error::{Fault, Faulty};
use crate::topology::{report_from_hwloc, THIS_MACHINE};
use std::path::PathBuf;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/two-sockets-hbm-cxl.xml"
);

fn load_error(path: &Path) -> String {
    let error = discover_from_xml(path).expect_err("the file must be refused");
    assert_eq!(error.fault(), Fault::Usage, "{error}");
    error.to_string()
}

#[test]
fn an_xml_file_is_described_as_another_machine() {
    let report = discover(Some(Path::new(FIXTURE)), Purpose::Describe).unwrap();
    assert!(!report.this_system);
    assert_eq!(report.source, FIXTURE);
    assert!(report
        .nodes
        .iter()
        .all(|node| node.memory_free_bytes.is_none()));
    // The same report as hwloc's own loading of the file gives, but labelled.
    let topology = Topology::builder()
        .from_xml_file(FIXTURE)
        .unwrap()
        .build()
        .unwrap();
    let mut plain = report_from_hwloc(&topology);
    assert!(!plain.this_system);
    assert_ne!(plain.source, report.source);
    plain.source = report.source.clone();
    assert_eq!(plain, report);
}

#[test]
fn measuring_refuses_a_file_before_reading_it() {
    let missing = Path::new("/nonexistent/other-machine.xml");
    for file in [Path::new(FIXTURE), missing] {
        let error = discover(Some(file), Purpose::Measure).unwrap_err();
        assert_eq!(error.fault(), Fault::Usage);
        let text = error.to_string();
        assert!(
            text.contains(&format!("'{}'", file.display())) && text.contains("not this machine"),
            "{text}"
        );
        assert!(check_measurable(Some(file)).is_err());
    }
}

/// This process runs without HWLOC_XMLFILE or HWLOC_SYNTHETIC (the test
/// harness sets neither), so measuring gets this machine, labelled as such.
#[test]
fn measuring_gets_this_machine() {
    assert_eq!(foreign_topology_variable(), None);
    assert!(check_measurable(None).is_ok());
    let report = discover(None, Purpose::Measure).unwrap();
    assert!(report.this_system);
    assert_eq!(report.source, THIS_MACHINE);
    let described = discover(None, Purpose::Describe).unwrap();
    assert!(described.this_system);
    assert_eq!(described.nodes.len(), report.nodes.len());
}

#[test]
fn unloadable_files_are_named_with_the_reason() {
    let directory = tempfile::tempdir().unwrap();
    let file = |name: &str, contents: &[u8]| -> PathBuf {
        let path = directory.path().join(name);
        fs::write(&path, contents).unwrap();
        path
    };
    let cases: Vec<(PathBuf, &str)> = vec![
        (directory.path().join("missing.xml"), "No such file"),
        (directory.path().to_path_buf(), "directory"),
        (PathBuf::from("/dev/null"), "not a regular file"),
        (file("text.xml", b"pack:2 core:2 pu:1\n"), "not an XML file"),
        (file("binary.xml", &[0xff, 0xfe, 0x00, 0x3c]), "not text"),
        (
            file("other.xml", b"<?xml version=\"1.0\"?>\n<catalog/>\n"),
            "hwloc rejects it",
        ),
        (file("empty.xml", b""), "not an XML file"),
    ];
    for (path, reason) in cases {
        let text = load_error(&path);
        assert!(
            text.starts_with(&format!("cannot load topology file '{}'", path.display())),
            "{text}"
        );
        assert!(text.contains(reason), "{path:?}: {text}");
        assert!(!text.contains("os error"), "{text}");
    }
}

#[test]
fn synthetic_topologies_are_not_this_machine() {
    let report = crate::topology::synthetic("pack:2 [numa(memory=1GiB)] core:2 pu:1");
    assert!(!report.this_system);
    assert_eq!(report.source, OTHER_MACHINE);
}

/// `topo --json` documents written before `this_system` and `source`
/// existed described this machine, and still read as such.
#[test]
fn older_reports_read_as_this_machine() {
    let report = discover(Some(Path::new(FIXTURE)), Purpose::Describe).unwrap();
    let mut json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["this_system"], false);
    assert_eq!(json["source"], FIXTURE);
    let object = json.as_object_mut().unwrap();
    object.remove("this_system");
    object.remove("source");
    let old: crate::topology::Machine = serde_json::from_value(json).unwrap();
    assert!(old.this_system);
    assert_eq!(old.source, THIS_MACHINE);
}

#[test]
fn the_table_says_when_it_is_not_this_machine() {
    let report = discover_from_xml(Path::new(FIXTURE)).unwrap();
    let table = crate::topology::render_table(&report);
    assert!(
        table.starts_with(&format!("Topology from {FIXTURE}: not this machine")),
        "{table}"
    );
    assert!(table.contains("Allowed to the process that recorded it"));
    let here = crate::topology::render_table(&discover_this_system().unwrap());
    assert!(here.starts_with("Machine: "), "{here}");
    assert!(here.contains("Allowed to this process"));
}
