//! What the threads were doing: per-thread user/system time and context
//! switches, TLP, numastat deltas and perf events in the records of app
//! runs and of `numabench run`.

use super::records::{params_of, params_part};
use super::run::run_args;
use super::{succeeding, typed_jsonl, typed_records, typed_stdout};
use numabench_schema::params::{AppParams, CountsParams, RunParams, ThreadUsageParams, TlpParams};
use numabench_schema::Record;

/// The record of `metric` (an app run's `time`, a run's `run_wall_time`).
fn record_of<'a>(records: &'a [Record], metric: &str) -> &'a Record {
    records
        .iter()
        .find(|record| record.metric == metric)
        .unwrap_or_else(|| panic!("no {metric} record: {records:?}"))
}

/// What was observed while a run ran: the counts its record's params end
/// with.
fn counts_of(records: &[Record], metric: &str) -> CountsParams {
    params_part(record_of(records, metric))
}

/// user + system seconds summed over a `threads_usage`-like array.
/// STREAM's size and iterations for a run whose threads must show CPU
/// time: /proc counts it in 10 ms ticks, so a short run (a few MiB, a few
/// iterations: a millisecond on a fast host) can read as zero seconds.
/// 20 iterations of four kernels over three 64 MiB arrays move about
/// 15 GB: long by its own measure, well over a tick on any host.
const LONG_STREAM: [&str; 4] = ["--size", "64M", "--iterations", "20"];

/// Base pages the long run's three arrays fault in at least.
const LONG_STREAM_PAGES: u64 = 3 * 64 * 1024 * 1024 / 4096;

fn cpu_seconds<'a>(threads: impl IntoIterator<Item = &'a ThreadUsageParams>) -> f64 {
    threads
        .into_iter()
        .map(|thread| thread.user_seconds + thread.system_seconds)
        .sum()
}

/// Whether this machine's PMU exposes hardware events to perf.
fn pmu_present() -> bool {
    ["cpu", "cpu_core", "cpu_atom", "armv8_pmuv3_0"]
        .iter()
        .any(|name| std::path::Path::new(&format!("/sys/bus/event_source/devices/{name}")).exists())
}

/// Software events are counted; hardware ones are counted where the PMU
/// exists and otherwise named with the reason, with no count in their place.
fn assert_perf_events(params: &CountsParams) {
    let perf = &params.perf.perf;
    let unavailable = &params.perf.perf_unavailable;
    for event in ["page-faults", "context-switches", "cpu-migrations"] {
        assert!(perf.contains_key(event), "{event}: {params:?}");
    }
    for event in [
        "cycles",
        "instructions",
        "LLC-load-misses",
        "node-loads",
        "node-load-misses",
    ] {
        match unavailable.get(event) {
            Some(reason) => {
                assert!(
                    !perf.contains_key(event),
                    "{event} both counted and unavailable"
                );
                assert!(reason.contains("os error"), "{reason}");
                assert!(reason.contains("kernel.perf_event_paranoid = "), "{reason}");
                // Without a PMU, only "not exposed" (or a paranoid refusal) can be the reason.
                assert!(
                    pmu_present() || reason.contains("PMU") || reason.contains("paranoid forbids"),
                    "{reason}"
                );
            }
            None => {
                assert!(pmu_present(), "{event} counted without a PMU: {params:?}");
                if event == "cycles" || event == "instructions" {
                    assert!(perf.get(event).is_some_and(|&n| n > 0), "{params:?}");
                }
            }
        }
    }
}

/// Asserts that `params` counted at least `pages` page faults (the arrays'
/// first touches) and has the perf events and numastat deltas.
fn assert_counters(params: &CountsParams, pages: u64) {
    assert!(
        params
            .perf
            .perf
            .get("page-faults")
            .is_some_and(|&faults| faults >= pages),
        "{params:?}"
    );
    assert_perf_events(params);
    assert_numastat(params);
}

