//! The advice: for each socket, mix and thread count, the ratio that read
//! or wrote fastest, its gain over DRAM only, over plain interleave (1:1)
//! and over the kernel's own weights, each with a Mann-Whitney p-value
//! over the pooled repetitions of every round and whether it won in every
//! round; then the weight vector measured bandwidth suggests for each
//! socket, and the lines that apply it.

use super::config::{TierSocket, TiersConfig, Weights};
use crate::memory::weighted;
use crate::output::{Placement, Record, Unit};
use crate::stats::Sample;
use crate::study::Comparison;
use numabench_schema::benchmark;
use numabench_schema::params::{
    to_params, AutoWeights, TierSocketParams, TiersAdviceParams, TiersComparison,
    TiersWeightsCheckParams,
};
use std::collections::BTreeMap;

/// One configuration: socket, mix, threads and weighting.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub socket: u32,
    pub kernel: &'static str,
    pub threads: usize,
    /// [`Weights::label`], `check ` before it in the second phase.
    pub weights: String,
}

/// Every configuration's repetitions, by round.
#[derive(Debug, Clone, Default)]
pub struct Points {
    by_key: BTreeMap<Key, Vec<(usize, Vec<f64>)>>,
}

impl Points {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, key: Key, round: usize, samples: Vec<f64>) {
        self.by_key.entry(key).or_default().push((round, samples));
    }

    /// Every repetition of `key`, all rounds pooled.
    fn pooled(&self, key: &Key) -> Option<Sample> {
        let values: Vec<f64> = self
            .by_key
            .get(key)?
            .iter()
            .flat_map(|(_, samples)| samples.iter().copied())
            .collect();
        Sample::new(values).ok()
    }

    /// Each round's median of `key`.
    fn round_medians(&self, key: &Key) -> BTreeMap<usize, f64> {
        self.by_key
            .get(key)
            .into_iter()
            .flatten()
            .filter_map(|(round, samples)| {
                Some((
                    *round,
                    Sample::new(samples.iter().copied()).ok()?.summary().median,
                ))
            })
            .collect()
    }

    fn median(&self, key: &Key) -> Option<f64> {
        Some(self.pooled(key)?.summary().median)
    }
}

/// How `best` compares with `base`: gain of the medians, the rank test's
/// p-value, and whether `best` won every round both were measured in.
fn compare(points: &Points, best: &Key, base: &Key) -> Option<TiersComparison> {
    let (best_sample, base_sample) = (points.pooled(best)?, points.pooled(base)?);
    let base_median = base_sample.summary().median;
    let compared = Comparison::between(&best_sample, &base_sample);
    let best_rounds = points.round_medians(best);
    let base_rounds = points.round_medians(base);
    let every_round = base_rounds
        .iter()
        .all(|(round, base)| best_rounds.get(round).is_some_and(|best| best > base));
    Some(TiersComparison {
        gbs: Some(base_median),
        gain: Some(compared.ratio - 1.0),
        p: Some(compared.p_value),
        every_round: Some(every_round),
    })
}

/// The weights measured bandwidth suggests for `socket`: each node's
/// share of what it reads alone (DRAM only, the tier only, split evenly
/// over the tier's nodes), with all the socket's threads, the `read` mix
/// (else the first), scaled to at most 10 and reduced; `None` before both
/// were measured.
pub fn measured_weights(
    points: &Points,
    socket: &TierSocket,
    config: &TiersConfig,
) -> Option<Vec<(u32, u32)>> {
    let kernel = config
        .kernels
        .iter()
        .find(|kernel| kernel.name == "read")
        .or(config.kernels.first())?
        .name;
    let threads = *config.thread_counts(socket).last()?;
    let key = |weights: &str| Key {
        socket: socket.node,
        kernel,
        threads,
        weights: weights.into(),
    };
    let dram = points.median(&key("1:0"))? / socket.dram.len() as f64;
    let tier = points.median(&key("0:1"))? / socket.tier.len() as f64;
    let best = dram.max(tier);
    let weight = |gbs: f64| ((10.0 * gbs / best).round() as u32).max(1);
    let pairs = socket
        .dram
        .iter()
        .map(|&node| (node, weight(dram)))
        .chain(socket.tier.iter().map(|&node| (node, weight(tier))))
        .collect();
    Some(super::config::reduce(pairs))
}

