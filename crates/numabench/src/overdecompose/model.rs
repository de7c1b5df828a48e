//! The communication-share size model: how many grid rows each rank gets
//! at one rank per core so that blocking halo exchanges take a chosen
//! share of the time.
//!
//! Per iteration a rank computes `rows x nx` points (both colours
//! together) at `compute_per_point` seconds each, and exchanges halos
//! twice (after each colour) at `exchange_per_half_sweep` seconds each
//! (the blocking time measured at K = 1, waiting for neighbours
//! included). The share is `2e / (2e + rows·nx·c)`, so the rows for a
//! target share `s` are `2e(1 - s) / (s·nx·c)`.

/// What the calibration run measured at one rank per core.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// Columns of the grid the calibration used (and the study uses).
    pub nx: usize,
    /// Seconds of computing per grid point (mean over ranks).
    pub compute_per_point: f64,
    /// Seconds of blocking exchange per half-sweep (mean over ranks).
    pub exchange_per_half_sweep: f64,
}

impl Calibration {
    /// Seconds of one iteration of a rank holding `rows` rows.
    pub fn iteration_seconds(&self, rows: usize) -> f64 {
        self.compute_seconds(rows) + 2.0 * self.exchange_per_half_sweep
    }

    fn compute_seconds(&self, rows: usize) -> f64 {
        rows as f64 * self.nx as f64 * self.compute_per_point
    }

    /// The share of time in blocking exchanges the model predicts for a
    /// rank holding `rows` rows.
    pub fn predicted_share(&self, rows: usize) -> f64 {
        let total = self.iteration_seconds(rows);
        if total > 0.0 {
            2.0 * self.exchange_per_half_sweep / total
        } else {
            0.0
        }
    }

    /// The (fractional) rows per rank that give `share`; `None` when no
    /// row count can (no exchange time was measured, or no compute time).
    pub fn rows_for_share(&self, share: f64) -> Option<f64> {
        let per_row = self.nx as f64 * self.compute_per_point;
        if self.exchange_per_half_sweep <= 0.0 || per_row <= 0.0 || !(0.0..1.0).contains(&share) {
            return None;
        }
        Some(2.0 * self.exchange_per_half_sweep * (1.0 - share) / (share * per_row))
    }
}

/// The grid chosen for one target share.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SizeChoice {
    /// The share asked for (0..1).
    pub target_share: f64,
    /// Rows per rank at one rank per core (the grid has `rows_per_core x cores` rows).
    pub rows_per_core: usize,
    /// The share the model predicts for those rows.
    pub predicted_share: f64,
    /// False when the rows had to be clamped (to give every rank at the
    /// largest K a row, or to the upper limit) or no exchange time was
    /// measured: the target is then not expected to hold.
    pub reachable: bool,
}

/// The rows per core for `target_share`, at least `min_rows` (so each of
/// the K ranks sharing a core gets a row) and at most `max_rows`.
pub fn choose_rows(
    calibration: &Calibration,
    target_share: f64,
    min_rows: usize,
    max_rows: usize,
) -> SizeChoice {
    let wanted = calibration.rows_for_share(target_share);
    let (rows, reachable) = match wanted {
        Some(rows) => {
            let rounded = rows.round().max(1.0);
            if rounded < min_rows as f64 {
                (min_rows, false)
            } else if rounded > max_rows as f64 {
                (max_rows, false)
            } else {
                (rounded as usize, true)
            }
        }
        None => (min_rows.max(1), false),
    };
    SizeChoice {
        target_share,
        rows_per_core: rows,
        predicted_share: calibration.predicted_share(rows),
        reachable,
    }
}

/// Iterations so that a run of `rows` rows per rank takes about
/// `seconds` at one rank per core, between `min` and `max`.
pub fn iterations_for(
    calibration: &Calibration,
    rows: usize,
    seconds: f64,
    min: usize,
    max: usize,
) -> usize {
    let per_iteration = calibration.iteration_seconds(rows);
    if per_iteration <= 0.0 || !per_iteration.is_finite() {
        return min;
    }
    ((seconds / per_iteration).round() as usize).clamp(min, max)
}
