//! Rank-aware pinning: under an MPI launcher each rank of a host gets its own block of
//! CPUs, and its threads are pinned within that block.
//!
//! The local rank and the number of ranks on this host come from the launcher's
//! environment: OpenMPI's `OMPI_COMM_WORLD_LOCAL_RANK` / `OMPI_COMM_WORLD_LOCAL_SIZE`,
//! Slurm's `SLURM_LOCALID` with `SLURM_NTASKS_PER_NODE` or `SLURM_TASKS_PER_NODE`
//! (`2(x3),1`: this node's entry by `SLURM_NODEID`), MPICH's (Hydra)
//! `MPI_LOCALRANKID` / `MPI_LOCALNRANKS`.
//!
//! The rule (`NUMABENCH_PIN_RANKS`) cuts the CPU order of `NUMABENCH_PIN_CPUS` into
//! blocks, the way OpenMPI's `--map-by`/`--bind-to` and Slurm's `--cpu-bind` do:
//!
//! - `compact`: consecutive slices of the order, as equal as they can be (rank r of S
//!   over N CPUs: entries `r*N/S .. (r+1)*N/S`); with more ranks than CPUs, consecutive
//!   ranks share one CPU.
//! - `scatter`: the order dealt round robin: rank r gets entries r, r + S, r + 2S, ...
//!   (with a scatter order that alternates NUMA nodes, ranks alternate nodes); with more
//!   ranks than CPUs, rank r gets entry r mod N.
//! - `k-per-core:K`: K ranks share each core: rank r gets the CPUs of core r / K (mod
//!   the number of cores) of `NUMABENCH_PIN_CORES` (`0,64;1,65;...`: cores in
//!   cores-first order, each its CPUs), its threads starting at the core's (r mod K)-th
//!   CPU so that K ranks on an SMT core begin on different siblings.

use crate::cpulist;

/// How blocks are cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rule {
    Compact,
    Scatter,
    /// K ranks per core, over these cores.
    PerCore {
        k: usize,
        cores: Vec<Vec<usize>>,
    },
}

