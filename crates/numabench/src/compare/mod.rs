//! `compare`: the same measurements matched across result sets (two
//! machines, two BIOS settings, before and after a kernel upgrade), each
//! figure side by side with its ratio to the first set and, where both
//! sets hold repetitions, a Mann-Whitney test. Reads records only, never
//! the current machine. Two runs of one machine match exactly (the rule is
//! in [`key`]); two machines' runs match by role ([`roles`]), and
//! [`MatchBy::choose`] says which applies.

mod by_role;
pub mod key;
mod matching;
mod records;
mod role_table;
pub mod roles;
mod table;

pub use by_role::{compare_by_role, MatchBy};
pub use key::MeasurementKey;
pub use matching::{compare, Comparison, Figure, MatchedFigure, ResultSet, Unmatched};
pub use records::{comparison_records, BENCHMARK};
pub use role_table::{findings_side_by_side, role_table};
pub use table::render_table;

#[cfg(test)]
mod tests;
