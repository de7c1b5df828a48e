//! Run metadata: who ran what, where and when. Every results file carries
//! it once; collecting it from this machine is the library's
//! (`numabench::output::CollectRunMetadata`), and the MPI monitor fills it
//! in for its own files.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The facts of this machine a run's metadata records, read from `/proc`
/// (`unknown` where a file cannot be read): what the library's metadata
/// and the MPI monitor's both need.
#[derive(Debug, Clone, PartialEq)]
pub struct MachineFacts {
    /// `/proc/sys/kernel/hostname`.
    pub host: String,
    /// Kernel release (`/proc/sys/kernel/osrelease`, as `uname -r`).
    pub kernel: String,
    /// The first `model name` of `/proc/cpuinfo`.
    pub cpu_model: String,
}

impl MachineFacts {
    /// Reads them now.
    pub fn read() -> Self {
        let read = |path: &str| {
            std::fs::read_to_string(path)
                .map(|text| text.trim().to_string())
                .unwrap_or_else(|_| UNKNOWN.to_string())
        };
        MachineFacts {
            host: read("/proc/sys/kernel/hostname"),
            kernel: read("/proc/sys/kernel/osrelease"),
            cpu_model: std::fs::read_to_string("/proc/cpuinfo")
                .ok()
                .and_then(|text| cpu_model(&text))
                .unwrap_or_else(|| UNKNOWN.to_string()),
        }
    }
}

/// What a fact that cannot be read says.
const UNKNOWN: &str = "unknown";

/// The first `model name` of a `/proc/cpuinfo` text.
fn cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo
        .lines()
        .find(|line| line.starts_with("model name"))
        .and_then(|line| line.split_once(':'))
        .map(|(_, model)| model.trim().to_string())
}

/// Who ran what, where and when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunMetadata {
    /// Always `numabench`.
    pub tool: String,
    /// numabench's version.
    pub version: String,
    /// The commit numabench was built from (`unknown` outside a checkout;
    /// empty, and not written, in files written before it was recorded and
    /// in the MPI monitor's).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub commit: String,
    /// Version of the results schema.
    pub schema_version: u32,
    /// The full command line, program name included.
    pub command_line: Vec<String>,
    pub host: String,
    /// Kernel release (`uname -r`).
    pub kernel: String,
    /// CPU model name.
    pub cpu_model: String,
    /// One line: packages, cores, CPUs, nodes (CPU-less count); for a
    /// topology that is not this machine's, where it comes from.
    pub topology: String,
    /// Start of the run, UTC, RFC 3339.
    pub utc_time: String,
}

impl RunMetadata {
    /// A fixed metadata, the same every time: for tests and examples that
    /// need a pipeline or a file but not this machine's facts.
    pub fn example() -> Self {
        Self {
            tool: "numabench".into(),
            version: "0.1.0".into(),
            commit: "c".into(),
            schema_version: crate::RESULTS_SCHEMA_VERSION,
            command_line: vec!["numabench".into(), "latency".into()],
            host: "test".into(),
            kernel: "6.1".into(),
            cpu_model: "cpu".into(),
            topology: "1 node".into(),
            utc_time: "2026-11-21T00:00:00Z".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model is the first `model name` line's, trimmed; a text without
    /// one (some architectures' cpuinfo) gives none.
    #[test]
    fn the_cpu_model_is_the_first_model_name() {
        let text =
            "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nprocessor\t: 1\nmodel name\t: other\n";
        assert_eq!(cpu_model(text).as_deref(), Some("AMD EPYC 7B13"));
        assert_eq!(cpu_model("processor\t: 0\nCPU part\t: 0xd0c\n"), None);
    }

    /// On Linux the kernel release can always be read.
    #[test]
    fn this_machine_has_a_kernel_release() {
        let facts = MachineFacts::read();
        assert!(
            !facts.kernel.is_empty() && facts.kernel != UNKNOWN,
            "{facts:?}"
        );
    }
}
