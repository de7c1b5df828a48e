//! CPU lists as the shim reads them (`NUMABENCH_PIN_CPUS`, `NUMABENCH_PIN_CORES`,
//! sysfs `cpulist` files): the schema crate's parser, in the order given with repeats
//! kept (it is the order threads get CPUs in), as CPU indices. Unlike a command-line
//! list, a blank list is allowed here and means no CPU (a CPU-less node's `cpulist`).

use numabench_schema::cpulist::parse_in_order;

/// Parses a CPU list in order; a blank string is the empty list.
pub fn parse(text: &str) -> Result<Vec<usize>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    parse_in_order(text)
        .map(|cpus| cpus.into_iter().map(|cpu| cpu as usize).collect())
        .map_err(|error| error.to_string())
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn blank_is_no_cpu_and_order_is_kept() {
        assert!(parse(" \n").unwrap().is_empty());
        assert_eq!(parse("4-5,0,0\n").unwrap(), vec![4, 5, 0, 0]);
        assert!(parse("1,,2").unwrap_err().contains("'1,,2'"));
    }
}
