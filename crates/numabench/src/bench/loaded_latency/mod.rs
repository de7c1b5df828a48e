//! `loaded-latency`, one benchmark in one folder: its registry entry
//! ([`describe`]), its plan ([`plan`]), what a step runs ([`run`]), the
//! measurement ([`measure`]) and its report section ([`report`]).
//! Its terminal tables ([`table`]) and its roles in `numabench compare`
//! ([`compare`]) hang on its registry entry too.

mod compare;
mod describe;
mod measure;
mod plan;
pub mod report;
mod run;
mod table;

pub(super) use describe::BENCHMARK;
pub use measure::*;
