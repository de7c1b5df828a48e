//! `matrix-latency` and `matrix-bandwidth`, the node matrices, in one
//! folder: their registry entries ([`describe`]), its plan ([`plan`]), what a step runs ([`run`]), the
//! measurement ([`measure`]). Their report section is shared with the
//! report's other matrices (`report/sections/matrix.rs`).

mod describe;
mod measure;
mod plan;
mod run;

pub(super) use describe::{BANDWIDTH, LATENCY};
pub use measure::*;
pub use plan::matrix_cell_working_set;
pub(super) use run::*;
