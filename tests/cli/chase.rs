//! The latency chase orders and `mlp`: each record says which order it
//! chased and what that measures. (That `mlp` with one chain measures what
//! `latency` does is timed, so it runs alone, in tests/agreement.)

use super::{params_of, typed_records, typed_records_of, verified};
use numabench_schema::params::{LatencyParams, MlpParams};
use numabench_schema::{Record, Unit};

/// The base page size, bytes.
fn page_bytes() -> u64 {
    // SAFETY: sysconf has no preconditions.
    (unsafe { libc::sysconf(libc::_SC_PAGESIZE) }) as u64
}

/// `latency_cycles` are core cycles: ns per load times the chasing CPU's
/// core clock measured beside the samples (`params.core_ghz`), not TSC
/// ticks. An L1 hit costs at least 4 core cycles on every x86-64 core
/// (load-to-use), so an L1-sized chase can never read below that; in TSC
/// ticks it read 2.8-3.1 on this 2.6 GHz-nominal EPYC that runs at 3.7 GHz.
/// (Where the TSC runs at the core's clock the old figure was right too:
/// there only the `core_ghz` and `cycles_measures` checks tell them apart.)
#[test]
fn latency_cycles_are_core_cycles() {
    let records = typed_records_of(
        &["latency", "--size", "16K", "--repeat", "5"],
        "latency_cycles",
    );
    assert_eq!(records.len(), 1, "{records:?}");
    let record = &records[0];
    let params = params_of::<LatencyParams>(record).cycles.expect("core_ghz");
    let ghz = params.core_ghz;
    assert!((0.5..7.0).contains(&ghz), "{record:?}");
    assert!(
        params.cycles_measures.unwrap().contains("core cycles"),
        "{record:?}"
    );
    let cycles = record.value;
    assert!(
        cycles >= 3.8,
        "an L1 hit below the 4-cycle load-to-use minimum: {record:?}"
    );
}

#[test]
fn latency_records_name_the_order_and_its_block() {
    let page = page_bytes();
    let default = typed_records_of(&["latency", "--size", "1M", "--repeat", "2"], "latency");
    let params = params_of::<LatencyParams>(&default[0]).chase;
    assert_eq!(
        params.order.as_deref(),
        Some("tlb-block"),
        "the default order"
    );
    let block = params.block_bytes.unwrap();
    assert!(
        block > page && block.is_multiple_of(page) && (block / page).is_power_of_two(),
        "{params:?}"
    );
    assert!(params.block_source.as_ref().unwrap().contains("TLB"));
    assert!(params
        .order_measures
        .as_ref()
        .unwrap()
        .contains("idle memory latency"));
    for (order, block, says) in [
        ("random", 1 << 20, "page-walk"),
        ("page-local", page, "one TLB miss per page"),
    ] {
        let records = typed_records_of(
            &["latency", "--size", "1M", "--repeat", "2", "--order", order],
            "latency",
        );
        let params = params_of::<LatencyParams>(&records[0]).chase;
        assert_eq!(params.order.as_deref(), Some(order));
        assert_eq!(params.block_bytes, Some(block), "{params:?}");
        assert!(
            params.order_measures.as_ref().unwrap().contains(says),
            "{params:?}"
        );
    }
    let mlp = typed_records_of(
        &[
            "mlp",
            "--size",
            "1M",
            "--repeat",
            "1",
            "--order",
            "page-local",
        ],
        "ns_per_load",
    );
    assert!(mlp.iter().all(|record| params_of::<MlpParams>(record)
        .chase
        .and_then(|chase| chase.order)
        .as_deref()
        == Some("page-local")));
}

