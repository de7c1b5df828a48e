//! Interference between nodes (`interference` records): the pair whose
//! traffic slowed another node's loads the most, and the one that cut its
//! read bandwidth the most, each only where the difference is significant
//! (Holm-adjusted Mann-Whitney p below 0.05, as the matrix recorded it).
//! Without such a pair, the largest change measured is said to be noise.

use super::figures::{figure, of, param_f64, param_str, param_u64};
use super::{FindingKind, Sentence};
use crate::output::{Record, Unit};
use crate::study::SIGNIFICANCE;
use numabench_schema::benchmark;
use numabench_schema::params::findings::InterferenceFindingParams;
use numabench_schema::params::to_params;

/// One cell of the matrix, read back from its record.
struct Cell<'a> {
    victim: u64,
    aggressor: u64,
    load: &'a str,
    ratio: f64,
    alone: f64,
    loaded: f64,
    p_value: f64,
    traffic: f64,
}

fn cells<'a>(records: &'a [Record], metric: &'a str, alone: &str, loaded: &str) -> Vec<Cell<'a>> {
    of(records, benchmark::INTERFERENCE, metric)
        .filter_map(|record| {
            Some(Cell {
                victim: param_u64(record, "victim_node")?,
                aggressor: param_u64(record, "aggressor_node")?,
                load: param_str(record, "load")?,
                ratio: record.value,
                alone: param_f64(record, alone)?,
                loaded: param_f64(record, loaded)?,
                p_value: param_f64(record, "p_value").unwrap_or(1.0),
                traffic: param_f64(record, "traffic_gbs").unwrap_or(0.0),
            })
        })
        .collect()
}

/// "node 2 loaded with writes (7.1 GB/s)".
fn aggressor_text(cell: &Cell) -> String {
    format!(
        "node {} is loaded with {} ({})",
        cell.aggressor,
        cell.load,
        figure(cell.traffic, "GB/s")
    )
}

