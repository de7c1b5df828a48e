//! When to stop repeating a measurement: once the 95% confidence interval
//! of its median is within ±1% of the median, or at a maximum count, and
//! never before a minimum count. The models are hyperfine (at least 3
//! runs, more while a minimum time is not reached) and criterion (sample
//! until a target measurement time, then report the interval reached);
//! numabench's minimum time is per sample (each benchmark's own
//! `SAMPLE_SECONDS` or bytes per repetition), so the rule here only counts.
//!
//! The interval is the normal-theory interval of a median: the standard
//! error of a median is sqrt(pi/2) times that of a mean (s / sqrt(n)), and
//! Student's t with n - 1 degrees of freedom stands in for 1.96 while n is
//! small, so three close values can converge and three spread ones cannot.
//! A distribution-free interval (order statistics) needs at least 6 values
//! to reach 95% at all, too many for the 3 the rule keeps at least.

pub use numabench_schema::params::{ConvergenceParams, StoppedBy};

/// The half-width of the median's 95% interval, relative to the median,
/// under which a measurement has converged (±1%).
pub const CI95_TARGET_REL: f64 = 0.01;

/// The fewest repetitions of a measurement (where the maximum allows).
pub const MIN_REPETITIONS: usize = 3;

/// How many repetitions a measurement takes: between `min` and `max`,
/// stopping as soon as the median's 95% interval is within `target_rel`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoppingRule {
    /// Repetitions always taken (at most `max`).
    pub min: usize,
    /// Repetitions never exceeded.
    pub max: usize,
    /// See [`CI95_TARGET_REL`].
    pub target_rel: f64,
}

/// The environment variable that turns the early stop off: `1` makes every
/// measurement take all of its `--repeat` repetitions.
pub const FIXED_REPETITIONS_ENV: &str = "NUMABENCH_FIXED_REPETITIONS";

impl StoppingRule {
    /// The rule with at most `max` repetitions (at least 1), at least
    /// [`MIN_REPETITIONS`] of them, converging at [`CI95_TARGET_REL`].
    ///
    /// With [`FIXED_REPETITIONS_ENV`] set to `1`, every repetition is made
    /// (the minimum is the maximum), as tools with a fixed count do: for a
    /// side-by-side comparison, or a run that must last.
    pub fn up_to(max: usize) -> Self {
        let fixed = std::env::var(FIXED_REPETITIONS_ENV).is_ok_and(|value| value == "1");
        Self::up_to_fixed(max, fixed)
    }

    /// [`StoppingRule::up_to`], every repetition made when `fixed`.
    pub fn up_to_fixed(max: usize, fixed: bool) -> Self {
        let max = max.max(1);
        Self {
            min: if fixed { max } else { MIN_REPETITIONS.min(max) },
            max,
            target_rel: CI95_TARGET_REL,
        }
    }

    /// A fresh count of repetitions under this rule.
    pub fn start(self) -> Repetitions {
        Repetitions {
            rule: self,
            values: Vec::with_capacity(self.max),
            interrupted: false,
        }
    }
}

/// The values of one measurement's repetitions so far, fed one by one.
#[derive(Debug, Clone, PartialEq)]
pub struct Repetitions {
    rule: StoppingRule,
    values: Vec<f64>,
    interrupted: bool,
}

impl Repetitions {
    /// Adds one repetition's value (any unit; non-finite values are kept
    /// out of the interval but count as a repetition taken).
    pub fn push(&mut self, value: f64) {
        self.values.push(value);
    }

    /// Notes that Ctrl-C stopped the repetitions.
    pub fn interrupt(&mut self) {
        self.interrupted = true;
    }

    /// True when no further repetition is to be taken.
    pub fn done(&self) -> bool {
        let n = self.values.len();
        self.interrupted
            || n >= self.rule.max
            || (n >= self.rule.min
                && self
                    .ci95_rel()
                    .is_some_and(|rel| rel <= self.rule.target_rel))
    }

    /// Half-width of the median's 95% interval relative to the median.
    pub fn ci95_rel(&self) -> Option<f64> {
        median_ci95_rel(&self.values)
    }

    /// Repetitions taken so far.
    pub fn count(&self) -> usize {
        self.values.len()
    }

    /// What was reached, to state in the record.
    pub fn convergence(&self) -> ConvergenceParams {
        let ci95_rel = self.ci95_rel();
        let converged = self.values.len() >= self.rule.min
            && ci95_rel.is_some_and(|rel| rel <= self.rule.target_rel);
        ConvergenceParams {
            repetitions: self.values.len() as u64,
            max_repetitions: self.rule.max as u64,
            ci95_rel,
            ci95_target_rel: self.rule.target_rel,
            stopped_by: if converged {
                StoppedBy::Converged
            } else if self.interrupted {
                StoppedBy::Interrupted
            } else {
                StoppedBy::Maximum
            },
        }
    }
}

