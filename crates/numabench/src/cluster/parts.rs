//! What `cluster` measures on each host (the parts, chosen with
//! `--only`/`--skip`), what a unit is (`--per`), and which host pairs the
//! MPI ping-pong measures.

use std::fmt;

/// One part of the node-level subset, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    /// Topology summary and doctor findings (compared, not measured).
    Topo,
    /// STREAM triad bandwidth of each NUMA node's CPUs on its own memory.
    Stream,
    /// Idle latency (tlb-block chase), local and to every other node.
    Latency,
    /// A short serial read-bandwidth matrix (CPU node x memory node).
    Matrix,
    /// What `numabench check` measures on each NUMA node (its baseline's
    /// plan, or check's own): compared across hosts and with `--baseline`,
    /// or written as a baseline (`--write-baseline`). Not run by default.
    Check,
    /// MPI ping-pong latency (8-byte) and bandwidth (large messages)
    /// between pairs of hosts.
    Pingpong,
}

/// Every part, in running order.
pub const PARTS: [Part; 6] = [
    Part::Topo,
    Part::Stream,
    Part::Latency,
    Part::Matrix,
    Part::Check,
    Part::Pingpong,
];

/// The parts run when `--only` names none: every part but `check` (which
/// `--baseline`, `--write-baseline` or `--only check` ask for).
pub fn default_part(part: Part) -> bool {
    part != Part::Check
}

impl Part {
    /// The name `--only`/`--skip` take and records carry (`params.part`).
    pub fn name(self) -> &'static str {
        match self {
            Part::Topo => "topo",
            Part::Stream => "stream",
            Part::Latency => "latency",
            Part::Matrix => "matrix",
            Part::Check => "check",
            Part::Pingpong => "pingpong",
        }
    }

    /// The part called `name`.
    pub fn by_name(name: &str) -> Option<Part> {
        PARTS.into_iter().find(|part| part.name() == name)
    }
}

impl fmt::Display for Part {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

/// Why `--only` and `--skip` name no parts to run.
///
/// Fault: always the user's (the flags given).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PartsError {
    /// A name that is no part.
    #[error("unknown cluster part '{name}' (known: {known})")]
    Unknown { name: String, known: String },
    /// Every part is left out.
    #[error("--only/--skip leave no cluster part to run")]
    Nothing,
}

crate::error::all_faulty!(Usage: PartsError);

/// The parts `--only` (empty: every [`default_part`]) and `--skip` leave,
/// in running order; an unknown name is an error naming it and the known
/// ones.
pub fn select_parts(only: &[String], skip: &[String]) -> Result<Vec<Part>, PartsError> {
    let parse = |names: &[String]| -> Result<Vec<Part>, PartsError> {
        names
            .iter()
            .map(|name| {
                Part::by_name(name.trim()).ok_or_else(|| {
                    let known: Vec<&str> = PARTS.iter().map(|part| part.name()).collect();
                    PartsError::Unknown {
                        name: name.clone(),
                        known: known.join(", "),
                    }
                })
            })
            .collect()
    };
    let only = parse(only)?;
    let skip = parse(skip)?;
    let parts: Vec<Part> = PARTS
        .into_iter()
        .filter(|part| {
            if only.is_empty() {
                default_part(*part)
            } else {
                only.contains(part)
            }
        })
        .filter(|part| !skip.contains(part))
        .collect();
    if parts.is_empty() {
        return Err(PartsError::Nothing);
    }
    Ok(parts)
}

/// What one compared unit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Per {
    /// One unit per host: the host's lowest rank measures, other ranks of
    /// the host stay idle (and are named in the report).
    Node,
    /// One unit per (host, NUMA node with CPUs): the host's lowest rank
    /// measures each of its nodes in turn.
    Numa,
    /// One unit per rank: every rank measures within the CPUs it was
    /// given (e.g. `mpirun --map-by socket --bind-to socket`).
    Rank,
}

impl Per {
    /// The name `--per` takes.
    pub fn name(self) -> &'static str {
        match self {
            Per::Node => "node",
            Per::Numa => "numa",
            Per::Rank => "rank",
        }
    }
}

/// Up to this many hosts, every pair of hosts is measured.
pub const ALL_PAIRS_UP_TO: usize = 16;

/// The pairs of participants (indices 0..n) the ping-pong measures: every
/// pair up to [`ALL_PAIRS_UP_TO`] participants; beyond, each participant i
/// with i + 1, i + 2, i + 4, ... (powers of two below n, modulo n), so
/// every participant has about 2 log2(n) partners, near and far in rank
/// order. Each pair appears once, as (lower, higher).
pub fn pingpong_pairs(n: usize) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    if n <= ALL_PAIRS_UP_TO {
        for a in 0..n {
            for b in a + 1..n {
                pairs.push((a, b));
            }
        }
        return pairs;
    }
    for a in 0..n {
        let mut stride = 1;
        while stride < n {
            let b = (a + stride) % n;
            pairs.push((a.min(b), a.max(b)));
            stride *= 2;
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// The rule [`pingpong_pairs`] follows, in words, for records.
pub fn pingpong_rule(n: usize) -> &'static str {
    if n <= ALL_PAIRS_UP_TO {
        "every pair of participants"
    } else {
        "each participant with the ones 1, 2, 4, ... places after it (modulo their number)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_keeps_running_order_and_names_bad_names() {
        let names = |parts: Vec<Part>| parts.iter().map(|p| p.name()).collect::<Vec<_>>();
        assert_eq!(
            names(select_parts(&[], &[]).unwrap()),
            ["topo", "stream", "latency", "matrix", "pingpong"]
        );
        let check = select_parts(&["check".into(), "topo".into()], &[]).unwrap();
        assert_eq!(names(check), ["topo", "check"]);
        let only = select_parts(&["pingpong".into(), "topo".into()], &[]).unwrap();
        assert_eq!(names(only), ["topo", "pingpong"]);
        let skip = select_parts(&[], &["matrix".into(), "pingpong".into()]).unwrap();
        assert_eq!(names(skip), ["topo", "stream", "latency"]);
        let error = select_parts(&["strem".into()], &[])
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("'strem'") && error.contains("stream"),
            "{error}"
        );
        assert!(select_parts(&["topo".into()], &["topo".into()]).is_err());
    }

    #[test]
    fn small_clusters_measure_every_pair() {
        assert_eq!(pingpong_pairs(1), vec![]);
        assert_eq!(pingpong_pairs(3), vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(pingpong_pairs(16).len(), 16 * 15 / 2);
    }

    #[test]
    fn large_clusters_measure_a_connected_logarithmic_sample() {
        let n = 100;
        let pairs = pingpong_pairs(n);
        // 7 strides below 100, each pair counted once: at most 7 n.
        assert!(pairs.len() <= 7 * n && pairs.len() >= n, "{}", pairs.len());
        for participant in 0..n {
            let partners = pairs
                .iter()
                .filter(|&&(a, b)| a == participant || b == participant)
                .count();
            assert!(partners >= 7, "{participant}: {partners}");
        }
        assert!(pairs.contains(&(0, 1)) && pairs.contains(&(0, 64)) && pairs.contains(&(0, 99)));
        assert!(pairs.iter().all(|&(a, b)| a < b && b < n));
    }
}
