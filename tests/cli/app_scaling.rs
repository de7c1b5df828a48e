//! Thread-count scaling of the application kernels (`--threads 1,2`,
//! `--threads-sweep`): records per count with speedup and parallel
//! efficiency that follow from the time records, the table, the plan.

use super::plan::{fixture, plan_on};
use super::plan_shapes::{group_of, topology};
use super::records::params_of;
use super::{succeeding, typed_records};
use numabench_schema::params::{AppParams, AppScalingParams};
use numabench_schema::{Record, Unit};

/// The record of `metric` for `threads`.
fn record<'a>(records: &'a [Record], metric: &str, threads: u64) -> &'a Record {
    records
        .iter()
        .find(|record| record.metric == metric && record.typed_params().threads() == Some(threads))
        .unwrap_or_else(|| panic!("no {metric} record for {threads} threads"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// CG class S at 1 and 2 threads, 2 runs each: both counts have their
/// time records (2 runs, verified, nodes_used), and the derived speedup and
/// parallel efficiency equal what the time records' medians give.
#[test]
fn cg_scaling_records_follow_from_the_times() {
    let records = typed_records(&["cg", "--class", "S", "--threads", "1,2", "--repeat", "2"]);
    let records = &records[..];
    let reference = record(records, "time", 1).value;
    for threads in [1u64, 2] {
        let time = record(records, "time", threads);
        let params = params_of::<AppParams>(time).run;
        assert_eq!(time.stats.n, 2, "{time:?}");
        assert_eq!(params.verification.map(|v| v.passed), Some(true));
        assert_eq!(params.cpu_order.as_deref(), Some("cores-first-by-node"));
        let nodes_used = params.configuration.threads.nodes_used.expect("nodes_used");
        assert!(nodes_used >= 1, "{time:?}");
        let seconds = time.value;
        let speedup = record(records, "speedup", threads);
        let efficiency = record(records, "parallel_efficiency", threads);
        for derived in [speedup, efficiency] {
            let params: AppScalingParams = params_of(derived);
            assert_eq!(derived.unit, Unit::Ratio);
            assert_eq!(params.relative_to_threads, Some(1));
            assert_eq!(params.configuration.threads.nodes_used, Some(nodes_used));
            assert!(close(
                params.relative_to_seconds.expect("relative_to_seconds"),
                reference
            ));
            assert_eq!(derived.stats.n, 2);
        }
        let speedup = speedup.value;
        assert!(
            close(speedup, reference / seconds),
            "{speedup} vs {reference}/{seconds}"
        );
        let efficiency = efficiency.value;
        assert!(close(efficiency, speedup / threads as f64), "{efficiency}");
    }
    assert!(close(record(records, "speedup", 1).value, 1.0));
}

/// Without --json: the compact scaling table, one row per count.
#[test]
fn stream_scaling_prints_a_table() {
    let output = succeeding(&[
        "stream",
        "--size",
        "1M",
        "--iterations",
        "2",
        "--threads",
        "2,1",
        "--repeat",
        "1",
    ]);
    let text = String::from_utf8_lossy(&output.stdout);
    let header = text
        .lines()
        .position(|line| line.trim_start().starts_with("threads") && line.contains("speedup"))
        .unwrap_or_else(|| panic!("no scaling table in {text}"));
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(header + 1)
        .take_while(|line| !line.trim().is_empty())
        .map(|line| line.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert_eq!((rows[0][0], rows[1][0]), ("1", "2"), "{text}");
    assert_eq!(rows[0][3], "1.00", "{text}");
}

/// `--threads-sweep --plan` on the two-socket SMT fixture: a step per
/// count of the sweep (1, 2, 4, ..., all), each count's CPUs the first ones
/// of the next; no core gets a second thread while a core is idle; the
/// nodes fill one after the other, so the node count grows from 1 to all.
#[test]
fn a_sweep_plans_cores_before_siblings_and_nodes_one_by_one() {
    let file = fixture("two-socket-smt.xml");
    let topology = topology(&file);
    let nodes = &topology.nodes;
    let node_of = |cpu: u32| {
        nodes
            .iter()
            .position(|node| node.cpus.contains(&cpu))
            .unwrap_or_else(|| panic!("CPU {cpu} on no node"))
    };
    let all = topology.allowed.cpus.len();
    let cores = topology.cores.len();
    let plan = plan_on(&file, &["cg", "--class", "S", "--threads-sweep"]);
    let steps = &plan.steps;
    let counts: Vec<usize> = steps.iter().map(|step| step.threads).collect();
    let mut expected: Vec<usize> = (0..).map(|k| 1 << k).take_while(|n| *n <= all).collect();
    if !all.is_power_of_two() {
        expected.push(all);
    }
    assert_eq!(counts, expected);
    let mut previous: Vec<u32> = Vec::new();
    let mut previous_nodes = 0;
    for step in steps {
        assert_eq!(step.cpu_order.as_deref(), Some("cores-first-by-node"));
        let cpus = step.cpus.clone();
        assert_eq!(cpus.len(), step.threads);
        assert_eq!(cpus[..previous.len()], previous[..], "not a prefix");
        let mut used_cores: Vec<usize> = cpus
            .iter()
            .map(|&cpu| group_of(&topology.cores, cpu))
            .collect();
        used_cores.sort_unstable();
        used_cores.dedup();
        assert_eq!(used_cores.len(), cpus.len().min(cores), "{cpus:?}");
        let mut used_nodes: Vec<usize> = cpus.iter().map(|&cpu| node_of(cpu)).collect();
        used_nodes.sort_unstable();
        used_nodes.dedup();
        // Node k joins only when nodes 0..k are full of first threads.
        let first_node_cores = nodes[0].cpus.len() * cores / all;
        if cpus.len() <= first_node_cores {
            assert_eq!(used_nodes, vec![0], "{cpus:?}");
        }
        assert!(used_nodes.len() >= previous_nodes);
        let label = &step.label;
        assert!(
            label.contains(&format!("{} node(s)", used_nodes.len())),
            "{label}"
        );
        previous_nodes = used_nodes.len();
        previous = cpus;
    }
    assert_eq!(
        previous_nodes,
        nodes.iter().filter(|node| !node.cpus.is_empty()).count()
    );
}
