//! The readable table on the terminal, one line per record as it arrives
//! (summary sentences excepted: they follow the table as plain lines).

use super::metadata::RunMetadata;
use super::record::Record;
use super::sink::Sink;
use crate::units::{format_percent, format_value};
use std::io::{self, Write};

#[derive(Debug)]
pub struct TableSink<W: Write> {
    writer: W,
    header_written: bool,
}

impl<W: Write> TableSink<W> {
    pub fn new(writer: W) -> Self {
        Self {
            writer,
            header_written: false,
        }
    }
}

impl<W: Write> Sink for TableSink<W> {
    fn begin(&mut self, metadata: &RunMetadata) -> io::Result<()> {
        writeln!(
            self.writer,
            "numabench {} on {} ({}), {}",
            metadata.version, metadata.host, metadata.cpu_model, metadata.topology
        )?;
        self.writer.flush()
    }

    fn record(&mut self, record: &Record) -> io::Result<()> {
        // A summary sentence is no figure: the command prints the sentences
        // as plain lines after the table (the other outputs keep the records).
        if record.benchmark == crate::summary::BENCHMARK {
            return Ok(());
        }
        if !self.header_written {
            writeln!(
                self.writer,
                "{:<18} {:<20} {:>12} {:<7} {:>7} {:>10}  params",
                "benchmark", "metric", "value", "unit", "cv", "placed"
            )?;
            self.header_written = true;
        }
        let placed = match &record.placement.verified {
            Some(check) if check.achieved => format_percent(check.fraction_as_requested),
            Some(check) => format!("{} !", format_percent(check.fraction_as_requested)),
            None => "-".to_string(),
        };
        writeln!(
            self.writer,
            "{:<18} {:<20} {:>12} {:<7} {:>7} {:>10}  {}",
            record.benchmark,
            record.metric,
            format_value(record.value),
            record.unit.as_str(),
            format_percent(record.stats.cv),
            placed,
            record.params_text()
        )?;
        self.writer.flush()
    }

    fn finish(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::{summary_records, Sentence};

    #[test]
    fn summary_sentences_are_not_table_rows() {
        let sentences = vec![Sentence {
            kind: "remote_memory",
            text: "remote memory costs 2x local latency".into(),
            value: 2.0,
            unit: crate::output::Unit::Ratio,
            params: serde_json::Map::new(),
        }];
        let mut table = TableSink::new(Vec::new());
        for record in summary_records(&sentences) {
            table.record(&record).unwrap();
        }
        assert!(
            table.writer.is_empty(),
            "{}",
            String::from_utf8_lossy(&table.writer)
        );
    }
}
