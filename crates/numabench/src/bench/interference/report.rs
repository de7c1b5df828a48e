//! interference's report section: for each load, a victim x aggressor
//! heatmap of how much longer the victim's loads took (%), and one of how
//! much its read bandwidth fell (%), built from the matrix records alone.

use crate::output::ReadRecord;
use crate::report::html::figure;
use crate::report::load::Dataset;
use crate::report::plot::heatmap;
use crate::report::sections::matrix::{matrix_table, Matrix};
use crate::report::sections::section;
use crate::report::Section;
use numabench_schema::benchmark;
use numabench_schema::params::InterferenceCellParams;

/// A matrix cell's params (what it lacks reads as `None`).
fn cell_params(r: &ReadRecord) -> InterferenceCellParams {
    r.params_or_default()
}

/// The victim x aggressor matrix of `metric`'s cells under `load`, as
/// percent: the latency increase, or the bandwidth loss.
pub fn degradation_matrix(data: &Dataset, metric: &str, load: &str) -> Option<Matrix> {
    let cells: Vec<(u64, u64, f64)> = cells_of(data, metric)
        .map(|r| (r, cell_params(r)))
        .filter(|(_, params)| params.load.as_deref() == Some(load))
        .filter_map(|(r, params)| {
            let percent = match metric {
                "latency_ratio" => (r.value - 1.0) * 100.0,
                _ => (1.0 - r.value) * 100.0,
            };
            Some((
                u64::from(params.victim_node?),
                u64::from(params.aggressor_node?),
                percent,
            ))
        })
        .collect();
    if cells.is_empty() {
        return None;
    }
    let axis = |pick: fn(&(u64, u64, f64)) -> u64| {
        let mut nodes: Vec<u64> = cells.iter().map(pick).collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    };
    let (victims, aggressors) = (axis(|cell| cell.0), axis(|cell| cell.1));
    let mut values = vec![vec![None; aggressors.len()]; victims.len()];
    for (victim, aggressor, percent) in cells {
        let row = victims.iter().position(|&node| node == victim)?;
        let column = aggressors.iter().position(|&node| node == aggressor)?;
        values[row][column] = Some(percent);
    }
    let label = |nodes: &[u64]| nodes.iter().map(|node| format!("node {node}")).collect();
    Some(Matrix {
        title: match metric {
            "latency_ratio" => format!("latency increase, aggressors' {load}"),
            _ => format!("read bandwidth loss, aggressors' {load}"),
        },
        unit: "%".into(),
        rows: label(&victims),
        columns: label(&aggressors),
        values,
        inferred: Vec::new(),
        local: Vec::new(),
    })
}

fn cells_of<'a>(data: &'a Dataset, metric: &'a str) -> impl Iterator<Item = &'a ReadRecord> {
    data.of(benchmark::INTERFERENCE)
        .filter(move |r| r.metric == metric)
}

/// The loads measured, in the order first seen.
fn loads(data: &Dataset) -> Vec<String> {
    let mut loads = Vec::new();
    for load in cells_of(data, "latency_ratio").filter_map(|r| cell_params(r).load) {
        if !loads.contains(&load) {
            loads.push(load);
        }
    }
    loads
}

pub fn build(data: &Dataset) -> Option<Section> {
    let mut body = String::new();
    for load in loads(data) {
        for (metric, caption) in [
            (
                "latency_ratio",
                "How much longer the victim's dependent loads took while the aggressor's threads loaded its node (median over rounds, %); rows are victims, columns aggressors.",
            ),
            (
                "bandwidth_ratio",
                "How much the victim's one-thread read bandwidth fell while the aggressor's threads loaded its node (median over rounds, %).",
            ),
        ] {
            if let Some(m) = degradation_matrix(data, metric, &load) {
                let svg = heatmap(&m.rows, &m.columns, &m.values, "victim", "aggressor", &m.unit);
                body.push_str(&format!("<h3>{}</h3>", m.title));
                body.push_str(&figure(&svg, caption, &matrix_table(&m)));
            }
        }
    }
    if body.is_empty() {
        return None;
    }
    Some(section("interference", "Interference between nodes", body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sections::tests::{lines, record};

    #[test]
    fn every_pair_is_a_cell_of_its_load() {
        let data = lines(&[
            record(
                "interference",
                "latency_ratio",
                1.5,
                "ratio",
                r#"{"victim_node":0,"aggressor_node":2,"load":"writes"}"#,
            ),
            record(
                "interference",
                "latency_ratio",
                1.1,
                "ratio",
                r#"{"victim_node":2,"aggressor_node":0,"load":"writes"}"#,
            ),
            record(
                "interference",
                "bandwidth_ratio",
                0.75,
                "ratio",
                r#"{"victim_node":0,"aggressor_node":2,"load":"writes"}"#,
            ),
        ]);
        let latency = degradation_matrix(&data, "latency_ratio", "writes").unwrap();
        assert_eq!(latency.rows, vec!["node 0", "node 2"]);
        assert_eq!(latency.values[0][1], Some(50.0));
        assert_eq!(latency.values[0][0], None);
        let bandwidth = degradation_matrix(&data, "bandwidth_ratio", "writes").unwrap();
        assert_eq!(bandwidth.values[0][0], Some(25.0));
        assert!(degradation_matrix(&data, "latency_ratio", "reads").is_none());
        let section = build(&data).unwrap();
        assert!(section
            .body
            .contains("latency increase, aggressors' writes"));
    }
}
