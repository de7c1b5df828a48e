//! c2c's report section: cache-to-cache latency as a CPU x CPU heatmap,
//! built from the records alone.

use crate::report::html::figure;
use crate::report::load::Dataset;
use crate::report::plot::heatmap;
use crate::report::sections::matrix::{matrix_table, Matrix};
use crate::report::sections::section;
use crate::report::Section;
use numabench_schema::benchmark;
use numabench_schema::params::C2cParams;

/// The CPU x CPU matrix of c2c latencies (both directions filled from each
/// pair; a pair measured twice keeps the last).
pub fn c2c_matrix(data: &Dataset) -> Option<Matrix> {
    let pairs: Vec<(u64, u64, f64)> = data
        .of(benchmark::C2C)
        .filter(|r| r.metric == "c2c_latency")
        .filter_map(|r| {
            let params: C2cParams = r.params_or_default();
            Some((u64::from(params.cpu_a?), u64::from(params.cpu_b?), r.value))
        })
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let mut cpus: Vec<u64> = pairs.iter().flat_map(|p| [p.0, p.1]).collect();
    cpus.sort_unstable();
    cpus.dedup();
    let index = |cpu: u64| cpus.iter().position(|&c| c == cpu).unwrap_or(0);
    let mut values = vec![vec![None; cpus.len()]; cpus.len()];
    for (a, b, v) in pairs {
        values[index(a)][index(b)] = Some(v);
        values[index(b)][index(a)] = Some(v);
    }
    let labels: Vec<String> = cpus.iter().map(|c| format!("CPU {c}")).collect();
    Some(Matrix {
        title: "c2c latency".into(),
        unit: "ns".into(),
        rows: labels.clone(),
        columns: labels,
        values,
        inferred: Vec::new(),
        local: Vec::new(),
    })
}

pub fn build(data: &Dataset) -> Option<Section> {
    let m = c2c_matrix(data)?;
    let svg = heatmap(&m.rows, &m.columns, &m.values, "CPU", "CPU", &m.unit);
    Some(section(
        "c2c",
        "Cache-to-cache latency",
        figure(
            &svg,
            "One-way transfer of a modified cache line between two CPUs (median, ns); '-' not measured.",
            &matrix_table(&m),
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sections::tests::{lines, record};

    #[test]
    fn c2c_matrix_is_symmetric() {
        let data = lines(&[
            record("c2c", "c2c_latency", 50.0, "ns", r#"{"cpu_a":0,"cpu_b":1}"#),
            record(
                "c2c",
                "c2c_latency",
                120.0,
                "ns",
                r#"{"cpu_a":0,"cpu_b":4}"#,
            ),
        ]);
        let m = c2c_matrix(&data).unwrap();
        assert_eq!(m.rows, vec!["CPU 0", "CPU 1", "CPU 4"]);
        assert_eq!(m.values[0][2], Some(120.0));
        assert_eq!(m.values[2][0], Some(120.0));
        assert_eq!(m.values[1][2], None);
    }
}
