//! The "fastest" verdict of a study: the configuration with the lowest
//! median time is named only when its runs are significantly lower than
//! those of every other eligible configuration. Run times are noisy, so
//! "lowest median" alone would name a winner among configurations that
//! are really equal.

use super::compare::SIGNIFICANCE;
use crate::stats::{mann_whitney_u, Sample};

/// The verdict; indices are into the study's configurations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fastest {
    /// `fastest` has the lowest median and its run times are significantly
    /// lower than those of every other eligible configuration; `p_value` is
    /// the largest p of those tests, against `closest`.
    Significant {
        fastest: usize,
        closest: usize,
        p_value: f64,
    },
    /// `best` has the lowest median but is not significantly faster than
    /// `closest` (p = `p_value`, or its runs are not the lower ones).
    NotSignificant {
        best: usize,
        closest: usize,
        p_value: f64,
    },
    /// Fewer than two eligible configurations: nothing to compare
    /// (`best` is the one there is, if any).
    TooFew { best: Option<usize> },
}

/// Names the fastest of the configurations' run times; `None` marks a
/// configuration that may not be named (nor compared with).
pub fn fastest(times: &[Option<&Sample>]) -> Fastest {
    let eligible: Vec<(usize, &Sample)> = times
        .iter()
        .enumerate()
        .filter_map(|(index, time)| Some((index, (*time)?)))
        .collect();
    let Some(&(best, best_time)) = eligible
        .iter()
        .min_by(|a, b| a.1.median().total_cmp(&b.1.median()))
    else {
        return Fastest::TooFew { best: None };
    };
    // For each rival: (p-value, whether best's runs are significantly lower).
    let tests: Vec<(usize, f64, bool)> = eligible
        .iter()
        .filter(|(index, _)| *index != best)
        .map(|&(index, time)| {
            let test = mann_whitney_u(best_time, time);
            let half = (best_time.len() * time.len()) as f64 / 2.0;
            (
                index,
                test.p_value,
                test.u < half && test.p_value < SIGNIFICANCE,
            )
        })
        .collect();
    let closest_of = |tests: &mut dyn Iterator<Item = &(usize, f64, bool)>| {
        tests
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|&(index, p_value, _)| (index, p_value))
    };
    if let Some((closest, p_value)) = closest_of(&mut tests.iter().filter(|test| !test.2)) {
        return Fastest::NotSignificant {
            best,
            closest,
            p_value,
        };
    }
    match closest_of(&mut tests.iter()) {
        Some((closest, p_value)) => Fastest::Significant {
            fastest: best,
            closest,
            p_value,
        },
        None => Fastest::TooFew { best: Some(best) },
    }
}

/// The smallest two-sided p-value the Mann-Whitney test can give samples
/// of these sizes (completely separated ones): when it is not below
/// [`SIGNIFICANCE`], no number of configurations can be told apart.
pub fn smallest_p_value(first: usize, second: usize) -> f64 {
    let ranks = |from: usize, count: usize| {
        Sample::new((from..from + count.max(1)).map(|rank| rank as f64)).expect("finite ranks")
    };
    mann_whitney_u(&ranks(0, first), &ranks(first.max(1), second)).p_value
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(values: &[f64]) -> Sample {
        Sample::new(values.iter().copied()).unwrap()
    }

    /// Separated samples name the fastest; overlapping ones do not; an
    /// ineligible configuration is neither named nor a rival.
    #[test]
    fn the_fastest_is_named_only_when_significant() {
        let fast = sample(&[1.0, 1.1, 1.2, 1.3, 1.4]);
        let slow = sample(&[2.0, 2.1, 2.2, 2.3, 2.4]);
        let close = sample(&[1.05, 1.15, 1.25, 1.35, 1.45]);
        assert!(matches!(
            fastest(&[Some(&slow), Some(&fast)]),
            Fastest::Significant {
                fastest: 1,
                closest: 0,
                ..
            }
        ));
        assert!(matches!(
            fastest(&[Some(&fast), Some(&close), Some(&slow)]),
            Fastest::NotSignificant {
                best: 0,
                closest: 1,
                ..
            }
        ));
        assert_eq!(
            fastest(&[None, Some(&slow)]),
            Fastest::TooFew { best: Some(1) }
        );
        assert_eq!(fastest(&[None]), Fastest::TooFew { best: None });
    }

    /// Three runs each cannot reach 5% (p = 0.0809); five can.
    #[test]
    fn the_smallest_p_value_depends_on_the_sample_sizes() {
        assert!(smallest_p_value(3, 3) > SIGNIFICANCE);
        assert!(smallest_p_value(5, 5) < SIGNIFICANCE);
    }
}
