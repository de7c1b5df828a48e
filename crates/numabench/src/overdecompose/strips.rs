//! Splitting the grid's interior rows into horizontal strips, one per rank.

/// The interior rows one rank owns: global rows `first_row ..
/// first_row + rows` (row 0 and row `ny + 1` are the fixed boundary).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strip {
    /// Global index of the strip's first interior row (1-based: row 0 is the boundary).
    pub first_row: usize,
    /// How many interior rows the strip holds (at least 1).
    pub rows: usize,
}

impl Strip {
    /// Global index of the strip's last interior row.
    pub fn last_row(&self) -> usize {
        self.first_row + self.rows - 1
    }
}

/// `ny` interior rows split over `parts` ranks in order, as evenly as
/// possible (the first `ny % parts` strips get one row more). `None` when
/// a rank would get no row (`parts > ny`) or there are no ranks.
pub fn strips(ny: usize, parts: usize) -> Option<Vec<Strip>> {
    if parts == 0 || parts > ny {
        return None;
    }
    let (base, extra) = (ny / parts, ny % parts);
    let mut first_row = 1;
    Some(
        (0..parts)
            .map(|part| {
                let rows = base + usize::from(part < extra);
                let strip = Strip { first_row, rows };
                first_row += rows;
                strip
            })
            .collect(),
    )
}
