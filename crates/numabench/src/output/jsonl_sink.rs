//! JSON Lines: a metadata line, then one line per record, each flushed.

use super::metadata::RunMetadata;
use super::record::Record;
use super::sink::Sink;
use serde_json::json;
use std::io::{self, Write};

/// Writes `{"type":"metadata",...}` then `{"type":"record",...}` lines.
#[derive(Debug)]
pub struct JsonLinesSink<W: Write> {
    writer: W,
}

impl<W: Write> JsonLinesSink<W> {
    pub fn new(writer: W) -> Self {
        Self { writer }
    }

    fn line(&mut self, kind: &str, body: serde_json::Value) -> io::Result<()> {
        let mut object = json!({ "type": kind });
        if let (Some(target), serde_json::Value::Object(fields)) = (object.as_object_mut(), body) {
            target.extend(fields);
        }
        serde_json::to_writer(&mut self.writer, &object).map_err(io::Error::other)?;
        self.writer.write_all(b"\n")?;
        self.writer.flush()
    }
}

impl<W: Write> Sink for JsonLinesSink<W> {
    fn begin(&mut self, metadata: &RunMetadata) -> io::Result<()> {
        let body = serde_json::to_value(metadata).map_err(io::Error::other)?;
        self.line("metadata", body)
    }

    fn record(&mut self, record: &Record) -> io::Result<()> {
        let body = serde_json::to_value(record).map_err(io::Error::other)?;
        self.line("record", body)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}
