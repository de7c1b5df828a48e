//! The application records' params keep their text (keys, order, value
//! types, absent and null) as the map writers wrote them: an app run's
//! records, a scaling point's ratios and a placement study's verdict.

use super::*;
use crate::counters::Usage;
use crate::memory::PlacementStatus;
use crate::output::{CollectSink, Pipeline, Record, RunMetadata};
use crate::runtime::{PageReport, PlacementScheme, RunObservation, ThreadScheme};
use crate::stats::Sample;
use crate::topology::Machine;
use crate::workloads::Verification;
use serde_json::{json, Map, Value};

fn topology() -> Machine {
    crate::topology::synthetic("pack:2 [numa(memory=1GiB)] core:2 pu:1")
}

/// A run of `seconds` with every figure set, pinned to `pinned`.
fn run(seconds: f64, pinned: Vec<Option<u32>>) -> AppRun {
    AppRun {
        iteration_seconds: vec![seconds * 0.75, seconds * 0.25],
        total_seconds: seconds,
        prologue_seconds: None,
        verification: Verification {
            quantity: "zeta",
            computed: 1.5,
            reference: Some(1.5),
            epsilon: 1e-10,
            passed: true,
        },
        pages_after_placement: PageReport {
            pages_per_node: [(0, 3), (1, 1)].into_iter().collect(),
            not_present: 2,
            remote_share: Some(0.25),
        },
        pages_after_run: PageReport {
            pages_per_node: [(0, 4)].into_iter().collect(),
            not_present: 0,
            remote_share: None,
        },
        migrated_pages: 5,
        next_touch_unprotected_pages: 0,
        usage: Usage {
            user_seconds: 2.0,
            system_seconds: 0.5,
            voluntary_switches: 3,
            involuntary_switches: 4,
        },
        extra_metrics: Vec::new(),
        extra_params: Map::new(),
        operations: 1e6,
        worker_cpus_after_run: pinned.iter().map(|cpu| cpu.unwrap_or(1)).collect(),
        pinned_cpus: pinned,
        observation: RunObservation::default(),
        huge_pages: None,
        huge_pages_migrated: None,
    }
}

/// The params text of each record `emit` writes.
fn params_texts(emit: impl FnOnce(&mut Pipeline)) -> Vec<(String, String)> {
    let metadata = RunMetadata::example();
    let collected = CollectSink::default();
    let mut pipeline = Pipeline::with_sinks(vec![Box::new(collected.clone())], &metadata).unwrap();
    emit(&mut pipeline);
    collected
        .records()
        .into_iter()
        .map(|record: Record| (record.metric, Value::Object(record.params).to_string()))
        .collect()
}

#[test]
fn an_app_run_keeps_its_params_text() {
    let topology = topology();
    // Unpinned STREAM with the kernel's keys, no class, no baseline.
    let config = AppRunConfig::new(2, ThreadScheme::Unpinned, PlacementScheme::FirstTouch);
    let mut plain = run(1.0, vec![None, None]);
    plain.extra_params = json!({"simd": {"copy": "avx2"}, "variant": {"copy": "avx2-nt"},
        "simd_chosen_by": "forced", "simd_calibration": null})
    .as_object()
    .unwrap()
    .clone();
    let texts = params_texts(|pipeline| {
        emit_app_records(&topology, "stream", None, &config, &[plain], pipeline).unwrap();
    });
    assert_eq!(texts.len(), 3);
    assert!(texts.iter().all(|(_, text)| *text == texts[0].1));
    assert_eq!(
        texts[0].1,
        r#"{"threads":2,"threads_per_cpu":1,"nodes_used":null,"placement":"first-touch","threads_placement":"unpinned","verification":{"quantity":"zeta","computed":1.5,"reference":1.5,"epsilon":1e-10,"passed":true},"iteration_seconds":[0.75,0.25],"run_seconds":[1.0],"user_seconds":2.0,"system_seconds":0.5,"voluntary_switches":3.0,"involuntary_switches":4.0,"migrated_pages":5,"hugepages":false,"huge_pages_migrated":null,"migration_cost_seconds":0.5,"worker_cpus_after_run":[1,1],"workers_stayed_pinned":null,"pages_after_placement":{"pages_per_node":{"0":3,"1":1},"not_present":2,"remote_share":0.25},"pages_after_run":{"pages_per_node":{"0":4},"not_present":0,"remote_share":null},"simd":{"copy":"avx2"},"variant":{"copy":"avx2-nt"},"simd_chosen_by":"forced","simd_calibration":null,"threads_usage":[],"other_threads_usage":[],"threads_usage_resolution_seconds":0.01,"tlp":null,"numastat_delta":{},"numastat_scope":"system","perf":{},"perf_unavailable":{},"perf_per_worker":[]}"#
    );
}

