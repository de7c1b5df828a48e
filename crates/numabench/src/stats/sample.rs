//! A sample newtype that carries its invariant (non-empty, every value
//! finite), so statistics never divide by zero or propagate NaN.

use numabench_schema::Summary;
use thiserror::Error;

/// Why values could not form a sample.
///
/// Always the caller's fault (the values given).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SampleError {
    /// No values at all.
    #[error("a sample needs at least one value")]
    Empty,
    /// A value was NaN or infinite.
    #[error("a sample value is not finite: {0}")]
    NotFinite(f64),
}

crate::error::all_faulty!(Usage: SampleError);

/// Repeated measurements of one quantity: non-empty, all finite, sorted.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    sorted: Vec<f64>,
}

impl Sample {
    /// Builds a sample from measured values.
    pub fn new(values: impl IntoIterator<Item = f64>) -> Result<Self, SampleError> {
        let mut sorted: Vec<f64> = values.into_iter().collect();
        if sorted.is_empty() {
            return Err(SampleError::Empty);
        }
        if let Some(bad) = sorted.iter().find(|value| !value.is_finite()) {
            return Err(SampleError::NotFinite(*bad));
        }
        sorted.sort_by(f64::total_cmp);
        Ok(Self { sorted })
    }

    /// The values in ascending order.
    pub fn values(&self) -> &[f64] {
        &self.sorted
    }

    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// Always false: a sample is never empty.
    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn min(&self) -> f64 {
        self.sorted[0]
    }

    pub fn max(&self) -> f64 {
        self.sorted[self.sorted.len() - 1]
    }

    pub fn mean(&self) -> f64 {
        self.sorted.iter().sum::<f64>() / self.sorted.len() as f64
    }

    pub fn median(&self) -> f64 {
        self.percentile(50.0)
    }

    /// Percentile by linear interpolation between closest ranks
    /// (`p` in 0..=100, clamped).
    pub fn percentile(&self, p: f64) -> f64 {
        let p = p.clamp(0.0, 100.0) / 100.0;
        let position = p * (self.sorted.len() - 1) as f64;
        let lower = position.floor() as usize;
        let upper = position.ceil() as usize;
        let weight = position - lower as f64;
        self.sorted[lower] * (1.0 - weight) + self.sorted[upper] * weight
    }

    /// Sample standard deviation.
    pub fn stddev(&self) -> f64 {
        let n = self.sorted.len();
        if n < 2 {
            return 0.0;
        }
        let mean = self.mean();
        let squares: f64 = self.sorted.iter().map(|value| (value - mean).powi(2)).sum();
        (squares / (n - 1) as f64).sqrt()
    }

    /// Coefficient of variation.
    pub fn cv(&self) -> f64 {
        let mean = self.mean();
        if mean == 0.0 {
            0.0
        } else {
            self.stddev() / mean.abs()
        }
    }

    /// All statistics at once, as records carry them.
    pub fn summary(&self) -> Summary {
        Summary {
            n: self.len(),
            min: self.min(),
            median: self.median(),
            mean: self.mean(),
            max: self.max(),
            stddev: self.stddev(),
            cv: self.cv(),
            p90: self.percentile(90.0),
            p99: self.percentile(99.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn statistics_match_hand_computed_values() {
        // Values and expected figures computed independently (numpy:
        // np.median, np.std(ddof=1)).
        let sample = Sample::new([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(sample.mean(), 5.0);
        assert_eq!(sample.median(), 4.5);
        assert!((sample.stddev() - 2.138_089_935_299_395).abs() < 1e-12);
        assert!((sample.cv() - 0.427_617_987_059_879).abs() < 1e-12);
        assert_eq!(sample.percentile(0.0), 2.0);
        assert_eq!(sample.percentile(100.0), 9.0);
        assert!((sample.percentile(90.0) - 7.6).abs() < 1e-12);
    }

    #[test]
    fn rejects_empty_and_non_finite() {
        assert_eq!(Sample::new([]), Err(SampleError::Empty));
        assert!(matches!(
            Sample::new([1.0, f64::NAN]),
            Err(SampleError::NotFinite(_))
        ));
        let single = Sample::new([3.0]).unwrap();
        assert_eq!(
            (single.stddev(), single.cv(), single.median()),
            (0.0, 0.0, 3.0)
        );
    }

    #[test]
    fn one_value_summarises_as_the_schema_single_summary() {
        for value in [0.0, 3.5, -2.0, 1e12] {
            assert_eq!(
                Sample::new([value]).unwrap().summary(),
                Summary::single(value)
            );
        }
    }

    proptest! {
        #[test]
        fn order_statistics_are_ordered(values in proptest::collection::vec(-1e6f64..1e6, 1..50)) {
            let s = Sample::new(values).unwrap();
            prop_assert!(s.min() <= s.median() && s.median() <= s.max());
            prop_assert!(s.min() <= s.mean() + 1e-6 && s.mean() <= s.max() + 1e-6);
            prop_assert!(s.stddev() >= 0.0);
        }
    }
}
