//! `numabench placement-study`: its grid of configurations (`grid.rs`),
//! its runs, interleaved by the study engine, and their records (`run.rs`),
//! the verdict, fastest and most repeatable (`verdict.rs`), and the table
//! of configurations side by side (`table.rs`).

mod grid;
mod run;
mod table;
mod verdict;

pub use grid::{
    run_study_baselines, study_baselines, study_grid, study_placements, NoSplitFits, StudyGrid,
    StudyGridRequest,
};
pub use run::{run_placement_study, verdict_record, PlacementStudyError};
pub use table::{render_study, StudyRow};
pub use verdict::{
    exclusion, fastest, repeatability, smallest_p_value, Exclusion, Fastest, Repeatability,
    MIN_RUNS_FOR_REPEATABILITY, SIGNIFICANCE,
};