#[test]
fn a_pinned_app_run_with_its_baseline_keeps_its_params_text() {
    let topology = topology();
    // CG class A, next-touch, two workers per CPU on the scheme's CPUs,
    // huge pages, a prologue, the one-node baseline ran.
    let config = AppRunConfig {
        threads_per_cpu: 2,
        hugepages: true,
        one_node_baseline: Some(OneNodeBaseline::Ran {
            seconds: 0.5,
            node: 0,
            cpus: vec![0, 1],
        }),
        ..AppRunConfig::new(4, ThreadScheme::Scatter, PlacementScheme::NextTouch)
    };
    let pinned = config.worker_cpus(&topology);
    let mut first = run(2.0, pinned.clone());
    first.prologue_seconds = Some(0.125);
    first.next_touch_unprotected_pages = 7;
    first.huge_pages_migrated = Some(3);
    first.extra_params = json!({"spmv": "avx2", "spmv_calibration": {"avx2": 10.5}})
        .as_object()
        .unwrap()
        .clone();
    let mut moved = run(1.0, pinned);
    moved.worker_cpus_after_run[0] += 1;
    let texts = params_texts(|pipeline| {
        emit_app_records(
            &topology,
            "cg",
            Some("A"),
            &config,
            &[first, moved],
            pipeline,
        )
        .unwrap();
    });
    assert_eq!(texts[0].0, "time");
    assert_eq!(
        texts[0].1,
        r#"{"class":"A","threads":4,"threads_per_cpu":2,"nodes_used":2,"placement":"next-touch","threads_placement":"scatter","cpu_order":"scatter","verification":{"quantity":"zeta","computed":1.5,"reference":1.5,"epsilon":1e-10,"passed":true},"iteration_seconds":[1.5,0.5],"run_seconds":[2.0,1.0],"user_seconds":2.0,"system_seconds":0.5,"voluntary_switches":3.0,"involuntary_switches":4.0,"migrated_pages":5,"hugepages":true,"huge_pages_migrated":3,"migration_cost_seconds":0.875,"prologue_seconds":0.125,"worker_cpus_after_run":[0,0,2,2],"workers_stayed_pinned":false,"pages_after_placement":{"pages_per_node":{"0":3,"1":1},"not_present":2,"remote_share":0.25},"pages_after_run":{"pages_per_node":{"0":4},"not_present":0,"remote_share":null},"next_touch_unprotected_pages":7,"note":"next-touch ran out of memory mappings (vm.max_map_count): 7 pages were left where the serial initialisation put them","spmv":"avx2","spmv_calibration":{"avx2":10.5},"threads_usage":[],"other_threads_usage":[],"threads_usage_resolution_seconds":0.01,"tlp":null,"numastat_delta":{},"numastat_scope":"system","perf":{},"perf_unavailable":{},"perf_per_worker":[],"cpus":[0,2],"node_split":"2/2","one_node_baseline":"ran on node 0","one_node_cpus":[0,1],"one_node_seconds":0.5,"relative_to_one_node":3.0}"#
    );
    // Explicit CPUs (no scheme order), a baseline that did not run.
    let config = AppRunConfig {
        cpus: Some(vec![2, 0]),
        one_node_baseline: Some(OneNodeBaseline::NotRun(BaselineNotRun::DoesNotFit {
            threads: 2,
            max: 1,
        })),
        ..AppRunConfig::new(2, ThreadScheme::Compact, PlacementScheme::Serial)
    };
    let texts = params_texts(|pipeline| {
        let pinned = config.worker_cpus(&topology);
        emit_app_records(
            &topology,
            "mg",
            Some("S"),
            &config,
            &[run(1.0, pinned)],
            pipeline,
        )
        .unwrap();
    });
    assert_eq!(
        texts[0].1,
        r#"{"class":"S","threads":2,"threads_per_cpu":1,"nodes_used":2,"placement":"serial","threads_placement":"compact","verification":{"quantity":"zeta","computed":1.5,"reference":1.5,"epsilon":1e-10,"passed":true},"iteration_seconds":[0.75,0.25],"run_seconds":[1.0],"user_seconds":2.0,"system_seconds":0.5,"voluntary_switches":3.0,"involuntary_switches":4.0,"migrated_pages":5,"hugepages":false,"huge_pages_migrated":null,"migration_cost_seconds":0.5,"worker_cpus_after_run":[2,0],"workers_stayed_pinned":true,"pages_after_placement":{"pages_per_node":{"0":3,"1":1},"not_present":2,"remote_share":0.25},"pages_after_run":{"pages_per_node":{"0":4},"not_present":0,"remote_share":null},"threads_usage":[],"other_threads_usage":[],"threads_usage_resolution_seconds":0.01,"tlp":null,"numastat_delta":{},"numastat_scope":"system","perf":{},"perf_unavailable":{},"perf_per_worker":[],"cpus":[2,0],"node_split":"1/1","one_node_baseline":"not run: 2 threads do not fit on one node (max 1)"}"#
    );
}

