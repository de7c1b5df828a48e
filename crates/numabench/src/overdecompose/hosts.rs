//! Where the study's ranks run: this host alone, the hosts of an OpenMPI
//! hostfile or host list, or every node of the Slurm allocation numabench
//! runs in. Every host runs the same ranks (K x cores, `--map-by
//! ppr:R:node`), so the strips of neighbouring ranks of one host share a
//! core or a node and every host boundary is a halo exchange over the
//! network.
//!
//! numabench does not trust that mpirun placed the ranks as asked: each
//! worker reports the hosts its ranks ran on
//! ([`super::WorkerReport::hosts`]) and [`Hosts::check`] refuses a run
//! whose hosts differ from the ones asked for.

use super::worker_config::HostRanks;
use std::fmt;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Where the hosts came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostSource {
    /// This host only (mpirun's default: the ranks start here).
    Local,
    /// `--hostfile FILE` (OpenMPI's format), passed to mpirun.
    Hostfile(PathBuf),
    /// `--host a,b,...`, passed to mpirun.
    List,
    /// The nodes of the Slurm allocation numabench runs in
    /// (`SLURM_JOB_NUM_NODES` of them, `SLURM_JOB_NODELIST`): mpirun
    /// finds them itself.
    Slurm { nodelist: String },
}

/// The hosts a study runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hosts {
    pub source: HostSource,
    /// The host names, as given (empty for [`HostSource::Local`] and
    /// [`HostSource::Slurm`], whose node list stays compressed).
    pub names: Vec<String>,
    /// How many hosts.
    count: usize,
}

/// Why the hosts cannot be used (bad input: the caller exits 2).
///
/// Always the user's fault (the hostfile, the host list, Slurm's variables).
#[derive(Debug, Error, PartialEq, Eq)]
pub enum HostsError {
    #[error("cannot read --hostfile {path}: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("--hostfile {path} names no host (OpenMPI's format: one 'name [slots=N]' per line)")]
    EmptyHostfile { path: String },
    #[error("--hostfile {path}, line {line}: '{name}' is not a host name")]
    BadHostfileName {
        path: String,
        line: usize,
        name: String,
    },
    #[error("invalid --host '{list}': '{item}' is not a host name (a list such as node1,node2)")]
    BadListItem { list: String, item: String },
    #[error(
        "{variable}='{value}' is not a number of nodes (numabench runs inside a Slurm allocation)"
    )]
    BadSlurmCount { variable: String, value: String },
}

crate::error::all_faulty!(Usage: HostsError);

/// A run whose ranks did not run where they were asked to.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("the ranks ran on {found} where {wanted} were asked for ({source_text}): mpirun did not place them as asked")]
pub struct Misplaced {
    pub found: String,
    pub wanted: String,
    pub source_text: String,
}

// mpirun placed the ranks elsewhere than asked.
crate::error::all_faulty!(System: Misplaced);

/// True for a name mpirun could reach: letters, digits, `-`, `.`, `_`
/// (a host name, or an IPv4 address).
fn is_host_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
}

/// Adds `name` unless it is already there (OpenMPI merges repeated lines
/// of one host into one host).
fn add_once(names: &mut Vec<String>, name: &str) {
    if !names.iter().any(|known| known == name) {
        names.push(name.to_string());
    }
}

impl Hosts {
    /// This host only.
    pub fn local() -> Self {
        Self {
            source: HostSource::Local,
            names: Vec::new(),
            count: 1,
        }
    }

