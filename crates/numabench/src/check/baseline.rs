//! The baseline file: per node type, the figures of a healthy node with
//! their tolerances, in ReFrame's manner (a reference value, a lower and
//! an upper threshold as fractions of it, a unit), and the plan they were
//! measured with, so that every later check measures the same things.

use super::fingerprint::{differences, Fingerprint};
use super::plan::{CheckPlan, CheckQuantity};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The `format` field of every baseline file.
pub const BASELINE_FORMAT: &str = "numabench-baseline";
/// The version this numabench writes and reads.
pub const BASELINE_VERSION: u32 = 1;

/// The least tolerance a written baseline gives a bandwidth (5% below).
pub const BANDWIDTH_TOLERANCE_FLOOR: f64 = 0.05;
/// The least tolerance a written baseline gives a latency (10% above).
pub const LATENCY_TOLERANCE_FLOOR: f64 = 0.10;
/// A written tolerance is this many robust standard deviations of the
/// baseline's own runs (1.4826 x their median absolute deviation, over
/// the median), when that is above the floor.
pub const SPREAD_MULTIPLE: f64 = 3.0;

/// A baseline file: one entry per node type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// Always [`BASELINE_FORMAT`].
    pub format: String,
    /// [`BASELINE_VERSION`].
    pub version: u32,
    pub entries: Vec<BaselineEntry>,
}

/// The baseline of one node type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineEntry {
    pub fingerprint: Fingerprint,
    /// Where and when it was written.
    pub written: Written,
    /// What every check of this node type measures.
    pub plan: CheckPlan,
    /// Metric key (as [`super::CheckItem::key`]) → its reference.
    pub metrics: BTreeMap<String, Reference>,
}

/// Where a baseline entry comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Written {
    /// The host it was measured on (`cluster --write-baseline`: the hosts).
    pub host: String,
    /// UTC time, RFC 3339.
    pub utc_time: String,
    /// The numabench that wrote it (`VERSION (commit ...)`).
    pub numabench: String,
    /// Healthy runs its references are the medians of.
    pub runs: usize,
}

impl Written {
    /// This host, now, this numabench, from `runs` runs.
    pub fn now(runs: usize) -> Self {
        Written {
            host: numabench_schema::MachineFacts::read().host,
            utc_time: numabench_schema::utc_timestamp(std::time::SystemTime::now()),
            numabench: crate::VERSION_LINE.to_string(),
            runs,
        }
    }
}

/// One metric's reference, as ReFrame writes `(value, lower, upper,
/// unit)`: `lower` and `upper` are fractions of `value` (-0.05: 5%
/// below), `None` for no bound on that side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    pub value: f64,
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    pub unit: String,
    /// The runs' robust relative standard deviation (1.4826 x their median
    /// absolute deviation, over `value`): what the tolerance was derived
    /// from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<f64>,
}

impl Reference {
    /// The reference of a metric measured `runs` times on a healthy node:
    /// their median, and a tolerance on the bad side only (below for a
    /// bandwidth, above for a latency) of [`SPREAD_MULTIPLE`] robust
    /// standard deviations of the runs (one outlier among them does not
    /// widen it), at least the floor of its kind, or `tolerance` when the
    /// user set one.
    pub fn from_runs(quantity: CheckQuantity, runs: &[f64], tolerance: Option<f64>) -> Reference {
        let median = |values: &[f64]| {
            let mut sorted = values.to_vec();
            sorted.sort_by(f64::total_cmp);
            match sorted.len() {
                0 => f64::NAN,
                n if n % 2 == 1 => sorted[n / 2],
                n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
            }
        };
        let value = median(runs);
        let deviations: Vec<f64> = runs.iter().map(|x| (x - value).abs()).collect();
        let spread = 1.4826 * median(&deviations) / value;
        let floor = if quantity.higher_is_better() {
            BANDWIDTH_TOLERANCE_FLOOR
        } else {
            LATENCY_TOLERANCE_FLOOR
        };
        let tolerance = tolerance.unwrap_or((SPREAD_MULTIPLE * spread).max(floor));
        let (lower, upper) = if quantity.higher_is_better() {
            (Some(-tolerance), None)
        } else {
            (None, Some(tolerance))
        };
        Reference {
            value,
            lower,
            upper,
            unit: quantity.unit().to_string(),
            spread: Some(spread),
        }
    }

    /// Whether the bounds can be read back: a lower one a fraction in
    /// (-1, 0] (a bandwidth cannot fall 100% or more), an upper one >= 0.
    pub fn bounds_are_valid(&self) -> bool {
        let lower_ok = self
            .lower
            .is_none_or(|b| b.is_finite() && b > -1.0 && b <= 0.0);
        let upper_ok = self.upper.is_none_or(|b| b.is_finite() && b >= 0.0);
        lower_ok && upper_ok
    }

    /// True when `measured` is within the bounds.
    pub fn accepts(&self, measured: f64) -> bool {
        let above_lower = self
            .lower
            .is_none_or(|lower| measured >= self.value * (1.0 + lower));
        let below_upper = self
            .upper
            .is_none_or(|upper| measured <= self.value * (1.0 + upper));
        measured.is_finite() && above_lower && below_upper
    }

    /// The bounds in words: `-5%`, `+10%`, `-5%/+5%`.
    pub fn tolerance_text(&self) -> String {
        let percent = |fraction: f64| format!("{:+.0}%", fraction * 100.0);
        match (self.lower, self.upper) {
            (Some(lower), Some(upper)) => format!("{}/{}", percent(lower), percent(upper)),
            (Some(lower), None) => percent(lower),
            (None, Some(upper)) => percent(upper),
            (None, None) => "no bound".into(),
        }
    }
}

