//! The per-CPU sampling rule on the realistic machine shapes of
//! `tests/fixtures` (see `make-fixtures.sh` for their numbering).

use super::per_cpu::{per_cpu_sample, OneCpu, RULE_EVERY_CPU};
use crate::threads::CpuOrder;
use crate::topology::fixture_tests::{load, FIXTURES};

/// The plan starts from every allowed CPU, in tree order, whatever the
/// machine's size: the budget, not a fixed rule, decides how many are
/// measured (the 256-CPU NPS4 server's plan used to start from 32 and a
/// slow CPU elsewhere could never be found, whatever the budget).
#[test]
fn the_plan_starts_from_every_allowed_cpu() {
    for name in ["two-socket-smt", "hybrid-laptop", "amd-nps4"] {
        let report = load(name);
        let (cpus, rule) = per_cpu_sample(&report);
        assert_eq!(rule, RULE_EVERY_CPU);
        assert_eq!(cpus, CpuOrder::Compact.all_allowed(&report), "{name}");
    }
}

/// At the default budget, on every fixture, every node with CPUs keeps
/// at least two of them in each per-CPU group (or all, where it has
/// fewer), so each CPU has another of its node to be compared with. The
/// cut used to recompute its one-per-node floor on the halved group and
/// spread over CPUs, not nodes: the default plan of amd-nps4 measured
/// nodes 0, 2, 4 and 6 only, and 2 of the 4 nodes of knl-snc4-cache.
#[test]
fn the_budget_keeps_two_cpus_of_every_node() {
    use crate::bench::{
        characterize_plan, fit_budget, select, Budget, Context, MatrixCut, DEFAULT_BUDGET_SECONDS,
    };
    for name in FIXTURES {
        let mut context = Context::new(load(name));
        let mut steps = characterize_plan(&context, &select(&[], &[]).unwrap());
        fit_budget(
            &mut context,
            &mut steps,
            Budget::Seconds(DEFAULT_BUDGET_SECONDS),
            MatrixCut::Seeded(1),
        );
        let topology = &context.topology;
        let measured: Vec<u32> = steps
            .iter()
            .filter_map(|step| step.work::<OneCpu>())
            .filter(|one| matches!(one.measure, super::per_cpu::PerCpuMeasure::Latency(_)))
            .map(|one| one.cpu)
            .collect();
        for node in topology.nodes.iter().filter(|node| !node.cpus.is_empty()) {
            let allowed = node
                .cpus
                .iter()
                .filter(|cpu| topology.allowed.cpus.contains(cpu))
                .count();
            let kept = node
                .cpus
                .iter()
                .filter(|cpu| measured.contains(cpu))
                .count();
            assert!(
                kept >= allowed.min(2),
                "{name}: node {} keeps {kept} of {allowed} CPUs",
                node.index
            );
        }
    }
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
