//! `compare`: the same measurements matched across result sets (two
//! machines, two BIOS settings, before and after a kernel upgrade), each
//! figure side by side with its ratio to the first set and, where both
//! sets hold repetitions, a Mann-Whitney test. Reads records only, never
//! the current machine. The matching rule is in [`key`].

pub mod key;
mod matching;
mod records;
mod table;

pub use key::MeasurementKey;
pub use matching::{compare, Comparison, Figure, MatchedFigure, ResultSet, Unmatched};
pub use records::{comparison_records, BENCHMARK};
pub use table::render_table;

#[cfg(test)]
mod tests;