/// Half-width of the 95% interval of the median of `values`, relative to
/// that median: t(0.975, n - 1) x sqrt(pi/2) x s / sqrt(n) / |median|.
/// `None` with fewer than 2 finite values or a zero median.
pub fn median_ci95_rel(values: &[f64]) -> Option<f64> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let sample = super::Sample::new(finite).ok()?;
    let n = sample.len();
    let median = sample.median();
    if n < 2 || median == 0.0 {
        return None;
    }
    let standard_error = (std::f64::consts::PI / 2.0).sqrt() * sample.stddev() / (n as f64).sqrt();
    Some(t_975(n - 1) * standard_error / median.abs())
}

/// Student's t quantile 0.975 for `df` degrees of freedom (table to 30,
/// then 1.96 + 2.4 / df, within 0.002 of the exact value).
fn t_975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df - 1],
        _ => 1.96 + 2.4 / df as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `stream` to a rule until it says done.
    fn run(rule: StoppingRule, stream: impl IntoIterator<Item = f64>) -> ConvergenceParams {
        let mut repetitions = rule.start();
        for value in stream {
            if repetitions.done() {
                break;
            }
            repetitions.push(value);
        }
        repetitions.convergence()
    }

    #[test]
    fn a_steady_measurement_stops_at_the_minimum() {
        // 100 ns ± 0.1%: the interval is far inside ±1% at 3 values.
        let steady = [100.0, 100.1, 99.9, 100.05, 99.95, 100.0, 100.1, 99.9];
        let reached = run(StoppingRule::up_to(20), steady.iter().copied().cycle());
        assert_eq!(reached.repetitions, 3);
        assert_eq!(reached.stopped_by, StoppedBy::Converged);
        let rel = reached.ci95_rel.unwrap();
        // Hand-computed: s = 0.1, t(2) = 4.303, sqrt(pi/2) = 1.2533.
        let expected = 4.303 * 1.253_314_137 * 0.1 / 3f64.sqrt() / 100.0;
        assert!((rel - expected).abs() < 1e-9, "{rel} vs {expected}");
        assert!(rel <= CI95_TARGET_REL);
    }

    #[test]
    fn a_noisy_measurement_reaches_the_maximum_and_reports_its_interval() {
        // ±10% noise: 20 values give an interval of several percent.
        let noisy = [90.0, 110.0, 95.0, 105.0, 100.0, 88.0, 112.0];
        let reached = run(StoppingRule::up_to(20), noisy.iter().copied().cycle());
        assert_eq!(reached.repetitions, 20);
        assert_eq!(reached.max_repetitions, 20);
        assert_eq!(reached.stopped_by, StoppedBy::Maximum);
        let rel = reached.ci95_rel.unwrap();
        assert!(rel > CI95_TARGET_REL && rel < 0.1, "{rel}");
    }

    #[test]
    fn the_minimum_is_kept_and_never_exceeds_the_maximum() {
        // Identical values converge at once, but 3 are taken anyway.
        assert_eq!(
            run(StoppingRule::up_to(10), std::iter::repeat(5.0)).repetitions,
            3
        );
        // --repeat 1: one value, no interval, stopped by the maximum.
        let one = run(StoppingRule::up_to(1), std::iter::repeat(5.0));
        assert_eq!((one.repetitions, one.ci95_rel), (1, None));
        assert_eq!(one.stopped_by, StoppedBy::Maximum);
        assert_eq!(StoppingRule::up_to(0).max, 1);
        assert_eq!(StoppingRule::up_to(2).min, 2);
    }

    #[test]
    fn an_interrupted_measurement_says_so() {
        let mut repetitions = StoppingRule::up_to(10).start();
        repetitions.push(1.0);
        repetitions.push(2.0);
        repetitions.interrupt();
        assert!(repetitions.done());
        assert_eq!(repetitions.convergence().stopped_by, StoppedBy::Interrupted);
    }

    #[test]
    fn the_t_quantiles_approach_the_normal_one() {
        assert!((t_975(30) - 2.042).abs() < 1e-9);
        assert!((t_975(31) - 2.0374).abs() < 0.002);
        assert!((t_975(120) - 1.980).abs() < 0.002);
        assert!(t_975(0).is_infinite());
    }

    /// Fixed: a steady stream that would stop at 3 takes every repetition.
    #[test]
    fn a_fixed_rule_takes_every_repetition() {
        let mut repetitions = StoppingRule::up_to_fixed(7, true).start();
        let mut made = 0;
        while !repetitions.done() {
            repetitions.push(100.0);
            made += 1;
        }
        assert_eq!(made, 7);
        let mut repetitions = StoppingRule::up_to_fixed(7, false).start();
        let mut made = 0;
        while !repetitions.done() {
            repetitions.push(100.0);
            made += 1;
        }
        assert_eq!(made, 3);
    }
}