/// The lines that apply `weights` (one vector: the kernel holds one for
/// every socket).
pub fn apply_lines(weights: &[(u32, u32)]) -> Vec<String> {
    let mut lines: Vec<String> = weights
        .iter()
        .map(|(node, weight)| {
            format!(
                "echo {weight} | sudo tee {}/node{node}",
                weighted::WEIGHTS_DIR
            )
        })
        .collect();
    let nodes: Vec<String> = weights.iter().map(|(node, _)| node.to_string()).collect();
    let pairs: Vec<String> = weights.iter().map(|(n, w)| format!("{n}={w}")).collect();
    lines.push(format!(
        "numactl --weighted-interleave={} ./app   # numactl 2.0.19 or later, with the weights above",
        nodes.join(",")
    ));
    lines.push(format!(
        "sudo numabench run --set-weights --policy weighted:{} -- ./app",
        pairs.join(",")
    ));
    lines
}

/// The advice records: one `advice` per socket, mix and thread count, and
/// one `weights_check` per socket whose suggested weights were measured
/// against the kernel's.
pub fn advice_records(points: &Points, config: &TiersConfig) -> Vec<Record> {
    let mut records = Vec::new();
    let kernel_held = weighted::kernel_weights();
    for socket in &config.sockets {
        let suggested = measured_weights(points, socket, config);
        let nodes: Vec<u32> = socket.dram.iter().chain(&socket.tier).copied().collect();
        let held = kernel_held
            .as_ref()
            .and_then(|held| weighted::kernel_weights_of(&nodes, held));
        let all_threads = config.thread_counts(socket).last().copied();
        for kernel in &config.kernels {
            for threads in config.thread_counts(socket) {
                let key = |weights: String| Key {
                    socket: socket.node,
                    kernel: kernel.name,
                    threads,
                    weights,
                };
                let Some((best_weights, best)) = config
                    .ratios
                    .iter()
                    .map(|&(d, t)| Weights::Ratio(d, t))
                    .filter_map(|weights| {
                        Some((weights.clone(), points.median(&key(weights.label()))?))
                    })
                    .max_by(|a, b| a.1.total_cmp(&b.1))
                else {
                    continue;
                };
                let best_key = key(best_weights.label());
                let Some(sample) = points.pooled(&best_key) else {
                    continue;
                };
                let base = |weights: &str| compare(points, &best_key, &key(weights.into()));
                let measured = (Some(threads) == all_threads && kernel.name == "read")
                    .then_some(suggested.as_ref())
                    .flatten();
                let params = to_params(&TiersAdviceParams {
                    socket: socket_params(socket),
                    tier_source: Some(socket.tier_source.to_string()),
                    kernel: Some(kernel.name.to_string()),
                    threads: Some(threads as u64),
                    size_bytes: Some(config.size),
                    rounds: Some(config.rounds as u64),
                    best_weights: Some(best_weights.label()),
                    best_policy: Some(best_weights.policy(socket).label()),
                    vs_dram_only: base("1:0"),
                    vs_interleave: base("1:1"),
                    vs_kernel_weights: base("kernel"),
                    kernel_weights: held.as_ref().map(|held| pairs_json(&nodes, held)),
                    auto: auto_weights(config, socket),
                    measured_weights: measured.map(|suggested| pairs_map(suggested)),
                    apply: measured.map(|suggested| apply_lines(suggested)),
                });
                debug_assert_eq!(sample.summary().median, best);
                records.push(Record::of_median(
                    benchmark::TIERS,
                    "advice",
                    Unit::GigabytesPerSecond,
                    sample.summary(),
                    params,
                    Placement::default(),
                ));
            }
        }
        // The suggested weights against the kernel's, measured.
        let (Some(suggested), Some(threads)) = (&suggested, all_threads) else {
            continue;
        };
        let check = |weights: &Weights| Key {
            socket: socket.node,
            kernel: "read",
            threads,
            weights: format!("check {}", weights.label()),
        };
        let measured_key = check(&Weights::Nodes(suggested.clone()));
        let Some(sample) = points.pooled(&measured_key) else {
            continue;
        };
        let params = to_params(&TiersWeightsCheckParams {
            socket: Some(socket.node),
            kernel: Some("read".into()),
            threads: Some(threads as u64),
            measured_weights: Some(pairs_map(suggested)),
            kernel_weights: held.as_ref().map(|held| pairs_json(&nodes, held)),
            vs_kernel_weights: compare(points, &measured_key, &check(&Weights::Kernel)),
            auto: auto_weights(config, socket),
            vs_auto_weights: config
                .auto_weights_of(socket)
                .and_then(|auto| compare(points, &measured_key, &check(&Weights::Auto(auto)))),
        });
        records.push(Record::of_median(
            benchmark::TIERS,
            "weights_check",
            Unit::GigabytesPerSecond,
            sample.summary(),
            params,
            Placement::default(),
        ));
    }
    records
}

/// A socket's nodes, as its records name them.
pub(super) fn socket_params(socket: &TierSocket) -> TierSocketParams {
    TierSocketParams {
        socket: Some(socket.node),
        dram_nodes: Some(socket.dram.clone()),
        tier_nodes: Some(socket.tier.clone()),
    }
}

