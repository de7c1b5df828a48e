//! Draining this node in Slurm as LBNL NHC does: the reason starts with
//! `numabench:`, a reason someone else set is never overwritten or
//! cleared, and the node is resumed only when the reason is numabench's
//! and the node is healthy again.

use std::process::Command;

/// What every reason numabench sets starts with.
pub const REASON_PREFIX: &str = "numabench:";

/// The longest reason set (Slurm keeps longer ones, `sinfo -R` cuts them).
const REASON_CHARS: usize = 200;

/// Why Slurm could not be asked or told.
///
/// Always the system's fault: Slurm's client is missing, refused, or does
/// not know this host.
#[derive(Debug, thiserror::Error)]
pub enum SlurmError {
    #[error("cannot run {program}: {error} (is Slurm's client installed and on PATH?)")]
    Missing {
        program: String,
        error: std::io::Error,
    },
    #[error("`{command}` failed: {message}")]
    Failed { command: String, message: String },
    #[error(
        "this host ({host}) is not a node of this Slurm: set SLURMD_NODENAME or give --node-name"
    )]
    NotANode { host: String },
}

crate::error::all_faulty!(System: SlurmError);

/// The node as Slurm has it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeState {
    /// `sinfo`'s extended state: `idle`, `drained`, `draining`, `mixed`, ...
    pub state: String,
    /// The reason set, if any.
    pub reason: Option<String>,
}

impl NodeState {
    /// True when the reason is numabench's.
    pub fn ours(&self) -> bool {
        self.reason
            .as_deref()
            .is_some_and(|reason| reason.starts_with(REASON_PREFIX))
    }

    /// True when the node is drained or draining.
    pub fn drained(&self) -> bool {
        self.state.starts_with("drain")
    }
}

/// What [`drain`] or [`undrain`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Drained with this reason.
    Drained(String),
    /// Already drained by numabench with this very reason.
    AlreadyDrained,
    /// Left alone: someone else's reason is set.
    KeptReason(String),
    /// Resumed: numabench had drained it and it is healthy again.
    Resumed,
    /// Nothing to do.
    Nothing,
}

impl Action {
    /// The action in words, for the check's report.
    pub fn describe(&self, node: &str) -> String {
        match self {
            Action::Drained(reason) => format!("drained {node}: {reason}"),
            Action::AlreadyDrained => format!("{node} already drained by numabench"),
            Action::KeptReason(reason) => {
                format!("{node} not drained by numabench: its reason is someone else's ({reason})")
            }
            Action::Resumed => format!("resumed {node}"),
            Action::Nothing => format!("{node}: nothing to do"),
        }
    }
}