    /// The hosts of an OpenMPI hostfile's text: the first word of every
    /// line that is not blank or a `#` comment (`slots=` and the like are
    /// mpirun's), each host once, in file order.
    pub fn from_hostfile_text(path: &Path, text: &str) -> Result<Self, HostsError> {
        let shown = path.display().to_string();
        let mut names = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            let Some(name) = line.split_whitespace().next() else {
                continue;
            };
            if !is_host_name(name) {
                return Err(HostsError::BadHostfileName {
                    path: shown,
                    line: index + 1,
                    name: name.to_string(),
                });
            }
            add_once(&mut names, name);
        }
        if names.is_empty() {
            return Err(HostsError::EmptyHostfile { path: shown });
        }
        Ok(Self {
            count: names.len(),
            source: HostSource::Hostfile(path.to_path_buf()),
            names,
        })
    }

    /// [`Hosts::from_hostfile_text`] of the file at `path`.
    pub fn from_hostfile(path: &Path) -> Result<Self, HostsError> {
        let text = std::fs::read_to_string(path).map_err(|error| HostsError::Unreadable {
            path: path.display().to_string(),
            reason: error.to_string(),
        })?;
        Self::from_hostfile_text(path, &text)
    }

    /// `--host a,b,...` (OpenMPI's form; a `:slots` suffix is dropped:
    /// numabench sets the ranks per host itself).
    pub fn from_list(list: &str) -> Result<Self, HostsError> {
        let mut names = Vec::new();
        for item in list.split(',') {
            let name = item.trim().split(':').next().unwrap_or("");
            if !is_host_name(name) {
                return Err(HostsError::BadListItem {
                    list: list.to_string(),
                    item: item.to_string(),
                });
            }
            add_once(&mut names, name);
        }
        Ok(Self {
            count: names.len(),
            source: HostSource::List,
            names,
        })
    }

    /// The Slurm allocation numabench runs in, when it has more than one
    /// node (`SLURM_JOB_NUM_NODES`, else `SLURM_NNODES`); `env` reads a
    /// variable. `None` outside Slurm or in a one-node allocation.
    pub fn from_slurm(env: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, HostsError> {
        let Some((variable, value)) = ["SLURM_JOB_NUM_NODES", "SLURM_NNODES"]
            .into_iter()
            .find_map(|variable| env(variable).map(|value| (variable, value)))
        else {
            return Ok(None);
        };
        let count: usize = value
            .trim()
            .parse()
            .ok()
            .filter(|&count| count > 0)
            .ok_or_else(|| HostsError::BadSlurmCount {
                variable: variable.to_string(),
                value: value.clone(),
            })?;
        Ok((count > 1).then(|| Self {
            source: HostSource::Slurm {
                nodelist: env("SLURM_JOB_NODELIST")
                    .or_else(|| env("SLURM_NODELIST"))
                    .unwrap_or_default(),
            },
            names: Vec::new(),
            count,
        }))
    }

    /// How many hosts run ranks.
    pub fn count(&self) -> usize {
        self.count
    }

    /// True when the ranks run on more than this host.
    pub fn several(&self) -> bool {
        self.source != HostSource::Local
    }

    /// mpirun's options that put `ranks_per_host` ranks on every host.
    pub fn mpirun_args(&self, ranks_per_host: usize) -> Vec<String> {
        let map_by = ["--map-by".to_string(), format!("ppr:{ranks_per_host}:node")];
        match &self.source {
            HostSource::Local => Vec::new(),
            HostSource::Hostfile(path) => ["--hostfile".to_string(), path.display().to_string()]
                .into_iter()
                .chain(map_by)
                .collect(),
            HostSource::List => {
                let list: Vec<String> = self
                    .names
                    .iter()
                    .map(|name| format!("{name}:{ranks_per_host}"))
                    .collect();
                ["--host".to_string(), list.join(",")]
                    .into_iter()
                    .chain(map_by)
                    .collect()
            }
            HostSource::Slurm { .. } => map_by.to_vec(),
        }
    }

    /// Checks the hosts a run's ranks ran on (`ran`, from the worker's
    /// report) against the hosts asked for, with `ranks_per_host` ranks
    /// each. The names are not compared: a host list may give addresses
    /// where the ranks report host names.
    pub fn check(&self, ran: &[HostRanks], ranks_per_host: usize) -> Result<(), Misplaced> {
        if ran.len() == self.count && ran.iter().all(|host| host.ranks == ranks_per_host) {
            return Ok(());
        }
        let found: Vec<String> = ran
            .iter()
            .map(|host| format!("{}: {}", host.host, host.ranks))
            .collect();
        Err(Misplaced {
            found: format!(
                "{} host{} ({})",
                ran.len(),
                if ran.len() == 1 { "" } else { "s" },
                found.join(", ")
            ),
            wanted: format!("{} with {ranks_per_host} ranks each", plural(self.count)),
            source_text: self.to_string(),
        })
    }
}

/// "1 host", "3 hosts".
fn plural(count: usize) -> String {
    format!("{count} host{}", if count == 1 { "" } else { "s" })
}

