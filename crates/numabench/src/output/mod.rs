//! Result records and the one pipeline every measuring command writes
//! through: a table on the terminal and, on request, CSV, JSON Lines and a
//! JSON document. Each record reaches every sink, and file sinks flush it,
//! the moment it exists, so a crash or Ctrl-C never loses finished results.
//! The schema is documented in `docs/results.md`.

mod collect_sink;
mod counters_text;
mod csv_sink;
mod flatten;
mod json_sink;
mod jsonl_sink;
mod metadata;
mod params_text;
mod paths;
mod pipeline;
mod record;
mod sink;
mod table_sink;
pub mod tables;

pub use collect_sink::CollectSink;
pub use csv_sink::{parse_delimiter, CsvSink, DelimiterError};
pub use flatten::flatten;
pub use json_sink::JsonDocumentSink;
pub use jsonl_sink::JsonLinesSink;
pub use metadata::CollectRunMetadata;
/// Writing an output file without clobbering what its path is (the one
/// place the library, the command line and the MPI monitor write from).
pub use numabench_schema::output_file;
/// The one reader lives in the schema crate (the shared libraries and other
/// tools can read results without the library); re-exported here.
pub use numabench_schema::read;
/// The wire types are the schema crate's; re-exported here, where records
/// are made and written.
pub use numabench_schema::{
    utc_timestamp, HugePageCheck, MovedPages, Placement, PlacementCheck, PlacementStatus, Record,
    RunMetadata, Unit, RESULTS_SCHEMA_VERSION,
};
pub use params_text::{params_text, RecordText};
pub use paths::{check_distinct_files, file_identity};
pub use pipeline::{OutputConfig, OutputError, Pipeline};
pub use read::{read_results, read_results_file, Mode, ReadError, ReadRecord, Results};
pub use sink::Sink;
pub use table_sink::TableSink;