fn assert_numastat(params: &CountsParams) {
    assert_eq!(params.numastat_scope, "system");
    let nodes = &params.numastat_delta;
    assert!(!nodes.is_empty(), "{params:?}");
    for counters in nodes.values() {
        for counter in [
            "numa_hit",
            "numa_miss",
            "numa_foreign",
            "interleave_hit",
            "local_node",
            "other_node",
        ] {
            assert!(counters.contains_key(counter), "{counter}: {params:?}");
        }
    }
}

fn assert_tlp_levels(tlp: Option<TlpParams>) -> [f64; 4] {
    let tlp = tlp.expect("a TLP");
    let levels = [tlp.tlp_1, tlp.tlp_2, tlp.tlp_3, tlp.tlp_4];
    assert!(levels.windows(2).all(|pair| pair[0] >= pair[1]), "{tlp:?}");
    assert!(
        levels.iter().all(|level| (0.0..=1.0).contains(level)),
        "{tlp:?}"
    );
    assert!(tlp.samples > 0, "{tlp:?}");
    assert!(tlp.cores >= 1, "{tlp:?}");
    levels
}

/// The workers' and the process's other threads' user + system time add
/// up to the process's getrusage totals (`user_seconds + system_seconds`)
/// within the rounding of /proc's clock ticks: each thread's user and its
/// system figure lose less than one tick each. Every worker has its own
/// entry, and its perf context switches include those /proc counted.
#[test]
fn per_thread_times_sum_to_the_process_totals_within_ticks() {
    let records = typed_records(&[&["stream"][..], &LONG_STREAM, &["--repeat", "1"]].concat());
    let time = record_of(&records, "time");
    let app = params_of::<AppParams>(time).run;
    let params = counts_of(&records, "time");
    let threads = app.configuration.threads.threads.expect("threads") as usize;
    let workers = &params.threads_usage;
    assert_eq!(workers.len(), threads, "{params:?}");
    for (index, worker) in workers.iter().enumerate() {
        assert_eq!(worker.worker, index as u64);
        assert!(worker.usage.tid > 0);
    }
    let others = params
        .other_threads_usage
        .clone()
        .expect("other_threads_usage");
    let counted = workers.len() + others.len();
    let tick = params.threads_usage_resolution_seconds;
    assert!(tick > 0.0 && tick <= 0.01, "{tick}");
    let process =
        app.user_seconds.expect("user_seconds") + app.system_seconds.expect("system_seconds");
    let threads_sum =
        cpu_seconds(workers.iter().map(|worker| &worker.usage)) + cpu_seconds(&others);
    // Two truncated figures per thread; 2 ms for the /proc reads between
    // the thread snapshots and getrusage.
    let tolerance = 2.0 * tick * counted as f64 + 0.002;
    assert!(
        (threads_sum - process).abs() <= tolerance,
        "threads {threads_sum} s vs process {process} s (tolerance {tolerance} s): {params:?}"
    );
    // Spinning workers do work: the sum is not trivially zero.
    assert!(threads_sum > 0.0, "{params:?}");
    // perf counts each worker from allocation to the end; /proc's switches cover the iterations.
    let per_worker = params.perf_per_worker.clone().expect("perf_per_worker");
    assert_eq!(per_worker.len(), threads);
    if let Some(switches) = per_worker[0].get("context-switches") {
        for (worker, counts) in workers.iter().zip(&per_worker) {
            let proc_switches = worker.usage.voluntary_switches + worker.usage.involuntary_switches;
            assert!(
                counts
                    .get("context-switches")
                    .is_some_and(|&counted| counted >= proc_switches),
                "{worker:?} {counts:?} {switches}"
            );
        }
    }
}

