//! CSV: metadata as `#` comment lines, a header, then one row per record.

use super::metadata::RunMetadata;
use super::record::Record;
use super::sink::Sink;
use std::io::{self, Write};
use thiserror::Error;

/// Why a CSV delimiter was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DelimiterError {
    #[error("invalid delimiter '{0}': give exactly one ASCII character other than a quote, '#', a letter, a digit or a line break")]
    Invalid(String),
}

/// Parses `--delimiter`: one ASCII punctuation or whitespace character
/// (`\t` is accepted for a tab).
pub fn parse_delimiter(text: &str) -> Result<u8, DelimiterError> {
    let byte = match text {
        "\\t" | "tab" => b'\t',
        _ if text.len() == 1 => text.as_bytes()[0],
        _ => return Err(DelimiterError::Invalid(text.to_string())),
    };
    let usable = byte.is_ascii()
        && !byte.is_ascii_alphanumeric()
        && !matches!(byte, b'"' | b'#' | b'\n' | b'\r');
    if usable {
        Ok(byte)
    } else {
        Err(DelimiterError::Invalid(text.to_string()))
    }
}

const COLUMNS: [&str; 15] = [
    "benchmark",
    "metric",
    "value",
    "unit",
    "params",
    "placement_requested",
    "placement_verified",
    "placement_status",
    "n",
    "min",
    "median",
    "mean",
    "max",
    "stddev",
    "cv",
];

/// Writes CSV to any writer; flushes after every row.
#[derive(Debug)]
pub struct CsvSink<W: Write> {
    writer: W,
    delimiter: u8,
}

impl<W: Write> CsvSink<W> {
    pub fn new(writer: W, delimiter: u8) -> Self {
        Self { writer, delimiter }
    }

    fn row(&mut self, fields: &[String]) -> io::Result<()> {
        let separator = (self.delimiter as char).to_string();
        let line = fields
            .iter()
            .map(|field| self.escape(field))
            .collect::<Vec<_>>()
            .join(&separator);
        writeln!(self.writer, "{line}")?;
        self.writer.flush()
    }

    fn escape(&self, field: &str) -> String {
        let needs_quotes = field
            .bytes()
            .any(|byte| byte == self.delimiter || matches!(byte, b'"' | b'\n' | b'\r'));
        if needs_quotes {
            format!("\"{}\"", field.replace('"', "\"\""))
        } else {
            field.to_string()
        }
    }
}

impl<W: Write> Sink for CsvSink<W> {
    fn begin(&mut self, metadata: &RunMetadata) -> io::Result<()> {
        let json = serde_json::to_value(metadata).map_err(io::Error::other)?;
        if let Some(fields) = json.as_object() {
            for (key, value) in fields {
                let text = match value {
                    serde_json::Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                writeln!(self.writer, "# {key}: {}", text.replace('\n', " "))?;
            }
        }
        let header: Vec<String> = COLUMNS.iter().map(|column| column.to_string()).collect();
        self.row(&header)
    }

    fn record(&mut self, record: &Record) -> io::Result<()> {
        let json = |value: &dyn erased::ToJson| value.to_json();
        let stats = &record.stats;
        let fields = vec![
            record.benchmark.clone(),
            record.metric.clone(),
            record.value.to_string(),
            record.unit.as_str().to_string(),
            json(&record.params),
            json(&record.placement.requested),
            record
                .placement
                .verified
                .as_ref()
                .map_or(String::new(), |check| json(check)),
            // `state` or `state: reason`; empty when nothing was checked.
            record
                .placement
                .status()
                .map_or(String::new(), |status| match status.reason() {
                    Some(reason) => format!("{}: {reason}", status.state()),
                    None => status.state().to_string(),
                }),
            stats.n.to_string(),
            stats.min.to_string(),
            stats.median.to_string(),
            stats.mean.to_string(),
            stats.max.to_string(),
            stats.stddev.to_string(),
            stats.cv.to_string(),
        ];
        self.row(&fields)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

mod erased {
    /// Compact JSON of anything serialisable, for one CSV cell.
    pub trait ToJson {
        fn to_json(&self) -> String;
    }
    impl<T: serde::Serialize> ToJson for T {
        fn to_json(&self) -> String {
            serde_json::to_string(self).unwrap_or_default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delimiters() {
        assert_eq!(parse_delimiter(","), Ok(b','));
        assert_eq!(parse_delimiter(";"), Ok(b';'));
        assert_eq!(parse_delimiter("\\t"), Ok(b'\t'));
        for bad in ["", ",,", "a", "\"", "#", "é"] {
            assert!(parse_delimiter(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn quotes_fields_that_need_it() {
        let sink = CsvSink::new(Vec::new(), b',');
        assert_eq!(sink.escape("plain"), "plain");
        assert_eq!(sink.escape("a,b"), "\"a,b\"");
        assert_eq!(sink.escape("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
