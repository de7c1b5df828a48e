//! The runtime the workloads run on: a [`Team`] of worker threads (pinned
//! or not) and the [`SharedArray`]s it places by a [`PlacementScheme`]
//! (first touch, serial, interleave, migrate, next-touch), with huge
//! pages and the per-worker observation of a run. It knows no workload
//! and no experiment (a test checks it).

mod huge_pages;
mod migrate;
mod next_touch;
mod observed;
mod placement;
mod shared_array;
mod team;

pub use observed::{observation_params, Observer, RunObservation, WorkerUsage};
pub use placement::{PlacementError, PlacementScheme, ThreadScheme};
pub use shared_array::SharedArray;
pub use team::{plan_cpus, PageReport, Team, TeamError};
#[cfg(test)]
mod tests;
