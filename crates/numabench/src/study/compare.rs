//! A configuration against its baseline: the ratio of their medians (a
//! speedup when the samples are run times: baseline over this) and a
//! two-sided Mann-Whitney test of whether the two samples differ at all.

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
}

impl Comparison {
    /// Compares two samples. With `first` the baseline's run times and
    /// `second` a configuration's, the ratio is that configuration's
    /// speedup.
    pub fn between(first: &Sample, second: &Sample) -> Self {
        Self {
            ratio: first.median() / second.median(),
            p_value: mann_whitney_u(first, second).p_value,
        }
    }

    /// Whether p is below [`SIGNIFICANCE`].
    pub fn significant(&self) -> bool {
        self.p_value < SIGNIFICANCE
    }
}

/// Each configuration's run times against its baseline's
/// (`baseline_of(index)`): `None` where either has no sample or there is
/// no baseline. A baseline compared with itself has a speedup of 1.
pub fn against_baselines(
    times: &[Option<Sample>],
    baseline_of: impl Fn(usize) -> Option<usize>,
) -> Vec<Option<Comparison>> {
    (0..times.len())
        .map(|index| {
            let base = times[baseline_of(index)?].as_ref()?;
            Some(Comparison::between(base, times[index].as_ref()?))
        })
        .collect()
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
}
