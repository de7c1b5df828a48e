//! The verdict of a placement check in one word and a reason: the pages
//! sat where asked (`verified`), the kernel placed them elsewhere
//! (`misplaced`), or the query could not tell (`unverifiable`: every page
//! read back as not present, so nothing was seen to be anywhere). Records
//! carry it as `placement.status` (`docs/results.md`), so that a reader,
//! a table or a test tells a placement that failed from one that could
//! not be looked at.

use crate::PlacementCheck;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a placement check concluded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "state", content = "reason", rename_all = "lowercase")]
pub enum PlacementStatus {
    /// The pages sit where they were asked to be (`achieved`).
    Verified,
    /// Pages were found, and too few of them where asked (the reason gives
    /// the share, and the huge-page coverage when huge pages were asked for).
    Misplaced(String),
    /// The check saw no page at all: nothing can be said about placement.
    Unverifiable(String),
}

impl PlacementStatus {
    /// The state word: `verified`, `misplaced` or `unverifiable`.
    pub fn state(&self) -> &'static str {
        match self {
            PlacementStatus::Verified => "verified",
            PlacementStatus::Misplaced(_) => "misplaced",
            PlacementStatus::Unverifiable(_) => "unverifiable",
        }
    }

    /// The reason, for `misplaced` and `unverifiable`.
    pub fn reason(&self) -> Option<&str> {
        match self {
            PlacementStatus::Verified => None,
            PlacementStatus::Misplaced(reason) | PlacementStatus::Unverifiable(reason) => {
                Some(reason)
            }
        }
    }
}

impl PlacementCheck {
    /// The verdict of this check. A check that examined no page, or found
    /// every page not present (the query answers -ENOENT for a page it
    /// cannot see, whatever node holds it), is `unverifiable`: counting
    /// those pages as misplaced would report a failure nobody observed.
    /// Otherwise `achieved` decides between `verified` and `misplaced`.
    pub fn status(&self) -> PlacementStatus {
        let resident: u64 = self.pages_per_node.values().sum();
        if self.pages == 0 {
            return PlacementStatus::Unverifiable("no pages were examined".into());
        }
        if resident == 0 {
            return PlacementStatus::Unverifiable(format!(
                "all {} pages not present when read",
                self.pages
            ));
        }
        if self.achieved {
            return PlacementStatus::Verified;
        }
        let mut reason = format!(
            "{:.1}% of {} pages placed as requested",
            self.fraction_as_requested * 100.0,
            self.pages
        );
        let not_present = self.pages.saturating_sub(resident);
        if not_present > 0 {
            reason.push_str(&format!(" ({not_present} not present)"));
        }
        if let Some(huge) = &self.huge_pages {
            reason.push_str(&format!(
                "; {:.1}% on huge pages ({})",
                huge.fraction * 100.0,
                huge.source
            ));
        }
        PlacementStatus::Misplaced(reason)
    }
}

#[cfg(test)]
mod tests {
    //! Structural: the verdict is a function of the check's counts; the
    //! VM tests see the real kernel's answers.
    use super::*;
    use std::collections::BTreeMap;

    fn check(per_node: &[(u32, u64)], not_present: u64, achieved: bool) -> PlacementCheck {
        let pages_per_node: BTreeMap<u32, u64> = per_node.iter().copied().collect();
        let resident: u64 = pages_per_node.values().sum();
        let pages = resident + not_present;
        PlacementCheck {
            moved: None,
            pages,
            pages_per_node,
            fraction_as_requested: PlacementCheck::fraction(resident as f64, pages),
            achieved,
            huge_pages: None,
        }
    }

    #[test]
    fn every_page_not_present_is_unverifiable_not_misplaced() {
        let status = check(&[], 96, false).status();
        assert_eq!(
            status,
            PlacementStatus::Unverifiable("all 96 pages not present when read".into())
        );
        assert_eq!(status.state(), "unverifiable");
        assert_eq!(
            check(&[], 0, false).status().state(),
            "unverifiable",
            "no page examined"
        );
    }

    #[test]
    fn pages_found_elsewhere_are_misplaced_with_their_share() {
        let status = check(&[(0, 60)], 40, false).status();
        assert_eq!(
            status,
            PlacementStatus::Misplaced(
                "60.0% of 100 pages placed as requested (40 not present)".into()
            )
        );
        assert_eq!(
            check(&[(0, 100)], 0, true).status(),
            PlacementStatus::Verified
        );
        assert_eq!(PlacementStatus::Verified.reason(), None);
    }

    #[test]
    fn the_status_serialises_as_a_state_and_a_reason() {
        let json = serde_json::to_value(check(&[], 8, false).status()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"state": "unverifiable", "reason": "all 8 pages not present when read"})
        );
        let verified = serde_json::to_value(PlacementStatus::Verified).unwrap();
        assert_eq!(verified, serde_json::json!({"state": "verified"}));
        let back: PlacementStatus = serde_json::from_value(json).unwrap();
        assert_eq!(back.state(), "unverifiable");
    }
}
