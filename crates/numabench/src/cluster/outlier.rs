//! The outlier rule of `cluster`: per metric, how far each unit (a host, a
//! host's NUMA node, or a rank) is from the cluster's median, in robust
//! units (median absolute deviations), with a relative floor so that
//! identical machines measured to within noise are never flagged.
//!
//! Rule: for the values x_i of one metric over the units, m = median(x),
//! MAD = median(|x_i - m|), robust z_i = |x_i - m| / (1.4826 MAD) (1.4826
//! makes the MAD estimate the standard deviation of normal data). A unit
//! is an outlier when z_i > k AND it is more than a factor 1 + f away from
//! the median (f = min_deviation): x_i / m > 1 + f or m / x_i > 1 + f for
//! positive figures, so "half the bandwidth" and "twice the latency" weigh
//! the same; for other figures |x_i - m| > f |m|. When the MAD is 0 (at
//! least half the units agree exactly) z cannot be computed: the factor
//! test alone decides. With fewer than 3 units there is no
//! majority to deviate from, and nothing is flagged.

use serde::Serialize;

/// Consistency constant: 1.4826 x MAD estimates sigma for normal data.
pub const MAD_SCALE: f64 = 1.4826;

/// The fewest units among which an outlier can be named.
pub const MIN_UNITS: usize = 3;

/// The thresholds of the rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OutlierRule {
    /// Robust z above which a unit is flagged (`--mad-k`, default 3).
    pub k: f64,
    /// A unit must also be more than a factor 1 + this from the median
    /// (`--min-deviation`, default 0.1: 10% above, or below median / 1.1).
    pub min_deviation: f64,
}

impl Default for OutlierRule {
    fn default() -> Self {
        Self {
            k: 3.0,
            min_deviation: 0.1,
        }
    }
}

/// Where one unit's value stands among the units' values of a metric.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Deviation {
    /// Index of the unit in the values given (not in records: the unit
    /// is named there).
    #[serde(skip)]
    pub index: usize,
    pub value: f64,
    pub median: f64,
    pub mad: f64,
    /// |value - median| / (1.4826 MAD); `None` when the MAD is 0.
    pub robust_z: Option<f64>,
    /// (value - median) / |median| (signed); `None` when the median is 0.
    pub relative: Option<f64>,
}

/// The median of `values` (which must not be empty).
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

impl OutlierRule {
    /// The outliers among `values` (one per unit), by the rule above; none
    /// with fewer than [`MIN_UNITS`] values. Non-finite values are never
    /// compared (they say the measurement failed, which is reported apart).
    pub fn outliers(&self, values: &[f64]) -> Vec<Deviation> {
        let finite: Vec<(usize, f64)> = values
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, value)| value.is_finite())
            .collect();
        if finite.len() < MIN_UNITS {
            return Vec::new();
        }
        let plain: Vec<f64> = finite.iter().map(|&(_, value)| value).collect();
        let median = median(&plain);
        let deviations: Vec<f64> = plain.iter().map(|value| (value - median).abs()).collect();
        let mad = self::median(&deviations);
        finite
            .iter()
            .filter_map(|&(index, value)| {
                let distance = (value - median).abs();
                let robust_z = (mad > 0.0).then(|| distance / (MAD_SCALE * mad));
                let relative = (median != 0.0).then(|| (value - median) / median.abs());
                let beyond_z = robust_z.is_none_or(|z| z > self.k);
                let beyond_floor = if value > 0.0 && median > 0.0 {
                    (value / median).max(median / value) > 1.0 + self.min_deviation
                } else {
                    distance > self.min_deviation * median.abs()
                };
                (distance > 0.0 && beyond_z && beyond_floor).then_some(Deviation {
                    index,
                    value,
                    median,
                    mad,
                    robust_z,
                    relative,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(rule: &OutlierRule, values: &[f64]) -> Vec<usize> {
        rule.outliers(values).iter().map(|d| d.index).collect()
    }

    #[test]
    fn a_slow_unit_among_similar_ones_is_flagged() {
        let rule = OutlierRule::default();
        let values = [10.1, 9.9, 10.0, 10.2, 5.0];
        let outliers = rule.outliers(&values);
        assert_eq!(outliers.len(), 1);
        let only = &outliers[0];
        assert_eq!(only.index, 4);
        assert_eq!(only.median, 10.0);
        assert!((only.mad - 0.1).abs() < 1e-12, "{}", only.mad);
        assert!(only.robust_z.unwrap() > 30.0);
        assert!((only.relative.unwrap() + 0.5).abs() < 1e-12);
    }

    #[test]
    fn noise_within_the_relative_floor_is_not_flagged() {
        // z is large (MAD tiny) but the unit is only 4% off: not flagged.
        let rule = OutlierRule::default();
        assert!(flagged(&rule, &[100.0, 100.1, 99.9, 104.0]).is_empty());
        let strict = OutlierRule {
            k: 3.0,
            min_deviation: 0.01,
        };
        assert_eq!(flagged(&strict, &[100.0, 100.1, 99.9, 104.0]), vec![3]);
    }

    #[test]
    fn spread_units_are_not_flagged_by_z() {
        // 20% off, but the units are spread widely: z stays under k.
        let rule = OutlierRule::default();
        assert!(flagged(&rule, &[70.0, 85.0, 100.0, 115.0, 120.0]).is_empty());
    }

    #[test]
    fn zero_mad_falls_back_to_the_relative_floor() {
        let rule = OutlierRule::default();
        let outliers = rule.outliers(&[8.0, 8.0, 8.0, 9.0]);
        assert_eq!(outliers.len(), 1);
        assert_eq!(outliers[0].robust_z, None);
        assert!(flagged(&rule, &[8.0, 8.0, 8.0, 8.5]).is_empty());
        assert!(flagged(&rule, &[8.0, 8.0, 8.0, 8.0]).is_empty());
    }

    #[test]
    fn the_floor_is_a_factor_both_ways() {
        let rule = OutlierRule {
            k: 3.0,
            min_deviation: 1.0,
        };
        // A fifth of the bandwidth is a factor 5 below: flagged under a
        // factor-2 floor, as five times the latency is above it.
        assert_eq!(flagged(&rule, &[10.0, 10.1, 9.9, 2.0]), vec![3]);
        assert_eq!(flagged(&rule, &[100.0, 101.0, 99.0, 500.0]), vec![3]);
        assert!(flagged(&rule, &[10.0, 10.1, 9.9, 6.0]).is_empty());
        assert!(flagged(&rule, &[100.0, 101.0, 99.0, 180.0]).is_empty());
    }

    #[test]
    fn fewer_than_three_units_flag_nothing() {
        let rule = OutlierRule::default();
        assert!(flagged(&rule, &[1.0, 100.0]).is_empty());
        assert!(flagged(&rule, &[1.0, f64::NAN, 100.0]).is_empty());
        assert!(flagged(&rule, &[]).is_empty());
    }

    #[test]
    fn both_directions_are_flagged_and_k_is_honoured() {
        let values = [10.0, 10.1, 9.9, 10.0, 20.0, 2.0];
        assert_eq!(flagged(&OutlierRule::default(), &values), vec![4, 5]);
        let lax = OutlierRule {
            k: 1000.0,
            min_deviation: 0.1,
        };
        assert!(flagged(&lax, &values).is_empty());
    }
}