/// `latency --writer-cpu`: the record names the writer, both threads ran
/// where they were pinned (sched_getcpu during the work), and the first
/// pass is reported apart from the samples. With one allowed CPU the
/// writer is the chasing CPU, which the record notes.
#[test]
fn the_remote_cache_chase_names_its_writer_and_ran_on_the_intended_cpus() {
    let allowed = super::run::allowed_cpus();
    let chaser = allowed[0].to_string();
    let writer = allowed.get(1).unwrap_or(&allowed[0]).to_string();
    let records = typed_records_of(
        &[
            "latency",
            "--writer-cpu",
            &writer,
            "--cpu",
            &chaser,
            "--size",
            "64K",
            "--repeat",
            "3",
        ],
        "latency",
    );
    assert_eq!(records.len(), 1);
    let record = &records[0];
    let params = params_of::<LatencyParams>(record);
    let chased = params.cpu.map(|cpu| cpu.to_string());
    let loads_per_sample = params.loads_per_sample;
    let params = params.writer.expect("the writer's params");
    let (writer_cpu, chaser_cpu) = (Some(writer.clone()), Some(chaser.clone()));
    assert_eq!(
        Some(params.writer_cpu.to_string()),
        writer_cpu,
        "{params:?}"
    );
    let seen = params.writer_cpu_seen.map(|cpu| cpu.to_string());
    assert_eq!(seen, writer_cpu, "{params:?}");
    assert_eq!(chased, chaser_cpu, "{record:?}");
    let seen = params.cpu_seen.map(|cpu| cpu.to_string());
    assert_eq!(seen, chaser_cpu, "{params:?}");
    assert_eq!(params.writer_same_cpu, Some(writer == chaser), "{params:?}");
    assert_eq!(
        super::requested(record)
            .writer_cpu
            .map(|cpu| cpu.to_string()),
        Some(writer.clone())
    );
    assert!(verified(record).achieved, "{record:?}");
    // 64 KiB of 64-byte lines: 1024 loads a pass, 16 passes a sample.
    assert_eq!(params.passes_per_sample, Some(16), "{params:?}");
    assert_eq!(loads_per_sample, Some(16 * 1024), "{record:?}");
    assert_eq!(record.stats.n, 3, "{record:?}");
    let first = params.first_pass_ns.unwrap();
    assert!(first > 0.0 && first.is_finite(), "{params:?}");
    assert!(params
        .samples_measure
        .as_ref()
        .unwrap()
        .contains("without flushing"));
}

/// `mlp --threads 2`: per chain count, aggregate rate and load latency for
/// the pinned and the unpinned run (interleaved, `--repeat` each, the one
/// that goes first alternating per repetition), every
/// thread's buffer verified on its CPU's node; pinned threads ran on their
/// CPUs; one pinned-over-unpinned ratio per chain count.
#[test]
fn many_threads_chase_pinned_against_unpinned() {
    let allowed = super::run::allowed_cpus();
    let threads = allowed.len().min(2);
    let records = typed_records(&[
        "mlp",
        "--threads",
        &threads.to_string(),
        "--chains",
        "1,4",
        "--size",
        "8M",
        "--repeat",
        "3",
    ]);
    let params: Vec<(&Record, MlpParams)> = records
        .iter()
        .map(|record| (record, params_of(record)))
        .collect();
    for chains in [1, 4] {
        for pinned in [true, false] {
            let of = |metric: &str| -> Vec<&(&Record, MlpParams)> {
                params
                    .iter()
                    .filter(|(r, p)| {
                        r.metric == metric && p.chains == Some(chains) && p.pinned == Some(pinned)
                    })
                    .collect()
            };
            let rate = of("aggregate_loads");
            let latency = of("load_latency");
            assert_eq!((rate.len(), latency.len()), (1, 1), "{records:?}");
            let (record, params) = rate[0];
            assert_eq!(record.unit, Unit::MegaOpsPerSecond);
            assert_eq!(record.stats.n, 3, "{record:?}");
            assert!(record.value > 0.0, "{record:?}");
            assert_eq!(latency[0].0.unit, Unit::Nanoseconds);
            assert_eq!(params.threads, Some(threads as u64));
            assert!(verified(record).achieved, "{record:?}");
            let seen = params.cpus_seen.as_ref().unwrap();
            assert_eq!(seen.len(), 3, "one entry per repetition: {record:?}");
            // The order alternates per repetition (it was always pinned
            // first, which a rank test over 3 samples cannot tell from a
            // pinning effect).
            assert_eq!(
                params.first_per_repetition.as_deref(),
                Some(&["pinned", "unpinned", "pinned"].map(String::from)[..]),
                "{record:?}"
            );
            if pinned {
                // Pinned thread i started and ended on the i-th CPU asked for.
                let asked = super::requested(record).cpus.expect("requested cpus");
                for run in seen {
                    for (i, thread) in run.iter().enumerate() {
                        assert_eq!(Some(thread[0]), asked[i], "{record:?}");
                        assert_eq!(Some(thread[1]), asked[i], "{record:?}");
                    }
                }
            }
        }
        let ratio: Vec<&MlpParams> = params
            .iter()
            .filter(|(r, p)| r.metric == "pinned_over_unpinned" && p.chains == Some(chains))
            .map(|(_, p)| p)
            .collect();
        assert_eq!(ratio.len(), 1, "{records:?}");
        assert!(ratio[0].p_value.is_some());
    }
}

