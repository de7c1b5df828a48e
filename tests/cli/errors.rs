//! Every user mistake ends with one line naming the bad value and exit
//! status 2: no panic, no backtrace, no usage dump.

use super::numabench;

/// (arguments, text the one line must contain)
const BAD_INPUTS: &[(&[&str], &str)] = &[
    (&["topo", "--bogus"], "--bogus"),
    (&["no-such-command"], "no-such-command"),
    (&["doctor", "--json=yes"], "--json"),
    (&["latency", "--size", "0"], "size '0' is zero"),
    (&["latency", "--size", "12Q"], "12Q"),
    (&["latency", "--size", "1.5G"], "1.5G"),
    (
        &["latency", "--size", "64K", "--mem-node", "99"],
        "node 99 does not exist",
    ),
    (
        &["latency", "--size", "64K", "--cpu-node", "99"],
        "node 99 does not exist",
    ),
    (
        &["latency", "--size", "64K", "--cpu", "4096"],
        "CPU 4096 does not exist",
    ),
    (&["latency", "--size", "64T"], "larger than the free memory"),
    (&["latency", "--order", "zigzag"], "zigzag"),
    (&["mlp", "--order", "zigzag"], "zigzag"),
    (&["latency", "--repeat", "0"], "0"),
    (
        &["bandwidth", "--kernel", "triadd"],
        "unknown kernel 'triadd'",
    ),
    (&["bandwidth", "--size", "1M,0"], "size '0' is zero"),
    (&["bandwidth", "--size", "1M", "--sweep"], "--sweep"),
    (
        &["bandwidth", "--size", "64T"],
        "larger than the free memory",
    ),
    (&["bandwidth", "--cpus", "0-x"], "0-x"),
    (&["bandwidth", "--cpus", "3-1"], "3-1"),
    (&["bandwidth", "--threads", "0"], "0"),
    (&["bandwidth", "--threads", "4096"], "--threads 4096"),
    (
        &["bandwidth", "--interleave", "0,77"],
        "node 77 does not exist",
    ),
    (&["bandwidth", "--simd", "avx1024"], "avx1024"),
    (
        &["bandwidth", "--delimiter", "ab"],
        "invalid delimiter 'ab'",
    ),
    (
        &[
            "bandwidth",
            "--size",
            "1M",
            "--csv",
            "/nonexistent-dir/out.csv",
        ],
        "cannot write '/nonexistent-dir/out.csv'",
    ),
    (
        &[
            "bandwidth",
            "--size",
            "1M",
            "--jsonl",
            "/proc/forbidden.jsonl",
        ],
        "/proc/forbidden.jsonl",
    ),
    (
        &["characterize", "--only", "latncy"],
        "unknown benchmark 'latncy' (valid: latency, bandwidth",
    ),
    (
        &["characterize", "--skip", "nope"],
        "unknown benchmark 'nope'",
    ),
    (&["matrix", "bandwidth", "--mode", "sideways"], "sideways"),
    (&["matrix", "latency", "--size", "0"], "zero"),
    (&["scaling", "--kernel", "nope"], "unknown kernel 'nope'"),
    (&["scaling", "--mem-node", "42"], "node 42 does not exist"),
    (&["contention", "--node", "42"], "node 42 does not exist"),
    (&["contention", "--cpus", "999"], "CPU 999 does not exist"),
    (
        &["loaded-latency", "--mix", "5:1"],
        "unknown traffic mix '5:1'",
    ),
    (
        &["loaded-latency", "--cpu", "999"],
        "CPU 999 does not exist",
    ),
    (&["mlp", "--mem-node", "42"], "node 42 does not exist"),
    (&["mlp", "--size", "64T"], "larger than the free memory"),
    (&["stream", "--threads", "0"], "0"),
    (
        &["stream", "--placement", "bind:9"],
        "node 9 does not exist",
    ),
    (
        &["stream", "--placement", "interleave:0,7"],
        "node 7 does not exist",
    ),
    (
        &["stream", "--placement", "scattered"],
        "unknown placement 'scattered'",
    ),
    (
        &["stream", "--threads-placement", "loose"],
        "unknown thread placement 'loose'",
    ),
    (&["stream", "--threads-per-core", "9"], "9"),
    (&["stream", "--size", "64T"], "free"),
    (&["placement-study", "lu"], "lu"),
    (
        &["placement-study", "stream", "--oversubscribe", "16"],
        "16",
    ),
    (
        &["run", "--", "no-such-program-xyz"],
        "cannot run 'no-such-program-xyz'",
    ),
    (
        &["run", "--policy", "bind:9", "--", "true"],
        "node 9 does not exist",
    ),
    (
        &["run", "--policy", "pin-sideways", "--", "true"],
        "unknown policy 'pin-sideways'",
    ),
    (
        &["run", "--policy", "interleave:0,8", "--", "true"],
        "node 8 does not exist",
    ),
    (
        &["run", "--observe=fast", "--", "true"],
        "malformed interval 'fast'",
    ),
    (
        &["run", "--markdown", "/nonexistent-dir/t.md", "--", "true"],
        "cannot write '/nonexistent-dir/t.md'",
    ),
    (&["run", "--repeat", "0", "--", "true"], "0"),
    (&["mg", "--class", "Q"], "unknown class 'Q'"),
    (&["cg", "--class", "X"], "unknown class 'X'"),
    (&["cg", "--placement", "bind:12"], "node 12 does not exist"),
    (&["mg", "--threads", "0"], "0"),
    (
        &["placement-study", "mg", "--class", "Z"],
        "unknown class 'Z'",
    ),
    (
        &["placement-study", "stream", "--class", "S"],
        "--class S applies to cg and mg",
    ),
    (
        &["placement-study", "cg", "--size", "1M"],
        "--size applies to stream, not cg",
    ),
];

#[test]
fn bad_inputs_give_one_line_and_status_2() {
    for (arguments, expected) in BAD_INPUTS {
        let output = numabench()
            .args(*arguments)
            .env("RUST_BACKTRACE", "1")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {stderr}");
        assert_eq!(
            stderr.lines().count(),
            1,
            "{arguments:?} printed more than one line: {stderr}"
        );
        assert!(
            stderr.contains(expected),
            "{arguments:?}: '{stderr}' does not name '{expected}'"
        );
        assert!(!stderr.contains("panicked"), "{arguments:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{arguments:?}");
    }
}

/// Input is checked before anything is allocated or written: a refused
/// run leaves no output file behind.
#[test]
fn refused_runs_create_no_output_files() {
    let directory = tempfile::tempdir().unwrap();
    for (command, bad) in [
        (&["latency", "--size", "64T"][..], "latency"),
        (&["bandwidth", "--mem-node", "99"], "bandwidth"),
        (&["stream", "--placement", "bind:9"], "stream"),
    ] {
        let jsonl = directory.path().join(format!("{bad}.jsonl"));
        let csv = directory.path().join(format!("{bad}.csv"));
        let output = numabench()
            .args(command)
            .arg("--jsonl")
            .arg(&jsonl)
            .arg("--csv")
            .arg(&csv)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{command:?}");
        assert!(!jsonl.exists() && !csv.exists(), "{command:?} wrote output");
    }
}

#[test]
fn help_and_version_succeed() {
    for arguments in [
        &["--help"][..],
        &["--version"],
        &["topo", "--help"],
        &["doctor", "--help"],
    ] {
        numabench().args(arguments).assert().success();
    }
}
