//! The node-level subset one rank measures on its own host, through the
//! existing benchmarks with their topology-derived defaults. Threads are
//! pinned inside the CPUs this rank may use (its cpuset and affinity, as
//! `topology.allowed` has them) in the `compact` order.

use super::parts::{Part, Per};
use super::settings::host_settings;
use crate::bench::{
    check_memory_fits, cpus_of_node, run_bandwidth, run_bandwidth_matrix, run_latency,
    working_set_for, BandwidthConfig, BenchError, Context, LatencyConfig, MatrixMode,
};
use crate::doctor::{run_doctor, SystemFiles};
use crate::kernels::{kernel_by_name, ChaseOrder};
use crate::memory::MemoryPlacement;
use crate::output::{CollectRunMetadata, Placement, Record, RunMetadata, Sink, Unit};
use crate::stats::Summary;
use crate::threads::CpuOrder;
use crate::topology::{cpu_nodes, memory_nodes};
use numabench_schema::benchmark;
use numabench_schema::params::{to_params, ClusterLabels, ClusterStreamLabels, ClusterTopoParams};
use serde_json::Map;
use std::io;
use std::sync::mpsc::{channel, Receiver, Sender};

/// A record made by a part, before it is tagged: the NUMA node it
/// belongs to (its unit with `--per numa`) and its comparison key.
#[derive(Debug, Clone)]
pub struct Measured {
    pub record: Record,
    pub node: Option<u32>,
    pub key: Option<String>,
}

/// How the parts are sized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizing {
    pub per: Per,
    /// `--size`: every working set (else each benchmark's DRAM default).
    pub size: Option<u64>,
}

/// The order measuring threads take this rank's CPUs in.
pub const CLUSTER_ORDER: CpuOrder = CpuOrder::Compact;

/// Hands each record a benchmark emits over to the part, which tags it.
struct ChannelSink(Sender<Record>);

