//! Fans records out to every requested sink.

use super::csv_sink::CsvSink;
use super::json_sink::JsonDocumentSink;
use super::jsonl_sink::JsonLinesSink;
use super::metadata::RunMetadata;
use super::paths::check_distinct_files;
use super::record::Record;
use super::sink::Sink;
use super::table_sink::TableSink;
use crate::counters::vmstat::VmstatMark;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Which outputs a command writes, validated from the flags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutputConfig {
    /// `--csv FILE`.
    pub csv: Option<PathBuf>,
    /// `--delimiter C` for the CSV file.
    pub delimiter: Option<u8>,
    /// `--jsonl FILE`.
    pub jsonl: Option<PathBuf>,
    /// `--json`: a JSON document on stdout (then no table is printed).
    pub json_stdout: bool,
    /// `--records`: one line per record on stdout as it arrives. Without
    /// it (and without `--json`) nothing is opened on stdout here: the
    /// command line adds its own view (tables shaped per measurement).
    pub records: bool,
}

impl OutputConfig {
    /// The files asked for, with the flag that names each.
    pub fn files(&self) -> Vec<(&'static str, &Path)> {
        let mut files = Vec::new();
        if let Some(path) = &self.csv {
            files.push(("--csv", path.as_path()));
        }
        if let Some(path) = &self.jsonl {
            files.push(("--jsonl", path.as_path()));
        }
        files
    }
}

/// Output failures.
///
/// Fault: the user's for a file that cannot be created or two outputs
/// naming one file; the system's for a write that fails midway.
#[derive(Debug, Error)]
pub enum OutputError {
    /// An output file could not be created (a user mistake: exit 2).
    #[error("cannot write '{path}': {source}")]
    Unwritable { path: PathBuf, source: io::Error },
    /// Two outputs name one file (a user mistake: exit 2).
    #[error("{first} and {second} name the same file '{}'", path.display())]
    SameFile {
        first: String,
        second: String,
        path: PathBuf,
    },
    /// Writing a result failed midway.
    #[error("writing results failed: {0}")]
    Write(#[from] io::Error),
}

impl crate::error::Faulty for OutputError {
    fn fault(&self) -> crate::error::Fault {
        use crate::error::Fault;
        match self {
            OutputError::Unwritable { .. } | OutputError::SameFile { .. } => Fault::Usage,
            OutputError::Write(_) => Fault::System,
        }
    }
}

/// The sinks of one run.
pub struct Pipeline {
    sinks: Vec<Box<dyn Sink>>,
    finished: bool,
    /// Params every record carries unless it sets them itself
    /// ([`Pipeline::set_common_params`]).
    common_params: serde_json::Map<String, serde_json::Value>,
    /// Where the page-movement counters stood after the last record
    /// ([`Pipeline::mark_vmstat`]).
    vmstat: Option<VmstatMark>,
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Pipeline")
            .field("sinks", &self.sinks.len())
            .finish()
    }
}

impl Pipeline {
    /// Opens every output the config asks for, then writes the metadata.
    /// Files are created before anything is measured, so an unwritable
    /// path fails at once.
    pub fn open(config: &OutputConfig, metadata: &RunMetadata) -> Result<Self, OutputError> {
        check_distinct_files(&config.files())?;
        let create = |path: &PathBuf| {
            numabench_schema::output_file::open_stream(path)
                .map(BufWriter::new)
                .map_err(|source| OutputError::Unwritable {
                    path: path.clone(),
                    source,
                })
        };
        let mut sinks: Vec<Box<dyn Sink>> = Vec::new();
        if config.json_stdout {
            sinks.push(Box::new(JsonDocumentSink::new(io::stdout())));
        } else if config.records {
            sinks.push(Box::new(TableSink::new(io::stdout())));
        }
        if let Some(path) = &config.csv {
            let sink =
                CsvSink::create(path, config.delimiter.unwrap_or(b',')).map_err(|source| {
                    OutputError::Unwritable {
                        path: path.clone(),
                        source,
                    }
                })?;
            sinks.push(Box::new(sink));
        }
        if let Some(path) = &config.jsonl {
            sinks.push(Box::new(JsonLinesSink::new(create(path)?)));
        }
        Self::with_sinks(sinks, metadata)
    }