pub(super) fn sentences(records: &[Record]) -> Vec<Sentence> {
    let latency = cells(records, "latency_ratio", "alone_ns", "loaded_ns");
    let bandwidth = cells(records, "bandwidth_ratio", "alone_gbs", "loaded_gbs");
    if latency.is_empty() && bandwidth.is_empty() {
        return Vec::new();
    }
    let worst_latency = latency
        .iter()
        .filter(|cell| cell.p_value < SIGNIFICANCE && cell.ratio > 1.0)
        .max_by(|a, b| a.ratio.total_cmp(&b.ratio));
    let worst_bandwidth = bandwidth
        .iter()
        .filter(|cell| cell.p_value < SIGNIFICANCE && cell.ratio < 1.0)
        .min_by(|a, b| a.ratio.total_cmp(&b.ratio));
    let mut params = InterferenceFindingParams {
        pairs: Some(latency.len().max(bandwidth.len()) as u64),
        ..Default::default()
    };
    let mut parts = Vec::new();
    if let Some(cell) = worst_latency {
        parts.push(format!(
            "node {}'s loads take {:.0}% longer ({} against {} alone) while {}",
            cell.victim,
            (cell.ratio - 1.0) * 100.0,
            figure(cell.loaded, "ns"),
            figure(cell.alone, "ns"),
            aggressor_text(cell)
        ));
        params.latency_victim_node = Some(cell.victim);
        params.latency_aggressor_node = Some(cell.aggressor);
        params.latency_load = Some(cell.load.to_string());
        params.latency_p_value = Some(cell.p_value);
    }
    if let Some(cell) = worst_bandwidth {
        parts.push(format!(
            "node {}'s read bandwidth falls {:.0}% ({} against {} alone) while {}",
            cell.victim,
            (1.0 - cell.ratio) * 100.0,
            figure(cell.loaded, "GB/s"),
            figure(cell.alone, "GB/s"),
            aggressor_text(cell)
        ));
        params.bandwidth_victim_node = Some(cell.victim);
        params.bandwidth_aggressor_node = Some(cell.aggressor);
        params.bandwidth_load = Some(cell.load.to_string());
        params.bandwidth_ratio = Some(cell.ratio);
        params.bandwidth_p_value = Some(cell.p_value);
    }
    let (text, value) = if parts.is_empty() {
        let largest = latency.iter().map(|cell| cell.ratio).fold(1.0, f64::max);
        (
            format!(
                "interference: no pair of the {} measured slowed a node measurably (largest latency change {:+.0}%, within the noise)",
                latency.len().max(bandwidth.len()),
                (largest - 1.0) * 100.0
            ),
            largest,
        )
    } else {
        (
            format!("interference, worst pair: {}", parts.join("; ")),
            worst_latency.map_or(1.0, |cell| cell.ratio),
        )
    };
    vec![Sentence {
        kind: FindingKind::Interference,
        text,
        value,
        unit: Unit::Ratio,
        params: to_params(&params),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Placement;
    use crate::stats::Sample;
    use serde_json::json;

    fn cell(metric: &str, victim: u32, aggressor: u32, load: &str, ratio: f64, p: f64) -> Record {
        let (alone, loaded) = match metric {
            "latency_ratio" => ("alone_ns", "loaded_ns"),
            _ => ("alone_gbs", "loaded_gbs"),
        };
        let params = json!({
            "victim_node": victim, "aggressor_node": aggressor, "load": load,
            alone: 100.0, loaded: 100.0 * ratio, "p_value": p, "traffic_gbs": 20.0,
        });
        Record::of_median(
            benchmark::INTERFERENCE,
            metric,
            Unit::Ratio,
            Sample::new([ratio]).unwrap().summary(),
            params.as_object().unwrap().clone(),
            Placement::default(),
        )
    }

    #[test]
    fn the_worst_significant_pair_is_named() {
        let records = vec![
            cell("latency_ratio", 0, 0, "reads", 1.2, 0.001),
            // Larger, but not significant: not named.
            cell("latency_ratio", 0, 1, "reads", 2.5, 0.3),
            cell("latency_ratio", 0, 2, "writes", 1.8, 0.002),
            cell("bandwidth_ratio", 0, 2, "writes", 0.6, 0.01),
            cell("bandwidth_ratio", 1, 2, "writes", 0.4, 0.01),
        ];
        let found = sentences(&records);
        assert_eq!(found.len(), 1);
        crate::findings::assert_wire(&found, &[
            "interference {\"pairs\":3,\"latency_victim_node\":0,\"latency_aggressor_node\":2,\"latency_load\":\"writes\",\"latency_p_value\":0.002,\"bandwidth_victim_node\":1,\"bandwidth_aggressor_node\":2,\"bandwidth_load\":\"writes\",\"bandwidth_ratio\":0.4,\"bandwidth_p_value\":0.01}",
        ]);
        let text = &found[0].text;
        assert!(
            text.contains("node 0's loads take 80% longer")
                && text.contains("node 2 is loaded with writes"),
            "{text}"
        );
        assert!(text.contains("node 1's read bandwidth falls 60%"), "{text}");
        assert_eq!(found[0].value, 1.8);
    }

    #[test]
    fn noise_names_no_pair() {
        let records = vec![
            cell("latency_ratio", 0, 0, "reads", 1.03, 0.4),
            cell("bandwidth_ratio", 0, 0, "reads", 0.98, 0.6),
        ];
        let found = sentences(&records);
        crate::findings::assert_wire(&found, &["interference {\"pairs\":1}"]);
        let text = &found[0].text;
        assert!(text.contains("no pair of the 1 measured"), "{text}");
        assert!(text.contains("+3%"), "{text}");
    }

    #[test]
    fn nothing_is_said_without_interference_records() {
        assert!(sentences(&[]).is_empty());
    }
}
