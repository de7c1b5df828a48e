//! Run metadata: who ran what, where and when. Every results file carries
//! it once; collecting it from this machine is the library's
//! (`numabench::output::CollectRunMetadata`), and the MPI monitor fills it
//! in for its own files.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
