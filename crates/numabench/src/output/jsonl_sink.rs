//! JSON Lines, schema version 2: one line per record, each flushed, each
//! carrying the run metadata as `"run": {...}`, so that every line is a
//! record (`pandas.read_json(path, lines=True)` has only records). Version
//! 1 files (a metadata line, then `{"type":"record",...}` lines) are still
//! read ([`super::read`]).

use super::metadata::RunMetadata;
use super::record::Record;
use super::sink::Sink;
use serde_json::{Map, Value};
use std::io::{self, Write};

/// Writes one `{...record..., "run": {...}}` line per record.
#[derive(Debug)]
pub struct JsonLinesSink<W: Write> {
    writer: W,
    run: Map<String, Value>,
}

impl<W: Write> JsonLinesSink<W> {
    pub fn new(writer: W) -> Self {
        Self {
            writer,
            run: Map::new(),
        }
    }
}

/// The record as a JSON object with its run metadata: the record's plain
/// fields, then `run`, then its nested fields (`params`, `placement`,
/// `stats`), the order `pandas.json_normalize` gives the columns.
pub(super) fn record_with_run(
    record: &Record,
    run: &Map<String, Value>,
) -> io::Result<Map<String, Value>> {
    let Value::Object(fields) = serde_json::to_value(record).map_err(io::Error::other)? else {
        return Err(io::Error::other("a record is not a JSON object"));
    };
    let (plain, nested): (Vec<_>, Vec<_>) = fields
        .into_iter()
        .partition(|(_, value)| !value.is_object());
    let mut object: Map<String, Value> = plain.into_iter().collect();
    object.insert("run".to_string(), Value::Object(run.clone()));
    object.extend(nested);
    Ok(object)
}

/// The run metadata as a JSON object.
pub(super) fn run_object(metadata: &RunMetadata) -> io::Result<Map<String, Value>> {
    match serde_json::to_value(metadata).map_err(io::Error::other)? {
        Value::Object(run) => Ok(run),
        _ => Err(io::Error::other("the run metadata is not a JSON object")),
    }
}

impl<W: Write> Sink for JsonLinesSink<W> {
    fn begin(&mut self, metadata: &RunMetadata) -> io::Result<()> {
        self.run = run_object(metadata)?;
        Ok(())
    }

    fn record(&mut self, record: &Record) -> io::Result<()> {
        let object = record_with_run(record, &self.run)?;
        serde_json::to_writer(&mut self.writer, &object).map_err(io::Error::other)?;
        self.writer.write_all(b"\n")?;
        self.writer.flush()
    }

    fn finish(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}
