//! The outlier rule of `cluster`: per metric, how far each unit (a host, a
//! host's NUMA node, or a rank) is from the OTHER units, in robust units,
//! with a relative tolerance so that identical machines measured to within
//! noise are never flagged.
//!
//! Rule (leave one out): for unit i of the values x of one metric, take the
//! values of every other unit, their median m_i and their median absolute
//! deviation MAD_i = median(|x_j - m_i|, j != i). The robust z of unit i is
//! z_i = |x_i - m_i| / (1.4826 MAD_i) (1.4826 makes the MAD estimate the
//! standard deviation of normal data). A unit is an outlier when z_i > k
//! AND it is more than a factor 1 + f from m_i (f = min_deviation):
//! x_i / m_i > 1 + f or m_i / x_i > 1 + f for positive figures, so "half
//! the bandwidth" and "twice the latency" weigh the same; for other
//! figures |x_i - m_i| > f |m_i|. When MAD_i is 0 (the others agree
//! exactly) z cannot be computed: the tolerance alone decides. And an
//! outlier stands (nearly) alone: fewer than half of the units may lie
//! within the tolerance of its value, itself included. Half the units at
//! one figure and half at another (ping-pong best partners come in equal
//! pairs: both ends of a pair share its figure) name no one, as nothing
//! says which half is wrong.
//!
//! Why leave one out: with the unit inside the median and the MAD, a
//! slow unit among three widens the MAD itself (100, 90, 60: MAD 10, z of
//! 60 = 2.0, never above 3). Left out, the others' spread is theirs only:
//! 60 against 100 and 90 is z 4.7 and 37% below their median, flagged;
//! 90 against 100 and 60 (z 0.3) and 100 against 90 and 60 (z 1.1) are
//! not; 100, 99 and 98 are all within the 10% tolerance. A unit's own
//! other records (`--per numa`: several targets at one distance) are never
//! among its "others". With fewer than 3 units there is no majority to
//! deviate from, and nothing is flagged.

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
    /// Index of the unit's value in the values given (not in records: the
    /// unit is named there).
    #[serde(skip)]
    pub index: usize,
    pub value: f64,
    /// The median of every unit's value (the centre the report draws).
    pub median: f64,
    /// The median of the other units' values: what the rule compares with.
    pub others_median: f64,
    /// The median absolute deviation of the other units' values from
    /// `others_median`.
    pub others_mad: f64,
    /// |value - others_median| / (1.4826 others_mad); `None` when
    /// `others_mad` is 0.
    pub robust_z: Option<f64>,
    /// (value - others_median) / |others_median| (signed); `None` when
    /// that median is 0.
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
        let units: Vec<usize> = (0..values.len()).collect();
        self.outliers_of_units(values, &units)
    }

    /// As [`OutlierRule::outliers`], where `units[i]` names the unit value
    /// i belongs to: a unit may have several values (`--per numa`: one per
    /// target at the same distance); each value is judged against the
    /// values of the other units only, and at least [`MIN_UNITS`] units
    /// must have a finite value.
    pub fn outliers_of_units(&self, values: &[f64], units: &[usize]) -> Vec<Deviation> {
        let finite: Vec<(usize, f64, usize)> = values
            .iter()
            .copied()
            .zip(units.iter().copied())
            .enumerate()
            .filter(|(_, (value, _))| value.is_finite())
            .map(|(index, (value, unit))| (index, value, unit))
            .collect();
        let mut distinct: Vec<usize> = finite.iter().map(|&(_, _, unit)| unit).collect();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() < MIN_UNITS {
            return Vec::new();
        }
        let all: Vec<f64> = finite.iter().map(|&(_, value, _)| value).collect();
        let median_all = median(&all);
        let near = |a: f64, b: f64| {
            if a > 0.0 && b > 0.0 {
                (a / b).max(b / a) <= 1.0 + self.min_deviation
            } else {
                (a - b).abs() <= self.min_deviation * b.abs().max(a.abs())
            }
        };
        finite
            .iter()
            .filter_map(|&(index, value, unit)| {
                let others: Vec<f64> = finite
                    .iter()
                    .filter(|&&(_, _, other)| other != unit)
                    .map(|&(_, value, _)| value)
                    .collect();
                let centre = median(&others);
                let spreads: Vec<f64> = others.iter().map(|v| (v - centre).abs()).collect();
                let mad = median(&spreads);
                let distance = (value - centre).abs();
                let robust_z = (mad > 0.0).then(|| distance / (MAD_SCALE * mad));
                let relative = (centre != 0.0).then(|| (value - centre) / centre.abs());
                let beyond_z = robust_z.is_none_or(|z| z > self.k);
                let beyond_floor = if value > 0.0 && centre > 0.0 {
                    (value / centre).max(centre / value) > 1.0 + self.min_deviation
                } else {
                    distance > self.min_deviation * centre.abs()
                };
                let mut alike: Vec<usize> = finite
                    .iter()
                    .filter(|&&(_, other, _)| near(other, value))
                    .map(|&(_, _, unit)| unit)
                    .collect();
                alike.sort_unstable();
                alike.dedup();
                let alone = 2 * alike.len() < distinct.len();
                (distance > 0.0 && beyond_z && beyond_floor && alone).then_some(Deviation {
                    index,
                    value,
                    median: median_all,
                    others_median: centre,
                    others_mad: mad,
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
        assert!((only.others_median - 10.05).abs() < 1e-12);
        assert!((only.others_mad - 0.1).abs() < 1e-12, "{}", only.others_mad);
        assert!(only.robust_z.unwrap() > 30.0);
        assert!((only.relative.unwrap() + 5.05 / 10.05).abs() < 1e-12);
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

    /// Issue 21, item 15: among three hosts the whole-set MAD is the
    /// smaller of the other two deviations, so 100, 90, 60 gave 60 a z of
    /// 2.0 and nothing was flagged; left out of its own comparison, 60 is
    /// z 4.7 and 37% from the others' median.
    #[test]
    fn a_third_slower_host_among_three_is_flagged_and_close_ones_are_not() {
        let rule = OutlierRule::default();
        let outliers = rule.outliers(&[100.0, 90.0, 60.0]);
        assert_eq!(outliers.len(), 1, "{outliers:?}");
        assert_eq!(outliers[0].index, 2);
        assert_eq!(outliers[0].others_median, 95.0);
        assert!(outliers[0].robust_z.unwrap() > 4.0);
        assert!(flagged(&rule, &[100.0, 99.0, 98.0]).is_empty());
        assert!(flagged(&rule, &[100.0, 90.0, 60.0].map(|v: f64| 1e4 / v)) == vec![2]);
        assert!(flagged(&rule, &[60.0, 100.0, 90.0]) == vec![0]);
    }

    /// A unit's several values (`--per numa`) are judged against the other
    /// units' values only, and units, not values, count towards the three.
    #[test]
    fn several_values_of_a_unit_are_each_compared_with_the_other_units() {
        let rule = OutlierRule::default();
        // Unit 0 has a slow second target; units 1 and 2 two targets each.
        let values = [100.0, 60.0, 99.0, 101.0, 100.0, 98.0];
        let units = [0, 0, 1, 1, 2, 2];
        let found = rule.outliers_of_units(&values, &units);
        assert_eq!(found.iter().map(|d| d.index).collect::<Vec<_>>(), vec![1]);
        assert_eq!(found[0].others_median, 99.5);
        // Two units with three values each: no majority.
        assert!(rule
            .outliers_of_units(&[1.0, 1.0, 1.0, 9.0, 9.0, 9.0], &[0, 0, 0, 1, 1, 1])
            .is_empty());
    }

    /// Two halves (seen in a run: ping-pong best partners 6.63, 7.92,
    /// 6.63, 7.92 GB/s, each figure shared by a pair's two ends): each
    /// unit's others have MAD 0, but no half is a minority.
    #[test]
    fn two_equal_halves_name_no_one() {
        let rule = OutlierRule::default();
        assert!(flagged(&rule, &[6.63, 7.92, 6.63, 7.92]).is_empty());
        // Two slow units among seven are still both named.
        let values = [10.0, 10.1, 9.9, 10.0, 10.2, 5.0, 5.1];
        assert_eq!(flagged(&rule, &values), vec![5, 6]);
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
