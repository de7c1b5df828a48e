//! Progress on stderr when it is a terminal: one line per step with a bar,
//! the elapsed time and an ETA from the average step time so far. Lines (not
//! a redrawn bar) so they interleave cleanly with the result table.

use std::io::{IsTerminal, Write};
use std::time::Instant;

#[derive(Debug)]
pub struct Progress {
    total: usize,
    done: usize,
    started: Instant,
    enabled: bool,
}

impl Progress {
    pub fn new(total: usize) -> Self {
        Self {
            total,
            done: 0,
            started: Instant::now(),
            enabled: std::io::stderr().is_terminal(),
        }
    }

    /// Announces the next step.
    pub fn step(&mut self, label: &str) {
        if self.enabled {
            let elapsed = self.started.elapsed().as_secs_f64();
            let eta = if self.done == 0 {
                "?".to_string()
            } else {
                clock(elapsed / self.done as f64 * (self.total - self.done) as f64)
            };
            const WIDTH: usize = 20;
            let filled = WIDTH * self.done / self.total.max(1);
            let bar = format!("{}{}", "#".repeat(filled), "-".repeat(WIDTH - filled));
            // Wrapped to the terminal's width: a long step label takes
            // a second line rather than running past the edge.
            let line = format!(
                "[{bar}] {}/{} {label}  elapsed {}  ETA {eta}",
                self.done + 1,
                self.total,
                clock(elapsed)
            );
            let _ = writeln!(
                std::io::stderr(),
                "{}",
                crate::tables::wrapped(&line, crate::tables::terminal_width())
            );
        }
        self.done += 1;
    }
}

/// `m:ss` of `seconds`, rounded.
pub fn clock(seconds: f64) -> String {
    let seconds = seconds.round() as u64;
    format!("{}:{:02}", seconds / 60, seconds % 60)
}
