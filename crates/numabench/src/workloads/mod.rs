//! The application workloads numabench measures placement with: NPB CG
//! and MG, and STREAM. Each implements [`AppKernel`] (set up, iterate,
//! verify) on a [`crate::runtime::Team`]; [`AppChoice`] is the catalog
//! the commands pick from. A new application is a folder here and an
//! entry in `catalog.rs`.

mod catalog;
mod kernel;
mod stream;

pub use catalog::AppChoice;
pub use cg::CgKernel;
pub use kernel::{AppKernel, NpbClass, UnknownClass, Verification};
pub use mg::MgKernel;
pub use stream::StreamKernel;

pub mod cg;
pub mod mg;
