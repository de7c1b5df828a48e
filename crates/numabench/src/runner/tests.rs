//! The study loop with a fake executor, and the real executor against the
//! kernel's own view of the child.

use super::*;
use crate::output::{CollectRunMetadata, Pipeline, RunMetadata};
use crate::topology::{discover_this_system, Machine};
use std::collections::VecDeque;

/// Records the order of runs and replays scripted outcomes.
struct FakeExecutor {
    calls: Vec<String>,
    outcomes: VecDeque<RunOutcome>,
}

impl Executor for FakeExecutor {
    fn execute(
        &mut self,
        invocation: &Invocation,
        _node_of_cpu: &(dyn Fn(u32) -> Option<u32> + Sync),
    ) -> Result<RunOutcome, RunError> {
        self.calls.push(invocation.policy.label.clone());
        Ok(self.outcomes.pop_front().unwrap_or(RunOutcome {
            wall_seconds: 1.0,
            exit_code: Some(0),
            ..RunOutcome::default()
        }))
    }
}

fn setup() -> (Machine, Pipeline) {
    let topology = discover_this_system().unwrap();
    let pipeline = Pipeline::with_sinks(
        Vec::new(),
        &RunMetadata::collect(vec!["test".into()], &topology),
    )
    .unwrap();
    (topology, pipeline)
}

fn config(
    topology: &Machine,
    policies: &[&str],
    repeat: usize,
    warmup: usize,
    ignore_failure: bool,
) -> RunStudyConfig {
    RunStudyConfig {
        command: vec!["prog".into()],
        policies: policies
            .iter()
            .map(|text| parse_policy(text, topology).unwrap())
            .collect(),
        repeat,
        warmup,
        show_output: false,
        ignore_failure,
        observe: None,
        pin_library: None,
        kill_leftovers: false,
    }
}

fn outcome(seconds: f64, code: i32) -> RunOutcome {
    RunOutcome {
        wall_seconds: seconds,
        exit_code: Some(code),
        ..RunOutcome::default()
    }
}

