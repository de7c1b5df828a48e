//! The per-CPU sampling rule on the realistic machine shapes of
//! `tests/fixtures` (see `make-fixtures.sh` for their numbering).

use super::per_cpu::{per_cpu_sample, EVERY_CPU_LIMIT, RULE_EVERY_CPU, RULE_SAMPLED};
use crate::threads::CpuOrder;
use crate::topology::fixture_tests::{load, FIXTURES};

/// Two sockets of 8 L3 domains x 4 cores, siblings 64 apart: the first
/// core of every L3 domain (CPUs 0, 4, ... 60), plus each node's first
/// and last CPU in tree order (0 and 95, 32 and 127: the last core's
/// second thread), in tree order.
#[test]
fn two_socket_smt_samples_every_l3_domain_and_both_ends_of_every_node() {
    let report = load("two-socket-smt");
    let (cpus, rule) = per_cpu_sample(&report);
    assert_eq!(rule, RULE_SAMPLED);
    let mut expected: Vec<u32> = (0..16).map(|domain| domain * 4).collect();
    expected.extend([95, 127]);
    expected.sort_unstable();
    assert_eq!(cpus, CpuOrder::Compact.arrange(&report, &expected));
    assert_eq!(cpus.first(), Some(&0));
    assert_eq!(cpus.last(), Some(&127));
}

/// A 20-CPU laptop is small enough to measure every CPU: P-cores' both
/// threads and every E-core.
#[test]
fn hybrid_laptop_measures_every_cpu() {
    let report = load("hybrid-laptop");
    assert!(report.allowed.cpus.len() <= EVERY_CPU_LIMIT);
    let (cpus, rule) = per_cpu_sample(&report);
    assert_eq!(rule, RULE_EVERY_CPU);
    assert_eq!(cpus, CpuOrder::Compact.all_allowed(&report));
    assert_eq!(cpus.len(), 20);
}

/// On every shape: only allowed CPUs, none twice, every CPU node and
/// every last-level-cache domain represented; CPUs this process may not
/// use are never picked.
#[test]
fn every_fixture_samples_allowed_cpus_covering_every_node_and_domain() {
    for name in FIXTURES {
        let mut report = load(name);
        // Take away the first CPU, as a cpuset might.
        let withheld = report.allowed.cpus.remove(0);
        let (cpus, _) = per_cpu_sample(&report);
        assert!(!cpus.contains(&withheld), "{name}");
        let mut unique = cpus.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), cpus.len(), "{name}: {cpus:?}");
        assert!(
            cpus.iter().all(|cpu| report.allowed.cpus.contains(cpu)),
            "{name}"
        );
        for node in report.nodes.iter().filter(|node| !node.cpus.is_empty()) {
            assert!(
                node.cpus.iter().any(|cpu| cpus.contains(cpu)),
                "{name}: node {} not sampled",
                node.index
            );
        }
        let level = report.caches.iter().map(|cache| cache.level).max();
        for cache in report
            .caches
            .iter()
            .filter(|cache| Some(cache.level) == level)
        {
            for group in &cache.cpu_groups {
                assert!(
                    group.iter().any(|cpu| cpus.contains(cpu)),
                    "{name}: L{} domain {group:?} not sampled",
                    cache.level
                );
            }
        }
    }
}

/// On every shape characterize plans one step per sampled CPU (latency,
/// then read bandwidth), each on that CPU alone, its memory on the CPU's
/// node, its working set at least 4x the caches in front of that CPU and
/// node (or, where the node cannot safely hold that — KNL's 4 GiB of
/// MCDRAM in front of its quadrants — all it safely can, marked
/// cache-affected), at most 3 repetitions, the rule named.
#[test]
fn every_fixture_plans_a_step_per_sampled_cpu_over_4x_its_caches() {
    use crate::bench::{
        characterize_plan, plan_of, safe_working_set_bytes, select, Context, CACHE_MULTIPLE,
    };
    for name in FIXTURES {
        let context = Context::new(load(name));
        let (sample, rule) = per_cpu_sample(&context.topology);
        let steps = characterize_plan(&context, &select(&["per-cpu".into()], &[]).unwrap());
        let plans = plan_of(&context, &steps);
        assert_eq!(plans.len(), 2 * sample.len(), "{name}");
        for (plan, &cpu) in plans.iter().zip(sample.iter().chain(&sample)) {
            assert_eq!(plan.cpus, [cpu], "{name}");
            let node = context.topology.node_of_cpu(cpu).unwrap();
            assert_eq!(plan.mem_nodes, [node], "{name}");
            assert_eq!(plan.sample_rule.as_deref(), Some(rule), "{name}");
            assert!(plan.repeat <= 3, "{name}");
            assert!(plan.cache_bytes_in_front > 0, "{name}: {plan:?}");
            if plan.cache_affected {
                assert_eq!(
                    Some(plan.size_bytes),
                    safe_working_set_bytes(&context.topology, &[node]),
                    "{name}: {plan:?}"
                );
                assert!(plan.size_bytes < CACHE_MULTIPLE * plan.cache_bytes_in_front);
            } else {
                assert!(
                    plan.size_bytes >= CACHE_MULTIPLE * plan.cache_bytes_in_front,
                    "{name}: {plan:?}"
                );
            }
        }
    }
}
