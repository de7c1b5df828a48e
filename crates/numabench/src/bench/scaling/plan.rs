//! scaling's plan: its `characterize` steps, the steps of its command,
//! and what `--plan` and a time budget read of its work ([`Planned`]).

use super::measure::*;
use super::run::*;
use crate::bench::characterize::{Defaults, Steps};
use crate::bench::context::Context;
use crate::bench::estimate::Cost;
use crate::bench::plan::Facts;
use crate::bench::step::{Planned, Step};
use crate::kernels::kernel_by_name;
use crate::kernels::KernelSpec;
use crate::threads::CpuOrder;
use crate::topology::Machine;

/// `scaling`: of the first CPU's node.
pub(in crate::bench) fn characterize(d: &Defaults, steps: &mut Steps) {
    steps.push(
        format!("scaling of node {}", d.first_node),
        ScalingWork {
            kernel: kernel_by_name("read").expect("read kernel is registered"),
            node: d.first_node,
            size: d.dram,
            order: SCALING_ORDER,
            stride: 1,
        },
        SCALING_ORDER,
    );
}

impl Step {
    /// Bandwidth scaling of `kernel` for memory on `node`, threads added
    /// in `order`.
    pub fn scaling(kernel: &'static KernelSpec, node: u32, size: u64, order: CpuOrder) -> Self {
        Self::of(
            "scaling",
            format!("scaling of node {node}"),
            ScalingWork {
                kernel,
                node,
                size,
                order,
                stride: 1,
            },
        )
        .in_order(order)
    }
}

impl Planned for ScalingWork {
    fn facts(&self, topology: &Machine, _: &Context) -> Facts {
        let per_node: Vec<Vec<u32>> = reader_nodes(topology, self.node)
            .into_iter()
            .filter_map(|reader| scaling_cpus(topology, reader, self.order).ok())
            .collect();
        let costs = per_node
            .iter()
            .flat_map(|cpus| {
                scaling_counts(cpus.len(), self.stride)
                    .into_iter()
                    .map(|threads| Cost::Stream {
                        bytes: self.size,
                        threads,
                        count: 1,
                    })
            })
            .collect();
        Facts::new(
            per_node.iter().map(Vec::len).max().unwrap_or(0),
            per_node.concat(),
            vec![self.node],
            vec![self.size],
            costs,
        )
    }

    fn working_sets(&mut self) -> Vec<&mut u64> {
        vec![&mut self.size]
    }
}