impl fmt::Display for Hosts {
    /// Where the hosts came from, for plans and errors.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            HostSource::Local => write!(f, "this host"),
            HostSource::Hostfile(path) => write!(
                f,
                "{} from --hostfile {}: {}",
                plural(self.count),
                path.display(),
                self.names.join(", ")
            ),
            HostSource::List => {
                write!(
                    f,
                    "{} from --host: {}",
                    plural(self.count),
                    self.names.join(", ")
                )
            }
            HostSource::Slurm { nodelist } => write!(
                f,
                "the {} of the Slurm allocation ({nodelist})",
                plural(self.count)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran(hosts: &[(&str, usize)]) -> Vec<HostRanks> {
        hosts
            .iter()
            .map(|(host, ranks)| HostRanks {
                host: host.to_string(),
                ranks: *ranks,
            })
            .collect()
    }

    #[test]
    fn a_hostfile_gives_each_host_once_in_file_order() {
        let text = "# the rack\nnode2 slots=16 max_slots=32\n\n  node1 slots=16 # spare\nnode2\n10.0.0.7\n";
        let hosts = Hosts::from_hostfile_text(Path::new("hosts"), text).unwrap();
        assert_eq!(hosts.names, ["node2", "node1", "10.0.0.7"]);
        assert_eq!(hosts.count(), 3);
        assert!(hosts.several());
        assert_eq!(
            hosts.mpirun_args(4),
            ["--hostfile", "hosts", "--map-by", "ppr:4:node"]
        );
        assert_eq!(
            hosts.to_string(),
            "3 hosts from --hostfile hosts: node2, node1, 10.0.0.7"
        );
    }

    #[test]
    fn a_hostfile_without_hosts_or_with_a_bad_name_is_refused_naming_it() {
        let empty = Hosts::from_hostfile_text(Path::new("h"), "# none\n\n").unwrap_err();
        assert_eq!(
            empty.to_string(),
            "--hostfile h names no host (OpenMPI's format: one 'name [slots=N]' per line)"
        );
        let bad = Hosts::from_hostfile_text(Path::new("h"), "a\nb;rm slots=2\n").unwrap_err();
        assert_eq!(
            bad.to_string(),
            "--hostfile h, line 2: 'b;rm' is not a host name"
        );
        let missing = Hosts::from_hostfile(Path::new("/nonexistent/hosts")).unwrap_err();
        assert!(
            missing
                .to_string()
                .starts_with("cannot read --hostfile /nonexistent/hosts: "),
            "{missing}"
        );
    }

    #[test]
    fn a_host_list_drops_slots_and_gives_every_host_the_ranks() {
        let hosts = Hosts::from_list("a:8,b,a").unwrap();
        assert_eq!(hosts.names, ["a", "b"]);
        assert_eq!(
            hosts.mpirun_args(2),
            ["--host", "a:2,b:2", "--map-by", "ppr:2:node"]
        );
        let bad = Hosts::from_list("a,,b").unwrap_err();
        assert_eq!(
            bad.to_string(),
            "invalid --host 'a,,b': '' is not a host name (a list such as node1,node2)"
        );
        assert!(Hosts::from_list("-np").is_err());
    }

    #[test]
    fn a_slurm_allocation_of_several_nodes_is_used_and_one_node_is_this_host() {
        let env = |nodes: &'static str| {
            move |name: &str| match name {
                "SLURM_JOB_NUM_NODES" => Some(nodes.to_string()),
                "SLURM_JOB_NODELIST" => Some("n[01-04]".to_string()),
                _ => None,
            }
        };
        let hosts = Hosts::from_slurm(env("4")).unwrap().unwrap();
        assert_eq!(hosts.count(), 4);
        assert_eq!(hosts.mpirun_args(3), ["--map-by", "ppr:3:node"]);
        assert_eq!(
            hosts.to_string(),
            "the 4 hosts of the Slurm allocation (n[01-04])"
        );
        assert_eq!(Hosts::from_slurm(env("1")).unwrap(), None);
        assert_eq!(Hosts::from_slurm(|_| None).unwrap(), None);
        let bad = Hosts::from_slurm(env("x")).unwrap_err();
        assert_eq!(
            bad.to_string(),
            "SLURM_JOB_NUM_NODES='x' is not a number of nodes (numabench runs inside a Slurm allocation)"
        );
        let local = Hosts::local();
        assert!(!local.several());
        assert!(local.mpirun_args(4).is_empty());
    }

    #[test]
    fn a_run_is_refused_unless_every_host_ran_its_ranks() {
        let hosts = Hosts::from_list("10.0.0.1,10.0.0.2").unwrap();
        // Names are not compared: the ranks report host names, not addresses.
        assert_eq!(hosts.check(&ran(&[("h0", 2), ("h1", 2)]), 2), Ok(()));
        let error = hosts.check(&ran(&[("h0", 4)]), 2).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the ranks ran on 1 host (h0: 4) where 2 hosts with 2 ranks each were asked for (2 hosts from --host: 10.0.0.1, 10.0.0.2): mpirun did not place them as asked"
        );
        assert!(hosts.check(&ran(&[("h0", 3), ("h1", 1)]), 2).is_err());
        assert_eq!(Hosts::local().check(&ran(&[("me", 2)]), 2), Ok(()));
        assert_eq!(
            HostRanks::of(&["b".into(), "b".into(), "a".into(), "b".into()]),
            ran(&[("b", 3), ("a", 1)])
        );
    }
}