/// `--unpinned` alone runs only the unpinned threads.
#[test]
fn many_threads_chase_unpinned_only() {
    let records = typed_records(&[
        "mlp",
        "--threads",
        "1",
        "--chains",
        "2",
        "--size",
        "4M",
        "--repeat",
        "2",
        "--unpinned",
    ]);
    assert!(!records.is_empty());
    assert!(
        records
            .iter()
            .all(|r| params_of::<MlpParams>(r).pinned == Some(false)
                && r.metric != "pinned_over_unpinned"),
        "{records:?}"
    );
}

/// The tail: percentiles of batches timed one by one, ordered, with the
/// method, the timer's resolution and the subtracted overhead stated; the
/// histogram only with `--histogram`, its counts adding up to the batches.
#[test]
fn latency_records_carry_percentiles_and_on_request_the_histogram() {
    for (arguments, histogram) in [
        (&["latency", "--size", "4M", "--repeat", "2"][..], false),
        (
            &["latency", "--size", "4M", "--repeat", "2", "--histogram"][..],
            true,
        ),
    ] {
        let records = typed_records_of(arguments, "latency");
        // Every figure is on the wire (the type reads a missing one as 0).
        let wire = records[0].params["tail"].as_object().expect("a tail");
        for key in [
            "p50",
            "p90",
            "p99",
            "p99_9",
            "max",
            "method",
            "batch_loads",
            "batches",
            "timer_resolution_ns",
            "timing_overhead_ns",
        ] {
            assert!(wire.contains_key(key), "no {key}: {wire:?}");
        }
        let tail = params_of::<LatencyParams>(&records[0])
            .tail
            .expect("a tail");
        let ordered = [tail.p50, tail.p90, tail.p99, tail.p999, tail.max];
        assert!(ordered[0] > 0.0, "{tail:?}");
        assert!(
            ordered.windows(2).all(|pair| pair[0] <= pair[1]),
            "{tail:?}"
        );
        assert!(tail.timer_resolution_ns > 0.0, "{tail:?}");
        assert!(tail.timing_overhead_ns >= 0.0, "{tail:?}");
        assert!(tail.method.contains("dependent loads"), "{}", tail.method);
        assert!(tail.method.contains("subtracted"), "{}", tail.method);
        assert!(tail.batches >= 4096, "{tail:?}");
        match histogram {
            false => assert!(tail.histogram.is_none(), "{tail:?}"),
            true => {
                let bins = tail.histogram.as_ref().expect("histogram");
                let counted: u64 = bins.iter().map(|bin| bin.1).sum();
                assert_eq!(counted, tail.batches, "{tail:?}");
            }
        }
    }
}
