//! Which variant of a loop a measurement ran and why: forced by the
//! caller, or the fastest of a short calibration. On some cores wider
//! vectors stream memory more slowly (one Zen 4 core's triad: SSE2 ~1.4x
//! AVX-512), so the widest variant is not always the best one to report;
//! STREAM's copy also weighs streaming stores and the C library's memcpy
//! ([`CopyVariant`](super::CopyVariant)).

use super::simd::SimdLevel;
use numabench_schema::params::{to_params, SimdParams};
use serde_json::{json, Map, Value};

/// A way of running a loop that a calibration can choose: a SIMD level, or
/// a copy variant. Its name keys the calibration's rates in records.
pub trait Variant: Copy + PartialEq + std::fmt::Debug {
    /// The name records and tables show.
    fn name(self) -> &'static str;
}

impl Variant for SimdLevel {
    fn name(self) -> &'static str {
        SimdLevel::name(self)
    }
}

/// How the variant of a measurement was chosen.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice<V> {
    /// Chosen by the caller; no calibration ran.
    Forced(V),
    /// The fastest variant of a calibration: GB/s of every variant tried.
    Calibrated { level: V, rates: Vec<(V, f64)> },
}

/// The SIMD level of a bandwidth kernel and how it was chosen.
pub type SimdChoice = Choice<SimdLevel>;

impl<V: Variant> Choice<V> {
    /// The fastest of `rates` (GB/s per variant); on a tie the one listed
    /// first. Panics if `rates` is empty.
    pub fn calibrated(rates: Vec<(V, f64)>) -> Self {
        let level = rates
            .iter()
            .fold(None::<(V, f64)>, |best, &(level, rate)| match best {
                Some((_, best_rate)) if best_rate >= rate => best,
                _ => Some((level, rate)),
            })
            .expect("at least one variant calibrated")
            .0;
        Choice::Calibrated { level, rates }
    }

    /// Times every variant `turns` times round, in the order given
    /// (`seconds(variant)` runs it once over `bytes`), keeps each one's
    /// fastest turn, so a disturbance hits one turn of a variant rather than
    /// the variant, and calibrates on the rates in GB/s. Panics if
    /// `variants` is empty.
    pub fn timed(
        variants: Vec<V>,
        turns: usize,
        bytes: f64,
        mut seconds: impl FnMut(V) -> f64,
    ) -> Self {
        let mut best = vec![f64::INFINITY; variants.len()];
        for _ in 0..turns.max(1) {
            for (variant, best) in variants.iter().zip(&mut best) {
                *best = best.min(seconds(*variant));
            }
        }
        Self::calibrated(
            variants
                .into_iter()
                .zip(best)
                .map(|(variant, seconds)| (variant, bytes / seconds.max(1e-9) / 1e9))
                .collect(),
        )
    }

    /// The variant that ran.
    pub fn level(&self) -> V {
        match self {
            Choice::Forced(level) | Choice::Calibrated { level, .. } => *level,
        }
    }

    /// `calibration` or `forced`.
    pub fn chosen_by(&self) -> &'static str {
        match self {
            Choice::Forced(_) => "forced",
            Choice::Calibrated { .. } => "calibration",
        }
    }

    /// `{"avx512": GB/s, ...}` for a calibration, null when forced.
    pub fn calibration_json(&self) -> Value {
        match self {
            Choice::Forced(_) => Value::Null,
            Choice::Calibrated { rates, .. } => Value::Object(
                rates
                    .iter()
                    .map(|(level, rate)| (level.name().to_string(), json!(rate)))
                    .collect(),
            ),
        }
    }
}

impl SimdChoice {
    /// The choice as params: `simd`, `simd_chosen_by`, `simd_calibration`.
    pub fn params(&self) -> SimdParams {
        SimdParams {
            simd: Some(self.level().name().to_string()),
            simd_chosen_by: Some(self.chosen_by().to_string()),
            simd_calibration: self.calibration_json(),
        }
    }

    /// Adds [`SimdChoice::params`] to the params of a writer not typed yet.
    pub fn insert_params(&self, params: &mut Map<String, Value>) {
        params.extend(to_params(&self.params()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fastest_level_wins_not_the_widest() {
        let choice = SimdChoice::calibrated(vec![
            (SimdLevel::Avx512, 24.0),
            (SimdLevel::Avx2, 31.0),
            (SimdLevel::Sse2, 34.0),
            (SimdLevel::Scalar, 20.0),
        ]);
        assert_eq!(choice.level(), SimdLevel::Sse2);
        assert_eq!(choice.chosen_by(), "calibration");
        let mut params = Map::new();
        choice.insert_params(&mut params);
        assert_eq!(params["simd"], "sse2");
        assert_eq!(params["simd_calibration"]["avx2"], 31.0);
    }

    /// Each variant's fastest turn counts, turns go round in order, and the
    /// rate is bytes over that time.
    #[test]
    fn a_timed_calibration_keeps_each_variants_fastest_turn() {
        let mut calls = Vec::new();
        let mut times = [3.0, 1.0, 2.0, 4.0].into_iter();
        let choice = SimdChoice::timed(vec![SimdLevel::Avx2, SimdLevel::Sse2], 2, 8e9, |level| {
            calls.push(level);
            times.next().unwrap()
        });
        use SimdLevel::{Avx2, Sse2};
        assert_eq!(calls, [Avx2, Sse2, Avx2, Sse2]);
        // Avx2: best of 3 s and 2 s = 4 GB/s; Sse2: best of 1 s and 4 s = 8 GB/s.
        assert_eq!(
            choice,
            Choice::Calibrated {
                level: Sse2,
                rates: vec![(Avx2, 4.0), (Sse2, 8.0)]
            }
        );
    }

    #[test]
    fn a_tie_keeps_the_first_listed_and_forced_has_no_calibration() {
        let choice = SimdChoice::calibrated(vec![(SimdLevel::Avx2, 5.0), (SimdLevel::Sse2, 5.0)]);
        assert_eq!(choice.level(), SimdLevel::Avx2);
        let forced = SimdChoice::Forced(SimdLevel::Scalar);
        assert_eq!(forced.level(), SimdLevel::Scalar);
        assert_eq!(forced.chosen_by(), "forced");
        assert!(forced.calibration_json().is_null());
    }
}
