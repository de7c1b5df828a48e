//! Weighted interleave from the command line: a micro-benchmark's
//! `--interleave NODE=WEIGHT`, an application's `--placement weighted:...`
//! and `run --policy weighted:...`, each saying how it ran (`kernel` where
//! this kernel has weighted interleave and holds weights in the policy's
//! proportions, as any weight of node 0 alone is; else `emulated`, which
//! `run` cannot do), and bad weights refused before anything runs.

use super::apps::SHORT_STREAM;
use super::records::params_of;
use super::{numabench, typed_records, typed_stdout, verified};
use numabench_schema::params::AppParams;
use numabench_schema::RequestedMemory;
use std::path::Path;

/// The mode a weighted interleave over node 0 alone runs in here.
fn expected_mode() -> &'static str {
    match Path::new("/sys/kernel/mm/mempolicy/weighted_interleave").is_dir() {
        true => "kernel",
        false => "emulated",
    }
}

#[test]
fn a_benchmark_and_an_application_say_how_their_weights_were_placed() {
    let bandwidth = typed_records(&[
        "bandwidth",
        "--kernel",
        "read",
        "--size",
        "8M",
        "--repeat",
        "1",
        "--threads",
        "1",
        "--interleave",
        "0=3",
    ]);
    for record in &bandwidth {
        let requested = super::requested(record);
        assert_eq!(requested.memory_label(), Some("weighted:0=3"), "{record:?}");
        assert_eq!(requested.weighted_mode.as_deref(), Some(expected_mode()));
        assert!(verified(record).achieved, "{record:?}");
        assert_eq!(verified(record).fraction_as_requested, 1.0);
    }
    let stream = typed_records(&[SHORT_STREAM, &["--placement", "weighted:0=2"]].concat());
    let time = stream
        .iter()
        .find(|record| record.metric == "time")
        .expect("a time record");
    let scheme = params_of::<AppParams>(time).run.configuration.scheme;
    assert_eq!(
        scheme.placement.as_deref(),
        Some("weighted:0=2"),
        "{time:?}"
    );
    assert_eq!(
        scheme.weighted_mode.as_deref(),
        Some(expected_mode()),
        "{time:?}"
    );
    assert!(verified(time).achieved, "{time:?}");
}

#[test]
fn run_takes_the_kernels_weighted_interleave_only() {
    let output = numabench()
        .args([
            "run",
            "--policy",
            "weighted:0=3",
            "--repeat",
            "1",
            "--warmup",
            "0",
            "--json",
            "--",
            "true",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if expected_mode() == "emulated" {
        // No weighted interleave in this kernel: refused, naming why.
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("Linux 6.9"), "{stderr}");
        return;
    }
    assert!(output.status.success(), "{stderr}");
    let (_, records) = typed_stdout("run --policy weighted:0=3", &output.stdout);
    let record = &records[0];
    let Some(RequestedMemory::Policy(memory)) = super::requested(record).memory else {
        panic!("no memory policy requested: {record:?}");
    };
    assert_eq!(memory.mode, 6, "{record:?}");
    assert_eq!(memory.weights, Some(vec![3]), "{record:?}");
    assert_eq!(
        memory.weighted_mode.as_deref(),
        Some("kernel"),
        "{record:?}"
    );
}

#[test]
fn bad_weights_are_one_line_and_status_2() {
    for (arguments, expected) in [
        (
            &["bandwidth", "--interleave", "0=0"][..],
            "node 0's weight 0 is not from 1 to 255",
        ),
        (
            &["stream", "--placement", "weighted:0=1,0=2"][..],
            "node 0 is given twice",
        ),
        (
            &["run", "--policy", "weighted:0=3,x", "--", "true"][..],
            "'x' is not NODE=WEIGHT",
        ),
        (&["bandwidth", "--interleave", "0=1,4095=1"][..], "4095"),
    ] {
        let output = numabench().args(arguments).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {stderr}");
        assert!(stderr.contains(expected), "{arguments:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{arguments:?}");
    }
}
