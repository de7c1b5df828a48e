//! The sink that puts each benchmark's tables on stdout: it keeps the
//! records of the benchmark under way and prints its tables when the next
//! benchmark starts, when the summary comes, or at the end.

use super::render::render;
use numabench::output::tables::{shape, CacheLadder};
use numabench::output::{Record, RunMetadata, Sink};
use std::io::{self, Write};

/// What a command shows on stdout while records arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StdoutView {
    /// Tables shaped per measurement (the default of measuring commands).
    Tables,
    /// Nothing: the command prints its own summary table at the end (`run`,
    /// placement studies, `cluster`); `--records` shows the records.
    Quiet,
}

/// Prints tables shaped per benchmark.
#[derive(Debug)]
pub struct TablesSink<W: Write> {
    writer: W,
    caches: CacheLadder,
    width: u16,
    pending: Vec<Record>,
}

impl<W: Write> TablesSink<W> {
    /// Tables of at most `width` columns; `caches` names the level of each
    /// working set.
    pub fn new(writer: W, caches: CacheLadder, width: u16) -> Self {
        Self {
            writer,
            caches,
            width,
            pending: Vec::new(),
        }
    }

    /// Prints the tables of the records held, and forgets them.
    fn flush_tables(&mut self) -> io::Result<()> {
        for model in shape(&self.pending, &self.caches) {
            write!(self.writer, "\n{}", render(&model, self.width))?;
        }
        self.pending.clear();
        self.writer.flush()
    }
}

impl<W: Write> Sink for TablesSink<W> {
    fn begin(&mut self, metadata: &RunMetadata) -> io::Result<()> {
        let line = format!(
            "numabench {} on {} ({}), {}",
            metadata.version, metadata.host, metadata.cpu_model, metadata.topology
        );
        writeln!(self.writer, "{}", super::render::wrapped(&line, self.width))?;
        self.writer.flush()
    }

    fn record(&mut self, record: &Record) -> io::Result<()> {
        // Summary sentences follow the tables as plain lines (the command
        // prints them): the tables so far come first.
        if record.benchmark == numabench::findings::BENCHMARK {
            return self.flush_tables();
        }
        if self
            .pending
            .last()
            .is_some_and(|last| last.benchmark != record.benchmark)
        {
            self.flush_tables()?;
        }
        self.pending.push(record.clone());
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.flush_tables()
    }
}
