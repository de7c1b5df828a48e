//! The terminal's view of a run: the library shapes records into table
//! models (`numabench::output::tables`); this renders them to the width of
//! the terminal, and holds the sink that prints each benchmark's tables
//! once its records are in.

mod render;
mod sink;
mod width;
mod wrap;

/// `cluster`'s host table, `compare`'s role table.
pub use render::render;
pub use render::wrapped;
pub use sink::{StdoutView, TablesSink};
pub use width::terminal_width;
pub use wrap::wrap_lines;
