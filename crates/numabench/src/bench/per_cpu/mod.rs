//! `per-cpu`, one benchmark in one folder: its registry entry
//! ([`describe`]), its plan ([`plan`]), what a step runs ([`run`]), the
//! measurement ([`measure`]) and its report section ([`report`]).
//! Its roles in `numabench compare` ([`compare`]) hang on its registry
//! entry too; its records carry `each_cpu`, so the terminal's CPUs-by-
//! deviation table (`output/tables/per_cpu.rs`) draws them.

mod compare;
mod describe;
mod measure;
mod plan;
pub mod report;
mod run;

pub(super) use describe::BENCHMARK;
pub use measure::*;
#[cfg(test)]
pub(super) use plan::PER_CPU_REPEAT;
