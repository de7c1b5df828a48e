//! Every user mistake ends with one line naming the bad value and exit
//! status 2: no panic, no backtrace, no usage dump.

use super::{numabench, OTHER_MACHINE_XML};

/// (arguments, text the one line must contain)
const BAD_INPUTS: &[(&[&str], &str)] = &[
    (
        &["--topology", "/nonexistent/machine.xml", "topo"],
        "cannot load topology file '/nonexistent/machine.xml': No such file or directory",
    ),
    (
        &["doctor", "--topology", "/nonexistent/machine.xml"],
        "cannot load topology file '/nonexistent/machine.xml'",
    ),
    (
        &["list", "--topology", "/nonexistent/machine.xml"],
        "cannot load topology file '/nonexistent/machine.xml'",
    ),
    (
        &["topo", "--topology", "/"],
        "cannot load topology file '/': it is a directory",
    ),
    (
        &[
            "--topology",
            concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"),
            "topo",
            "--json",
        ],
        "Cargo.toml': not an XML file",
    ),
    (
        &["--topology", OTHER_MACHINE_XML, "latency", "--size", "64K"],
        "two-sockets-hbm-cxl.xml' is not this machine",
    ),
    // Refused as another machine before the file is read.
    (
        &["bandwidth", "--topology", "/nonexistent/machine.xml"],
        "topology file '/nonexistent/machine.xml' is not this machine",
    ),
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
    (
        &["latency", "--each-cpu", "99999", "--size", "64K"],
        "CPU 99999 does not exist",
    ),
    (&["latency", "--each-cpu", "x"], "'x'"),
    (
        &["latency", "--size", "64K", "--writer-cpu", "4096"],
        "--writer-cpu 4096: CPU 4096 does not exist",
    ),
    (&["latency", "--writer-cpu", "-1"], "'-1'"),
    (
        &["latency", "--each-cpu", "99999", "--plan"],
        "CPU 99999 does not exist",
    ),
    (
        &[
            "matrix",
            "bandwidth",
            "--per-cpu",
            "--mode",
            "parallel",
            "--plan",
        ],
        "--per-cpu",
    ),
    (&["bandwidth", "--cpu-order", "zigzag"], "zigzag"),
    (
        &["bandwidth", "--cpu-order", "compact", "--cpus", "0"],
        "--cpus",
    ),
    (&["scaling", "--cpu-order", "random"], "random"),
    (
        &["contention", "--cpu-order", "compact", "--cpus", "0"],
        "--cpus",
    ),
    (&["loaded-latency", "--cpu-order", "tree"], "tree"),
    (&["latency", "--each-cpu", "0", "--cpu", "0"], "--cpu"),
    (
        &["bandwidth", "--each-cpu", "99999", "--size", "1M"],
        "CPU 99999 does not exist",
    ),
    (&["bandwidth", "--each-cpu", "0-x"], "'0-x'"),
    (
        &["matrix", "bandwidth", "--per-cpu", "--mode", "parallel"],
        "--per-cpu",
    ),
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
    (&["stream", "--simd", "avx1024"], "avx1024"),
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
    (
        &["compare", "/nonexistent/a.jsonl"],
        "two or more results files, got 1",
    ),
    (
        &["compare", "/nonexistent/a.jsonl", "/nonexistent/b.jsonl"],
        "/nonexistent/a.jsonl: cannot read",
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
    (&["mlp", "--threads", "0"], "0"),
    (&["cache", "--states", "Q"], "--states Q"),
    (&["cache", "--levels", "L4"], "--levels L4"),
    (&["cache", "--owner", "999"], "CPU 999 does not exist"),
    (&["cache", "--cpus", "999"], "CPU 999 does not exist"),
    (
        &["cache", "--owner", "0", "--cpus", "0"],
        "--cpus 0: the owner's own CPU",
    ),
    (&["mlp", "--threads", "4096"], "--threads 4096 is more than"),
    (&["mlp", "--threads", "1", "--chains", "17"], "--chains 17"),
    (&["mlp", "--threads", "1", "--chains", "0"], "--chains 0"),
    // Without --threads too (it ran and exited 0).
    (&["mlp", "--chains", "0"], "--chains 0"),
    (&["mlp", "--chains", "1,0"], "--chains 0"),
    (&["mlp", "--unpinned"], "need --threads N or --cpus LIST"),
    (&["mlp", "--cpus", "999"], "CPU 999 does not exist"),
    (
        &["mlp", "--threads", "1", "--size", "64T"],
        "larger than the free memory",
    ),
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
    // The policy forms `--placement` shares with `run --policy` are read and refused alike.
    (
        &["stream", "--placement", "bind:0-1"],
        "placement 'bind:0-1': bind takes one node",
    ),
    (
        &["run", "--policy", "bind:0-1", "--", "true"],
        "policy 'bind:0-1': bind takes one node",
    ),
    (
        &["stream", "--placement", "membind:0"],
        "unknown placement 'membind:0'",
    ),
    (
        &["stream", "--threads-placement", "loose"],
        "unknown thread placement 'loose'",
    ),
    (&["stream", "--threads-per-core", "65"], "65"),
    (&["stream", "--threads", "1000000"], "--threads 1000000"),
    (
        &["stream", "--threads", "4294967295"],
        "--threads 4294967295",
    ),
    (
        &["stream", "--threads", "100000", "--threads-per-core", "2"],
        "--threads 100000",
    ),
    (&["cg", "--threads", "1000000"], "--threads 1000000"),
    (
        &["cg", "--threads", "1,2,2"],
        "thread count 2 is listed twice",
    ),
    (&["stream", "--threads", "1,0"], "thread count 0 in '1,0'"),
    (&["mg", "--threads", "1,1000000"], "--threads 1000000"),
    (
        &["cg", "--threads", "1,99999999999999999999"],
        "'99999999999999999999'",
    ),
    (
        &["stream", "--threads-sweep", "--threads", "2"],
        "--threads-sweep",
    ),
    (&["mg", "--threads", "4294967295"], "--threads 4294967295"),
    (
        &["placement-study", "stream", "--threads", "1000000"],
        "--threads 1000000",
    ),
    (&["stream", "--size", "64T"], "free"),
    (&["placement-study", "lu"], "lu"),
    (
        &["placement-study", "stream", "--oversubscribe", "65"],
        "65",
    ),
    (
        &["placement-study", "stream", "--oversubscribe", "1,2,0"],
        "0",
    ),
    (
        &[
            "placement-study",
            "stream",
            "--placements",
            "interleave:0,1,bogus",
        ],
        "invalid value 'interleave:0,1,bogus'",
    ),
    // `interleave:0,9` is one placement (nodes 0 and 9), not `interleave:0` and a placement '9'.
    (
        &[
            "placement-study",
            "stream",
            "--placements",
            "interleave:0,9",
        ],
        "node 9 does not exist",
    ),
    (&["latency", "--size", "1K,,2K"], "'1K,,2K'"),
    (&["bandwidth", "--size", "1M,2Q"], "'1M,2Q'"),
    (&["run", "--"], "no program to run"),
    (&["run", "--repeat", "2"], "no program to run"),
    (&["placement-study"], "<KERNEL>"),
    (&["cg", "--cpus", "0,0"], "CPU 0 appears twice in '0,0'"),
    (
        &["stream", "--cpus", "0-1,1"],
        "CPU 1 appears twice in '0-1,1'",
    ),
    (
        &["stream", "--cpus", "4096"],
        "--cpus 4096: CPU 4096 is not one",
    ),
    (
        &["mg", "--cpus", "0", "--threads", "2"],
        "--threads 2 conflicts with --cpus 0",
    ),
    (&["stream", "--cpus", "0,x"], "'x'"),
    (&["stream", "--baseline", "two-node"], "'two-node'"),
    (&["placement-study", "cg", "--node-splits"], "--threads <N>"),
    (
        &[
            "placement-study",
            "cg",
            "--node-splits",
            "--threads",
            "2",
            "--threads-placements",
            "scatter",
        ],
        "--threads-placements",
    ),
    (
        &["placement-study", "cg", "--max-splits", "3"],
        "--node-splits",
    ),
    (
        &[
            "placement-study",
            "cg",
            "--node-splits",
            "--threads",
            "1",
            "--max-splits",
            "0",
        ],
        "--max-splits",
    ),
    (
        &[
            "bandwidth",
            "--size",
            "1M",
            "--csv",
            "same-file.out",
            "--jsonl",
            "./same-file.out",
        ],
        "--csv and --jsonl name the same file './same-file.out'",
    ),
    (
        &[
            "stream",
            "--csv",
            "/tmp/../tmp/numabench-same-file.out",
            "--jsonl",
            "/tmp/numabench-same-file.out",
        ],
        "name the same file",
    ),
    (
        &[
            "run",
            "--markdown",
            "same-file.md",
            "--csv",
            "same-file.md",
            "--",
            "true",
        ],
        "--markdown and --csv name the same file 'same-file.md'",
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
    (
        &["run", "--policy", "pin-k-per-core:0", "--", "true"],
        "policy 'pin-k-per-core:0': K must be a whole number from 1 to 64",
    ),
    (
        &["run", "--param", "t", "--", "echo", "{t}"],
        "--param 't': expected NAME=V1,V2,...",
    ),
    (
        &["run", "--param", "t=", "--", "echo", "{t}"],
        "--param 't=': empty list of values",
    ),
    (
        &[
            "run", "--param", "t=1", "--param", "t=2", "--", "echo", "{t}",
        ],
        "--param 't=2': the parameter 't' is given twice",
    ),
    (
        &["run", "--param", "t=1", "--", "echo", "{t}", "{n}"],
        "placeholder '{n}' in the command names no --param",
    ),
    (
        &[
            "run", "--param", "t=1", "--param", "n=2", "--", "echo", "{t}",
        ],
        "--param 'n' is never used",
    ),
    (
        &["run", "--param", "p=no-such-program-xyz", "--", "{p}"],
        "cannot run 'no-such-program-xyz'",
    ),
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
    (
        &["overdecompose", "--ranks-per-core", "1,33"],
        "invalid --ranks-per-core '1,33': '33' is not a whole number from 1 to 32",
    ),
    (
        &["overdecompose", "--ranks-per-core", "0"],
        "'0' is not a whole number from 1 to 32",
    ),
    (
        &["overdecompose", "--comm-share", "50,100"],
        "invalid --comm-share '50,100': '100' is not a percentage",
    ),
    (&["overdecompose", "--cores", "4096"], "--cores 4096: only"),
    (
        &["overdecompose", "--hostfile", "/nonexistent/hosts"],
        "cannot read --hostfile /nonexistent/hosts: ",
    ),
    (
        &["overdecompose", "--host", "n1,,n2"],
        "invalid --host 'n1,,n2': '' is not a host name",
    ),
    (
        &["overdecompose", "--host", "n1", "--hostfile", "/etc/hosts"],
        "'--host <LIST>' cannot be used with '--hostfile <FILE>'",
    ),
    (
        &["overdecompose", "--topology", OTHER_MACHINE_XML],
        "two-sockets-hbm-cxl.xml' is not this machine",
    ),
    (&["report"], "RESULTS"),
    (
        &["report", "/dev/null"],
        "/dev/null is empty: no records to report",
    ),
    (
        &["report", "/nonexistent/results.jsonl"],
        "cannot read /nonexistent/results.jsonl",
    ),
    (
        &["report", REPORT_TOPOLOGY, "-o", REPORT_TOPOLOGY],
        "topology.json is one of the inputs",
    ),
    // Not JSON at all: every line is skipped, nothing is left to report.
    (
        &["report", concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")],
        "no records, topology or doctor findings in",
    ),
];

/// A `topo --json` output kept for the report tests.
const REPORT_TOPOLOGY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../numabench/tests/fixtures/report/topology.json"
);

#[test]
fn bad_inputs_give_one_line_and_status_2() {
    for (arguments, expected) in BAD_INPUTS {
        let output = numabench()
            .args(*arguments)
            .env("RUST_BACKTRACE", "1")
            .output()
            .unwrap();
        assert_refused(&output, &format!("{arguments:?}"), expected);
    }
}

/// Exit status 2, one line on stderr naming `expected`, no panic, nothing
/// on stdout.
pub fn assert_refused(output: &std::process::Output, what: &str, expected: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{what}: {stderr}");
    assert_eq!(
        stderr.lines().count(),
        1,
        "{what} printed more than one line: {stderr}"
    );
    assert!(
        stderr.contains(expected),
        "{what}: '{stderr}' does not name '{expected}'"
    );
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    assert!(output.stdout.is_empty(), "{what}");
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

/// A command given without its subcommand prints its help on stdout (the
/// choices, not an error dump on stderr) with status 2, as git does.
#[test]
fn a_missing_subcommand_prints_help_on_stdout_with_status_2() {
    for (arguments, usage) in [
        // [OPTIONS]: the global --topology.
        (&[][..], "Usage: numabench [OPTIONS] <COMMAND>"),
        (&["matrix"], "Usage: numabench matrix [OPTIONS] <COMMAND>"),
    ] {
        let output = numabench().args(arguments).output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}");
        assert!(stdout.contains(usage), "{arguments:?}: {stdout}");
        assert!(
            output.stderr.is_empty(),
            "{arguments:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// Two outputs naming one file are refused before anything is written:
/// neither file appears.
#[test]
fn one_file_for_two_outputs_is_refused_before_it_is_created() {
    let directory = tempfile::tempdir().unwrap();
    let file = directory.path().join("results.out");
    let dotted = directory.path().join(".").join("results.out");
    let output = numabench()
        .args(["bandwidth", "--size", "1M", "--kernel", "read", "--csv"])
        .arg(&file)
        .arg("--jsonl")
        .arg(&dotted)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("name the same file"));
    assert!(!file.exists());
}

/// A thread the system will not start is a system failure (status 3, one
/// line), never a panic. RUST_MIN_STACK asks for stacks no system can map,
/// so starting the second worker fails on any machine. (A one-CPU
/// bandwidth run starts no thread: the calling thread is its one worker.)
#[test]
fn a_worker_thread_that_cannot_start_is_exit_3_not_a_panic() {
    let allowed = crate::run::allowed_cpus();
    let two_cpus = match allowed[..] {
        [first, second, ..] => format!("{first},{second}"),
        _ => {
            eprintln!("one allowed CPU: the bandwidth case needs two workers and is left out");
            String::new()
        }
    };
    for arguments in [
        &[
            "stream",
            "--threads",
            "1",
            "--threads-per-core",
            "2",
            "--repeat",
            "1",
            "--size",
            "1M",
        ][..],
        &[
            "bandwidth",
            "--cpus",
            &two_cpus,
            "--size",
            "1M",
            "--kernel",
            "read",
            "--repeat",
            "1",
        ],
    ] {
        if arguments.contains(&"") {
            continue;
        }
        let output = numabench()
            .args(arguments)
            .env("RUST_MIN_STACK", "1000000000000000")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(3), "{arguments:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{arguments:?}: {stderr}");
        assert!(
            stderr.lines().count() == 1 && stderr.contains("cannot start"),
            "{arguments:?}: {stderr}"
        );
    }
}
