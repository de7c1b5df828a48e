//! `scripts/simulate-findings`'s program (the `simulate_findings`
//! example, which `cargo test` builds): bad input is one line and exit 2;
//! `--json` is one document per topology whose faults the findings name.

use std::path::PathBuf;
use std::process::Command;

/// The example beside this test's own binary (`target/<profile>/examples`).
fn program() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps");
    profile.join("examples").join("simulate_findings")
}

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}.xml", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    for args in [
        vec!["--seeds", "0"],
        vec!["--budget", "soon"],
        vec!["--topology", "/nonexistent.xml"],
        vec!["--frobnicate"],
    ] {
        let output = Command::new(program()).args(&args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("simulate-findings: "), "{stderr}");
    }
}

/// The four-socket ladder at the default budget (everything measured):
/// every planted fault named in each of 3 seeds, no false alarm, no blind
/// spot.
#[test]
fn the_json_document_names_every_fault_on_the_ladder() {
    let output = Command::new(program())
        .args([
            "--topology",
            &fixture("four-socket-ladder"),
            "--seeds",
            "3",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(report["topology"]
        .as_str()
        .unwrap()
        .ends_with("four-socket-ladder.xml"));
    assert_eq!(report["seeds"], 3);
    assert_eq!(report["false_alarm"], 0.0);
    let faults = report["faults"].as_array().unwrap();
    assert_eq!(faults.len(), 5);
    for fault in faults {
        assert_eq!(fault["detected"], 1.0, "{fault}");
    }
    assert_eq!(report["cannot_find"], serde_json::json!([]));
}
