//! `--cpus LIST`: CPUs in the order given (the numactl list syntax, each
//! element parsed by [`parse_id_list`]), checked against the topology.

use crate::exit::CliError;
use numabench::parse::{parse_id_list, IdListError};
use numabench::topology::Machine;

/// CPUs in the order given on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuSequence(pub Vec<u32>);

/// Parses `0,2,4-5` into CPUs in the given order; a CPU given twice is an error.
pub fn parse_cpu_sequence_arg(text: &str) -> Result<CpuSequence, String> {
    parse_cpu_sequence(text).map(CpuSequence)
}

fn parse_cpu_sequence(text: &str) -> Result<Vec<u32>, String> {
    let mut cpus: Vec<u32> = Vec::new();
    for element in text.split(',') {
        let element = match parse_id_list(element) {
            Ok(cpus) => cpus,
            Err(IdListError::Empty) => return Err(format!("empty element in CPU list '{text}'")),
            Err(other) => return Err(other.to_string()),
        };
        for cpu in element {
            if cpus.contains(&cpu) {
                return Err(format!("CPU {cpu} appears twice in '{text}'"));
            }
            cpus.push(cpu);
        }
    }
    Ok(cpus)
}

/// Checks `--cpus` against the allowed CPUs and `--threads`; returns the
/// number of base threads (the list's length).
pub fn check_cpus(
    topology: &Machine,
    cpus: &[u32],
    threads: Option<u32>,
) -> Result<usize, CliError> {
    let list = numabench::parse::format_in_order(cpus);
    if let Some(cpu) = cpus.iter().find(|cpu| !topology.allowed.cpus.contains(cpu)) {
        return Err(CliError::usage(format!(
            "--cpus {list}: CPU {cpu} is not one this process may use (allowed: {})",
            numabench::parse::format_id_list(&topology.allowed.cpus)
        )));
    }
    if let Some(threads) = threads {
        if threads as usize != cpus.len() {
            return Err(CliError::usage(format!(
                "--threads {threads} conflicts with --cpus {list} ({} CPUs): give one or make them equal",
                cpus.len()
            )));
        }
    }
    Ok(cpus.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_sequences_keep_their_order_and_refuse_duplicates() {
        assert_eq!(parse_cpu_sequence("3,0-1").unwrap(), [3, 0, 1]);
        assert!(parse_cpu_sequence("0,1,0")
            .unwrap_err()
            .contains("CPU 0 appears twice"));
        assert!(parse_cpu_sequence("0-2,1")
            .unwrap_err()
            .contains("CPU 1 appears twice"));
        assert!(parse_cpu_sequence("0,x").is_err());
    }
}
