//! A JSON document, `{"metadata": {...}, "records": [...]}`, streamed: the
//! opening is written at `begin`, each record as it comes, the closing at
//! `finish` (which the pipeline also runs after Ctrl-C).

use super::metadata::RunMetadata;
use super::record::Record;
use super::sink::Sink;
use std::io::{self, Write};

#[derive(Debug)]
pub struct JsonDocumentSink<W: Write> {
    writer: W,
    records_written: usize,
    finished: bool,
}

impl<W: Write> JsonDocumentSink<W> {
    pub fn new(writer: W) -> Self {
        Self {
            writer,
            records_written: 0,
            finished: false,
        }
    }
}

impl<W: Write> Sink for JsonDocumentSink<W> {
    fn begin(&mut self, metadata: &RunMetadata) -> io::Result<()> {
        let text = serde_json::to_string_pretty(metadata).map_err(io::Error::other)?;
        write!(self.writer, "{{\n\"metadata\": {text},\n\"records\": [")?;
        self.writer.flush()
    }

    fn record(&mut self, record: &Record) -> io::Result<()> {
        let separator = if self.records_written == 0 {
            "\n"
        } else {
            ",\n"
        };
        let text = serde_json::to_string(record).map_err(io::Error::other)?;
        write!(self.writer, "{separator}{text}")?;
        self.records_written += 1;
        self.writer.flush()
    }

    fn finish(&mut self) -> io::Result<()> {
        if !self.finished {
            self.finished = true;
            writeln!(self.writer, "\n]\n}}")?;
        }
        self.writer.flush()
    }
}