/// After the warm-up round (grid order), the measured repetitions rotate:
/// repetition r starts with policy r mod n, so over 3 repetitions each of 3
/// policies runs first, second and third once. Before (#34 item 18): the
/// same order every repetition, as-is always first.
#[test]
fn policies_are_interleaved_and_rotated_after_warm_up() {
    let (topology, mut pipeline) = setup();
    let mut executor = FakeExecutor {
        calls: Vec::new(),
        outcomes: VecDeque::new(),
    };
    let config = config(
        &topology,
        &["as-is", "pin-compact", "pin-scatter"],
        3,
        1,
        false,
    );
    let summaries = run_policies(
        &mut executor,
        &config,
        &topology,
        &mut pipeline,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(
        executor.calls,
        [
            "as-is",
            "pin-compact",
            "pin-scatter", // warm-up
            "as-is",
            "pin-compact",
            "pin-scatter",
            "pin-compact",
            "pin-scatter",
            "as-is",
            "pin-scatter",
            "as-is",
            "pin-compact",
        ]
    );
    assert!(
        summaries.iter().all(|summary| summary.outcomes.len() == 3),
        "warm-up runs are not counted"
    );
}

#[test]
fn a_failing_run_stops_the_study_unless_ignored() {
    let (topology, mut pipeline) = setup();
    let script = || {
        VecDeque::from(vec![
            outcome(1.0, 0),
            outcome(1.0, 3),
            outcome(1.0, 0),
            outcome(1.0, 0),
        ])
    };
    let mut executor = FakeExecutor {
        calls: Vec::new(),
        outcomes: script(),
    };
    let error = run_policies(
        &mut executor,
        &config(&topology, &["as-is", "pin-compact"], 2, 0, false),
        &topology,
        &mut pipeline,
        &mut |_| {},
    )
    .unwrap_err();
    assert!(
        error.to_string().contains("exit status 3") && error.to_string().contains("pin-compact"),
        "{error}"
    );
    assert_eq!(executor.calls.len(), 2);
    let mut executor = FakeExecutor {
        calls: Vec::new(),
        outcomes: script(),
    };
    let summaries = run_policies(
        &mut executor,
        &config(&topology, &["as-is", "pin-compact"], 2, 0, true),
        &topology,
        &mut pipeline,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(summaries[1].failures, 1);
    assert_eq!(
        summaries[1].wall.as_ref().unwrap().len(),
        1,
        "failed runs are not timed"
    );
}

#[test]
fn speedup_and_significance_are_against_as_is() {
    let (topology, mut pipeline) = setup();
    let mut script = VecDeque::new();
    // as-is takes about 2 s, pin-compact 1 s; the rotated schedule runs
    // pin-compact first in odd rounds.
    for round in 0..6 {
        let (as_is, pinned) = (
            outcome(2.0 + round as f64 * 0.01, 0),
            outcome(1.0 + round as f64 * 0.01, 0),
        );
        if round % 2 == 0 {
            script.extend([as_is, pinned]);
        } else {
            script.extend([pinned, as_is]);
        }
    }
    let mut executor = FakeExecutor {
        calls: Vec::new(),
        outcomes: script,
    };
    let summaries = run_policies(
        &mut executor,
        &config(&topology, &["as-is", "pin-compact"], 6, 0, false),
        &topology,
        &mut pipeline,
        &mut |_| {},
    )
    .unwrap();
    let speedup = summaries[1].speedup.unwrap();
    assert!((speedup - 2.025 / 1.025).abs() < 1e-9, "{speedup}");
    assert!(summaries[1].p_value.unwrap() < 0.01);
    assert_eq!(summaries[0].speedup, Some(1.0));
    let table = render_comparison(&summaries, true);
    assert!(
        table.starts_with("| policy |") && table.contains("| pin-compact |"),
        "{table}"
    );
}

fn run(policy: &str, script: &str) -> RunOutcome {
    let topology = discover_this_system().unwrap();
    let invocation = Invocation {
        command: vec!["sh".into(), "-c".into(), script.into()],
        policy: parse_policy(policy, &topology).unwrap(),
        show_output: false,
        pin_library: None,
        observe: None,
        kill_leftovers: false,
    };
    ProcessExecutor::default()
        .execute(&invocation, &|_| Some(0))
        .unwrap()
}

#[test]
fn the_child_runs_under_the_policy() {
    // The kernel's own account of the child's memory policy and affinity.
    assert!(run("membind:0", "grep -q 'bind:0' /proc/self/numa_maps").succeeded());
    assert!(run(
        "interleave:all",
        "grep -q 'interleave:' /proc/self/numa_maps"
    )
    .succeeded());
    assert!(!run("as-is", "grep -q 'bind:0' /proc/self/numa_maps").succeeded());
    // Without the shim, pinning policies restrict the process to the order's CPUs (OpenMP binds within).
    let allowed = crate::parse::format_id_list(&discover_this_system().unwrap().allowed.cpus);
    assert!(run(
        "pin-compact",
        &format!("grep -q 'Cpus_allowed_list:[[:space:]]*{allowed}$' /proc/self/status")
    )
    .succeeded());
    assert!(run("pin-compact", "[ \"$OMP_PROC_BIND\" = close ]").succeeded());
}

#[test]
fn outcomes_carry_status_times_and_usage() {
    let failed = run("as-is", "exit 3");
    assert_eq!((failed.exit_code, failed.succeeded()), (Some(3), false));
    let busy = run("as-is", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done");
    assert!(
        busy.succeeded() && busy.user_seconds > 0.0 && busy.wall_seconds >= busy.user_seconds * 0.5
    );
    assert!(busy.max_rss_kib > 0);
    let topology = discover_this_system().unwrap();
    let invocation = Invocation {
        command: vec!["/nonexistent/program".into()],
        policy: parse_policy("as-is", &topology).unwrap(),
        show_output: false,
        pin_library: None,
        observe: None,
        kill_leftovers: false,
    };
    let error = ProcessExecutor::default()
        .execute(&invocation, &|_| None)
        .unwrap_err();
    assert!(error.to_string().contains("/nonexistent/program"));
}

#[test]
fn observation_sees_threads_and_resident_memory() {
    let topology = discover_this_system().unwrap();
    let invocation = Invocation {
        command: vec![
            "sh".into(),
            "-c".into(),
            "x=$(head -c 3000000 /dev/zero | tr '\\0' a); sleep 0.2".into(),
        ],
        policy: parse_policy("as-is", &topology).unwrap(),
        show_output: false,
        pin_library: None,
        observe: Some(std::time::Duration::from_millis(20)),
        kill_leftovers: false,
    };
    let outcome = ProcessExecutor::default()
        .execute(&invocation, &|cpu| topology.node_of_cpu(cpu))
        .unwrap();
    let observation = outcome.observation.unwrap();
    assert!(
        observation.samples.len() >= 5,
        "{} samples",
        observation.samples.len()
    );
    assert!(observation
        .samples
        .iter()
        .any(|sample| !sample.thread_cpus.is_empty()));
    assert!(observation.final_bytes_per_node.values().sum::<u64>() > 0);
}

#[test]
fn pinning_environment_follows_the_shim() {
    let topology = discover_this_system().unwrap();
    let policy = parse_policy("pin-compact", &topology).unwrap();
    let library = std::path::PathBuf::from("/x/libnumabench_pin.so");
    let with_shim = policy_environment(&policy, Some(&library));
    let keys: Vec<&str> = with_shim.iter().map(|(key, _)| key.as_str()).collect();
    assert_eq!(
        keys,
        ["NUMABENCH_PIN_CPUS", "NUMABENCH_PIN_RANKS", "LD_PRELOAD"]
    );
    assert_eq!(with_shim[1].1, "compact");
    assert!(with_shim[2].1.starts_with("/x/libnumabench_pin.so"));
    let without: Vec<String> = policy_environment(&policy, None)
        .into_iter()
        .map(|(key, _)| key)
        .collect();
    assert_eq!(without, ["OMP_PLACES", "OMP_PROC_BIND"]);
    assert!(policy_environment(&parse_policy("membind:0", &topology).unwrap(), None).is_empty());
}

/// A move A→B→A between two samples: the CPU seen at each sample may not
/// change, but the kernel's per-thread count (where the kernel keeps one)
/// has both moves.
#[test]
fn migrations_between_samples_are_counted_by_the_kernel() {
    let topology = discover_this_system().unwrap();
    let cpus = &topology.allowed.cpus;
    if cpus.len() < 2 {
        eprintln!("one allowed CPU: no thread can be moved here");
        return;
    }
    let (a, b) = (cpus[0], cpus[1]);
    // The shell moves itself a -> b -> a, long before the second sample.
    let script = format!(
        "taskset -pc {a} $$ >/dev/null; taskset -pc {b} $$ >/dev/null; taskset -pc {a} $$ >/dev/null; sleep 0.8"
    );
    let invocation = Invocation {
        command: vec!["sh".into(), "-c".into(), script],
        policy: parse_policy("as-is", &topology).unwrap(),
        show_output: false,
        pin_library: None,
        observe: Some(std::time::Duration::from_millis(500)),
        kill_leftovers: false,
    };
    let outcome = ProcessExecutor::default()
        .execute(&invocation, &|cpu| topology.node_of_cpu(cpu))
        .unwrap();
    assert!(outcome.succeeded());
    let observation = outcome.observation.unwrap();
    if std::path::Path::new("/proc/thread-self/sched").exists() {
        assert_eq!(observation.thread_migrations_source, "kernel");
        assert!(
            observation.thread_migrations >= 2,
            "{} migrations ({} CPU changes between samples)",
            observation.thread_migrations,
            observation.cpu_changes_between_samples
        );
    } else {
        assert_eq!(
            observation.thread_migrations_source,
            "cpu-changes-between-samples"
        );
        assert_eq!(
            observation.thread_migrations,
            observation.cpu_changes_between_samples
        );
    }
}

/// The calling thread's CPUs as the kernel lists them.
fn thread_cpus() -> String {
    std::fs::read_to_string("/proc/thread-self/status")
        .unwrap()
        .lines()
        .find(|line| line.starts_with("Cpus_allowed_list:"))
        .unwrap()
        .to_string()
}

/// The policy's affinity and memory policy reach the program by inheritance
/// from the starting thread, not through a pre-exec step (which would make
/// std fork this whole process instead of using posix_spawn, inside the timed
/// region): the program sees them from its start, and the starting thread has
/// its own back afterwards. Real kernel masks and memory policies.
#[test]
fn the_program_inherits_the_policy_and_the_starting_thread_gets_its_own_back() {
    let topology = discover_this_system().unwrap();
    let last_cpu = *topology.allowed.cpus.iter().max().unwrap();
    let mut policy = parse_policy("membind:0", &topology).unwrap();
    policy.affinity = Some(vec![last_cpu]);
    let invocation = Invocation {
        command: vec![
            "grep".into(),
            "-E".into(),
            "^(Cpus_allowed_list|Mems_allowed_list)".into(),
            "/proc/self/status".into(),
        ],
        policy,
        show_output: true,
        pin_library: None,
        observe: None,
        kill_leftovers: false,
    };
    let (status, own_affinity, own_memory, after_affinity, after_memory) =
        std::thread::spawn(move || {
            let own_affinity = thread_cpus();
            let own_memory = crate::memory::syscalls::thread_mempolicy().unwrap();
            let mut command = super::executor::start_command(&invocation, Vec::new());
            command.stdout(std::process::Stdio::piped());
            let setup = super::thread_setup::ThreadSetup::for_invocation(&invocation);
            let output = setup.around(|| command.output()).unwrap().unwrap();
            let status = String::from_utf8(output.stdout).unwrap();
            (
                status,
                own_affinity,
                own_memory,
                thread_cpus(),
                crate::memory::syscalls::thread_mempolicy().unwrap(),
            )
        })
        .join()
        .unwrap();
    assert!(
        status.contains(&format!("Cpus_allowed_list:\t{last_cpu}\n")),
        "{status}"
    );
    assert_eq!(after_affinity, own_affinity);
    assert_eq!(after_memory, own_memory);
    assert_ne!(
        own_affinity,
        format!("Cpus_allowed_list:\t{last_cpu}"),
        "needs two CPUs to tell"
    );
}

/// Five policies each clearly faster than the baseline over 5 runs (each
/// test alone p = 0.0122) are five tests: Holm's adjustment makes each
/// 5 x 0.0122 = 0.061, so none is starred, and the table shows both
/// p-values. Before (#34 item 18): every one was starred at p = 0.012.
#[test]
fn several_policies_against_the_baseline_are_judged_by_holm_p() {
    let runs = |from: f64| {
        (0..5)
            .map(|i| outcome(from + i as f64, 0))
            .collect::<Vec<_>>()
    };
    let mut outcomes = vec![runs(6.0)];
    outcomes.extend((0..5).map(|_| runs(1.0)));
    let labels = ["as-is", "a", "b", "c", "d", "e"].map(String::from);
    let summaries =
        super::compare_policies::policy_summaries(labels.into_iter(), outcomes, |_| Some(0));
    for summary in &summaries[1..] {
        let p = summary.p_value.unwrap();
        assert!((p - 0.012_185_780_355_344_9).abs() < 1e-10, "{p}");
        assert!((summary.adjusted_p_value.unwrap() - 5.0 * p).abs() < 1e-12);
        assert_eq!(summary.significant(), Some(false));
    }
    assert_eq!(summaries[0].adjusted_p_value, Some(1.0));
    let table = render_comparison(&summaries, true);
    let row = table
        .lines()
        .find(|line| line.starts_with("| a |"))
        .unwrap();
    assert!(row.contains("| 0.012 | 0.061 |"), "{row}");
    assert!(!table.contains(" * |"), "{table}");
    assert!(table.contains("Holm p"), "{table}");
    // Three such policies stay significant after adjustment (3 x 0.0122 = 0.037).
    let mut outcomes = vec![runs(6.0)];
    outcomes.extend((0..3).map(|_| runs(1.0)));
    let labels = ["as-is", "a", "b", "c"].map(String::from);
    let summaries =
        super::compare_policies::policy_summaries(labels.into_iter(), outcomes, |_| Some(0));
    assert!(summaries[1..]
        .iter()
        .all(|summary| summary.significant() == Some(true)));
    let table = render_comparison(&summaries, true);
    assert!(table.contains("| 0.012 | 0.037 * |"), "{table}");
}

/// The params text of every summary (`wall_time`) record a comparison of
/// `policies` writes, `observe` on or off, from scripted runs.
fn summary_texts(policies: &[&str], observe: bool) -> Vec<String> {
    let topology = discover_this_system().unwrap();
    let (mut pipeline, collected) = crate::output::CollectSink::pipeline(&topology);
    let mut executor = FakeExecutor {
        calls: Vec::new(),
        outcomes: (0..8)
            .map(|run| RunOutcome {
                user_seconds: 0.5 + run as f64,
                system_seconds: 0.25,
                max_rss_kib: 1000 + run,
                voluntary_switches: 3,
                involuntary_switches: run,
                ..outcome(1.0 + run as f64 / 8.0, 0)
            })
            .collect(),
    };
    let mut config = config(&topology, policies, 3, 1, false);
    config.observe = observe.then(|| std::time::Duration::from_millis(10));
    run_policies(
        &mut executor,
        &config,
        &topology,
        &mut pipeline,
        &mut |_| {},
    )
    .unwrap();
    collected
        .records()
        .into_iter()
        .filter(|record| record.metric == "wall_time")
        .map(|record| serde_json::Value::Object(record.params).to_string())
        .collect()
}

/// A comparison's summary records keep their params text: keys, order,
/// value types, null as the map writer wrote them.
#[test]
fn a_comparisons_summary_records_keep_their_params_text() {
    assert_eq!(
        summary_texts(&["as-is", "pin-compact"], false),
        [
            r#"{"policy":"as-is","command":"prog","baseline":"as-is","speedup":1.0,"p_value":1.0,"p_value_holm":1.0,"significant":false,"failures":0,"threads_seen":null,"team_threads":null,"thread_count_warning":null,"user_seconds":4.833333333333333,"system_seconds":0.25,"max_rss_kib":1006,"voluntary_switches":3.0,"involuntary_switches":4.333333333333333}"#,
            r#"{"policy":"pin-compact","command":"prog","baseline":"as-is","speedup":1.0833333333333333,"p_value":1.0,"p_value_holm":1.0,"significant":false,"failures":0,"threads_seen":null,"team_threads":null,"thread_count_warning":null,"user_seconds":5.166666666666667,"system_seconds":0.25,"max_rss_kib":1007,"voluntary_switches":3.0,"involuntary_switches":4.666666666666667}"#,
        ]
    );
    assert_eq!(
        summary_texts(&["as-is"], true),
        [
            r#"{"policy":"as-is","command":"prog","baseline":"as-is","speedup":1.0,"p_value":1.0,"p_value_holm":1.0,"significant":false,"failures":0,"threads_seen":null,"team_threads":null,"thread_count_warning":null,"user_seconds":2.5,"system_seconds":0.25,"max_rss_kib":1003,"voluntary_switches":3.0,"involuntary_switches":2.0,"thread_migrations":0.0,"thread_migrations_source":null,"cpu_changes_between_samples":0.0,"node_changes_between_samples":0.0}"#,
        ]
    );
}
