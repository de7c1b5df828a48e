//! The sentences that rest on other findings: a doctor warning and the
//! findings it bears on, and advice.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The metric of [`DoctorWarningParams`].
pub const DOCTOR_WARNING: &str = "doctor_warning";
/// The metric of [`AdviceParams`].
pub const ADVICE: &str = "advice";

/// `doctor_warning`: a doctor warning of the run that bears on findings
/// present (value: how many).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DoctorWarningParams {
    /// The doctor check (`numa_balancing`, `smt`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub check: Option<String>,
    /// What it found (`kernel.numa_balancing = 1 (on)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub found: Option<String>,
    /// The findings it bears on, as the terminal names them
    /// (`memory latency`, `placement`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub affects: Option<Vec<String>>,
}

finding_params!(DoctorWarningParams, DOCTOR_WARNING);

/// `advice`: what to do, resting on findings of the same run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AdviceParams {
    /// The metrics of the findings it rests on (`serial_init`,
    /// `memory_bandwidth`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub rests_on: Option<Vec<String>>,
}

finding_params!(AdviceParams, ADVICE);