/// A row of a placement study.
fn study_row(placement: PlacementScheme, times: &[f64], node_split: Option<&str>) -> StudyRow {
    StudyRow {
        placement,
        thread_scheme: ThreadScheme::Compact,
        threads: 2,
        threads_per_cpu: 1,
        summary: AppSummary {
            time: Sample::new(times.iter().copied()).unwrap(),
            all_verified: true,
            system_seconds: 0.0,
            context_switches: 0.0,
            placement: Some(PlacementStatus::Verified),
        },
        node_split: node_split.map(str::to_string),
    }
}

#[test]
fn a_study_verdict_keeps_its_params_text() {
    let fast = [1.0, 1.1, 1.2, 1.0, 1.1, 1.2];
    let slow = [2.0, 2.1, 2.2, 2.0, 2.1, 2.2];
    let mut misplaced = study_row(PlacementScheme::bind(1), &slow, None);
    misplaced.summary.placement = Some(PlacementStatus::Misplaced("test".into()));
    let rows = [
        study_row(PlacementScheme::FirstTouch, &fast, None),
        study_row(PlacementScheme::Serial, &slow, None),
        misplaced,
    ];
    let record = verdict_record("cg", Some("A"), &rows).unwrap();
    assert_eq!(
        Value::Object(record.params).to_string(),
        r#"{"class":"A","configuration":"first-touch + compact","placement":"first-touch","threads_placement":"compact","threads":2,"threads_per_cpu":1,"significantly_fastest":true,"closest":"serial + compact","p_value":0.004624228801306819,"most_repeatable":"serial + compact","most_repeatable_cv":0.04259177099999604,"configurations":3,"excluded":[{"configuration":"bind:1 + compact","reason":"placement not achieved"}]}"#
    );
    // One eligible row: no closest, no p-value; a node split names the
    // slowest.
    let rows = [study_row(PlacementScheme::FirstTouch, &fast, Some("1/1"))];
    let record = verdict_record("stream", None, &rows).unwrap();
    assert_eq!(
        Value::Object(record.params).to_string(),
        r#"{"configuration":"first-touch + split 1/1","placement":"first-touch","threads_placement":"compact","threads":2,"threads_per_cpu":1,"significantly_fastest":false,"closest":null,"p_value":null,"most_repeatable":"first-touch + split 1/1","most_repeatable_cv":0.08131156281817416,"configurations":1,"node_split":"1/1","slowest":"first-touch + split 1/1","significantly_slowest":false,"slowest_closest":null,"slowest_p_value":null,"excluded":[]}"#
    );
    let rows = [
        study_row(PlacementScheme::FirstTouch, &fast, Some("2/0")),
        study_row(PlacementScheme::FirstTouch, &slow, Some("1/1")),
    ];
    let record = verdict_record("stream", None, &rows).unwrap();
    assert_eq!(
        Value::Object(record.params).to_string(),
        r#"{"configuration":"first-touch + split 2/0","placement":"first-touch","threads_placement":"compact","threads":2,"threads_per_cpu":1,"significantly_fastest":true,"closest":"first-touch + split 1/1","p_value":0.004624228801306819,"most_repeatable":"first-touch + split 1/1","most_repeatable_cv":0.04259177099999604,"configurations":2,"node_split":"2/0","slowest":"first-touch + split 1/1","significantly_slowest":true,"slowest_closest":"first-touch + split 2/0","slowest_p_value":0.004624228801306819,"excluded":[]}"#
    );
}