/// TLP of the app's workers: with one worker per CPU at most `cores`
/// workers can be runnable, so TLP_2 is 0; with two per CPU both of a
/// CPU's workers are runnable while they compute (a worker that waits for
/// the others sleeps after a short spin), so TLP_2 rises above 0.
#[test]
fn tlp_rises_with_over_decomposition() {
    let tlp_of = |per_core: &str| {
        let records = typed_records(
            &[
                &["stream"][..],
                &LONG_STREAM,
                &["--repeat", "1", "--threads-per-core", per_core],
            ]
            .concat(),
        );
        assert_tlp_levels(counts_of(&records, "time").tlp)
    };
    let one = tlp_of("1");
    assert_eq!(one[1], 0.0, "{one:?}");
    let two = tlp_of("2");
    assert!(two[1] > 0.0, "{two:?}");
}

/// Page faults at least one per page of STREAM's three arrays (4 KiB
/// pages: the arrays take no huge pages by default); hardware events
/// counted or explained; numastat deltas of every node.
#[test]
fn app_records_have_perf_events_and_numastat_deltas() {
    let records = typed_records(&[
        "stream",
        "--size",
        "4M",
        "--iterations",
        "2",
        "--repeat",
        "1",
    ]);
    assert_counters(&counts_of(&records, "time"), 3 * 4 * 1024 * 1024 / 4096);
}

/// `run` records the program tree's threads as last sampled, TLP, numastat
/// and perf counts inherited by the program's threads: here numabench's own
/// STREAM, whose workers fault in its arrays.
#[test]
fn run_records_what_the_program_threads_did() {
    let output = succeeding(&run_args(
        "1",
        &[
            "--json",
            "--policy",
            "as-is",
            "--",
            env!("CARGO_BIN_EXE_numabench"),
            "stream",
            LONG_STREAM[0],
            LONG_STREAM[1],
            LONG_STREAM[2],
            LONG_STREAM[3],
            "--repeat",
            "1",
            "--json",
        ],
    ));
    let (_, records) = typed_stdout("run numabench stream", &output.stdout);
    let record = record_of(&records, "run_wall_time");
    let run: RunParams = params_of(record);
    let params = run
        .counts
        .clone()
        .unwrap_or_else(|| panic!("no counts: {record:?}"));
    // The program's main thread (worker 0) and its own TLP sampler at least.
    let threads = &params.threads_usage;
    assert!(threads.len() >= 2, "{params:?}");
    let tick = params.threads_usage_resolution_seconds;
    let process =
        run.user_seconds.expect("user_seconds") + run.system_seconds.expect("system_seconds");
    let sampled = cpu_seconds(threads.iter().map(|thread| &thread.usage));
    // As last sampled: never more than the process used (to the ticks).
    assert!(
        sampled <= process + 2.0 * tick * threads.len() as f64,
        "{sampled} vs {process}"
    );
    assert!(sampled > 0.0, "{params:?}");
    assert_tlp_levels(params.tlp);
    assert_counters(&params, LONG_STREAM_PAGES);
}

/// The `--records` table shows the counters in one short item, not the
/// arrays. TLP_1 is in it exactly when the run's record has a TLP: the
/// sampler takes one sample every 10 ms of the timed iterations, so a run
/// shorter than that has none (`tlp: null`), however fast the host; the
/// run here is long enough to be sampled on most hosts, and the table is
/// checked against what the same run recorded, not against its pace.
#[test]
fn the_table_summarises_the_counters() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("stream.jsonl");
    let output = succeeding(&[
        "stream",
        "--records",
        "--jsonl",
        jsonl.to_str().unwrap(),
        "--size",
        "16M",
        "--iterations",
        "10",
        "--repeat",
        "1",
    ]);
    let table = String::from_utf8_lossy(&output.stdout);
    for part in ["observed=usr ", " sys ", " other_node +", " faults "] {
        assert!(table.contains(part), "{part}: {table}");
    }
    let (_, records) = typed_jsonl(&jsonl);
    let sampled = counts_of(&records, "time").tlp.is_some();
    assert_eq!(
        table.contains(" s TLP_1 "),
        sampled,
        "TLP_1 shown exactly when the record has a TLP ({sampled}): {table}"
    );
    assert!(!table.contains("threads_usage="), "{table}");
}
