//! The results schema of numabench, typed: what a results file holds (a
//! [`Record`] per result, the [`RunMetadata`] once), the placement check
//! and statistics a record carries, the benchmark names, and typed views
//! of the parameters that readers share. Writers (the library, the MPI
//! monitor) and readers (report, compare, summary, cluster) use these
//! types instead of spelling field names again; `docs/record.schema.json`
//! is generated from them (`docs/results.md` describes it). The one
//! reader of results files ([`read`]: strict or lenient, every format
//! numabench and its MPI monitor write) lives here too.
//!
//! Also the small helpers every numabench crate needs and none may copy:
//! UTC timestamps, CPU lists, affinity masks, an enum's name on the wire
//! from its serde form ([`wire_name`]), and writing an output file
//! without clobbering what its path is ([`output_file`]). No hwloc, no plotters, no
//! libc: the LD_PRELOADed shared libraries link this crate.

pub mod affinity;
pub mod benchmark;
pub mod cpulist;
mod json_schema;
mod line;
mod metadata;
pub mod output_file;
pub mod params;
mod placement_check;
mod placement_status;
pub mod read;
mod record;
mod requested;
mod summary;
mod utc;
mod wire_name;

pub use json_schema::{results_line_schema, SCHEMA_PATH};
pub use line::{AnyLine, Line, RecordLine};
pub use metadata::{MachineFacts, RunMetadata};
pub use params::Params;
pub use placement_check::{HugePageCheck, MovedPages, PlacementCheck};
pub use placement_status::PlacementStatus;
pub use record::{Placement, Record, Unit, RESULTS_SCHEMA_VERSION, TYPED_LINES_SCHEMA_VERSION};
pub use requested::{RequestedMemory, RequestedMemoryPolicy, RequestedPlacement};
pub use summary::Summary;
pub use utc::utc_timestamp;
pub use wire_name::{from_wire_name, wire_name, WireName};
