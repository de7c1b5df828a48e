//! The JSON document `--json` writes: `{"metadata": {...}, "records":
//! [...]}`, one record per line. A document cut short (the run was killed
//! before closing it) keeps its whole records in lenient mode.

use super::{Go, Reader};
use serde_json::Value;

/// Whether `text` is a JSON document rather than JSON Lines: it starts with
/// `{` then the `"metadata"` or `"records"` key (a JSON Lines line starts
/// with a record's or a version-1 line's first key).
pub(super) fn is_document(text: &str) -> bool {
    let rest = text
        .trim_start()
        .strip_prefix('{')
        .unwrap_or("")
        .trim_start();
    rest.starts_with("\"metadata\"") || rest.starts_with("\"records\"")
}

impl Reader<'_> {
    pub(super) fn read_document(&mut self, text: &str) -> Go {
        let mut document = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(document)) => document,
            Ok(_) => unreachable!("a text starting with '{{' parses as an object"),
            Err(error) => return self.read_cut_document(text, &error),
        };
        if let Some(Value::Object(metadata)) = document.remove("metadata") {
            if !self.metadata(1, metadata)? {
                return Ok(());
            }
        }
        let Some(Value::Array(list)) = document.remove("records") else {
            return self.problem(
                None,
                "a JSON document without a \"records\" list".to_string(),
            );
        };
        // The document sink writes each record on its own line, after the
        // metadata's lines and the `"records": [` line.
        let first = text
            .lines()
            .position(|line| line.trim_start().starts_with("\"records\""))
            .map_or(1, |index| index + 2);
        for (index, value) in list.into_iter().enumerate() {
            let line = first + index;
            match value {
                Value::Object(object) => self.record(line, object)?,
                _ => self.problem(
                    Some(line),
                    "a record that is not a JSON object; skipped".to_string(),
                )?,
            }
        }
        Ok(())
    }

    /// A document cut short: the whole lines before the cut that hold a
    /// record are its whole records.
    fn read_cut_document(&mut self, text: &str, error: &serde_json::Error) -> Go {
        self.problem(
            Some(error.line()),
            format!("the JSON document is not complete ({error}); its whole records are kept"),
        )?;
        for (index, line) in text.lines().enumerate() {
            let line_text = line.trim().trim_end_matches(',');
            if !line_text.starts_with("{\"benchmark\"") {
                continue;
            }
            if let Ok(Value::Object(object)) = serde_json::from_str::<Value>(line_text) {
                self.record(index + 1, object)?;
            }
        }
        Ok(())
    }
}
