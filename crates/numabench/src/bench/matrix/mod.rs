//! `matrix-latency` and `matrix-bandwidth`, the node matrices, in one
//! folder: their registry entries ([`describe`]), its plan ([`plan`]), what a step runs ([`run`]), the
//! measurement ([`measure`]). Their report section is shared with the
//! report's other matrices (`report/sections/matrix.rs`).
//! Their terminal tables ([`table`], one for both) and their roles in
//! `numabench compare` ([`compare`]) hang on their registry entries too.

mod cell_size;
mod compare;
mod describe;
mod measure;
mod plan;
mod run;
mod table;

pub use cell_size::CellSize;
pub(super) use describe::{BANDWIDTH, LATENCY};
pub use measure::*;
pub use plan::matrix_cell_working_set;
pub(super) use run::*;

/// The budget's cut that measures the node matrices by symmetry class,
/// as its `Cut::what` names it.
pub(super) const CLASSES_CUT: &str = "matrix-classes";
