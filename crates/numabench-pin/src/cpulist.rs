//! CPU lists in numactl / sysfs syntax: `0,2,1,3`, `0-3`, `0-3,8,10-11`.
//!
//! Order is kept (it is the order threads get CPUs in) and so are repeats (`0,0,1,1`
//! puts two threads on each CPU). Ranges expand ascending.

/// CPU numbers at or above this are rejected (Linux's NR_CPUS tops out at 8192).
pub const MAX_CPU: usize = 1 << 16;

/// Parses a CPU list; an empty (or all-blank) string is the empty list.
pub fn parse(text: &str) -> Result<Vec<usize>, String> {
    let text = text.trim();
    let mut cpus = Vec::new();
    if text.is_empty() {
        return Ok(cpus);
    }
    for item in text.split(',') {
        let item = item.trim();
        if item.is_empty() {
            return Err(format!("empty entry in CPU list '{text}'"));
        }
        match item.split_once('-') {
            Some((first, last)) => {
                let first = number(first, text)?;
                let last = number(last, text)?;
                if first > last {
                    return Err(format!("descending range '{item}' in CPU list '{text}'"));
                }
                cpus.extend(first..=last);
            }
            None => cpus.push(number(item, text)?),
        }
    }
    Ok(cpus)
}

fn number(text: &str, list: &str) -> Result<usize, String> {
    let text = text.trim();
    if text.is_empty() || !text.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err(format!(
            "'{text}' is not a CPU number (in CPU list '{list}')"
        ));
    }
    match text.parse::<usize>() {
        Ok(cpu) if cpu < MAX_CPU => Ok(cpu),
        _ => Err(format!("CPU {text} out of range (in CPU list '{list}')")),
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn keeps_order_and_repeats() {
        assert_eq!(parse("0,2,1,3").unwrap(), vec![0, 2, 1, 3]);
        assert_eq!(parse("1,1,0,0").unwrap(), vec![1, 1, 0, 0]);
    }

    #[test]
    fn ranges_and_mixtures() {
        assert_eq!(parse("0-3").unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(parse(" 0-1, 8 ,10-11\n").unwrap(), vec![0, 1, 8, 10, 11]);
        assert_eq!(parse("5-5").unwrap(), vec![5]);
    }

    #[test]
    fn empty_is_empty() {
        assert!(parse("").unwrap().is_empty());
        assert!(parse(" \n").unwrap().is_empty());
    }

    #[test]
    fn rejects_malformed() {
        for bad in [
            "a", "1,", ",1", "1,,2", "3-1", "-1", "1-", "1-2-3", "+1", "99999999", "0-70000",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} accepted");
        }
    }
}
