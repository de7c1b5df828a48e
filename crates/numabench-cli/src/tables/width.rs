//! How wide the tables may be.

/// Width used when `$COLUMNS` is unset or unusable: a terminal, a pipe and
/// a file all get the same table.
pub const DEFAULT_WIDTH: u16 = 100;

/// Narrowest width honoured; a smaller `$COLUMNS` is taken as this.
const MIN_WIDTH: u16 = 40;

/// `$COLUMNS` when it is a number, else [`DEFAULT_WIDTH`]. The terminal is
/// not probed, so `numabench ... | less` shows what the terminal shows.
pub fn terminal_width() -> u16 {
    width_from(std::env::var("COLUMNS").ok().as_deref())
}

/// [`terminal_width`] from the variable's text.
fn width_from(columns: Option<&str>) -> u16 {
    columns
        .and_then(|text| text.trim().parse::<u16>().ok())
        .map_or(DEFAULT_WIDTH, |width| width.max(MIN_WIDTH))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_or_one_hundred() {
        assert_eq!(width_from(None), 100);
        assert_eq!(width_from(Some("132")), 132);
        assert_eq!(width_from(Some("wide")), 100);
        assert_eq!(width_from(Some("10")), 40);
    }
}
