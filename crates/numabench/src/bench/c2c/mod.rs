//! `c2c`: cache-to-cache transfer latency, one benchmark in one folder:
//! its registry entry ([`describe`]), its plan ([`plan`]), what a step
//! runs ([`run`]), the measurement itself ([`measure`]) and its report
//! section ([`report`]).
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
pub use measure::{c2c_pairs, measure_c2c, run_c2c, C2C_ORDER};