    /// A pipeline over given sinks (tests, embedding).
    pub fn with_sinks(
        mut sinks: Vec<Box<dyn Sink>>,
        metadata: &RunMetadata,
    ) -> Result<Self, OutputError> {
        for sink in &mut sinks {
            sink.begin(metadata)?;
        }
        Ok(Self {
            sinks,
            finished: false,
            common_params: serde_json::Map::new(),
            vmstat: None,
        })
    }

    /// Adds a sink after opening (an observer such as the command's
    /// warnings), writing the metadata to it first.
    pub fn add_sink(
        &mut self,
        mut sink: Box<dyn Sink>,
        metadata: &RunMetadata,
    ) -> Result<(), OutputError> {
        sink.begin(metadata)?;
        self.sinks.push(sink);
        Ok(())
    }

    /// From now on every record also carries `params` (a step's facts
    /// such as `cpu_order`), except keys the record sets itself; an empty
    /// map stops this.
    pub fn set_common_params(&mut self, params: serde_json::Map<String, serde_json::Value>) {
        self.common_params = params;
    }

    /// From now on (`true`) every record also carries `vmstat_delta`: the
    /// kernel's page-movement counters that grew since the record before,
    /// or since this call for the first ([`crate::counters::vmstat`]; read
    /// on machines with several nodes only). `false` stops this.
    pub fn mark_vmstat(&mut self, on: bool) {
        self.vmstat = on.then(VmstatMark::now);
    }

    /// Sends one record to every sink, each of which flushes it.
    pub fn emit(&mut self, record: &Record) -> Result<(), OutputError> {
        let completed;
        let vmstat = self.vmstat.as_mut().and_then(VmstatMark::take);
        let record = if self.common_params.is_empty() && vmstat.is_none() {
            record
        } else {
            let mut with_common = record.clone();
            if let Some(delta) = vmstat {
                with_common
                    .params
                    .entry("vmstat_delta")
                    .or_insert_with(|| serde_json::json!(delta));
            }
            for (key, value) in &self.common_params {
                with_common
                    .params
                    .entry(key.clone())
                    .or_insert_with(|| value.clone());
            }
            completed = with_common;
            &completed
        };
        for sink in &mut self.sinks {
            sink.record(record)?;
        }
        Ok(())
    }

    /// Closes every sink; safe to call more than once.
    pub fn finish(&mut self) -> Result<(), OutputError> {
        if !self.finished {
            self.finished = true;
            for sink in &mut self.sinks {
                sink.finish()?;
            }
        }
        Ok(())
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::{flatten, Placement, Unit};
    use crate::stats::Sample;
    use std::sync::{Arc, Mutex};

    /// A writer whose contents the test can read while the sink holds it.
    #[derive(Clone, Debug, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    fn metadata() -> RunMetadata {
        RunMetadata::example()
    }

    fn record(value: f64) -> Record {
        let mut params = serde_json::Map::new();
        params.insert("size".into(), "1 GiB, \"big\"".into());
        Record {
            benchmark: "latency".into(),
            metric: "load_to_use".into(),
            value,
            unit: Unit::Nanoseconds,
            params,
            placement: Placement::default(),
            stats: Sample::new([value, value + 1.0]).unwrap().summary(),
        }
    }

