//! The terminal's width for what numabench prints: `$COLUMNS` when set to a
//! number, else 100 (the same on a terminal and in a pipe, so that
//! `numabench ... | less` shows what the terminal shows).

/// Columns when `$COLUMNS` says nothing usable.
pub const DEFAULT_WIDTH: usize = 100;

/// `$COLUMNS`, else [`DEFAULT_WIDTH`].
pub fn width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|columns| columns.trim().parse::<usize>().ok())
        .filter(|&columns| columns > 0)
        .unwrap_or(DEFAULT_WIDTH)
}
