//! Run metadata of this run on this machine: what every output file
//! starts with. The type is the schema crate's ([`RunMetadata`]).

use crate::topology::Machine;
pub(crate) use numabench_schema::RunMetadata;
use numabench_schema::{utc_timestamp, MachineFacts};
use std::time::SystemTime;

/// Collecting [`RunMetadata`] from this machine (the type lives in the
/// schema crate, which knows no machine): `RunMetadata::collect(...)` with
/// this trait in scope.
pub trait CollectRunMetadata: Sized {
    /// Collects the metadata of this run on this machine.
    fn collect(command_line: Vec<String>, topology: &Machine) -> Self;

    /// The metadata of a run that reads results rather than measuring
    /// (`compare`): `topology` says what stands in the topology line
    /// instead of this machine's.
    fn collect_described(command_line: Vec<String>, topology: String) -> Self;
}

impl CollectRunMetadata for RunMetadata {
    fn collect(command_line: Vec<String>, topology: &Machine) -> Self {
        Self::collect_described(command_line, topology_summary(topology))
    }

    fn collect_described(command_line: Vec<String>, topology: String) -> Self {
        let facts = MachineFacts::read();
        Self {
            tool: "numabench".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            commit: crate::BUILD_COMMIT.to_string(),
            schema_version: numabench_schema::RESULTS_SCHEMA_VERSION,
            command_line,
            host: facts.host,
            kernel: facts.kernel,
            cpu_model: facts.cpu_model,
            topology,
            utc_time: utc_timestamp(SystemTime::now()),
        }
    }
}

fn topology_summary(topology: &Machine) -> String {
    let cpuless = topology.nodes.iter().filter(|node| node.cpuless).count();
    let mut text = format!(
        "{} package(s), {} core(s), {} CPU(s), {} NUMA node(s)",
        topology.packages.len(),
        topology.core_count,
        topology.cpu_count,
        topology.node_count
    );
    if cpuless > 0 {
        text.push_str(&format!(" ({cpuless} CPU-less)"));
    }
    if !topology.this_system {
        text.push_str(&format!("; from {}, not this machine", topology.source));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_topology_line_says_when_it_is_not_this_machine() {
        let mut topology = crate::topology::synthetic(
            "pack:2 [numa(memory=1GiB)] [numa(memory=1GiB)] core:2 pu:2",
        );
        topology.source = "server.xml".to_string();
        assert_eq!(
            topology_summary(&topology),
            "2 package(s), 4 core(s), 8 CPU(s), 4 NUMA node(s) (2 CPU-less); from server.xml, not this machine"
        );
        topology.this_system = true;
        assert!(!topology_summary(&topology).contains("not this machine"));
    }
}
