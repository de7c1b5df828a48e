//! `--version` and every results file name the build: the version and the
//! commit it was built from (here, the checkout's HEAD).

use super::{numabench, typed_of};
use std::process::Command;

fn head() -> String {
    let output = Command::new("git")
        .args(["-C", env!("CARGO_MANIFEST_DIR"), "rev-parse", "HEAD"])
        .output()
        .expect("git runs");
    assert!(output.status.success(), "the tests run in a git checkout");
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

#[test]
fn version_names_the_commit() {
    let output = numabench().arg("--version").output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        text.trim(),
        format!(
            "numabench {} (commit {})",
            env!("CARGO_PKG_VERSION"),
            head()
        )
    );
}

#[test]
fn every_records_metadata_carries_version_and_commit() {
    let (metadata, _) =
        typed_of(numabench().args(["latency", "--size", "64K", "--repeat", "1", "--json"]));
    assert_eq!(metadata.version, env!("CARGO_PKG_VERSION"));
    assert_eq!(metadata.commit, head());
}
