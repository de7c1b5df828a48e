//! When a gap between a figure and its peers is beyond the noise: the
//! one test every outlier finding (a slow node, CPU or node pair) uses.
//! A gap counts only when it exceeds the finding's margin and `z` times
//! its uncertainty, which is the larger of the figures' own repetition
//! noise (the standard error of a median, from the record's coefficient
//! of variation and count) and the peers' robust spread (1.4826 x their
//! median absolute deviation: what healthy members differ by, noise and
//! variation together). `z` grows with the number of figures tested, so a
//! 24-node or 192-CPU machine does not raise more false alarms than a
//! small one.

use crate::output::Record;
use crate::stats::Sample;

/// The relative standard error of a record's median: 1.2533 x cv / sqrt(n);
/// 0 for a single value (its spread is unknown, so the peers' decides).
pub(super) fn median_error(record: &Record) -> f64 {
    let n = record.stats.n;
    if n < 2 {
        return 0.0;
    }
    1.2533 * record.stats.cv.abs() / (n as f64).sqrt()
}

/// The median of some values (none, or any not finite: `None`): the
/// samples' own median ([`Sample`]).
pub(super) fn median(values: &[f64]) -> Option<f64> {
    Some(Sample::new(values.iter().copied()).ok()?.summary().median)
}

/// The robust spread of relative deviations around 0 (1.4826 x their
/// median absolute value): the standard deviation of healthy members'
/// gaps, one outlier or two left out by construction.
pub(super) fn robust_spread(gaps: &[f64]) -> f64 {
    let absolute: Vec<f64> = gaps.iter().map(|gap| gap.abs()).collect();
    1.4826 * median(&absolute).unwrap_or(0.0)
}

/// The z a gap must exceed when `tests` figures are tested at once: the
/// one-sided normal quantile of 1 - 0.005 / tests (a 0.5% chance that
/// any healthy figure of the lot is named: the findings test five lots,
/// slow nodes' latency and bandwidth, slow CPUs' latency and bandwidth,
/// slow pairs), at least 3.5.
pub(super) fn z_for(tests: usize) -> f64 {
    let tail = 0.005 / tests.max(1) as f64;
    // Bisection on the upper tail of the standard normal.
    let (mut low, mut high) = (0.0_f64, 10.0_f64);
    for _ in 0..60 {
        let middle = (low + high) / 2.0;
        if upper_tail(middle) > tail {
            low = middle;
        } else {
            high = middle;
        }
    }
    high.max(3.5)
}

/// P(Z > z) for a standard normal Z: erfc(z / sqrt 2) / 2, with the
/// complementary error function's Chebyshev fit (relative error < 1.2e-7).
fn upper_tail(z: f64) -> f64 {
    let x = z / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * x.abs());
    let erfc = t
        * (-x * x - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    let erfc = if x >= 0.0 { erfc } else { 2.0 - erfc };
    erfc / 2.0
}

/// Whether `gap` (relative, positive: worse) stands out: above `margin`
/// and above `z` x `uncertainty`.
pub(super) fn stands_out(gap: f64, margin: f64, uncertainty: f64, z: f64) -> bool {
    gap > margin && gap > z * uncertainty
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The normal tail and the quantile agree with the tables.
    #[test]
    fn quantiles_match_the_normal_tables() {
        assert!((upper_tail(1.959_964) - 0.025).abs() < 1e-6);
        assert!((upper_tail(3.090_232) - 0.001).abs() < 1e-7);
        assert!((z_for(1) - 3.5).abs() < 1e-9, "0.005 is z 2.58, floored");
        assert!((z_for(1000) - 4.417_173).abs() < 1e-3, "{}", z_for(1000));
    }

    /// The spread of healthy gaps is their standard deviation; one large
    /// outlier does not widen it.
    #[test]
    fn the_robust_spread_ignores_an_outlier() {
        let gaps = [-0.01, 0.01, -0.01, 0.01, 0.01, -0.01, 0.5];
        assert!((robust_spread(&gaps) - 0.014_826).abs() < 1e-9);
        assert_eq!(median(&[3.0, 1.0, 2.0, 4.0]), Some(2.5));
    }
}