/// Why a baseline cannot be used.
///
/// Fault: always the user's (exit status 2): the baseline file given, or
/// its place.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("baseline {path}: {error}")]
    Unreadable { path: String, error: std::io::Error },
    #[error("baseline {path} is not a numabench baseline: {reason}")]
    Format {
        path: String,
        reason: BaselineFormatError,
    },
    #[error(
        "no baseline for this node type ({node_type}) in {path}: it holds {held}; \
         write one on a healthy node of this type with `numabench check --write-baseline {path}`"
    )]
    NoEntry {
        path: String,
        node_type: String,
        held: String,
    },
    #[error("baseline {path}: cannot write: {error}")]
    Unwritable { path: String, error: std::io::Error },
}

/// What is wrong with a baseline's text ([`Baseline::parse`]).
///
/// Fault: always the user's (the file given).
#[derive(Debug, thiserror::Error)]
pub enum BaselineFormatError {
    #[error("not JSON ({0})")]
    NotJson(serde_json::Error),
    #[error("its format is {found:?}, not {BASELINE_FORMAT:?}")]
    OtherFormat { found: String },
    #[error("no \"format\": {BASELINE_FORMAT:?} field")]
    NoFormat,
    #[error(transparent)]
    Fields(serde_json::Error),
    #[error("version {found} (this numabench reads version {BASELINE_VERSION})")]
    Version { found: u32 },
    #[error("{key} is planned but has no reference")]
    NoReference { key: String },
    #[error("{key}: value {value} is not a positive figure")]
    NotPositive { key: String, value: f64 },
    #[error("{key}: lower must be a fraction in (-1, 0] and upper one >= 0 (-0.05 is 5% below)")]
    Bounds { key: String },
}

crate::error::all_faulty!(Usage: BaselineError, BaselineFormatError);

impl Baseline {
    /// An empty baseline.
    pub fn new() -> Self {
        Baseline {
            format: BASELINE_FORMAT.into(),
            version: BASELINE_VERSION,
            entries: Vec::new(),
        }
    }

    /// Reads and validates `path`.
    pub fn read(path: &Path) -> Result<Baseline, BaselineError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|error| BaselineError::Unreadable {
            path: name.clone(),
            error,
        })?;
        Self::parse(&text).map_err(|reason| BaselineError::Format { path: name, reason })
    }

    /// Parses and validates a baseline's text; the error says what is wrong.
    pub fn parse(text: &str) -> Result<Baseline, BaselineFormatError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(BaselineFormatError::NotJson)?;
        match value.get("format").and_then(|format| format.as_str()) {
            Some(BASELINE_FORMAT) => {}
            Some(other) => {
                return Err(BaselineFormatError::OtherFormat {
                    found: other.to_string(),
                })
            }
            None => return Err(BaselineFormatError::NoFormat),
        }
        let baseline: Baseline =
            serde_json::from_value(value).map_err(BaselineFormatError::Fields)?;
        if baseline.version != BASELINE_VERSION {
            return Err(BaselineFormatError::Version {
                found: baseline.version,
            });
        }
        for entry in &baseline.entries {
            for item in &entry.plan.items {
                if !entry.metrics.contains_key(&item.key) {
                    return Err(BaselineFormatError::NoReference {
                        key: item.key.clone(),
                    });
                }
            }
            for (key, reference) in &entry.metrics {
                if !(reference.value.is_finite() && reference.value > 0.0) {
                    return Err(BaselineFormatError::NotPositive {
                        key: key.clone(),
                        value: reference.value,
                    });
                }
                if !reference.bounds_are_valid() {
                    return Err(BaselineFormatError::Bounds { key: key.clone() });
                }
            }
        }
        Ok(baseline)
    }

    /// The entry for `fingerprint`'s node type (the one differing least
    /// when several are of its type).
    pub fn entry_for(&self, fingerprint: &Fingerprint) -> Option<&BaselineEntry> {
        self.entries
            .iter()
            .filter(|entry| entry.fingerprint.same_type(fingerprint))
            .min_by_key(|entry| differences(fingerprint, &entry.fingerprint).len())
    }

    /// The node types held, in words.
    pub fn held(&self) -> String {
        if self.entries.is_empty() {
            return "no entries".into();
        }
        self.entries
            .iter()
            .map(|entry| entry.fingerprint.node_type())
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Adds `entry`, replacing an entry of the same node type whose
    /// fingerprint is identical (a node type measured again).
    pub fn put(&mut self, entry: BaselineEntry) {
        self.entries
            .retain(|held| held.fingerprint != entry.fingerprint);
        self.entries.push(entry);
    }

    /// Writes the file whole (a temporary file renamed over it).
    pub fn write(&self, path: &Path) -> Result<(), BaselineError> {
        let unwritable = |error| BaselineError::Unwritable {
            path: path.display().to_string(),
            error,
        };
        let text = serde_json::to_string_pretty(self).expect("a baseline serializes") + "\n";
        let temporary = path.with_extension("tmp-numabench");
        std::fs::write(&temporary, text).map_err(unwritable)?;
        std::fs::rename(&temporary, path).map_err(unwritable)
    }
}

impl Default for Baseline {
    fn default() -> Self {
        Self::new()
    }
}
