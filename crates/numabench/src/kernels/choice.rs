//! Which variant of a loop a measurement ran and why: forced by the
//! caller, or the fastest of a short calibration. On some cores wider
//! vectors stream memory more slowly (one Zen 4 core's triad: SSE2 ~1.4x
//! AVX-512), so the widest variant is not always the best one to report;
//! STREAM's copy also weighs streaming stores and the C library's memcpy
//! ([`CopyVariant`](super::CopyVariant)).

use super::simd::SimdLevel;
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
    /// Records the choice: `simd`, `simd_chosen_by`, `simd_calibration`.
    pub fn insert_params(&self, params: &mut Map<String, Value>) {
        params.insert("simd".into(), json!(self.level().name()));
        params.insert("simd_chosen_by".into(), json!(self.chosen_by()));
        params.insert("simd_calibration".into(), self.calibration_json());
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
