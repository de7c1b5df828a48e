//! The plan of `numabench run` (`run --plan --json`, also `tiers advise --
//! PROGRAM --plan --json`): one step per policy, each run `repeat` times
//! after `warmup` unmeasured runs, the policies interleaved round robin; a
//! parameter scan's plan has one step per configuration and policy, in the
//! order they run. A type, so the CLI writes the document by serializing
//! it, prints its table from it, and its readers read it through it. Its
//! steps carry the fields of a measuring command's steps that mean
//! something for another's program; the ones that are the program's own
//! (`threads`, `size_bytes`, `estimated_seconds`) are written as null.

use super::policy::RunPolicy;
use super::scan_params::{scan_points, ScanParam};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The plan `run --plan --json` prints (schema in docs/plan.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunPlan {
    /// Where the topology came from: this machine, or the `--topology` file.
    pub topology_source: String,
    /// The policies' runs are interleaved round robin (always true: said
    /// so a reader does not assume one policy's runs come together).
    pub interleaved: bool,
    /// One step per policy (per configuration and policy in a scan).
    pub steps: Vec<RunPlanStep>,
}

/// One policy's runs of the program.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunPlanStep {
    /// Always `run`: the records' benchmark.
    pub benchmark: Cow<'static, str>,
    /// The policy as the user wrote it (a scan's prefixed with its values,
    /// `t=1 | as-is`).
    pub label: String,
    /// The program and its arguments.
    pub command: Vec<String>,
    /// Always null: the program starts its own threads.
    pub threads: Option<usize>,
    /// The CPUs the threads are pinned to in order, or the process is
    /// restricted to; empty: as the program and the kernel choose.
    pub cpus: Vec<u32>,
    /// The threads are pinned one to a CPU in the order of `cpus`.
    pub pinned: bool,
    /// The order `cpus` follow, when pinned (`compact`, `scatter`, ...).
    pub cpu_order: Option<Cow<'static, str>>,
    /// The nodes of the memory policy; empty: none set.
    pub mem_nodes: Vec<u32>,
    /// The memory policy (`interleave:0,1`, ...); null: none set.
    pub memory_policy: Option<String>,
    /// Always null: the program sizes its own memory.
    pub size_bytes: Option<u64>,
    /// Measured runs of the step.
    pub repeat: u32,
    /// Unmeasured runs before them.
    pub warmup: u32,
    /// Always null: how long another's program takes is not estimated.
    pub estimated_seconds: Option<f64>,
}

impl RunPlan {
    /// The plan of running `command` under each of `policies`, `repeat`
    /// times after `warmup` warm-up runs, on the topology from
    /// `topology_source`.
    pub fn new(
        topology_source: &str,
        command: &[String],
        policies: &[RunPolicy],
        repeat: u32,
        warmup: u32,
    ) -> Self {
        let steps = policies
            .iter()
            .map(|policy| RunPlanStep {
                benchmark: Cow::Borrowed("run"),
                label: policy.label.clone(),
                command: command.to_vec(),
                threads: None,
                cpus: policy
                    .pin_order
                    .clone()
                    .or_else(|| policy.affinity.clone())
                    .unwrap_or_default(),
                pinned: policy.pin_order.is_some(),
                cpu_order: policy.cpu_order.map(|order| Cow::Borrowed(order.name())),
                mem_nodes: policy
                    .memory
                    .as_ref()
                    .map(|memory| memory.nodes.clone())
                    .unwrap_or_default(),
                memory_policy: policy.memory.as_ref().map(|memory| memory.label()),
                size_bytes: None,
                repeat,
                warmup,
                estimated_seconds: None,
            })
            .collect();
        Self {
            topology_source: topology_source.to_string(),
            interleaved: true,
            steps,
        }
    }

    /// The plan of a parameter scan: the plan of [`RunPlan::new`] for each
    /// configuration's command, its steps labelled `VALUES | POLICY`, in
    /// the order the configurations run.
    pub fn scan(
        topology_source: &str,
        params: &[ScanParam],
        command: &[String],
        policies: &[RunPolicy],
        repeat: u32,
        warmup: u32,
    ) -> Self {
        let mut steps = Vec::new();
        for point in scan_points(params, command) {
            let plan = Self::new(topology_source, &point.command, policies, repeat, warmup);
            steps.extend(plan.steps.into_iter().map(|step| RunPlanStep {
                label: format!("{} | {}", point.label(), step.label),
                ..step
            }));
        }
        Self {
            topology_source: topology_source.to_string(),
            interleaved: true,
            steps,
        }
    }
}
