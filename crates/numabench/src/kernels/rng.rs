//! A small deterministic random generator (SplitMix64): the same seed
//! gives the same numbers on every machine, in every build and run
//! (unlike `DefaultHasher`, whose output may change between Rust
//! releases). Chase permutations, the matrix classes' member draws and
//! the simulator's noise come from it.

/// SplitMix64 (Steele, Lea, Flood 2014): fast, full-period, good enough for
/// shuffling.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.state)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A standard normal value (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let u = self.next_f64().max(f64::MIN_POSITIVE);
        let v = self.next_f64();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// Uniform in `0..bound` (bound > 0), by multiply-shift (Lemire).
    pub fn below(&mut self, bound: usize) -> usize {
        ((u128::from(self.next_u64()) * bound as u128) >> 64) as usize
    }

    /// Fisher-Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for index in (1..items.len()).rev() {
            let other = self.below(index + 1);
            items.swap(index, other);
        }
    }
}

/// SplitMix64's mixing function: a stable 64-bit hash of one number, for
/// combining a seed with an index (`mix(seed ^ mix(index))`).
pub fn mix(value: u64) -> u64 {
    let mut z = value;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sequence is fixed by the seed, in this and every later build:
    /// the first values of seed 0 are SplitMix64's published ones.
    #[test]
    fn the_sequence_is_splitmix64s() {
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    /// Normal values have mean about 0 and spread about 1.
    #[test]
    fn normal_values_are_standard() {
        let mut rng = SplitMix64::new(7);
        let values: Vec<f64> = (0..20_000).map(|_| rng.normal()).collect();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64;
        assert!(mean.abs() < 0.03, "{mean}");
        assert!((variance.sqrt() - 1.0).abs() < 0.03, "{variance}");
    }
}
