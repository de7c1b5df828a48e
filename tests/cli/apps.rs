//! Application kernels on this machine: verification, placement records,
//! the placement study.

use super::records::{app_run_params, params_of};
use super::{numabench, succeeded, typed_records};
use numabench_schema::params::{AppParams, StudyVerdictParams};
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
    let params = app_run_params(time);
    let verification = params.verification.as_ref().expect("a verification");
    assert_eq!(verification.quantity, quantity, "{time:?}");
    assert!(verification.passed, "{time:?}");
    assert_eq!(
        params.iteration_seconds.map(|seconds| seconds.len()),
        Some(iterations),
        "{time:?}"
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
        let params = app_run_params(time);
        assert_eq!(
            params.configuration.scheme.placement.as_deref(),
            Some(placement)
        );
        assert_eq!(
            params.verification.as_ref().map(|v| v.passed),
            Some(true),
            "{placement}"
        );
        assert_eq!(params.iteration_seconds.as_ref().map(Vec::len), Some(3));
        // Every repetition's time; the stats are over them.
        let runs = params.run_seconds.clone().expect("run_seconds");
        assert_eq!(runs.len(), 2, "{placement}");
        let min = runs.iter().copied().fold(f64::INFINITY, f64::min);
        let max = runs.iter().copied().fold(0.0, f64::max);
        assert_eq!(time.stats.min, min);
        assert_eq!(time.stats.max, max);
        let placed = params
            .pages_after_placement
            .as_ref()
            .expect("pages_after_placement");
        assert!(placed.pages_per_node.values().sum::<u64>() >= 3 * 4 * 1024 * 1024 / 4096);
        assert!(params.user_seconds.expect("user_seconds") >= 0.0);
        assert!(params.involuntary_switches.is_some());
        // Compact pinning (the default): every worker still on its CPU after the run.
        assert_eq!(params.workers_stayed_pinned, Some(true), "{placement}");
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
        let params = params_of::<AppParams>(copy)
            .simd
            .unwrap_or_else(|| panic!("no SIMD choice: {copy:?}"));
        assert_eq!(params.simd_chosen_by, chosen_by);
        for step in ["copy", "scale", "add", "triad"] {
            let level = params.simd[step].as_str().unwrap();
            let variant = params.variant[step].as_str().unwrap();
            if chosen_by == "forced" {
                assert_eq!((level, variant), ("sse2", "sse2"));
                assert!(params.simd_calibration.is_none());
            } else {
                let calibration = params.simd_calibration.as_ref().expect("a calibration");
                let rates = calibration[step].as_object().unwrap();
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
        .all(|time| app_run_params(time).cpu_order.as_deref() == Some("compact")));
    let verdict = records.last().unwrap();
    assert_eq!(verdict.metric, "best_median_time", "{verdict:?}");
    assert_eq!(verdict.benchmark, "stream");
    let params: StudyVerdictParams = params_of(verdict);
    assert_eq!(params.significantly_fastest, Some(false), "{params:?}");
    assert!(params.p_value.expect("p_value") >= 0.05, "{params:?}");
    assert_eq!(params.configurations, Some(2));
    let labels = ["first-touch + compact", "serial + compact"];
    for (field, label) in [
        ("configuration", &params.configuration),
        ("closest", &params.closest),
        ("most_repeatable", &params.most_repeatable),
    ] {
        assert!(
            label
                .as_deref()
                .is_some_and(|label| labels.contains(&label)),
            "{field}: {params:?}"
        );
    }
    assert_ne!(params.configuration, params.closest);
    // One node: every placement is achieved, nothing verified badly.
    assert_eq!(params.excluded, Some(vec![]));
    let best = times
        .iter()
        .find(|time| {
            let placement = app_run_params(time).configuration.scheme.placement;
            Some(format!("{} + compact", placement.unwrap_or_default())) == params.configuration
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
    let placements: Vec<String> = times
        .iter()
        .map(|record| {
            app_run_params(record)
                .configuration
                .scheme
                .placement
                .expect("a placement")
        })
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
        let verification = app_run_params(time).verification.expect("a verification");
        assert_eq!(verification.quantity, "zeta", "{time:?}");
        assert!(verification.passed, "{time:?}");
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
    assert_eq!(
        app_run_params(time).configuration.threads.class.as_deref(),
        Some("S")
    );
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
    assert_eq!(
        app_run_params(time).configuration.threads.threads_per_cpu,
        Some(2)
    );
    // The product variant that ran is the calibration's fastest, one-load-per-nonzero always
    // among those weighed.
    let spmv = params_of::<AppParams>(time)
        .spmv
        .unwrap_or_else(|| panic!("no product variant: {time:?}"));
    let rates = spmv.spmv_calibration.as_ref().expect("a calibration");
    assert!(rates.contains_key("loads"), "{rates:?}");
    assert_fastest_ran(rates, &spmv.spmv);
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
    super::machine().allowed.cpus.len()
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
    let note = app_run_params(&records[0]).note;
    let on = balancing
        .and_then(|mask| mask.parse::<u32>().ok())
        .is_some_and(|mask| mask & 1 == 1);
    if on {
        assert!(note.is_none(), "{note:?}");
        assert!(!stderr.contains("autonuma"), "{stderr}");
    } else {
        assert!(
            note.as_deref()
                .is_some_and(|note| note.contains("ran as a plain serial initialisation")),
            "{note:?}"
        );
        assert!(stderr.contains("note: "), "{stderr}");
    }
}
