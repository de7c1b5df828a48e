//! The readable table on the terminal, one line per record as it arrives
//! (summary sentences excepted: they follow the table as plain lines).

use super::metadata::RunMetadata;
use super::params_text::RecordText;
use super::record::Record;
use super::sink::Sink;
use crate::memory::PlacementStatus;
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
        if record.benchmark == crate::findings::BENCHMARK {
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
        // `!`: misplaced; `?`: could not be verified (no page seen).
        let placed = match (&record.placement.verified, record.placement.status()) {
            (Some(check), Some(PlacementStatus::Verified)) => {
                format_percent(check.fraction_as_requested)
            }
            (Some(check), Some(PlacementStatus::Misplaced(_))) => {
                format!("{} !", format_percent(check.fraction_as_requested))
            }
            (_, Some(PlacementStatus::Unverifiable(_))) => "?".to_string(),
            _ => "-".to_string(),
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
    use crate::findings::{summary_records, FindingKind, Sentence};

    #[test]
    fn summary_sentences_are_not_table_rows() {
        let sentences = vec![Sentence {
            kind: FindingKind::MemoryLatency,
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

    /// Structural: the `placed` cell of a check that saw no page is `?`,
    /// of one that found pages elsewhere `N% !`; before, both read `0.0% !`
    /// (the first) or `-` (an app whose check was dropped).
    #[test]
    fn unverifiable_and_misplaced_placements_read_differently() {
        let row = |per_node: &[(u32, u64)], pages: u64, fraction: f64| {
            let record = Record {
                benchmark: "cg".into(),
                metric: "time".into(),
                value: 1.0,
                unit: crate::output::Unit::Seconds,
                params: serde_json::Map::new(),
                placement: crate::output::Placement {
                    requested: serde_json::Map::new(),
                    verified: Some(crate::memory::PlacementCheck {
                        moved: None,
                        pages,
                        pages_per_node: per_node.iter().copied().collect(),
                        fraction_as_requested: fraction,
                        achieved: fraction >= 0.95,
                        huge_pages: None,
                    }),
                },
                stats: crate::stats::Sample::new([1.0]).unwrap().summary(),
            };
            let mut table = TableSink::new(Vec::new());
            table.record(&record).unwrap();
            let text = String::from_utf8(table.writer).unwrap();
            let row = text.lines().nth(1).unwrap().to_string();
            let cells: Vec<&str> = row.split_whitespace().collect();
            cells[5..cells.len()].join(" ")
        };
        assert_eq!(row(&[], 96, 0.0), "?");
        assert_eq!(row(&[(0, 40), (1, 60)], 100, 0.6), "60.0% !");
        assert_eq!(row(&[(1, 100)], 100, 1.0), "100.0%");
    }
}
