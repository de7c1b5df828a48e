//! How many repetitions a measurement took and the interval its median
//! reached (`params.convergence` of `latency`, `bandwidth`, `mlp` and
//! `contention` records and of every record built on them). The library's
//! stopping rule (`stats::StoppingRule`) fills it in.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What the repetitions of one measurement reached. A key a record lacks
/// (a file written by hand) reads as 0, null or `maximum`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ConvergenceParams {
    /// Timed repetitions taken.
    pub repetitions: u64,
    /// The most that would have been taken (`--repeat`, or a budget's cut).
    pub max_repetitions: u64,
    /// Half-width of the median's 95% interval relative to the median;
    /// null with fewer than 2 values (always written).
    pub ci95_rel: Option<f64>,
    /// The half-width it had to reach to stop early.
    pub ci95_target_rel: f64,
    pub stopped_by: StoppedBy,
}

/// Why a measurement stopped repeating.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StoppedBy {
    /// The median's 95% interval was within the target.
    Converged,
    /// The maximum count was reached first (or a budget cut it).
    #[default]
    Maximum,
    /// Ctrl-C stopped it early.
    Interrupted,
}

impl StoppedBy {
    /// The reason as written: `converged`, `maximum` or `interrupted`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Converged => "converged",
            Self::Maximum => "maximum",
            Self::Interrupted => "interrupted",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn written_whole_with_a_null_interval_and_read_back() {
        let reached = ConvergenceParams {
            repetitions: 1,
            max_repetitions: 5,
            ci95_rel: None,
            ci95_target_rel: 0.01,
            stopped_by: StoppedBy::Interrupted,
        };
        let written = serde_json::to_value(reached).unwrap();
        assert_eq!(
            written,
            json!({"repetitions": 1, "max_repetitions": 5, "ci95_rel": null,
                "ci95_target_rel": 0.01, "stopped_by": "interrupted"})
        );
        let read: ConvergenceParams = serde_json::from_value(written).unwrap();
        assert_eq!(read, reached);
        for reason in [
            StoppedBy::Converged,
            StoppedBy::Maximum,
            StoppedBy::Interrupted,
        ] {
            assert_eq!(serde_json::to_value(reason).unwrap(), json!(reason.name()));
        }
    }

    #[test]
    fn a_partial_object_reads_with_defaults_and_a_bad_reason_does_not() {
        let read: ConvergenceParams =
            serde_json::from_value(json!({"repetitions": 3, "ci95_rel": 0.004})).unwrap();
        assert_eq!(read.repetitions, 3);
        assert_eq!(read.ci95_rel, Some(0.004));
        assert_eq!(read.stopped_by, StoppedBy::Maximum);
        let bad = serde_json::from_value::<ConvergenceParams>(json!({"stopped_by": "bored"}));
        assert!(bad.unwrap_err().to_string().contains("bored"));
    }
}
