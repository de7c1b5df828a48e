//! `tiers advise`: per socket, the sweep (GB/s of every weighting and mix
//! with all the socket's threads, the median over rounds), then the advice
//! (the fastest ratio per mix and thread count with its gains), then the
//! measured weights and the lines that apply them.

use super::cells::{distinct, text_param, u64_param};
use super::TableModel;
use crate::output::Record;
use crate::units::format_value;
use serde_json::Value;

/// One table of the sweep and one of the advice per socket.
pub fn tables(records: &[&Record]) -> Vec<TableModel> {
    let sockets = distinct(
        records
            .iter()
            .filter_map(|record| u64_param(record, "socket")),
    );
    let mut tables = Vec::new();
    for socket in sockets {
        let of_socket: Vec<&Record> = records
            .iter()
            .copied()
            .filter(|record| u64_param(record, "socket") == Some(socket))
            .collect();
        if let Some(sweep) = sweep(socket, &of_socket) {
            tables.push(sweep);
        }
        if let Some(advice) = advice(socket, &of_socket) {
            tables.push(advice);
        }
    }
    tables
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(values[n / 2]),
        _ => Some((values[n / 2 - 1] + values[n / 2]) / 2.0),
    }
}

/// Weightings down, mixes across, with the most threads measured.
fn sweep(socket: u64, records: &[&Record]) -> Option<TableModel> {
    let measured: Vec<&Record> = records
        .iter()
        .copied()
        .filter(|record| text_param(record, "phase").as_deref() == Some("sweep"))
        .collect();
    let threads = measured
        .iter()
        .filter_map(|r| u64_param(r, "threads"))
        .max()?;
    let at_most: Vec<&Record> = measured
        .iter()
        .copied()
        .filter(|record| u64_param(record, "threads") == Some(threads))
        .collect();
    let mixes = distinct(at_most.iter().filter_map(|r| text_param(r, "kernel")));
    let weightings = distinct(at_most.iter().filter_map(|r| text_param(r, "weights")));
    let first = at_most.first()?;
    let nodes = |key: &str| {
        first
            .params
            .get(key)
            .and_then(Value::as_array)
            .map(|nodes| {
                nodes
                    .iter()
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .unwrap_or_default()
    };
    let mut header = vec!["DRAM:tier".to_string()];
    header.extend(mixes.iter().cloned());
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = TableModel::new(
        format!(
            "Socket {socket}: GB/s with {threads} thread(s), DRAM node {} and tier node(s) {} (median over rounds)",
            nodes("dram_nodes"),
            nodes("tier_nodes")
        ),
        &header,
    );
    for weights in &weightings {
        let mut row = vec![weights.clone()];
        for mix in &mixes {
            let values: Vec<f64> = at_most
                .iter()
                .filter(|r| text_param(r, "weights").as_ref() == Some(weights))
                .filter(|r| text_param(r, "kernel").as_ref() == Some(mix))
                .map(|r| r.value)
                .collect();
            row.push(median(values).map_or("-".into(), format_value));
        }
        table.push(row);
    }
    table.note(format!(
        "{} measurement(s) of this socket in the records (every thread count; --json)",
        measured.len()
    ));
    Some(table)
}

/// `+24% p=0.001` (`*` where it won every round).
fn gain(record: &Record, key: &str) -> String {
    let Some(compared) = record.params.get(key) else {
        return "-".into();
    };
    let gain = compared.get("gain").and_then(Value::as_f64);
    let p = compared.get("p").and_then(Value::as_f64);
    let every = compared.get("every_round").and_then(Value::as_bool) == Some(true);
    match (gain, p) {
        (Some(gain), Some(p)) => format!(
            "{:+.1}% p={}{}",
            gain * 100.0,
            if p < 0.001 {
                "<0.001".into()
            } else {
                format!("{p:.3}")
            },
            if every { "*" } else { "" }
        ),
        _ => "-".into(),
    }
}

fn advice(socket: u64, records: &[&Record]) -> Option<TableModel> {
    let advice: Vec<&Record> = records
        .iter()
        .copied()
        .filter(|record| record.metric == "advice")
        .collect();
    if advice.is_empty() {
        return None;
    }
    let mut table = TableModel::new(
        format!("Socket {socket}: the fastest ratio per mix and thread count"),
        &[
            "mix",
            "threads",
            "best",
            "GB/s",
            "vs DRAM only",
            "vs 1:1",
            "vs kernel's",
        ],
    );
    for record in &advice {
        table.push(vec![
            text_param(record, "kernel").unwrap_or_default(),
            u64_param(record, "threads").map_or("-".into(), |t| t.to_string()),
            text_param(record, "best_weights").unwrap_or_default(),
            format_value(record.value),
            gain(record, "vs_dram_only"),
            gain(record, "vs_interleave"),
            gain(record, "vs_kernel_weights"),
        ]);
    }
    table.note("gain of the best ratio's median over the other's; p: Mann-Whitney over every round's repetitions; *: faster in every round");
    let weights_text = |value: &Value| {
        value
            .as_object()
            .map(|pairs| {
                pairs
                    .iter()
                    .map(|(node, weight)| format!("node {node}: {weight}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
    };
    if let Some(with_weights) = advice
        .iter()
        .find(|r| r.params.contains_key("measured_weights"))
    {
        let mut line = format!(
            "weights from measured bandwidth (read, {} threads): {}",
            u64_param(with_weights, "threads").unwrap_or(0),
            weights_text(&with_weights.params["measured_weights"])
        );
        if let Some(kernel) = with_weights.params.get("kernel_weights") {
            line.push_str(&format!("; the kernel's: {}", weights_text(kernel)));
        }
        table.note(line);
        if let Some(auto) = with_weights.params.get("auto_weights") {
            table.note(format!(
                "weights auto mode writes (from the {}): {}",
                text_param(with_weights, "auto_source").unwrap_or_default(),
                weights_text(auto)
            ));
        }
        if let Some(check) = records.iter().find(|r| r.metric == "weights_check") {
            for (key, whose) in [
                ("vs_kernel_weights", "the kernel's"),
                ("vs_auto_weights", "auto mode's"),
            ] {
                let Some(compared) = check.params.get(key) else {
                    continue;
                };
                let gain = compared.get("gain").and_then(Value::as_f64).unwrap_or(0.0);
                let p = compared.get("p").and_then(Value::as_f64);
                table.note(format!(
                    "measured weights against {whose}, read: {} GB/s, {:+.1}% (p={})",
                    format_value(check.value),
                    gain * 100.0,
                    p.map_or("-".into(), |p| format!("{p:.3}"))
                ));
            }
        }
        if let Some(lines) = with_weights.params.get("apply").and_then(Value::as_array) {
            table.note("apply (the kernel holds one vector for every socket):");
            for line in lines.iter().filter_map(Value::as_str) {
                table.note(format!("  {line}"));
            }
        }
    }
    Some(table)
}