    /// After each record, each output holds it and parses; the CSV's
    /// columns are the JSON Lines record's, flattened, and a record with
    /// new params widens the CSV's header without losing earlier rows.
    #[test]
    fn every_format_is_valid_after_each_record() {
        let dir = tempfile::tempdir().unwrap();
        let csv_path = dir.path().join("r.csv");
        let (jsonl, json) = (Shared::default(), Shared::default());
        let sinks: Vec<Box<dyn Sink>> = vec![
            Box::new(CsvSink::create(&csv_path, b';').unwrap()),
            Box::new(JsonLinesSink::new(jsonl.clone())),
            Box::new(JsonDocumentSink::new(json.clone())),
        ];
        let mut pipeline = Pipeline::with_sinks(sinks, &metadata()).unwrap();
        let header = |text: &str| -> Vec<String> {
            let mut reader = csv::ReaderBuilder::new()
                .delimiter(b';')
                .from_reader(text.as_bytes());
            reader.headers().unwrap().iter().map(String::from).collect()
        };
        let csv_text = || std::fs::read_to_string(&csv_path).unwrap();
        assert_eq!(
            header(&csv_text())[..5],
            ["benchmark", "metric", "value", "unit", "run.tool"]
        );
        let mut wide = record(90.0);
        wide.params.insert("threads".into(), 4.into());
        // The columns of every record so far, in order of first appearance
        // (as pandas joins records' columns).
        let mut columns: Vec<String> = Vec::new();
        for (index, record) in [record(80.0), wide].iter().enumerate() {
            pipeline.emit(record).unwrap();
            // Nothing is held back: the record is already in each output.
            let lines: Vec<String> = jsonl.text().lines().map(String::from).collect();
            assert_eq!(lines.len(), index + 1);
            let last: serde_json::Value = serde_json::from_str(lines.last().unwrap()).unwrap();
            assert_eq!(last["value"], record.value);
            assert_eq!(last["unit"], "ns");
            assert_eq!(last["run"]["command_line"][1], "latency");
            for (column, _) in flatten(last.as_object().unwrap()) {
                if !columns.contains(&column) {
                    columns.push(column);
                }
            }
            let text = csv_text();
            assert_eq!(header(&text), columns, "{text}");
            let rows: Vec<csv::StringRecord> = csv::ReaderBuilder::new()
                .delimiter(b';')
                .from_reader(text.as_bytes())
                .records()
                .map(Result::unwrap)
                .collect();
            assert_eq!(rows.len(), index + 1, "{text}");
            assert_eq!(
                &rows[0][columns.iter().position(|c| c == "params.size").unwrap()],
                "1 GiB, \"big\""
            );
        }
        pipeline.finish().unwrap();
        let document: serde_json::Value = serde_json::from_str(&json.text()).unwrap();
        assert_eq!(document["records"].as_array().unwrap().len(), 2);
        assert_eq!(document["metadata"]["command_line"][1], "latency");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file is left"
        );
    }

    /// Where the CSV cannot be replaced (a pipe, stdout), the whole table
    /// is written once, at the end, with the header of every record.
    #[test]
    fn a_csv_stream_gets_the_whole_table_at_the_end() {
        let csv = Shared::default();
        let sink = CsvSink::to_writer(csv.clone(), b',');
        let mut pipeline = Pipeline::with_sinks(vec![Box::new(sink)], &metadata()).unwrap();
        let mut wide = record(90.0);
        wide.params.insert("threads".into(), 4.into());
        pipeline.emit(&record(80.0)).unwrap();
        pipeline.emit(&wide).unwrap();
        assert_eq!(csv.text(), "", "nothing before the end");
        pipeline.finish().unwrap();
        pipeline.finish().unwrap();
        let text = csv.text();
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let header = reader.headers().unwrap().clone();
        let threads = header.iter().position(|column| column == "params.threads");
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 2, "{text}");
        let threads = threads.expect("the wider header");
        assert_eq!((&rows[0][threads], &rows[1][threads]), ("", "4"));
    }

    /// Common params join every record until cleared, and never replace
    /// a param the record sets itself.
    #[test]
    fn common_params_complete_records_until_cleared() {
        let jsonl = Shared::default();
        let sinks: Vec<Box<dyn Sink>> = vec![Box::new(JsonLinesSink::new(jsonl.clone()))];
        let mut pipeline = Pipeline::with_sinks(sinks, &metadata()).unwrap();
        let mut common = serde_json::Map::new();
        common.insert("cpu_order".into(), "cores-first".into());
        common.insert("size".into(), "not this".into());
        pipeline.set_common_params(common);
        pipeline.emit(&record(1.0)).unwrap();
        pipeline.set_common_params(serde_json::Map::new());
        pipeline.emit(&record(2.0)).unwrap();
        let lines: Vec<serde_json::Value> = jsonl
            .text()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines[0]["params"]["cpu_order"], "cores-first");
        assert_eq!(lines[0]["params"]["size"], "1 GiB, \"big\"");
        assert!(lines[1]["params"].get("cpu_order").is_none());
    }

    #[test]
    fn unwritable_file_names_the_path() {
        let config = OutputConfig {
            csv: Some(PathBuf::from("/nonexistent-dir/results.csv")),
            ..OutputConfig::default()
        };
        let error = Pipeline::open(&config, &metadata()).unwrap_err();
        assert!(error.to_string().contains("/nonexistent-dir/results.csv"));
    }
}
