//! A configuration against its baseline: the ratio of their medians (a
//! speedup when the samples are run times: baseline over this) and a
//! two-sided Mann-Whitney test of whether the two samples differ at all.
//! Several configurations against their baselines are several tests at
//! once: their p-values are adjusted by Holm's step-down method, so that
//! the chance of calling any equal pair different stays at most
//! [`SIGNIFICANCE`] however many are compared.

use crate::stats::{mann_whitney_u, Sample};

/// Two-sided significance level of the Mann-Whitney tests of every study.
pub const SIGNIFICANCE: f64 = 0.05;

/// `first` against `second`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// Median of `first` / median of `second`.
    pub ratio: f64,
    /// Mann-Whitney U test of `first` against `second`, two-sided.
    pub p_value: f64,
    /// `p_value` adjusted for the other comparisons made with it (Holm's
    /// step-down, [`holm`]); `p_value` itself for a comparison made alone.
    pub adjusted_p_value: f64,
}

impl Comparison {
    /// Compares two samples. With `first` the baseline's run times and
    /// `second` a configuration's, the ratio is that configuration's
    /// speedup.
    pub fn between(first: &Sample, second: &Sample) -> Self {
        let p_value = mann_whitney_u(first, second).p_value;
        Self {
            ratio: first.median() / second.median(),
            p_value,
            adjusted_p_value: p_value,
        }
    }

    /// Whether the adjusted p is below [`SIGNIFICANCE`].
    pub fn significant(&self) -> bool {
        self.adjusted_p_value < SIGNIFICANCE
    }
}

/// Holm's step-down adjustment of `p_values`, in their order: the i-th
/// smallest of m becomes max over j <= i of (m - j + 1) x p_(j), at most 1.
/// Rejecting where the adjusted p is below alpha keeps the chance of any
/// false rejection at most alpha, with no assumption on how the tests
/// depend on each other (they share the baseline's sample).
pub fn holm(p_values: &[f64]) -> Vec<f64> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let mut adjusted = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (rank, &index) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * p_values[index]).min(1.0));
        adjusted[index] = running;
    }
    adjusted
}

/// Each configuration's run times against its baseline's
/// (`baseline_of(index)`): `None` where either has no sample or there is
/// no baseline. A baseline compared with itself has a speedup of 1 and
/// p = 1, and is no test. The p-values of the others are one family,
/// adjusted together by [`holm`].
pub fn against_baselines(
    times: &[Option<Sample>],
    baseline_of: impl Fn(usize) -> Option<usize>,
) -> Vec<Option<Comparison>> {
    let mut compared: Vec<Option<Comparison>> = (0..times.len())
        .map(|index| {
            let base = times[baseline_of(index)?].as_ref()?;
            Some(Comparison::between(base, times[index].as_ref()?))
        })
        .collect();
    let tests: Vec<usize> = (0..times.len())
        .filter(|&index| compared[index].is_some() && baseline_of(index) != Some(index))
        .collect();
    let p_values: Vec<f64> = tests
        .iter()
        .filter_map(|&index| compared[index].map(|comparison| comparison.p_value))
        .collect();
    for (&index, adjusted) in tests.iter().zip(holm(&p_values)) {
        if let Some(comparison) = compared[index].as_mut() {
            comparison.adjusted_p_value = adjusted;
        }
    }
    compared
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(values: &[f64]) -> Option<Sample> {
        Sample::new(values.iter().copied()).ok()
    }

    /// The speedup is the baseline's median over the configuration's, and
    /// p the rank test of the baseline against it (scipy: 0.012185780).
    #[test]
    fn speedups_and_p_values_against_the_baseline() {
        let times = [
            sample(&[6.0, 7.0, 8.0, 9.0, 10.0]),
            sample(&[1.0, 2.0, 3.0, 4.0, 5.0]),
            None,
        ];
        let compared = against_baselines(&times, |index| (index != 0).then_some(0));
        assert_eq!(compared[0], None);
        let second = compared[1].unwrap();
        assert_eq!(second.ratio, 8.0 / 3.0);
        assert!((second.p_value - 0.012_185_780_355_344_9).abs() < 1e-10);
        assert!(second.significant());
        assert_eq!(compared[2], None);
        let itself = against_baselines(&times[..1], |_| Some(0))[0].unwrap();
        assert_eq!(itself.ratio, 1.0);
        assert!(!itself.significant());
    }

    /// Holm's adjustment against values worked by hand from its definition
    /// (what R's `p.adjust(p, "holm")` gives): for p = (0.01, 0.04, 0.03,
    /// 0.005), sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 gives 0.02,
    /// 0.03, 0.06, 0.04, made monotone: 0.02, 0.03, 0.06, 0.06; 0.010,
    /// 0.015, 0.030, 0.040 adjust to 0.040, 0.045, 0.060, 0.060. A large p
    /// is capped at 1; one test is left alone.
    #[test]
    fn holm_matches_textbook_values() {
        let close = |got: Vec<f64>, want: &[f64]| {
            assert_eq!(got.len(), want.len());
            for (got, want) in got.iter().zip(want) {
                assert!((got - want).abs() < 1e-12, "{got} vs {want}");
            }
        };
        close(holm(&[0.01, 0.04, 0.03, 0.005]), &[0.03, 0.06, 0.06, 0.02]);
        close(
            holm(&[0.010, 0.015, 0.030, 0.040]),
            &[0.040, 0.045, 0.060, 0.060],
        );
        close(holm(&[0.5, 0.6]), &[1.0, 1.0]);
        close(holm(&[0.03]), &[0.03]);
        assert!(holm(&[]).is_empty());
    }

    /// Policies against one baseline, each p = 0.0122 alone (5 runs
    /// clearly apart), each significant alone: with three, Holm's 3 x
    /// 0.0122 = 0.037 keeps them significant; with five, 5 x 0.0122 = 0.061
    /// makes none significant. The baseline's own row is no test.
    #[test]
    fn several_comparisons_against_one_baseline_are_adjusted_together() {
        let mut times = vec![sample(&[6.0, 7.0, 8.0, 9.0, 10.0])];
        for _ in 0..5 {
            times.push(sample(&[1.0, 2.0, 3.0, 4.0, 5.0]));
        }
        let compared = against_baselines(&times, |_| Some(0));
        let itself = compared[0].unwrap();
        assert_eq!(itself.adjusted_p_value, itself.p_value);
        for comparison in &compared[1..] {
            let comparison = comparison.unwrap();
            assert!(comparison.p_value < SIGNIFICANCE);
            assert!(
                (comparison.adjusted_p_value - 5.0 * comparison.p_value).abs() < 1e-12,
                "{comparison:?}"
            );
            assert!(!comparison.significant(), "{comparison:?}");
        }
        let three = against_baselines(&times[..4], |_| Some(0));
        for comparison in &three[1..] {
            let comparison = comparison.unwrap();
            assert!((comparison.adjusted_p_value - 3.0 * comparison.p_value).abs() < 1e-12);
            assert!(comparison.significant());
        }
    }
}
