//! CPU and node lists in the numactl/taskset/sysfs syntax: `0-3,8,10-11`.
//! The one parser and formatter of every numabench crate: the library's
//! `--cpus`/`--nodes`, the report, the pinning shim's `NUMABENCH_PIN_CPUS`
//! and sysfs lists. Two readings: as a set ([`parse_id_list`], sorted and
//! de-duplicated) or in order ([`parse_in_order`], the order threads get
//! CPUs in, repeats kept; ranges expand ascending).
use thiserror::Error;

/// Largest index accepted, far above any real machine (hwloc's bitmaps and
/// the kernel's cpumasks top out well below this), so a typo such as
/// `0-99999999` is an error rather than a multi-gigabyte set.
pub const MAX_ID: u32 = 1 << 20;

/// Why a CPU or node list could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IdListError {
    /// Nothing was given.
    #[error("empty list")]
    Empty,
    /// One element is neither `N` nor `A-B`.
    #[error("malformed list '{list}': '{element}' is not a number or a range A-B")]
    Malformed { list: String, element: String },
    /// A range runs backwards.
    #[error("malformed list '{list}': range '{element}' runs backwards")]
    Backwards { list: String, element: String },
    /// A number is beyond [`MAX_ID`].
    #[error("list '{list}': '{element}' is larger than {MAX_ID}")]
    TooLarge { list: String, element: String },
}

/// Parses a list such as `0-3,8,10-11` into sorted, de-duplicated indices.
pub fn parse_id_list(text: &str) -> Result<Vec<u32>, IdListError> {
    let mut ids = parse_in_order(text)?;
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

/// Parses a list such as `0,2,1,3` or `4-5,0` keeping the order given and
/// any repeats (`0,0,1,1` puts two threads on each CPU).
pub fn parse_in_order(text: &str) -> Result<Vec<u32>, IdListError> {
    let list = text.trim();
    if list.is_empty() {
        return Err(IdListError::Empty);
    }
    let mut ids = Vec::new();
    for element in list.split(',') {
        let element = element.trim();
        let malformed = || IdListError::Malformed {
            list: text.to_string(),
            element: element.to_string(),
        };
        let parse_one = |part: &str| -> Result<u32, IdListError> {
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(malformed());
            }
            match part.parse::<u32>() {
                Ok(value) if value <= MAX_ID => Ok(value),
                _ => Err(IdListError::TooLarge {
                    list: text.to_string(),
                    element: element.to_string(),
                }),
            }
        };
        match element.split_once('-') {
            None => ids.push(parse_one(element)?),
            Some((first, last)) => {
                let (first, last) = (parse_one(first.trim())?, parse_one(last.trim())?);
                if first > last {
                    return Err(IdListError::Backwards {
                        list: text.to_string(),
                        element: element.to_string(),
                    });
                }
                ids.extend(first..=last);
            }
        }
    }
    Ok(ids)
}

/// Formats indices compactly as a set, the inverse of [`parse_id_list`]:
/// `[8, 0, 1, 2, 3]` becomes `0-3,8`.
pub fn format_id_list(ids: &[u32]) -> String {
    let mut sorted: Vec<u32> = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    format_in_order(&sorted)
}

/// Formats indices in their order, runs of consecutive ascending numbers
/// written `a-b`: `[4, 5, 6, 0, 2]` becomes `4-6,0,2`, the inverse of
/// [`parse_in_order`].
pub fn format_in_order(ids: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut index = 0;
    while index < ids.len() {
        let start = ids[index];
        let mut end = index;
        while end + 1 < ids.len()
            && ids[end + 1] == ids[end].wrapping_add(1)
            && ids[end] != u32::MAX
        {
            end += 1;
        }
        parts.push(if end == index {
            start.to_string()
        } else {
            format!("{start}-{}", ids[end])
        });
        index = end + 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_numactl_syntax() {
        assert_eq!(
            parse_id_list("0-3,8,10-11"),
            Ok(vec![0, 1, 2, 3, 8, 10, 11])
        );
        assert_eq!(parse_id_list("5"), Ok(vec![5]));
        assert_eq!(parse_id_list("3,1,1"), Ok(vec![1, 3]));
        assert_eq!(parse_id_list(" 0 - 1 "), Ok(vec![0, 1]));
    }

    #[test]
    fn rejects_malformed_lists() {
        assert_eq!(parse_id_list(""), Err(IdListError::Empty));
        for bad in ["a", "1,", ",1", "1-", "-1", "1--2", "1-2-3", "0x3", "1;2"] {
            assert!(
                matches!(parse_id_list(bad), Err(IdListError::Malformed { .. })),
                "{bad} should be malformed"
            );
        }
        assert!(matches!(
            parse_id_list("3-1"),
            Err(IdListError::Backwards { .. })
        ));
        assert!(matches!(
            parse_id_list("0-99999999"),
            Err(IdListError::TooLarge { .. })
        ));
    }

    #[test]
    fn keeps_order_and_repeats_when_read_in_order() {
        assert_eq!(parse_in_order("0,2,1,3"), Ok(vec![0, 2, 1, 3]));
        assert_eq!(parse_in_order("1,1,0,0"), Ok(vec![1, 1, 0, 0]));
        assert_eq!(parse_in_order(" 4-6, 0 ,2\n"), Ok(vec![4, 5, 6, 0, 2]));
        assert_eq!(format_in_order(&[4, 5, 6, 0, 2]), "4-6,0,2");
        assert_eq!(format_in_order(&[3, 2, 1]), "3,2,1");
        assert_eq!(parse_in_order(" \n"), Err(IdListError::Empty));
    }

    #[test]
    fn formats_ranges() {
        assert_eq!(format_id_list(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(format_id_list(&[]), "");
        assert_eq!(format_id_list(&[7]), "7");
    }

    proptest! {
        #[test]
        fn format_then_parse_round_trips(ids in proptest::collection::btree_set(0u32..2048, 1..64)) {
            let ids: Vec<u32> = ids.into_iter().collect();
            prop_assert_eq!(parse_id_list(&format_id_list(&ids)), Ok(ids));
        }

        #[test]
        fn in_order_format_then_parse_round_trips(ids in proptest::collection::vec(0u32..2048, 1..64)) {
            prop_assert_eq!(parse_in_order(&format_in_order(&ids)), Ok(ids));
        }

        #[test]
        fn never_panics(text in "[0-9,\\- a-z]{0,16}") {
            let _ = parse_id_list(&text);
        }
    }
}
