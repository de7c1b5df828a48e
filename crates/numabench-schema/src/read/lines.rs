//! JSON Lines: schema version 2 (every line a record carrying the run
//! metadata as `"run"`), and version 1, numabench's older files and the MPI
//! monitor's (`{"type":"metadata",...}` then `{"type":"record",...}`
//! lines).

use super::{Go, Reader};
use serde_json::Value;

impl Reader<'_> {
    pub(super) fn read_lines(&mut self, text: &str) -> Go {
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            if !self.read_line(index + 1, line)? {
                break;
            }
        }
        Ok(())
    }

    /// One line; `false` when the rest of the file is to be skipped.
    fn read_line(&mut self, number: usize, line: &str) -> Result<bool, super::ReadError> {
        let mut object = match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(object)) => object,
            Ok(_) => {
                self.problem(Some(number), "not a JSON object; skipped".to_string())?;
                return Ok(true);
            }
            Err(error) => {
                self.problem(Some(number), format!("not a JSON line ({error}); skipped"))?;
                return Ok(true);
            }
        };
        match (object.remove("type"), object.remove("run")) {
            // Version 2: a record with its run metadata.
            (None, Some(Value::Object(run))) => {
                if !self.metadata(number, run)? {
                    return Ok(false);
                }
                self.record(number, object)?;
            }
            // Version 1.
            (Some(Value::String(kind)), None) if kind == "metadata" => {
                return self.metadata(number, object);
            }
            (Some(Value::String(kind)), None) if kind == "record" => {
                self.record(number, object)?;
            }
            (Some(Value::String(kind)), None) => {
                self.problem(Some(number), format!("unknown kind \"{kind}\" skipped"))?;
            }
            _ => self.problem(
                Some(number),
                "neither a record with its \"run\" nor a version-1 line with a \"type\"; skipped"
                    .to_string(),
            )?,
        }
        Ok(true)
    }
}
