//! `c2c`: cache-to-cache transfer latency, one benchmark in one folder:
//! its registry entry ([`describe`]), its plan ([`plan`]), what a step
//! runs ([`run`]), the measurement itself ([`measure`]) and its report
//! section ([`report`]).
//! Its terminal tables ([`table`]), its roles in `numabench compare`
//! ([`compare`]) and its part of the estimate's calibration
//! ([`calibrate`]: its ping-pong's rate) hang on its registry entry too.

mod calibrate;
mod compare;
mod describe;
mod measure;
mod plan;
pub mod report;
mod run;
mod table;

pub(super) use describe::BENCHMARK;
