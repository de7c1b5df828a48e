//! Run metadata of every file and the topology summary (nodes, CPUs,
//! distances, HMAT attributes, memory-side caches) from `topo --json`.

use super::{hmat, section, Section};
use crate::report::diagram;
use crate::report::html::{self, escape, Table};
use crate::report::load::Dataset;
use crate::report::plot;
use crate::report::sections::matrix::{matrix_table, Matrix};
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
            let text = |key: &str| match m.get(key) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                    .collect::<Vec<_>>()
                    .join(" "),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            table.push(vec![
                file.clone(),
                format!("{} {}", text("tool"), text("version")),
                text("command_line"),
                text("host"),
                text("kernel"),
                text("cpu_model"),
                text("topology"),
                text("utc_time"),
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
pub fn topology_summary(file: &str, t: &Value, data: &Dataset) -> String {
    let count = |key: &str| t.get(key).and_then(Value::as_u64).unwrap_or(0);
    let mut out = format!(
        "<h3>Topology ({})</h3><p>{} CPU(s), {} core(s), {} NUMA node(s); source: {}</p>",
        escape(file),
        count("cpu_count"),
        count("core_count"),
        count("node_count"),
        escape(t.get("source").and_then(Value::as_str).unwrap_or("?"))
    );
    let mut nodes = Table::new(&["node", "CPUs", "memory", "package", "kind"]);
    for node in t
        .get("nodes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let cpus = node
            .get("cpus")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        nodes.push(vec![
            node.get("index").map(Value::to_string).unwrap_or_default(),
            if cpus == 0 {
                "none (CPU-less)".into()
            } else {
                cpu_list(node.get("cpus"))
            },
            node.get("memory_total_bytes")
                .and_then(Value::as_f64)
                .map(html::bytes)
                .unwrap_or_default(),
            node.get("package")
                .map(Value::to_string)
                .unwrap_or_default(),
            node.get("kind")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
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
    if let Some(distances) = t.get("distances").filter(|d| !d.is_null()) {
        out.push_str("<h4>Distances</h4>");
        match distance_matrix(t) {
            Some(m) => out.push_str(&html::figure(
                &plot::heatmap(&m.rows, &m.columns, &m.values, "from node", "to node", ""),
                "The firmware's node distances (SLIT; 10 = local).",
                &matrix_table(&m),
            )),
            None => out.push_str(&json_table(distances)),
        }
    }
    for key in ["memory_attributes", "memory_side_caches"] {
        if let Some(items) = t
            .get(key)
            .and_then(Value::as_array)
            .filter(|a| !a.is_empty())
        {
            if key == "memory_attributes" {
                out.push_str("<h4>HMAT memory attributes</h4>");
                out.push_str(&hmat::hmat_html(t, data));
                out.push_str(&format!(
                    "<details><summary>every declared value ({})</summary>{}</details>",
                    items.len(),
                    json_table(&Value::Array(items.clone()))
                ));
            } else {
                out.push_str("<h4>Memory-side caches</h4>");
                out.push_str(&json_table(&Value::Array(items.clone())));
            }
        }
    }
    out
}

/// The distance matrix of a `topo --json` document, labelled with the
/// nodes' indexes (None when it is not a square matrix of numbers).
pub fn distance_matrix(t: &Value) -> Option<Matrix> {
    let rows = t.get("distances")?.as_array()?;
    let values: Vec<Vec<Option<f64>>> = rows
        .iter()
        .map(|row| {
            row.as_array()
                .map(|r| r.iter().map(Value::as_f64).collect())
        })
        .collect::<Option<_>>()?;
    if values.iter().any(|row| row.len() != values.len()) {
        return None;
    }
    let indexes: Vec<String> = t
        .get("nodes")
        .and_then(Value::as_array)
        .filter(|nodes| nodes.len() == values.len())
        .map(|nodes| {
            nodes
                .iter()
                .map(|n| {
                    format!(
                        "node {}",
                        n.get("index").map(Value::to_string).unwrap_or_default()
                    )
                })
                .collect()
        })
        .unwrap_or_else(|| (0..values.len()).map(|i| format!("node {i}")).collect());
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

fn cpu_list(value: Option<&Value>) -> String {
    value
        .and_then(Value::as_array)
        .map(|cpus| {
            cpus.iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default()
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
