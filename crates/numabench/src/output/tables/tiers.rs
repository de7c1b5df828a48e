//! `tiers advise`: per socket, the sweep (GB/s of every weighting and mix
//! with all the socket's threads, the median over rounds), then the advice
//! (the fastest ratio per mix and thread count with its gains), then the
//! measured weights and the lines that apply them.

use super::cells::distinct;
use super::TableModel;
use crate::output::Record;
use crate::units::format_value;
use numabench_schema::params::{
    NodeWeights, TiersAdviceParams, TiersComparison, TiersParams, TiersWeightsCheckParams,
    TIERS_ADVICE_SUFFIX, TIERS_WEIGHTS_CHECK_SUFFIX,
};

/// The socket a record of any kind is about.
fn socket_of(record: &Record) -> Option<u32> {
    match record.metric.as_str() {
        TIERS_ADVICE_SUFFIX => {
            record
                .params_or_default::<TiersAdviceParams>()
                .socket
                .socket
        }
        TIERS_WEIGHTS_CHECK_SUFFIX => record.params_or_default::<TiersWeightsCheckParams>().socket,
        _ => {
            record
                .params_or_default::<TiersParams>()
                .labels
                .socket
                .socket
        }
    }
}

/// One table of the sweep and one of the advice per socket.
pub fn tables(records: &[&Record]) -> Vec<TableModel> {
    let sockets = distinct(records.iter().filter_map(|record| socket_of(record)));
    let mut tables = Vec::new();
    for socket in sockets {
        let of_socket: Vec<&Record> = records
            .iter()
            .copied()
            .filter(|record| socket_of(record) == Some(socket))
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
fn sweep(socket: u32, records: &[&Record]) -> Option<TableModel> {
    let measured: Vec<(&Record, TiersParams)> = records
        .iter()
        .map(|record| (*record, record.params_or_default::<TiersParams>()))
        .filter(|(_, params)| params.labels.phase.as_deref() == Some("sweep"))
        .collect();
    let threads = measured
        .iter()
        .filter_map(|(_, params)| params.bandwidth.threads)
        .max()?;
    let at_most: Vec<&(&Record, TiersParams)> = measured
        .iter()
        .filter(|(_, params)| params.bandwidth.threads == Some(threads))
        .collect();
    let mixes = distinct(
        at_most
            .iter()
            .filter_map(|(_, params)| params.bandwidth.kernel.clone()),
    );
    let weightings = distinct(
        at_most
            .iter()
            .filter_map(|(_, params)| params.labels.weights.clone()),
    );
    let first = &at_most.first()?.1.labels.socket;
    let nodes = |nodes: &Option<Vec<u32>>| {
        nodes
            .iter()
            .flatten()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut header = vec!["DRAM:tier".to_string()];
    header.extend(mixes.iter().cloned());
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = TableModel::new(
        format!(
            "Socket {socket}: GB/s with {threads} thread(s), DRAM node {} and tier node(s) {} (median over rounds)",
            nodes(&first.dram_nodes),
            nodes(&first.tier_nodes)
        ),
        &header,
    );
    for weights in &weightings {
        let mut row = vec![weights.clone()];
        for mix in &mixes {
            let values: Vec<f64> = at_most
                .iter()
                .filter(|(_, params)| params.labels.weights.as_ref() == Some(weights))
                .filter(|(_, params)| params.bandwidth.kernel.as_ref() == Some(mix))
                .map(|(record, _)| record.value)
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
fn gain(compared: &Option<TiersComparison>) -> String {
    let Some(compared) = compared else {
        return "-".into();
    };
    let every = compared.every_round == Some(true);
    match (compared.gain, compared.p) {
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

fn advice(socket: u32, records: &[&Record]) -> Option<TableModel> {
    let advice: Vec<(&Record, TiersAdviceParams)> = records
        .iter()
        .filter(|record| record.metric == TIERS_ADVICE_SUFFIX)
        .map(|record| (*record, record.params_or_default()))
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
    for (record, params) in &advice {
        table.push(vec![
            params.kernel.clone().unwrap_or_default(),
            params.threads.map_or("-".into(), |t| t.to_string()),
            params.best_weights.clone().unwrap_or_default(),
            format_value(record.value),
            gain(&params.vs_dram_only),
            gain(&params.vs_interleave),
            gain(&params.vs_kernel_weights),
        ]);
    }
    table.note("gain of the best ratio's median over the other's; p: Mann-Whitney over every round's repetitions; *: faster in every round");
    let weights_text = |weights: &NodeWeights| {
        weights
            .iter()
            .map(|(node, weight)| format!("node {node}: {weight}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some((_, with_weights)) = advice
        .iter()
        .find(|(_, params)| params.measured_weights.is_some())
    {
        let mut line = format!(
            "weights from measured bandwidth (read, {} threads): {}",
            with_weights.threads.unwrap_or(0),
            with_weights
                .measured_weights
                .as_ref()
                .map(weights_text)
                .unwrap_or_default()
        );
        if let Some(kernel) = &with_weights.kernel_weights {
            line.push_str(&format!("; the kernel's: {}", weights_text(kernel)));
        }
        table.note(line);
        if let Some(auto) = &with_weights.auto.auto_weights {
            table.note(format!(
                "weights auto mode writes (from the {}): {}",
                with_weights.auto.auto_source.clone().unwrap_or_default(),
                weights_text(auto)
            ));
        }
        if let Some(check) = records
            .iter()
            .find(|r| r.metric == TIERS_WEIGHTS_CHECK_SUFFIX)
        {
            let params: TiersWeightsCheckParams = check.params_or_default();
            for (compared, whose) in [
                (params.vs_kernel_weights, "the kernel's"),
                (params.vs_auto_weights, "auto mode's"),
            ] {
                let Some(compared) = compared else {
                    continue;
                };
                let gain = compared.gain.unwrap_or(0.0);
                let p = compared.p;
                table.note(format!(
                    "measured weights against {whose}, read: {} GB/s, {:+.1}% (p={})",
                    format_value(check.value),
                    gain * 100.0,
                    p.map_or("-".into(), |p| format!("{p:.3}"))
                ));
            }
        }
        if let Some(lines) = &with_weights.apply {
            table.note("apply (the kernel holds one vector for every socket):");
            for line in lines {
                table.note(format!("  {line}"));
            }
        }
    }
    Some(table)
}