/// Runs a Slurm client command; its stdout.
fn run(program: &str, args: &[&str]) -> Result<String, SlurmError> {
    let output =
        Command::new(program)
            .args(args)
            .output()
            .map_err(|error| SlurmError::Missing {
                program: program.into(),
                error,
            })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(SlurmError::Failed {
            command: format!("{program} {}", args.join(" ")),
            message: stderr
                .lines()
                .next()
                .unwrap_or("no message")
                .trim()
                .to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Slurm's name for this host: `SLURMD_NODENAME` when set (slurmd sets it
/// for its health check program), else the node whose NodeName,
/// NodeHostName or NodeAddr is this host's name or its short name.
pub fn node_name() -> Result<String, SlurmError> {
    if let Some(name) = std::env::var_os("SLURMD_NODENAME") {
        let name = name.to_string_lossy().trim().to_string();
        if !name.is_empty() {
            return Ok(name);
        }
    }
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap_or_default()
        .trim()
        .to_string();
    let listing = run("scontrol", &["show", "node", "--oneliner"])?;
    node_of_host(&listing, &host).ok_or(SlurmError::NotANode { host })
}

/// Slurm's name for the node whose NodeName, NodeHostName or NodeAddr is
/// `host` (another host of a cluster: `cluster --drain`).
pub fn node_for_host(host: &str) -> Result<String, SlurmError> {
    let listing = run("scontrol", &["show", "node", "--oneliner"])?;
    node_of_host(&listing, host).ok_or(SlurmError::NotANode { host: host.into() })
}

/// The node of `scontrol show node --oneliner`'s `listing` that is `host`.
pub fn node_of_host(listing: &str, host: &str) -> Option<String> {
    let short = host.split('.').next().unwrap_or(host);
    listing.lines().find_map(|line| {
        let field = |name: &str| {
            line.split_whitespace()
                .find_map(|word| word.strip_prefix(name)?.strip_prefix('='))
        };
        let name = field("NodeName")?;
        let matches = [field("NodeName"), field("NodeHostName"), field("NodeAddr")]
            .into_iter()
            .flatten()
            .any(|value| value == host || value == short);
        matches.then(|| name.to_string())
    })
}

/// The node's state and reason (`sinfo -N -n NODE -o '%T|%E'`).
pub fn node_state(node: &str) -> Result<NodeState, SlurmError> {
    let listing = run("sinfo", &["--noheader", "-N", "-n", node, "-o", "%T|%E"])?;
    parse_state(&listing).ok_or_else(|| SlurmError::Failed {
        command: format!("sinfo -N -n {node}"),
        message: format!("no line for node {node}"),
    })
}

/// `idle|none` → idle, no reason; `drained|numabench: ...` → its reason.
pub fn parse_state(listing: &str) -> Option<NodeState> {
    let line = listing.lines().find(|line| !line.trim().is_empty())?;
    let (state, reason) = line.split_once('|')?;
    let reason = reason.trim();
    Some(NodeState {
        state: state
            .trim()
            .trim_end_matches(['*', '~', '#', '!', '%', '$', '@', '^', '-'])
            .to_string(),
        reason: (!reason.is_empty() && reason != "none").then(|| reason.to_string()),
    })
}

/// The reason numabench sets for `problem` (its text after the prefix),
/// cut to [`REASON_CHARS`].
pub fn reason_for(problem: &str) -> String {
    let reason = format!("{REASON_PREFIX} {problem}");
    match reason.char_indices().nth(REASON_CHARS) {
        Some((cut, _)) => reason[..cut].to_string(),
        None => reason,
    }
}

/// Drains `node` with [`reason_for`] `problem`, unless a reason that is
/// not numabench's is set (then it is kept, whatever the state).
pub fn drain(node: &str, problem: &str) -> Result<Action, SlurmError> {
    let now = node_state(node)?;
    let reason = reason_for(problem);
    if let Some(theirs) = now.reason.as_ref().filter(|_| !now.ours()) {
        return Ok(Action::KeptReason(theirs.clone()));
    }
    if now.drained() && now.reason.as_deref() == Some(reason.as_str()) {
        return Ok(Action::AlreadyDrained);
    }
    run(
        "scontrol",
        &[
            "update",
            &format!("NodeName={node}"),
            "State=DRAIN",
            &format!("Reason={reason}"),
        ],
    )?;
    Ok(Action::Drained(reason))
}

/// Resumes `node` when numabench drained it (its reason is numabench's);
/// otherwise leaves it as it is.
pub fn undrain(node: &str) -> Result<Action, SlurmError> {
    let now = node_state(node)?;
    if !now.ours() {
        return Ok(Action::Nothing);
    }
    run(
        "scontrol",
        &["update", &format!("NodeName={node}"), "State=RESUME"],
    )?;
    Ok(Action::Resumed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_node_of_this_host() {
        let listing =
            "NodeName=n1 Arch=x86_64 NodeAddr=10.0.0.1 NodeHostName=host1.example State=IDLE\n\
                       NodeName=n2 Arch=x86_64 NodeAddr=10.0.0.2 NodeHostName=host2 State=IDLE\n";
        assert_eq!(node_of_host(listing, "host2.example"), Some("n2".into()));
        assert_eq!(node_of_host(listing, "host1.example"), Some("n1".into()));
        assert_eq!(node_of_host(listing, "n1"), Some("n1".into()));
        assert_eq!(node_of_host(listing, "host3"), None);
    }

    #[test]
    fn reads_state_and_reason() {
        let idle = parse_state("idle|none\n").unwrap();
        assert_eq!(idle.state, "idle");
        assert_eq!(idle.reason, None);
        assert!(!idle.ours() && !idle.drained());
        let ours =
            parse_state("drained|numabench: node 0 read bandwidth: 1 GB/s vs 2 GB/s (-5%)\n")
                .unwrap();
        assert!(ours.ours() && ours.drained());
        let theirs = parse_state("draining*|disk replaced\n").unwrap();
        assert_eq!(theirs.state, "draining");
        assert!(!theirs.ours() && theirs.drained());
        assert_eq!(parse_state(""), None);
    }

    #[test]
    fn reasons_start_with_the_prefix_and_are_cut() {
        assert_eq!(reason_for("x"), "numabench: x");
        let long = reason_for(&"y".repeat(500));
        assert_eq!(long.chars().count(), REASON_CHARS);
        assert!(long.starts_with(REASON_PREFIX));
    }
}
