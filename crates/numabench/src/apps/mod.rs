//! Application kernels run under placement schemes: NPB CG and MG, and
//! STREAM. They run on a [`Team`] of worker threads (pinned or not) and
//! keep their main arrays in [`SharedArray`]s that the team places by the
//! chosen [`PlacementScheme`].

mod kernel;
mod next_touch;
mod placement;
mod shared_array;
mod stream;
mod team;

pub use kernel::{AppKernel, NpbClass, Verification};
pub use placement::{PlacementScheme, ThreadScheme};
pub use shared_array::SharedArray;
pub use stream::StreamKernel;
pub use team::{plan_cpus, PageReport, Team, TeamError};

#[cfg(test)]
mod tests;