impl Sink for ChannelSink {
    fn begin(&mut self, _: &RunMetadata) -> io::Result<()> {
        Ok(())
    }
    fn record(&mut self, record: &Record) -> io::Result<()> {
        self.0
            .send(record.clone())
            .map_err(|_| io::Error::other("cluster record receiver gone"))
    }
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Runs one benchmark call into a private pipeline and hands each record
/// it made to `classify` (node and key), then to `emit`.
fn collect(
    context: &Context,
    run: impl FnOnce(&mut crate::output::Pipeline) -> Result<(), BenchError>,
    classify: impl Fn(&Record) -> (Option<u32>, Option<String>),
    emit: &mut dyn FnMut(Measured),
) -> Result<(), BenchError> {
    let (sender, receiver): (Sender<Record>, Receiver<Record>) = channel();
    let metadata = RunMetadata::collect(Vec::new(), &context.topology);
    let mut pipeline =
        crate::output::Pipeline::with_sinks(vec![Box::new(ChannelSink(sender))], &metadata)
            .map_err(BenchError::Output)?;
    let result = run(&mut pipeline);
    drop(pipeline);
    for record in receiver.try_iter() {
        let (node, key) = classify(&record);
        emit(Measured { record, node, key });
    }
    result
}

/// Measures `part` on this host, handing over each record as it is made.
/// `baseline` (`--baseline`) chooses the check part's plan.
pub fn measure_part(
    context: &Context,
    part: Part,
    sizing: Sizing,
    baseline: Option<&crate::check::Baseline>,
    emit: &mut dyn FnMut(Measured),
) -> Result<(), BenchError> {
    match part {
        Part::Check => {
            super::check_part::measure_check(context, sizing.per, sizing.size, baseline, emit)
        }
        Part::Topo => {
            emit(topo_record(context));
            Ok(())
        }
        Part::Stream => stream(context, sizing, emit),
        Part::Latency => latency(context, sizing, emit),
        Part::Matrix => matrix(context, sizing, emit),
        // Measured between ranks, not on a host (see the MPI part).
        Part::Pingpong => Ok(()),
    }
}

/// `topo`: this host's settings to compare (topology summary and doctor
/// findings); value: the NUMA node count.
fn topo_record(context: &Context) -> Measured {
    let topology = &context.topology;
    let doctor = run_doctor(&SystemFiles::real(), topology);
    let params = topo_params(topology, &doctor);
    let value = topology.node_count as f64;
    Measured {
        record: Record {
            benchmark: benchmark::CLUSTER_TOPO.into(),
            metric: "numa_nodes".into(),
            value,
            unit: Unit::Count,
            params,
            placement: Placement::default(),
            stats: Summary::single(value),
        },
        node: None,
        key: None,
    }
}

/// The `topo` record's params: the host's settings, the doctor's warning
/// count, the CPUs this rank may use.
pub(super) fn topo_params(
    topology: &crate::topology::Machine,
    doctor: &crate::doctor::DoctorReport,
) -> Map<String, serde_json::Value> {
    to_params(&ClusterTopoParams {
        settings: Some(host_settings(topology, doctor)),
        doctor_warnings: Some(doctor.warnings as u64),
        allowed_cpus: Some(topology.allowed.cpus.clone()),
        labels: ClusterLabels::default(),
    })
}

/// This rank's CPUs of `node`, compact order.
fn node_cpus(context: &Context, node: u32) -> Result<Vec<u32>, BenchError> {
    Ok(CLUSTER_ORDER.arrange(&context.topology, &cpus_of_node(&context.topology, node)?))
}

/// The working set: `--size`, or the DRAM default for `cpus` on `nodes`.
fn size_for(
    context: &Context,
    sizing: Sizing,
    cpus: &[u32],
    nodes: &[u32],
) -> Result<u64, BenchError> {
    let size = sizing
        .size
        .unwrap_or_else(|| working_set_for(&context.topology, cpus, nodes).bytes);
    // Each buffer is bound to one node at a time (a matrix's cells): the
    // size must fit every node on its own, not their sum.
    for node in nodes {
        check_memory_fits(&context.topology, &[*node], size)?;
    }
    Ok(size)
}

/// The comparison key of a `stream` record of `metric` for `node`: the
/// node itself, or with `--per numa` (each node its own unit) `local`.
fn stream_key(per: Per, metric: &str, node: u32) -> String {
    match per {
        Per::Numa => format!("{metric} local"),
        Per::Node | Per::Rank => format!("{metric} node {node}"),
    }
}

/// The comparison key of a latency from node `from` to memory on `to`:
/// the node pair, or with `--per numa` local / remote at the firmware's
/// distance (so nodes are compared with nodes as far from their memory).
fn latency_key(per: Per, topology: &crate::topology::Machine, from: u32, to: u32) -> String {
    match per {
        Per::Numa if from == to => "latency local".to_string(),
        Per::Numa => match topology.distance(from, to) {
            Some(distance) => format!("latency remote, distance {distance}"),
            None => "latency remote".to_string(),
        },
        Per::Node | Per::Rank => format!("latency node {from}->{to}"),
    }
}

/// `stream`: triad with all of this rank's CPUs of each node, memory
/// bound to that node.
fn stream(
    context: &Context,
    sizing: Sizing,
    emit: &mut dyn FnMut(Measured),
) -> Result<(), BenchError> {
    let triad = kernel_by_name("triad").expect("triad kernel is registered");
    for node in cpu_nodes(&context.topology) {
        let cpus = node_cpus(context, node)?;
        let size = size_for(context, sizing, &cpus, &[node])?;
        let labels = to_params(&ClusterStreamLabels {
            cpu_order: CLUSTER_ORDER.name().to_string(),
            node,
        });
        let config = BandwidthConfig::new(triad, cpus, size, MemoryPlacement::bind(node))
            .labelled("bandwidth", labels);
        collect(
            context,
            |pipeline| run_bandwidth(context, &config, pipeline).map(|_| ()),
            |record| {
                (
                    Some(node),
                    Some(stream_key(sizing.per, &record.metric, node)),
                )
            },
            emit,
        )?;
    }
    Ok(())
}

/// `latency`: from the first CPU of each node (compact order) to every
/// node with memory; `latency` records compared, `latency_cycles` kept.
fn latency(
    context: &Context,
    sizing: Sizing,
    emit: &mut dyn FnMut(Measured),
) -> Result<(), BenchError> {
    let topology = &context.topology;
    for from in cpu_nodes(topology) {
        let cpu = node_cpus(context, from)?[0];
        for to in memory_nodes(topology) {
            let size = size_for(context, sizing, &[cpu], &[to])?;
            let config = LatencyConfig {
                sizes: vec![size],
                cpu,
                memory: MemoryPlacement::bind(to),
                order: ChaseOrder::default(),
                writer_cpu: None,
            };
            let key = latency_key(sizing.per, topology, from, to);
            // With --per numa several targets share a key: name each.
            let target =
                (sizing.per == Per::Numa && from != to).then(|| format!("memory node {to}"));
            collect(
                context,
                |pipeline| run_latency(context, &config, pipeline),
                |record| {
                    let compared = record.metric == "latency";
                    (Some(from), compared.then(|| key.clone()))
                },
                &mut |mut measured: Measured| {
                    if let Some(target) = &target {
                        super::tags::mark_target(&mut measured.record, target);
                    }
                    emit(measured)
                },
            )?;
        }
    }
    Ok(())
}

/// `matrix`: the serial read-bandwidth matrix (one thread per CPU node,
/// every memory node). Compared cell by cell per host; with `--per numa`
/// recorded under each row's node but not compared (the latency part
/// compares local and remote figures there).
fn matrix(
    context: &Context,
    sizing: Sizing,
    emit: &mut dyn FnMut(Measured),
) -> Result<(), BenchError> {
    let topology = &context.topology;
    let nodes = memory_nodes(topology);
    let size = size_for(context, sizing, &topology.allowed.cpus, &nodes)?;
    collect(
        context,
        |pipeline| run_bandwidth_matrix(context, MatrixMode::Serial, size, pipeline).map(|_| ()),
        |record| {
            let cpu_node = record.typed_params().cpu_node();
            let mem_node = record.typed_params().mem_node();
            let key = match (sizing.per, cpu_node, mem_node) {
                (Per::Numa, ..) => None,
                (_, Some(a), Some(b)) => Some(format!("matrix {} node {a}->{b}", record.metric)),
                _ => None,
            };
            (cpu_node.map(|n| n as u32), key)
        },
        emit,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{discover, Purpose};

    fn this_machine() -> Context {
        let mut context = Context::new(discover(None, Purpose::Measure).unwrap());
        context.repeat = 2;
        context
    }

    /// Keys name node pairs per host, and local / remote-at-distance per
    /// NUMA unit, so nodes of one host are compared like with like.
    #[test]
    fn keys_compare_like_with_like() {
        let topology = crate::topology::synthetic("pack:2 [numa(memory=1GiB)] core:2 pu:1");
        assert_eq!(latency_key(Per::Node, &topology, 0, 1), "latency node 0->1");
        assert_eq!(latency_key(Per::Rank, &topology, 1, 1), "latency node 1->1");
        assert_eq!(latency_key(Per::Numa, &topology, 1, 1), "latency local");
        let remote = latency_key(Per::Numa, &topology, 0, 1);
        assert_eq!(remote, latency_key(Per::Numa, &topology, 1, 0));
        assert!(remote.starts_with("latency remote"), "{remote}");
        assert_eq!(
            stream_key(Per::Node, "triad_bandwidth", 1),
            "triad_bandwidth node 1"
        );
        assert_eq!(
            stream_key(Per::Numa, "triad_bandwidth", 1),
            "triad_bandwidth local"
        );
    }

    /// Each part measures this host with the existing benchmarks: every
    /// comparable record has a key naming the node, and the topo part
    /// carries the settings.
    #[test]
    fn parts_measure_this_host_with_keys() {
        let context = this_machine();
        let sizing = Sizing {
            per: Per::Node,
            size: Some(4 << 20),
        };
        let mut made = Vec::new();
        for part in [
            Part::Topo,
            Part::Stream,
            Part::Latency,
            Part::Matrix,
            Part::Check,
        ] {
            measure_part(&context, part, sizing, None, &mut |m| made.push((part, m))).unwrap();
        }
        // The check part: its plan record, then check's own keys.
        assert!(made.iter().any(|(part, m)| *part == Part::Check
            && m.record.metric == super::super::check_part::PLAN_METRIC
            && m.record
                .params_as::<numabench_schema::params::CheckPlanParams>()
                .unwrap()
                .plan_from_baseline
                == Some(false)));
        let keys: Vec<&str> = made.iter().filter_map(|(_, m)| m.key.as_deref()).collect();
        let first = cpu_nodes(&context.topology)[0];
        assert!(
            keys.contains(&format!("triad_bandwidth node {first}").as_str()),
            "{keys:?}"
        );
        assert!(
            keys.contains(&format!("latency node {first}->{first}").as_str()),
            "{keys:?}"
        );
        assert!(
            keys.contains(&format!("node{first}.triad_bandwidth").as_str()),
            "{keys:?}"
        );
        assert!(
            keys.iter()
                .any(|k| k.starts_with("matrix read_bandwidth node")),
            "{keys:?}"
        );
        let topo = &made.iter().find(|(part, _)| *part == Part::Topo).unwrap().1;
        let settings = topo
            .record
            .params_as::<ClusterTopoParams>()
            .unwrap()
            .settings;
        assert!(settings.unwrap().numa_nodes.unwrap() >= 1);
        for (part, measured) in &made {
            // The check part's plan record says what was measured, no figure.
            let plan = measured.record.metric == super::super::check_part::PLAN_METRIC;
            if *part != Part::Topo && !plan {
                assert!(measured.record.value > 0.0, "{:?}", measured.record);
                assert!(measured.node.is_some());
            }
        }
        let per_numa = Sizing {
            per: Per::Numa,
            size: Some(4 << 20),
        };
        let mut local = Vec::new();
        measure_part(&context, Part::Latency, per_numa, None, &mut |m| {
            local.push(m)
        })
        .unwrap();
        assert!(local
            .iter()
            .any(|m| m.key.as_deref() == Some("latency local")));
    }
}
