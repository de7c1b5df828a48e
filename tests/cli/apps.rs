//! Application kernels on this machine: verification, placement records,
//! the placement study.

use super::{json_document as document, numabench, param, params_object, succeeded, typed_records};
use numabench_schema::{Record, Unit};

/// Every placement scheme STREAM accepts.
pub const STREAM_PLACEMENTS: &[&str] = &[
    "first-touch",
    "serial",
    "interleave",
    "bind:0",
    "serial+migrate",
    "next-touch",
    "autonuma",
];

/// Asserts that an application kernel's `time` record passed its
/// verification of `quantity` and timed `iterations` iterations.
fn assert_verified_time(time: &Record, quantity: &str, iterations: usize) {
    assert_eq!(param(time, "verification")["quantity"], quantity);
    assert_eq!(param(time, "verification")["passed"], true);
    assert_eq!(
        param(time, "iteration_seconds").as_array().unwrap().len(),
        iterations
    );
}

/// One STREAM run of two iterations over 1M.
pub const SHORT_STREAM: &[&str] = &[
    "stream",
    "--size",
    "1M",
    "--repeat",
    "1",
    "--iterations",
    "2",
];

/// The arguments of a placement study of CG at class S, one run of each
/// of `placements` (comma-separated), followed by `rest`.
pub fn cg_study<'a>(placements: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    [
        &[
            "placement-study",
            "cg",
            "--class",
            "S",
            "--repeat",
            "1",
            "--placements",
            placements,
        ],
        rest,
    ]
    .concat()
}

/// A small placement study of STREAM: two placements, three runs of each
/// configuration (callers add the thread placements).
const SMALL_STREAM_STUDY: &[&str] = &[
    "placement-study",
    "stream",
    "--size",
    "1M",
    "--repeat",
    "3",
    "--placements",
    "first-touch,serial",
];

/// The arguments that run the application kernel `kernel` at class S
/// `repeat` times, followed by `rest`.
pub fn class_s<'a>(kernel: &'a str, repeat: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    [&[kernel, "--class", "S", "--repeat", repeat], rest].concat()
}

#[test]
fn stream_validates_and_records_placement_and_usage() {
    for &placement in STREAM_PLACEMENTS {
        let records = typed_records(&[
            "stream",
            "--size",
            "4M",
            "--repeat",
            "2",
            "--iterations",
            "3",
            "--placement",
            placement,
        ]);
        let time = records
            .iter()
            .find(|record| record.metric == "time")
            .unwrap();
        assert_eq!(time.unit, Unit::Seconds);
        assert_eq!(time.stats.n, 2);
        let params = &params_object(time);
        assert_eq!(params["placement"], placement);
        assert_eq!(params["verification"]["passed"], true, "{placement}");
        assert_eq!(params["iteration_seconds"].as_array().unwrap().len(), 3);
        // Every repetition's time; the stats are over them.
        let runs: Vec<f64> = params["run_seconds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_f64().unwrap())
            .collect();
        assert_eq!(runs.len(), 2, "{placement}");
        let min = runs.iter().copied().fold(f64::INFINITY, f64::min);
        let max = runs.iter().copied().fold(0.0, f64::max);
        assert_eq!(time.stats.min, min);
        assert_eq!(time.stats.max, max);
        assert!(
            params["pages_after_placement"]["pages_per_node"]
                .as_object()
                .unwrap()
                .values()
                .map(|v| v.as_u64().unwrap())
                .sum::<u64>()
                >= 3 * 4 * 1024 * 1024 / 4096
        );
        assert!(params["user_seconds"].as_f64().unwrap() >= 0.0);
        assert!(params.get("involuntary_switches").is_some());
        // Compact pinning (the default): every worker still on its CPU after the run.
        assert_eq!(params["workers_stayed_pinned"], true, "{placement}");
        let metrics: Vec<&str> = records
            .iter()
            .map(|record| record.metric.as_str())
            .collect();
        for metric in [
            "mops",
            "first_iteration_time",
            "copy_bandwidth",
            "scale_bandwidth",
            "add_bandwidth",
            "triad_bandwidth",
        ] {
            assert!(metrics.contains(&metric), "{metrics:?}");
        }
    }
}

/// STREAM's records say which SIMD level and variant each loop ran and
/// how it was chosen: calibrated by default (copy also over streaming
/// stores and memcpy), forced by `--simd` (the plain loop).
#[test]
fn stream_records_the_simd_level_of_each_loop() {
    for (arguments, chosen_by) in [
        (&[][..], "calibration"),
        (&["--simd", "sse2"][..], "forced"),
    ] {
        let records = typed_records(&[SHORT_STREAM, arguments].concat());
        let copy = records
            .iter()
            .find(|record| record.metric == "copy_bandwidth")
            .unwrap();
        let params = &params_object(copy);
        assert_eq!(params["simd_chosen_by"], chosen_by);
        for step in ["copy", "scale", "add", "triad"] {
            let level = params["simd"][step].as_str().unwrap();
            let variant = params["variant"][step].as_str().unwrap();
            if chosen_by == "forced" {
                assert_eq!((level, variant), ("sse2", "sse2"));
                assert!(params["simd_calibration"].is_null());
            } else {
                let rates = params["simd_calibration"][step].as_object().unwrap();
                assert!(rates[variant].as_f64().unwrap() > 0.0, "{step}: {rates:?}");
                assert_fastest_ran(rates, variant);
                match variant {
                    "memcpy" => assert_eq!(level, "libc"),
                    _ => assert!(variant.starts_with(level), "{step}: {variant} runs {level}"),
                }
                if step == "copy" {
                    assert!(
                        rates.contains_key("memcpy"),
                        "copy weighs memcpy: {rates:?}"
                    );
                } else {
                    assert!(!rates
                        .keys()
                        .any(|name| name == "memcpy" || name.ends_with("-nt")));
                }
            }
        }
    }
}

#[test]
fn stream_prints_npb_style_verification() {
    let output = numabench().args(SHORT_STREAM).output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("VERIFICATION SUCCESSFUL"), "{text}");
}

