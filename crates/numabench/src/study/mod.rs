//! The study engine: how every study of numabench runs its configurations
//! and judges them. One place for what `placement-study`, `run` (and its
//! `--param` scans), `overdecompose`, `mlp --threads` (pinned against
//! unpinned) and `--baseline one-node` share:
//!
//! - [`engine`]: the study's loop, once ([`run_study`]): every run of the
//!   schedule, each configuration's runs kept and finished into its
//!   result (its records, its row) as soon as they are complete, and the
//!   partial ones finished after Ctrl-C or a run that ends the study;
//!   callers give only how to make a run and what a configuration's runs
//!   make;
//! - [`schedule`]: repetition r of every configuration before repetition
//!   r + 1 of any, the order rotated every repetition so that every
//!   configuration takes every position (of a pair, each goes first every
//!   other repetition), with Ctrl-C ending the schedule at a chosen point;
//! - [`compare`]: a configuration against its baseline (ratio of medians,
//!   Mann-Whitney p-value, significance after Holm's adjustment for the
//!   other configurations compared with it);
//! - [`verdict`]: which configuration is significantly fastest.
//!
//! Interleaving spreads a drift in the machine's speed (a neighbour
//! starting, the clock warming) over all configurations instead of
//! favouring the ones that happened to run first; the rank test then
//! says whether a difference of medians is more than noise.

pub mod compare;
pub mod engine;
pub mod schedule;
pub mod verdict;

pub use compare::{against_baselines, holm, Comparison, SIGNIFICANCE};
pub use engine::{run_study, FinishWhen, Finished};
pub use schedule::{Interrupt, Order, Schedule, Slot, Slots};
pub use verdict::{fastest, smallest_p_value, Fastest};
