//! CPU and node lists in the numactl/taskset syntax: `0-3,8,10-11`.

use std::collections::BTreeSet;
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
    let list = text.trim();
    if list.is_empty() {
        return Err(IdListError::Empty);
    }
    let mut ids = BTreeSet::new();
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
            None => {
                ids.insert(parse_one(element)?);
            }
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
    Ok(ids.into_iter().collect())
}

/// Formats sorted indices compactly, the inverse of [`parse_id_list`]:
/// `[0, 1, 2, 3, 8]` becomes `0-3,8`.
pub fn format_id_list(ids: &[u32]) -> String {
    let mut sorted: Vec<u32> = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut index = 0;
    while index < sorted.len() {
        let start = sorted[index];
        let mut end = start;
        while index + 1 < sorted.len() && sorted[index + 1] == end + 1 {
            index += 1;
            end = sorted[index];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        index += 1;
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
        fn never_panics(text in "[0-9,\\- a-z]{0,16}") {
            let _ = parse_id_list(&text);
        }
    }
}