#[test]
fn a_scaling_point_keeps_its_params_text() {
    let topology = topology();
    let choice = crate::workloads::AppChoice::Cg {
        class: crate::workloads::NpbClass::S,
    };
    let base = AppRunConfig::new(1, ThreadScheme::Scatter, PlacementScheme::FirstTouch);
    let configs = scaling_configs(&topology, &base, &[1, 2]);
    let mut reference = None;
    let texts = params_texts(|pipeline| {
        for (config, seconds) in configs.iter().zip([2.0, 1.25]) {
            let mut run = run(seconds, config.worker_cpus(&topology));
            scaling::name_scaling_order(config, &mut run);
            scaling::scaling_records(&topology, &choice, config, &[run], &mut reference, pipeline)
                .unwrap();
        }
    });
    let metrics: Vec<&str> = texts.iter().map(|(metric, _)| metric.as_str()).collect();
    assert_eq!(
        metrics,
        [
            "time",
            "mops",
            "first_iteration_time",
            "speedup",
            "parallel_efficiency"
        ]
        .repeat(2)
    );
    assert_eq!(
        texts[5].1,
        r#"{"class":"S","threads":2,"threads_per_cpu":1,"nodes_used":2,"placement":"first-touch","threads_placement":"scatter","verification":{"quantity":"zeta","computed":1.5,"reference":1.5,"epsilon":1e-10,"passed":true},"iteration_seconds":[0.9375,0.3125],"run_seconds":[1.25],"user_seconds":2.0,"system_seconds":0.5,"voluntary_switches":3.0,"involuntary_switches":4.0,"migrated_pages":5,"hugepages":false,"huge_pages_migrated":null,"migration_cost_seconds":0.625,"worker_cpus_after_run":[0,2],"workers_stayed_pinned":true,"pages_after_placement":{"pages_per_node":{"0":3,"1":1},"not_present":2,"remote_share":0.25},"pages_after_run":{"pages_per_node":{"0":4},"not_present":0,"remote_share":null},"cpu_order":"scatter","threads_usage":[],"other_threads_usage":[],"threads_usage_resolution_seconds":0.01,"tlp":null,"numastat_delta":{},"numastat_scope":"system","perf":{},"perf_unavailable":{},"perf_per_worker":[],"cpus":[0,2],"node_split":"1/1"}"#
    );
    assert_eq!(
        texts[8].1,
        r#"{"class":"S","threads":2,"threads_per_cpu":1,"nodes_used":2,"placement":"first-touch","threads_placement":"scatter","cpu_order":"scatter","relative_to_threads":1,"relative_to_seconds":2.0,"time_seconds":1.25}"#
    );
    // Unpinned: no order, named null.
    let base = AppRunConfig::new(2, ThreadScheme::Unpinned, PlacementScheme::FirstTouch);
    let texts = params_texts(|pipeline| {
        scaling::scaling_records(
            &topology,
            &choice,
            &base,
            &[run(1.0, vec![None, None])],
            &mut None,
            pipeline,
        )
        .unwrap();
    });
    assert_eq!(
        texts[3].1,
        r#"{"class":"S","threads":2,"threads_per_cpu":1,"nodes_used":null,"placement":"first-touch","threads_placement":"unpinned","cpu_order":null,"relative_to_threads":2,"relative_to_seconds":1.0,"time_seconds":1.0}"#
    );
}