/// `auto_weights` (`{"node": weight}` over the socket's nodes, as the
/// kernel's `auto` mode writes them) and `auto_source`, where known.
fn auto_weights(config: &TiersConfig, socket: &TierSocket) -> AutoWeights {
    match (config.auto_weights_of(socket), &config.auto_weights) {
        (Some(auto), Some((_, source))) => AutoWeights {
            auto_weights: Some(pairs_map(&auto)),
            auto_source: Some(source.to_string()),
        },
        _ => AutoWeights::default(),
    }
}

fn pairs_map(pairs: &[(u32, u32)]) -> BTreeMap<String, u32> {
    pairs
        .iter()
        .map(|(node, weight)| (node.to_string(), *weight))
        .collect()
}

fn pairs_json(nodes: &[u32], weights: &[u32]) -> BTreeMap<String, u32> {
    nodes
        .iter()
        .zip(weights)
        .map(|(node, weight)| (node.to_string(), *weight))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::config::{ThreadCount, DEFAULT_RATIOS};
    use super::*;
    use crate::kernels::kernel_by_name;
    use serde_json::json;

    fn config() -> TiersConfig {
        TiersConfig {
            sockets: vec![TierSocket {
                node: 0,
                cpus: vec![0, 1],
                dram: vec![0],
                tier: vec![2],
                tier_source: "given",
            }],
            ratios: DEFAULT_RATIOS.to_vec(),
            kernels: vec![kernel_by_name("read").unwrap()],
            threads: vec![ThreadCount::All],
            size: 1 << 20,
            rounds: 3,
            kernel_weights: false,
            auto_weights: None,
        }
    }

    /// A planted machine: DRAM reads 20 GB/s, the tier 8; 3:1 is best at
    /// 24 GB/s (more than DRAM alone: both sides' channels read), 1:1
    /// 16. The advice names 3:1 with its gains and the suggested weights
    /// 5:2 from the two alone.
    #[test]
    fn the_best_ratio_is_named_with_its_gains_and_the_measured_weights() {
        let config = config();
        let mut points = Points::new();
        let speed = |label: &str| match label {
            "1:0" => 20.0,
            "0:1" => 8.0,
            "3:1" => 24.0,
            "4:1" => 23.0,
            "2:1" => 22.0,
            "1:1" => 16.0,
            _ => 12.0,
        };
        for round in 0..3 {
            for &(d, t) in &config.ratios {
                let label = Weights::Ratio(d, t).label();
                let base = speed(&label);
                let key = Key {
                    socket: 0,
                    kernel: "read",
                    threads: 2,
                    weights: label,
                };
                points.add(key, round, vec![base * 0.99, base, base * 1.01]);
            }
        }
        let records = advice_records(&points, &config);
        assert_eq!(records.len(), 1, "{records:#?}");
        let advice = &records[0];
        assert_eq!(advice.metric, "advice");
        assert_eq!(advice.value, 24.0);
        assert_eq!(advice.params["best_weights"], "3:1");
        assert_eq!(advice.params["best_policy"], "weighted:0=3,2=1");
        let dram = &advice.params["vs_dram_only"];
        assert!(
            (dram["gain"].as_f64().unwrap() - 0.2).abs() < 1e-9,
            "{dram}"
        );
        assert!(dram["p"].as_f64().unwrap() < 0.001, "{dram}");
        assert_eq!(dram["every_round"], true);
        let interleave = &advice.params["vs_interleave"];
        assert!((interleave["gain"].as_f64().unwrap() - 0.5).abs() < 1e-9);
        assert_eq!(advice.params["measured_weights"], json!({"0": 5, "2": 2}));
        let apply: Vec<String> = serde_json::from_value(advice.params["apply"].clone()).unwrap();
        assert!(apply[0].ends_with("weighted_interleave/node0"), "{apply:?}");
        assert!(apply
            .iter()
            .any(|line| line.starts_with("numactl --weighted-interleave=0,2")));
        assert!(apply
            .iter()
            .any(|line| line.contains("--policy weighted:0=5,2=2")));
        // The keys in the order every version wrote them (the kernel's
        // weights are this host's, where it has them).
        let keys: Vec<&str> = advice
            .params
            .keys()
            .map(String::as_str)
            .filter(|key| *key != "kernel_weights")
            .collect();
        assert_eq!(
            keys,
            [
                "socket",
                "dram_nodes",
                "tier_nodes",
                "tier_source",
                "kernel",
                "threads",
                "size_bytes",
                "rounds",
                "best_weights",
                "best_policy",
                "vs_dram_only",
                "vs_interleave",
                "measured_weights",
                "apply"
            ]
        );
        let compared: Vec<&str> = dram
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(compared, ["gbs", "gain", "p", "every_round"]);
    }
}
