//! NPB's linear congruential generator `randlc`: x_{k+1} = a * x_k mod
//! 2^46, evaluated exactly in double precision by splitting the operands
//! into 23-bit halves; returns x_{k+1} / 2^46 in (0, 1).

/// The multiplier 5^13 of NPB's generator.
pub const AMULT: f64 = 1_220_703_125.0;
/// CG's seed (`tran`).
pub const SEED: f64 = 314_159_265.0;

const TWO_23: f64 = 8_388_608.0;
const TWO_46: f64 = TWO_23 * TWO_23;
const TWO_MINUS_23: f64 = 1.0 / TWO_23;
const TWO_MINUS_46: f64 = TWO_MINUS_23 * TWO_MINUS_23;

/// One step of the generator: updates `state` to `multiplier * state mod
/// 2^46` and returns the new state scaled to (0, 1). Both arguments must be
/// integers in [1, 2^46) held in an f64; every intermediate is an integer
/// below 2^53, so the arithmetic is exact.
pub fn randlc(state: &mut f64, multiplier: f64) -> f64 {
    // multiplier = a_high * 2^23 + a_low
    let a_high = (TWO_MINUS_23 * multiplier).trunc();
    let a_low = multiplier - TWO_23 * a_high;
    // state = x_high * 2^23 + x_low
    let x_high = (TWO_MINUS_23 * *state).trunc();
    let x_low = *state - TWO_23 * x_high;
    // The cross terms, reduced mod 2^23 so the next product stays exact.
    let cross = a_high * x_low + a_low * x_high;
    let cross_carry = (TWO_MINUS_23 * cross).trunc();
    let cross_low = cross - TWO_23 * cross_carry;
    // (cross_low * 2^23 + a_low * x_low) mod 2^46.
    let product = TWO_23 * cross_low + a_low * x_low;
    let wraps = (TWO_MINUS_46 * product).trunc();
    *state = product - TWO_46 * wraps;
    TWO_MINUS_46 * *state
}

/// The generator as a stream of draws.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Randlc {
    state: f64,
    multiplier: f64,
}

impl Randlc {
    pub fn new(seed: f64, multiplier: f64) -> Self {
        Self {
            state: seed,
            multiplier,
        }
    }

    /// The next draw in (0, 1).
    pub fn next_value(&mut self) -> f64 {
        randlc(&mut self.state, self.multiplier)
    }

    /// The current state (an integer below 2^46).
    #[cfg(test)]
    pub fn state(&self) -> f64 {
        self.state
    }
}
