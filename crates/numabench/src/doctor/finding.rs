//! What a doctor check reports.

use super::CheckId;
use serde::{Deserialize, Serialize};

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The setting is as NUMA measurements want it.
    Ok,
    /// Worth knowing; does not spoil results.
    Info,
    /// Changes or spoils results: fix it or read results with it in mind.
    Warning,
    /// A setting of the running kernel that was not looked at because the
    /// topology is another machine's (`--topology FILE`): the file does not
    /// carry it. Neither ok nor a warning.
    #[serde(rename = "not_checked")]
    NotChecked,
}

impl Severity {
    /// The name records and settings write (the serialized form).
    pub fn name(self) -> &'static str {
        match self {
            Severity::Ok => "ok",
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::NotChecked => "not_checked",
        }
    }

    /// `severity: found`, how `cluster` and `check` compare a finding
    /// across hosts and against a baseline.
    pub fn with(self, found: &str) -> String {
        format!("{}: {found}", self.name())
    }
}

/// One audited setting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Which setting, e.g. `numa_balancing`.
    pub check: CheckId,
    pub severity: Severity,
    /// What was found, e.g. `kernel.numa_balancing = 1 (on)`.
    pub found: String,
    /// Why it matters for NUMA measurements.
    pub why: String,
    /// What to do about it (empty when nothing needs doing).
    pub advice: String,
}

impl Finding {
    pub fn new(
        check: CheckId,
        severity: Severity,
        found: impl Into<String>,
        why: &str,
        advice: impl Into<String>,
    ) -> Self {
        Self {
            check,
            severity,
            found: found.into(),
            why: why.to_string(),
            advice: advice.into(),
        }
    }
}

impl Finding {
    /// A setting that could not be read: unknown, and a warning, since a
    /// setting that spoils results may hide behind it (never "ok").
    pub fn unreadable(
        check: CheckId,
        path: &str,
        reason: impl std::fmt::Display,
        why: &str,
    ) -> Self {
        Self::new(
            check,
            Severity::Warning,
            format!("unknown (could not read {path}: {reason})"),
            why,
            format!("run doctor where {path} is readable (on the host, outside the container), or check the setting there"),
        )
    }
}

impl Finding {
    /// A host setting not checked because the topology, from `source`, is
    /// not this machine: the settings of this kernel say nothing about it.
    pub fn not_checked(check: CheckId, source: &str) -> Self {
        Self::new(
            check,
            Severity::NotChecked,
            format!("not checked: {source} is not this machine"),
            "this setting belongs to the running kernel (/proc, /sys), which a topology file does not carry",
            "run numabench doctor on that machine",
        )
    }
}

/// Every finding of one doctor run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DoctorReport {
    pub schema_version: u32,
    /// `clean` or `warnings`.
    pub status: String,
    pub warnings: usize,
    /// Findings of severity `not_checked` (host settings of another
    /// machine's topology).
    #[serde(default)]
    pub not_checked: usize,
    pub findings: Vec<Finding>,
}

impl DoctorReport {
    pub fn new(findings: Vec<Finding>) -> Self {
        let warnings = findings
            .iter()
            .filter(|finding| finding.severity == Severity::Warning)
            .count();
        let not_checked = findings
            .iter()
            .filter(|finding| finding.severity == Severity::NotChecked)
            .count();
        Self {
            schema_version: 1,
            status: if warnings == 0 { "clean" } else { "warnings" }.to_string(),
            warnings,
            not_checked,
            findings,
        }
    }

    /// The readable form.
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        for finding in &self.findings {
            let tag = match finding.severity {
                Severity::Ok => "ok",
                Severity::Info => "info",
                Severity::Warning => "WARN",
                Severity::NotChecked => "skip",
            };
            out.push_str(&format!(
                "[{tag:<4}] {}: {}\n",
                finding.check, finding.found
            ));
            // A skipped setting's why and fix are the same for all: said once below.
            if !matches!(finding.severity, Severity::Ok | Severity::NotChecked) {
                out.push_str(&format!("       why: {}\n", finding.why));
                if !finding.advice.is_empty() {
                    out.push_str(&format!("       fix: {}\n", finding.advice));
                }
            }
        }
        let skipped = match self.not_checked {
            0 => String::new(),
            count => format!(", {count} not checked (settings of the running kernel; run doctor on the machine itself)"),
        };
        out.push_str(&format!(
            "\n{} check(s), {} warning(s){skipped}: {}\n",
            self.findings.len(),
            self.warnings,
            self.status
        ));
        out
    }
}

#[cfg(test)]
mod severity_tests {
    use super::Severity;

    /// The name is the serialized form, for every severity.
    #[test]
    fn names_are_the_serialized_form() {
        for severity in [
            Severity::Ok,
            Severity::Info,
            Severity::Warning,
            Severity::NotChecked,
        ] {
            assert_eq!(serde_json::to_value(severity).unwrap(), severity.name());
        }
        assert_eq!(Severity::Warning.with("x"), "warning: x");
    }
}