/// The study's verdict: with three runs per configuration the rank test
/// cannot reach 5%, so no configuration is named fastest (and the line says
/// why); the lowest cv is given, called descriptive (three runs suffice).
#[test]
fn placement_study_names_a_fastest_only_when_significant() {
    let output = succeeded(numabench().args(SMALL_STREAM_STUDY).args([
        "--threads-placements",
        "compact,unpinned",
        "--oversubscribe",
        "2",
    ]));
    let text = String::from_utf8(output.stdout).unwrap();
    for row in [
        "first-touch + compact",
        "first-touch + unpinned",
        "serial + compact",
        "serial + unpinned",
        "first-touch + compact x2/cpu",
    ] {
        assert!(text.contains(row), "{row} missing from:\n{text}");
    }
    for line in [
        "placed",
        "fastest: no configuration was significantly fastest: ",
        "with 3 and 3 runs the test cannot go below p = 0.081",
        "lowest cv (descriptive, not tested): ",
        "among 5 eligible configuration(s) (verified, placement not failed) with at least 3 runs",
    ] {
        assert!(text.contains(line), "no `{line}` in:\n{text}");
    }
}

/// The JSON document: one set of records per configuration over all its
/// runs, then the verdict record.
#[test]
fn placement_study_records_its_verdict() {
    let records =
        typed_records(&[SMALL_STREAM_STUDY, &["--threads-placements", "compact"]].concat());
    let times: Vec<&Record> = records
        .iter()
        .filter(|record| record.metric == "time")
        .collect();
    assert_eq!(times.len(), 2);
    assert!(times.iter().all(|time| time.stats.n == 3));
    assert!(times
        .iter()
        .all(|time| param(time, "cpu_order") == "compact"));
    let verdict = records.last().unwrap();
    assert_eq!(verdict.metric, "best_median_time", "{verdict:?}");
    assert_eq!(verdict.benchmark, "stream");
    let params = &params_object(verdict);
    assert_eq!(params["significantly_fastest"], false, "{params}");
    assert!(params["p_value"].as_f64().unwrap() >= 0.05, "{params}");
    assert_eq!(params["configurations"], 2);
    let labels = ["first-touch + compact", "serial + compact"];
    for field in ["configuration", "closest", "most_repeatable"] {
        assert!(
            labels.contains(&params[field].as_str().unwrap()),
            "{field}: {params}"
        );
    }
    assert_ne!(params["configuration"], params["closest"]);
    // One node: every placement is achieved, nothing verified badly.
    assert_eq!(params["excluded"], serde_json::json!([]));
    let best = times
        .iter()
        .find(|time| {
            format!("{} + compact", param(time, "placement").as_str().unwrap())
                == params["configuration"]
        })
        .unwrap();
    assert_eq!(verdict.value, best.value);
}

