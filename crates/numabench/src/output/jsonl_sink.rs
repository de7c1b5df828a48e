//! JSON Lines, schema version 2: one line per record, each flushed, each
//! carrying the run metadata as `"run": {...}`, so that every line is a
//! record (`pandas.read_json(path, lines=True)` has only records). Version
//! 1 files (a metadata line, then `{"type":"record",...}` lines) are still
//! read ([`super::read`]).

use super::metadata::RunMetadata;
use super::record::Record;
use super::sink::Sink;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::io::{self, Write};

/// Writes one `{...record..., "run": {...}}` line per record.
#[derive(Debug)]
pub struct JsonLinesSink<W: Write> {
    writer: W,
    /// The run metadata, serialized once at [`Sink::begin`].
    run: Box<RawValue>,
}

impl<W: Write> JsonLinesSink<W> {
    pub fn new(writer: W) -> Self {
        Self {
            writer,
            run: empty_object(),
        }
    }
}

fn empty_object() -> Box<RawValue> {
    RawValue::from_string("{}".to_string()).expect("{} is JSON")
}

/// One line as [`record_with_run`] orders it, serialized straight from the
/// record: `numabench run` writes a line after every run of the program, and
/// going through a `serde_json::Value` (the record converted, the metadata
/// cloned, both serialized again) was a third of its per-run cost outside
/// the timed region (#21 item 25). [`RECORD_FIELDS`] lists the record's
/// fields in that order; a test checks that it names every field.
struct LineWithRun<'a> {
    record: &'a Record,
    run: &'a RawValue,
}

/// The record's fields in line order: the plain ones, `run`, the nested ones.
const RECORD_FIELDS: [&str; 8] = [
    "benchmark",
    "metric",
    "value",
    "unit",
    "run",
    "params",
    "placement",
    "stats",
];

impl Serialize for LineWithRun<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Record {
            benchmark,
            metric,
            value,
            unit,
            params,
            placement,
            stats,
        } = self.record;
        let mut line = serializer.serialize_map(Some(RECORD_FIELDS.len()))?;
        line.serialize_entry(RECORD_FIELDS[0], benchmark)?;
        line.serialize_entry(RECORD_FIELDS[1], metric)?;
        line.serialize_entry(RECORD_FIELDS[2], value)?;
        line.serialize_entry(RECORD_FIELDS[3], unit)?;
        line.serialize_entry(RECORD_FIELDS[4], self.run)?;
        line.serialize_entry(RECORD_FIELDS[5], params)?;
        line.serialize_entry(RECORD_FIELDS[6], placement)?;
        line.serialize_entry(RECORD_FIELDS[7], stats)?;
        line.end()
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
        self.run =
            serde_json::value::to_raw_value(&run_object(metadata)?).map_err(io::Error::other)?;
        Ok(())
    }

    fn record(&mut self, record: &Record) -> io::Result<()> {
        let line = LineWithRun {
            record,
            run: &self.run,
        };
        serde_json::to_writer(&mut self.writer, &line).map_err(io::Error::other)?;
        self.writer.write_all(b"\n")?;
        self.writer.flush()
    }

    fn finish(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use numabench_schema::{Placement, Summary, Unit};
    use serde_json::json;

    fn record() -> Record {
        let Value::Object(params) = json!({
            "policy": "pin-compact",
            "numastat_delta": {"0": {"numa_hit": 55}},
            "threads_usage": [{"worker": 0, "tid": 12}],
            "signal": null,
        }) else {
            unreachable!()
        };
        Record {
            benchmark: "run".into(),
            metric: "run_wall_time".into(),
            value: 0.25,
            unit: Unit::Seconds,
            params,
            placement: Placement::default(),
            stats: Summary::single(0.25),
        }
    }

    /// The line written straight from the record is, byte for byte, the
    /// one built through a JSON object (the form the CSV sink flattens):
    /// the same fields in the same order, `run` after the plain ones.
    #[test]
    fn a_line_is_the_record_with_its_run_metadata_in_place() {
        let metadata = RunMetadata::example();
        let mut sink = JsonLinesSink::new(Vec::new());
        sink.begin(&metadata).unwrap();
        sink.record(&record()).unwrap();
        let written = String::from_utf8(sink.writer).unwrap();
        let through_a_value = serde_json::to_string(
            &record_with_run(&record(), &run_object(&metadata).unwrap()).unwrap(),
        )
        .unwrap();
        assert_eq!(written, format!("{through_a_value}\n"));
        let keys: Vec<String> = serde_json::from_str::<Map<String, Value>>(&written)
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, RECORD_FIELDS);
    }
}
