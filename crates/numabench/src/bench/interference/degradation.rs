//! The degradation matrix: for each pair and load, how much slower the
//! victim's loads and how much lower its read bandwidth were under load
//! than alone, from the repetitions of every round pooled (alone and
//! loaded were measured in the same rounds, in a rotated order), with a
//! Mann-Whitney test of each, Holm-adjusted over the whole matrix.

use crate::stats::Sample;
use crate::study::{holm, Comparison};
use std::collections::BTreeMap;

/// The samples of one configuration, every round's repetitions pooled.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pooled {
    pub latency_ns: Vec<f64>,
    pub bandwidth_gbs: Vec<f64>,
    pub traffic_gbs: Vec<f64>,
}

impl Pooled {
    pub fn add(&mut self, latency: &[f64], bandwidth: &[f64], traffic: f64) {
        self.latency_ns.extend_from_slice(latency);
        self.bandwidth_gbs.extend_from_slice(bandwidth);
        self.traffic_gbs.push(traffic);
    }
}

/// Everything measured: each victim alone, each (pair, load) loaded.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    pub alone: BTreeMap<usize, Pooled>,
    pub loaded: BTreeMap<(usize, usize), Pooled>,
}

/// One cell of the matrix: a victim under one aggressor's load.
#[derive(Debug, Clone, PartialEq)]
pub struct Degradation {
    pub victim_node: u32,
    pub aggressor_node: u32,
    /// The load's name (`reads`, `writes`, ...).
    pub load: String,
    pub latency_alone_ns: f64,
    pub latency_loaded_ns: f64,
    /// (loaded / alone - 1) x 100.
    pub latency_increase_pct: f64,
    /// Holm-adjusted p of the latency difference.
    pub latency_p: f64,
    pub bandwidth_alone_gbs: f64,
    pub bandwidth_loaded_gbs: f64,
    /// (1 - loaded / alone) x 100.
    pub bandwidth_loss_pct: f64,
    /// Holm-adjusted p of the bandwidth difference.
    pub bandwidth_p: f64,
    /// The aggressors' traffic during the loaded measurements, GB/s (median).
    pub traffic_gbs: f64,
}

/// What a cell needs to know of its pair.
#[derive(Debug, Clone, Copy)]
pub struct Cell<'a> {
    pub pair: usize,
    pub victim: usize,
    pub victim_node: u32,
    pub aggressor_node: u32,
    pub load: usize,
    pub load_name: &'a str,
}

fn median(values: &[f64]) -> f64 {
    Sample::new(values.iter().copied()).map_or(f64::NAN, |sample| sample.median())
}

/// The matrix, one [`Degradation`] per cell measured alone and loaded.
pub fn degradations(measured: &Measured, cells: &[Cell]) -> Vec<Degradation> {
    let mut found = Vec::new();
    let mut p_values = Vec::new();
    for cell in cells {
        let (Some(alone), Some(loaded)) = (
            measured.alone.get(&cell.victim),
            measured.loaded.get(&(cell.pair, cell.load)),
        ) else {
            continue;
        };
        let compare = |first: &[f64], second: &[f64]| match (
            Sample::new(first.iter().copied()),
            Sample::new(second.iter().copied()),
        ) {
            (Ok(first), Ok(second)) => Comparison::between(&first, &second).p_value,
            _ => 1.0,
        };
        p_values.push(compare(&alone.latency_ns, &loaded.latency_ns));
        p_values.push(compare(&alone.bandwidth_gbs, &loaded.bandwidth_gbs));
        let (latency_alone, latency_loaded) =
            (median(&alone.latency_ns), median(&loaded.latency_ns));
        let (bandwidth_alone, bandwidth_loaded) =
            (median(&alone.bandwidth_gbs), median(&loaded.bandwidth_gbs));
        found.push(Degradation {
            victim_node: cell.victim_node,
            aggressor_node: cell.aggressor_node,
            load: cell.load_name.to_string(),
            latency_alone_ns: latency_alone,
            latency_loaded_ns: latency_loaded,
            latency_increase_pct: (latency_loaded / latency_alone - 1.0) * 100.0,
            latency_p: 1.0,
            bandwidth_alone_gbs: bandwidth_alone,
            bandwidth_loaded_gbs: bandwidth_loaded,
            bandwidth_loss_pct: (1.0 - bandwidth_loaded / bandwidth_alone) * 100.0,
            bandwidth_p: 1.0,
            traffic_gbs: median(&loaded.traffic_gbs),
        });
    }
    let adjusted = holm(&p_values);
    for (index, cell) in found.iter_mut().enumerate() {
        cell.latency_p = adjusted[2 * index];
        cell.bandwidth_p = adjusted[2 * index + 1];
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;

    /// `count` values around `centre`, spread by `noise` (relative).
    fn noisy(rng: &mut SplitMix64, centre: f64, noise: f64, count: usize) -> Vec<f64> {
        (0..count)
            .map(|_| centre * (1.0 + noise * (rng.next_f64() - 0.5)))
            .collect()
    }

    fn planted(latency_factor: f64, bandwidth_factor: f64) -> Vec<Degradation> {
        let mut rng = SplitMix64::new(7);
        let mut measured = Measured::default();
        for _ in 0..3 {
            measured.alone.entry(0).or_default().add(
                &noisy(&mut rng, 100.0, 0.1, 5),
                &noisy(&mut rng, 10.0, 0.1, 5),
                0.0,
            );
            measured.loaded.entry((0, 0)).or_default().add(
                &noisy(&mut rng, 100.0 * latency_factor, 0.1, 5),
                &noisy(&mut rng, 10.0 * bandwidth_factor, 0.1, 5),
                30.0,
            );
        }
        let cells = [Cell {
            pair: 0,
            victim: 0,
            victim_node: 0,
            aggressor_node: 2,
            load: 0,
            load_name: "writes",
        }];
        degradations(&measured, &cells)
    }

    #[test]
    fn a_planted_slowdown_is_measured_and_significant() {
        let cells = planted(1.8, 0.5);
        assert_eq!(cells.len(), 1);
        let cell = &cells[0];
        assert!((cell.latency_increase_pct - 80.0).abs() < 10.0, "{cell:?}");
        assert!((cell.bandwidth_loss_pct - 50.0).abs() < 5.0, "{cell:?}");
        assert!(cell.latency_p < 0.05 && cell.bandwidth_p < 0.05, "{cell:?}");
        assert_eq!(cell.traffic_gbs, 30.0);
    }

    #[test]
    fn noise_alone_is_not_significant() {
        let cell = &planted(1.0, 1.0)[0];
        assert!(cell.latency_increase_pct.abs() < 8.0, "{cell:?}");
        assert!(cell.latency_p > 0.05 && cell.bandwidth_p > 0.05, "{cell:?}");
    }

    #[test]
    fn a_cell_not_measured_both_ways_is_left_out() {
        let mut measured = Measured::default();
        measured
            .loaded
            .entry((0, 0))
            .or_default()
            .add(&[1.0], &[1.0], 1.0);
        let cells = [Cell {
            pair: 0,
            victim: 0,
            victim_node: 0,
            aggressor_node: 0,
            load: 0,
            load_name: "reads",
        }];
        assert!(degradations(&measured, &cells).is_empty());
    }
}
