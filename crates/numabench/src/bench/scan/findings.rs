//! Which ranges of a node are slow, from the measured samples only (a pure
//! function, so it is tested on simulated figures).
//!
//! The rule: a range is slow when its median bandwidth over the rounds is
//! more than [`SLOW_DEFICIT`] below the node's median of range medians,
//! and the Mann-Whitney test of its samples against every other range's
//! samples of the node says they differ (`p` adjusted by Holm's method over
//! the node's ranges below [`SIGNIFICANCE`]: the study
//! engine's [`Comparison`]). Both are needed: a deficit the noise explains
//! is no finding, nor is a difference too small to matter. A range's
//! samples are one per round, so few rounds make a weak test: with 2 rounds
//! and a handful of ranges nothing can be significant (5 by default).

use crate::stats::Sample;
use crate::study::{holm, Comparison, SIGNIFICANCE};

/// How far below the node's median of ranges a range's median must be to
/// be slow: 10%, beyond the spread of a healthy node's ranges (a few per
/// cent where channels interleave finely) and well under what a DIMM or
/// channel running slower costs (one channel of eight at half speed costs
/// its ranges a sixth or more where a range sits on fewer channels).
pub const SLOW_DEFICIT: f64 = 0.10;

/// One range of a node, judged.
#[derive(Debug, Clone, PartialEq)]
pub struct RangeVerdict {
    /// Median GB/s over the rounds.
    pub median: f64,
    /// 1 - median / the node's median of range medians (negative: faster).
    pub deficit: f64,
    /// Mann-Whitney p against the node's other ranges, Holm-adjusted over
    /// the node's ranges (1 when there is nothing to compare with).
    pub p_value: f64,
    /// Slow by the module's rule.
    pub slow: bool,
}

/// A node's ranges judged.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeVerdict {
    /// Median of the ranges' medians, GB/s.
    pub median: f64,
    /// One verdict per range, in the order given.
    pub ranges: Vec<RangeVerdict>,
}

impl NodeVerdict {
    /// Indices of the slow ranges.
    pub fn slow(&self) -> Vec<usize> {
        (0..self.ranges.len())
            .filter(|&index| self.ranges[index].slow)
            .collect()
    }
}

/// Judges a node's ranges from each range's samples (GB/s, one per round).
/// Ranges without samples count as nothing (median 0, never slow).
pub fn judge(samples: &[Sample]) -> NodeVerdict {
    let medians: Vec<f64> = samples.iter().map(Sample::median).collect();
    let median = Sample::new(medians.iter().copied()).map_or(0.0, |all| all.median());
    let raw: Vec<f64> = (0..samples.len())
        .map(|index| {
            let others = samples
                .iter()
                .enumerate()
                .filter(|(other, _)| *other != index)
                .flat_map(|(_, sample)| sample.values().iter().copied());
            match Sample::new(others) {
                Ok(others) => Comparison::between(&samples[index], &others).p_value,
                Err(_) => 1.0,
            }
        })
        .collect();
    let adjusted = holm(&raw);
    let ranges = medians
        .iter()
        .zip(&adjusted)
        .map(|(&range_median, &p_value)| {
            let deficit = match median > 0.0 {
                true => 1.0 - range_median / median,
                false => 0.0,
            };
            RangeVerdict {
                median: range_median,
                deficit,
                p_value,
                slow: deficit > SLOW_DEFICIT && p_value < SIGNIFICANCE,
            }
        })
        .collect();
    NodeVerdict { median, ranges }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;

    /// `ranges` ranges of `rounds` samples around `gbs`, each within
    /// `noise` (a fraction) of it, drawn from `seed`.
    fn simulated(ranges: usize, rounds: usize, gbs: f64, noise: f64, seed: u64) -> Vec<Vec<f64>> {
        let mut rng = SplitMix64::new(seed);
        (0..ranges)
            .map(|_| {
                (0..rounds)
                    .map(|_| gbs * (1.0 + noise * (2.0 * rng.next_f64() - 1.0)))
                    .collect()
            })
            .collect()
    }

    fn samples(values: Vec<Vec<f64>>) -> Vec<Sample> {
        values
            .into_iter()
            .map(|v| Sample::new(v).unwrap())
            .collect()
    }

    #[test]
    fn a_planted_slow_range_is_found_and_only_it() {
        let mut values = simulated(16, 5, 20.0, 0.03, 1);
        // Range 6 on a channel at 3/4 speed.
        values[6].iter_mut().for_each(|gbs| *gbs *= 0.75);
        let verdict = judge(&samples(values));
        assert_eq!(verdict.slow(), vec![6], "{verdict:?}");
        let slow = &verdict.ranges[6];
        assert!((slow.deficit - 0.25).abs() < 0.05, "{slow:?}");
        assert!(slow.p_value < 0.05, "{slow:?}");
        assert!((verdict.median - 20.0).abs() < 1.0);
    }

    #[test]
    fn a_healthy_node_has_no_finding() {
        let verdict = judge(&samples(simulated(24, 5, 12.0, 0.0, 2)));
        assert!(verdict.slow().is_empty(), "{verdict:?}");
        assert!(verdict
            .ranges
            .iter()
            .all(|range| range.deficit.abs() < 1e-12));
    }

    #[test]
    fn noise_alone_never_makes_a_finding() {
        // 8% noise either way on every sample, over many draws: a range
        // whose samples happen to be low is neither 10% down nor, when
        // it comes near, significant after Holm's adjustment.
        for seed in 0..200 {
            let verdict = judge(&samples(simulated(12, 5, 15.0, 0.08, seed)));
            assert!(verdict.slow().is_empty(), "seed {seed}: {verdict:?}");
        }
    }

    #[test]
    fn a_large_deficit_without_enough_rounds_is_not_significant() {
        let mut values = simulated(8, 2, 20.0, 0.02, 3);
        values[0].iter_mut().for_each(|gbs| *gbs *= 0.5);
        let verdict = judge(&samples(values));
        assert!(verdict.ranges[0].deficit > 0.4);
        assert!(verdict.slow().is_empty(), "{verdict:?}");
    }

    #[test]
    fn one_range_alone_is_never_slow() {
        let verdict = judge(&samples(vec![vec![5.0, 5.1, 4.9]]));
        assert_eq!(verdict.ranges[0].p_value, 1.0);
        assert!(verdict.slow().is_empty());
    }
}
