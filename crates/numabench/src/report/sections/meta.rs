//! Run metadata of every file and the topology summary (nodes, CPUs,
//! distances, HMAT attributes, memory-side caches) from `topo --json`.

use super::{hmat, section, Section};
use crate::report::diagram;
use crate::report::html::{self, escape, Table};
use crate::report::load::Dataset;
use crate::report::plot;
use crate::report::sections::matrix::{matrix_table, Matrix};
use crate::topology::Machine;
use serde_json::Value;

/// The metadata table and, when a topology document was given, its summary.
pub fn build(data: &Dataset) -> Option<Section> {
    if data.metadata.is_empty() && data.topologies.is_empty() {
        return None;
    }
    let mut body = String::new();
    if !data.metadata.is_empty() {
        let mut table = Table::new(&[
            "file",
            "tool",
            "command",
            "host",
            "kernel",
            "CPU model",
            "topology",
            "UTC time",
        ]);
        for (file, m) in &data.metadata {
            table.push(vec![
                file.clone(),
                format!("{} {}", m.tool, m.version),
                m.command_line.join(" "),
                m.host.clone(),
                m.kernel.clone(),
                m.cpu_model.clone(),
                m.topology.clone(),
                m.utc_time.clone(),
            ]);
        }
        body.push_str("<h3>Runs</h3>");
        body.push_str(&table.to_html());
    }
    for (file, topology) in &data.topologies {
        body.push_str(&topology_summary(file, topology, data));
    }
    Some(section("metadata", "Runs and topology", body))
}

/// Nodes, distances and memory attributes of one `topo --json` document.
pub fn topology_summary(file: &str, t: &Machine, data: &Dataset) -> String {
    let mut out = format!(
        "<h3>Topology ({})</h3><p>{} CPU(s), {} core(s), {} NUMA node(s); source: {}</p>",
        escape(file),
        t.cpu_count,
        t.core_count,
        t.node_count,
        escape(&t.source)
    );
    let mut nodes = Table::new(&["node", "CPUs", "memory", "package", "kind"]);
    for node in &t.nodes {
        nodes.push(vec![
            node.index.to_string(),
            if node.cpus.is_empty() {
                "none (CPU-less)".into()
            } else {
                node.cpus
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            },
            html::bytes(node.memory_total_bytes as f64),
            node.package.map_or_else(|| "-".into(), |p| p.to_string()),
            node.kind.clone().unwrap_or_default(),
        ]);
    }
    out.push_str(&nodes.to_html());
    if let (Some(svg), Some(packages)) = (diagram::node_diagram(t), diagram::package_boxes(t)) {
        out.push_str(&html::figure(
            &svg,
            "The node diagram: packages hold their NUMA nodes; each node lists its CPUs, \
             memory and its row of the firmware's distance table (to node 0, 1, ...; \
             10 = local); memory-only (CPU-less) nodes have an orange outline.",
            &diagram::diagram_table(&packages),
        ));
    }
    if let Some(distances) = &t.distances {
        out.push_str("<h4>Distances</h4>");
        match distance_matrix(t) {
            Some(m) => out.push_str(&html::figure(
                &plot::heatmap(&m.rows, &m.columns, &m.values, "from node", "to node", ""),
                "The firmware's node distances (SLIT; 10 = local).",
                &matrix_table(&m),
            )),
            None => out.push_str(&json_table(&serde_json::json!(distances))),
        }
    }
    if !t.memory_attributes.is_empty() {
        out.push_str("<h4>HMAT memory attributes</h4>");
        out.push_str(&hmat::hmat_html(t, data));
        out.push_str(&format!(
            "<details><summary>every declared value ({})</summary>{}</details>",
            t.memory_attributes.len(),
            json_table(&serde_json::json!(t.memory_attributes))
        ));
    }
    if !t.memory_side_caches.is_empty() {
        out.push_str("<h4>Memory-side caches</h4>");
        out.push_str(&json_table(&serde_json::json!(t.memory_side_caches)));
    }
    out
}

/// The distance matrix of a `topo --json` document, labelled with the
/// nodes' indexes (None when it is not a square matrix).
pub fn distance_matrix(t: &Machine) -> Option<Matrix> {
    let rows = t.distances.as_ref()?;
    if rows.iter().any(|row| row.len() != rows.len()) {
        return None;
    }
    let values: Vec<Vec<Option<f64>>> = rows
        .iter()
        .map(|row| row.iter().map(|&d| Some(d as f64)).collect())
        .collect();
    let indexes: Vec<String> = match t.nodes.len() == values.len() {
        true => t
            .nodes
            .iter()
            .map(|n| format!("node {}", n.index))
            .collect(),
        false => (0..values.len()).map(|i| format!("node {i}")).collect(),
    };
    Some(Matrix {
        title: "distances".into(),
        unit: String::new(),
        rows: indexes.clone(),
        columns: indexes,
        values,
        inferred: Vec::new(),
        local: Vec::new(),
    })
}

/// A JSON value as a table: an array of objects one row each, a matrix
/// (array of arrays) as rows, anything else as its text.
pub fn json_table(value: &Value) -> String {
    match value {
        Value::Array(rows) if rows.iter().all(Value::is_object) && !rows.is_empty() => {
            let header: Vec<String> = rows[0]
                .as_object()
                .map(|o| o.keys().cloned().collect())
                .unwrap_or_default();
            let mut table = Table {
                header: header.clone(),
                ..Table::default()
            };
            for row in rows {
                table.push(
                    header
                        .iter()
                        .map(|k| row.get(k).map(short).unwrap_or_default())
                        .collect(),
                );
            }
            table.to_html()
        }
        Value::Object(map) => {
            let mut table = Table::new(&["field", "value"]);
            for (k, v) in map {
                table.push(vec![k.clone(), short(v)]);
            }
            table.to_html()
        }
        other => format!("<pre>{}</pre>", escape(&short(other))),
    }
}

fn short(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
