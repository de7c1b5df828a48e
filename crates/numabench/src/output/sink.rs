//! The one trait every output format implements.

use super::metadata::RunMetadata;
use super::record::Record;
use std::io;

/// A destination for results. The pipeline calls `begin` once, `record`
/// for each result as soon as it exists, and `finish` once at the end (also
/// after Ctrl-C). Implementations flush in `record`, so what was written
/// survives a crash; a file left by a crash must still parse.
pub trait Sink {
    /// Writes the run metadata that every output starts with.
    fn begin(&mut self, metadata: &RunMetadata) -> io::Result<()>;
    /// Writes and flushes one record.
    fn record(&mut self, record: &Record) -> io::Result<()>;
    /// Closes the output (ends the JSON document, for example).
    fn finish(&mut self) -> io::Result<()>;
}