impl Rule {
    /// The rule from `NUMABENCH_PIN_RANKS` and `NUMABENCH_PIN_CORES`; `Ok(None)`
    /// when none is asked for.
    pub fn from_values(rule: Option<&str>, cores: Option<&str>) -> Result<Option<Rule>, String> {
        let Some(rule) = rule.map(str::trim).filter(|rule| !rule.is_empty()) else {
            return Ok(None);
        };
        match rule.split_once(':') {
            None if rule == "compact" => Ok(Some(Rule::Compact)),
            None if rule == "scatter" => Ok(Some(Rule::Scatter)),
            Some(("k-per-core", k)) => {
                let k = k
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|k| *k > 0)
                    .ok_or_else(|| {
                        format!("NUMABENCH_PIN_RANKS: '{rule}': K must be a positive integer")
                    })?;
                let cores = cores
                    .unwrap_or("")
                    .split(';')
                    .filter(|core| !core.trim().is_empty())
                    .map(|core| {
                        cpulist::parse(core)
                            .map_err(|error| format!("NUMABENCH_PIN_CORES: {error}"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                if cores.is_empty() || cores.iter().any(Vec::is_empty) {
                    return Err(format!(
                        "NUMABENCH_PIN_RANKS '{rule}' needs NUMABENCH_PIN_CORES (CPU lists of the cores, ';' between cores)"
                    ));
                }
                Ok(Some(Rule::PerCore { k, cores }))
            }
            _ => Err(format!(
                "NUMABENCH_PIN_RANKS: unknown rule '{rule}' (compact, scatter, k-per-core:K)"
            )),
        }
    }
}

/// A rank's CPUs, and where its threads start in them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub cpus: Vec<usize>,
    /// The main thread takes `cpus[start]`, the k-th created thread `cpus[start + k]`
    /// (modulo the length).
    pub start: usize,
}

impl Block {
    /// The CPU of the thread with in-process index `index` (0: the main thread).
    pub fn cpu(&self, index: usize) -> usize {
        self.cpus[(self.start % self.cpus.len() + index % self.cpus.len()) % self.cpus.len()]
    }
}

/// The block of local rank `rank` of `size` over `order` (never empty when `order` is
/// not).
pub fn block(rule: &Rule, order: &[usize], rank: usize, size: usize) -> Block {
    let n = order.len();
    let size = size.max(rank + 1);
    match rule {
        Rule::Compact => {
            let low = rank * n / size;
            let high = ((rank + 1) * n / size).max(low + 1);
            Block {
                cpus: order[low..high.min(n)].to_vec(),
                start: 0,
            }
        }
        Rule::Scatter if size > n => Block {
            cpus: vec![order[rank % n]],
            start: 0,
        },
        Rule::Scatter => Block {
            cpus: order.iter().copied().skip(rank).step_by(size).collect(),
            start: 0,
        },
        Rule::PerCore { k, cores } => Block {
            cpus: cores[(rank / k) % cores.len()].clone(),
            start: rank % k,
        },
    }
}

/// `(local rank, ranks on this host)` from the launcher's variables (`var` reads one),
/// `Ok(None)` when none is set; inconsistent values are an error.
pub fn local_rank(var: &dyn Fn(&str) -> Option<String>) -> Result<Option<(usize, usize)>, String> {
    let number = |name: &str| -> Result<Option<usize>, String> {
        match var(name) {
            None => Ok(None),
            Some(text) => text
                .trim()
                .parse::<usize>()
                .map(Some)
                .map_err(|_| format!("{name}='{text}' is not a number")),
        }
    };
    let found = if let Some(rank) = number("OMPI_COMM_WORLD_LOCAL_RANK")? {
        Some((
            rank,
            number("OMPI_COMM_WORLD_LOCAL_SIZE")?,
            "OMPI_COMM_WORLD_LOCAL_SIZE",
        ))
    } else if let Some(rank) = number("SLURM_LOCALID")? {
        let size = match number("SLURM_NTASKS_PER_NODE")? {
            Some(size) => Some(size),
            None => match var("SLURM_TASKS_PER_NODE") {
                Some(text) => Some(slurm_tasks_on_node(
                    &text,
                    number("SLURM_NODEID")?.unwrap_or(0),
                )?),
                None => None,
            },
        };
        Some((rank, size, "SLURM_NTASKS_PER_NODE or SLURM_TASKS_PER_NODE"))
    } else if let Some(rank) = number("MPI_LOCALRANKID")? {
        Some((rank, number("MPI_LOCALNRANKS")?, "MPI_LOCALNRANKS"))
    } else {
        None
    };
    match found {
        None => Ok(None),
        Some((_, None, size_name)) => Err(format!("a local rank is set but not {size_name}")),
        Some((rank, Some(size), _)) if rank >= size => Err(format!(
            "local rank {rank} is not below the local size {size}"
        )),
        Some((rank, Some(size), _)) => Ok(Some((rank, size))),
    }
}

/// This node's task count from Slurm's `SLURM_TASKS_PER_NODE` (`4(x2),3`: nodes 0 and
/// 1 run 4, node 2 runs 3).
fn slurm_tasks_on_node(text: &str, node: usize) -> Result<usize, String> {
    let bad = || format!("SLURM_TASKS_PER_NODE='{text}' is malformed");
    let mut first = 0;
    for entry in text.trim().split(',') {
        let (count, repeat) = match entry.split_once("(x") {
            Some((count, repeat)) => {
                let repeat = repeat.strip_suffix(')').ok_or_else(bad)?;
                (count, repeat.parse::<usize>().map_err(|_| bad())?)
            }
            None => (entry, 1),
        };
        let count = count.parse::<usize>().map_err(|_| bad())?;
        if node < first + repeat {
            return Ok(count);
        }
        first += repeat;
    }
    Err(format!(
        "SLURM_TASKS_PER_NODE='{text}' has no entry for node {node}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(rule: &Rule, order: &[usize], size: usize) -> Vec<Vec<usize>> {
        (0..size)
            .map(|rank| block(rule, order, rank, size).cpus)
            .collect()
    }

    #[test]
    fn compact_cuts_consecutive_slices() {
        let order: Vec<usize> = (0..8).collect();
        assert_eq!(
            blocks(&Rule::Compact, &order, 4),
            [vec![0, 1], vec![2, 3], vec![4, 5], vec![6, 7]]
        );
        assert_eq!(
            blocks(&Rule::Compact, &order, 3),
            [vec![0, 1], vec![2, 3, 4], vec![5, 6, 7]]
        );
        assert_eq!(
            blocks(&Rule::Compact, &[0, 1], 4),
            [vec![0], vec![0], vec![1], vec![1]]
        );
    }

    #[test]
    fn scatter_deals_round_robin() {
        // A scatter order over two nodes: 0-3 on node 0, 4-7 on node 1.
        let order = [0, 4, 1, 5, 2, 6, 3, 7];
        assert_eq!(
            blocks(&Rule::Scatter, &order, 2),
            [vec![0, 1, 2, 3], vec![4, 5, 6, 7]]
        );
        assert_eq!(
            blocks(&Rule::Scatter, &order, 4),
            [vec![0, 2], vec![4, 6], vec![1, 3], vec![5, 7]]
        );
        assert_eq!(
            blocks(&Rule::Scatter, &[0, 1], 3),
            [vec![0], vec![1], vec![0]]
        );
    }

    #[test]
    fn k_per_core_shares_each_core() {
        let rule = Rule::from_values(Some("k-per-core:2"), Some("0,4;1,5"))
            .unwrap()
            .unwrap();
        let all: Vec<Block> = (0..5)
            .map(|rank| block(&rule, &[0, 1, 4, 5], rank, 5))
            .collect();
        assert_eq!(all[0].cpus, [0, 4]);
        assert_eq!(all[1].cpus, [0, 4]);
        assert_eq!(all[2].cpus, [1, 5]);
        assert_eq!(all[4].cpus, [0, 4]);
        // Ranks sharing a core start on different siblings.
        assert_eq!((all[0].cpu(0), all[1].cpu(0), all[1].cpu(1)), (0, 4, 0));
    }

    #[test]
    fn rules_are_read_and_bad_ones_refused() {
        assert_eq!(Rule::from_values(None, None), Ok(None));
        assert_eq!(
            Rule::from_values(Some("scatter"), None),
            Ok(Some(Rule::Scatter))
        );
        for (rule, cores) in [
            ("sideways", None),
            ("k-per-core:0", Some("0")),
            ("k-per-core:2", None),
            ("k-per-core:2", Some("0;x")),
        ] {
            assert!(
                Rule::from_values(Some(rule), cores).is_err(),
                "{rule} {cores:?}"
            );
        }
    }

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect();
        move |name: &str| {
            pairs
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone())
        }
    }

    #[test]
    fn launchers_name_the_local_rank() {
        let read = |pairs: &[(&str, &str)]| local_rank(&env(pairs));
        assert_eq!(read(&[]), Ok(None));
        assert_eq!(
            read(&[
                ("OMPI_COMM_WORLD_LOCAL_RANK", "1"),
                ("OMPI_COMM_WORLD_LOCAL_SIZE", "4")
            ]),
            Ok(Some((1, 4)))
        );
        assert_eq!(
            read(&[("SLURM_LOCALID", "2"), ("SLURM_NTASKS_PER_NODE", "3")]),
            Ok(Some((2, 3)))
        );
        assert_eq!(
            read(&[
                ("SLURM_LOCALID", "2"),
                ("SLURM_TASKS_PER_NODE", "4(x2),3"),
                ("SLURM_NODEID", "2")
            ]),
            Ok(Some((2, 3)))
        );
        assert_eq!(
            read(&[("MPI_LOCALRANKID", "0"), ("MPI_LOCALNRANKS", "2")]),
            Ok(Some((0, 2)))
        );
        assert!(read(&[("OMPI_COMM_WORLD_LOCAL_RANK", "1")]).is_err());
        assert!(read(&[("MPI_LOCALRANKID", "2"), ("MPI_LOCALNRANKS", "2")]).is_err());
        assert!(read(&[("SLURM_LOCALID", "0"), ("SLURM_TASKS_PER_NODE", "2(x")]).is_err());
    }
}
