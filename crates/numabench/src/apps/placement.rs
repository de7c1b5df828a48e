//! Where an application's main arrays go and where its threads run.

use crate::parse::parse_id_list;
use std::fmt;

/// Placement scheme for the main arrays (`--placement`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlacementScheme {
    /// Each worker first touches the block it later computes on.
    FirstTouch,
    /// Worker 0 touches everything: all pages on its node, as a serial
    /// initialisation leaves them.
    Serial,
    /// Pages round-robin over the given nodes (all allowed when empty).
    Interleave(Vec<u32>),
    /// All pages on one node.
    Bind(u32),
    /// Serial initialisation, then before the first iteration each worker
    /// moves the pages of its block to its own node (move_pages).
    SerialMigrate,
    /// Serial initialisation, then each page moves to the node of the first
    /// worker that touches it after the marker (emulated migrate-on-next-
    /// touch: pages are protected and migrated in a SIGSEGV handler).
    NextTouch,
    /// Serial initialisation, then left to the kernel's automatic NUMA
    /// balancing.
    AutoNuma,
}

impl PlacementScheme {
    /// Parses `first-touch`, `serial`, `interleave[:LIST]`, `bind:N`,
    /// `serial+migrate`, `next-touch`, `autonuma`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let scheme = match text {
            "first-touch" => PlacementScheme::FirstTouch,
            "serial" => PlacementScheme::Serial,
            "interleave" | "interleave:all" => PlacementScheme::Interleave(Vec::new()),
            "serial+migrate" => PlacementScheme::SerialMigrate,
            "next-touch" => PlacementScheme::NextTouch,
            "autonuma" => PlacementScheme::AutoNuma,
            _ => {
                if let Some(list) = text.strip_prefix("interleave:") {
                    PlacementScheme::Interleave(
                        parse_id_list(list)
                            .map_err(|error| format!("placement '{text}': {error}"))?,
                    )
                } else if let Some(node) = text.strip_prefix("bind:") {
                    PlacementScheme::Bind(node.parse().map_err(|_| {
                        format!("placement '{text}': '{node}' is not a node number")
                    })?)
                } else {
                    return Err(format!(
                        "unknown placement '{text}' (valid: first-touch, serial, interleave[:LIST], bind:N, serial+migrate, next-touch, autonuma)"
                    ));
                }
            }
        };
        Ok(scheme)
    }

    /// Every scheme a placement study tries.
    pub fn study_set() -> Vec<Self> {
        vec![
            PlacementScheme::FirstTouch,
            PlacementScheme::Serial,
            PlacementScheme::Interleave(Vec::new()),
            PlacementScheme::SerialMigrate,
            PlacementScheme::NextTouch,
        ]
    }

    /// Every scheme: the study set, `bind:node` and `autonuma`.
    pub fn every_scheme(node: u32) -> Vec<Self> {
        let mut schemes = Self::study_set();
        schemes.push(PlacementScheme::Bind(node));
        schemes.push(PlacementScheme::AutoNuma);
        schemes
    }
}

impl fmt::Display for PlacementScheme {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlacementScheme::FirstTouch => write!(formatter, "first-touch"),
            PlacementScheme::Serial => write!(formatter, "serial"),
            PlacementScheme::Interleave(nodes) if nodes.is_empty() => {
                write!(formatter, "interleave")
            }
            PlacementScheme::Interleave(nodes) => write!(
                formatter,
                "interleave:{}",
                crate::parse::format_id_list(nodes)
            ),
            PlacementScheme::Bind(node) => write!(formatter, "bind:{node}"),
            PlacementScheme::SerialMigrate => write!(formatter, "serial+migrate"),
            PlacementScheme::NextTouch => write!(formatter, "next-touch"),
            PlacementScheme::AutoNuma => write!(formatter, "autonuma"),
        }
    }
}

/// How threads are placed (`--threads-placement`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadScheme {
    /// Worker n on the n-th allowed CPU (fills a node before the next).
    Compact,
    /// Round-robin over nodes: worker n on node n mod N.
    Scatter,
    /// Not pinned: the OS decides and may move threads.
    Unpinned,
}

impl ThreadScheme {
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "compact" => Ok(ThreadScheme::Compact),
            "scatter" => Ok(ThreadScheme::Scatter),
            "unpinned" => Ok(ThreadScheme::Unpinned),
            _ => Err(format!(
                "unknown thread placement '{text}' (valid: compact, scatter, unpinned)"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ThreadScheme::Compact => "compact",
            ThreadScheme::Scatter => "scatter",
            ThreadScheme::Unpinned => "unpinned",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_round_trip_through_text() {
        for text in [
            "first-touch",
            "serial",
            "interleave",
            "interleave:0-1",
            "bind:1",
            "serial+migrate",
            "next-touch",
            "autonuma",
        ] {
            assert_eq!(PlacementScheme::parse(text).unwrap().to_string(), text);
        }
        assert!(PlacementScheme::parse("bind:x")
            .unwrap_err()
            .contains("bind:x"));
        assert!(PlacementScheme::parse("scattered")
            .unwrap_err()
            .contains("unknown placement 'scattered'"));
        assert_eq!(ThreadScheme::parse("scatter"), Ok(ThreadScheme::Scatter));
        assert!(ThreadScheme::parse("loose").is_err());
    }
}