#[test]
fn placement_study_runs_cg_under_every_scheme_it_names() {
    let records = typed_records(&cg_study(
        "first-touch,serial,interleave,bind:0,serial+migrate,next-touch",
        &["--threads-placements", "compact"],
    ));
    let times: Vec<&Record> = records
        .iter()
        .filter(|record| record.metric == "time")
        .collect();
    let placements: Vec<&str> = times
        .iter()
        .map(|record| param(record, "placement").as_str().unwrap())
        .collect();
    assert_eq!(
        placements,
        [
            "first-touch",
            "serial",
            "interleave",
            "bind:0",
            "serial+migrate",
            "next-touch"
        ]
    );
    for time in times {
        assert_eq!(time.benchmark, "cg");
        assert_eq!(param(time, "verification")["quantity"], "zeta");
        assert_eq!(param(time, "verification")["passed"], true, "{time:?}");
    }
}

#[test]
fn mg_verifies_and_prints_its_residual() {
    let output = succeeded(numabench().args(class_s("mg", "2", &["--placement", "next-touch"])));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("VERIFICATION SUCCESSFUL") && text.contains("rnm2"),
        "{text}"
    );
    // Three workers (an odd count) on one CPU, so on any machine.
    let records = typed_records(&class_s(
        "mg",
        "2",
        &["--threads", "1", "--threads-per-core", "3"],
    ));
    let time = &records[0];
    assert_eq!(param(time, "class"), "S");
    assert_verified_time(time, "rnm2", 4);
}

#[test]
fn cg_verifies_and_prints_zeta() {
    let output =
        succeeded(numabench().args(class_s("cg", "2", &["--placement", "serial+migrate"])));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("VERIFICATION SUCCESSFUL") && text.contains("zeta"),
        "{text}"
    );
    let allowed = allowed_cpus();
    for line in [
        " Class            = S".to_string(),
        format!(" Threads          = {allowed} (compact, serial+migrate)"),
        " Time in seconds  = ".to_string(),
        " Mop/s total      = ".to_string(),
    ] {
        assert!(text.contains(&line), "no `{line}` in\n{text}");
    }
    let records = typed_records(&class_s("cg", "1", &["--threads-per-core", "2"]));
    let time = &records[0];
    assert_verified_time(time, "zeta", 15);
    // By default one thread per allowed CPU; --threads-per-core 2 doubles it.
    assert_eq!(time.typed_params().threads(), Some(2 * allowed as u64));
    assert_eq!(param(time, "threads_per_cpu"), 2);
    // The product variant that ran is the calibration's fastest, one-load-per-nonzero always
    // among those weighed.
    let variant = param(time, "spmv").as_str().unwrap();
    let rates = param(time, "spmv_calibration").as_object().unwrap();
    assert!(rates.contains_key("loads"), "{rates:?}");
    assert_fastest_ran(rates, variant);
}

/// `variant` is the fastest of a calibration's `rates` (GB/s by variant).
fn assert_fastest_ran(rates: &serde_json::Map<String, serde_json::Value>, variant: &str) {
    let fastest = rates
        .values()
        .filter_map(|rate| rate.as_f64())
        .fold(0.0, f64::max);
    assert_eq!(
        rates[variant].as_f64(),
        Some(fastest),
        "{variant}: {rates:?}"
    );
}

/// How many CPUs this process may use, as `topo --json` says.
fn allowed_cpus() -> usize {
    document(&["topo"])["allowed"]["cpus"]
        .as_array()
        .unwrap()
        .len()
}

/// `autonuma` says when automatic NUMA balancing cannot act (off, or not in
/// this kernel), on stderr and in the records, and says nothing when it is on.
#[test]
fn autonuma_says_whether_balancing_was_on() {
    let balancing = std::fs::read_to_string("/proc/sys/kernel/numa_balancing")
        .map(|text| text.trim().to_string())
        .ok();
    let output = super::succeeding(&[
        "stream",
        "--size",
        "4M",
        "--repeat",
        "1",
        "--placement",
        "autonuma",
        "--json",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let (_, records) = super::typed_stdout("stream --placement autonuma", &output.stdout);
    let note = param(&records[0], "note");
    let on = balancing
        .and_then(|mask| mask.parse::<u32>().ok())
        .is_some_and(|mask| mask & 1 == 1);
    if on {
        assert!(note.is_null(), "{note}");
        assert!(!stderr.contains("autonuma"), "{stderr}");
    } else {
        assert!(
            note.as_str()
                .unwrap()
                .contains("ran as a plain serial initialisation"),
            "{note}"
        );
        assert!(stderr.contains("note: "), "{stderr}");
    }
}
