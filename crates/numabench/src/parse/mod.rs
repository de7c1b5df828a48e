//! Pure parsers for what users type: sizes (`4K`, `64KiB`, `1G`) and
//! CPU or node lists in numactl/taskset syntax (`0-3,8,10-11`).
//!
//! Each parser returns a typed error naming the bad value, so the CLI can
//! print one clear line and exit with status 2.

mod duration;
mod size;

pub use duration::{parse_interval, DurationError};
pub use numabench_schema::cpulist::{
    format_id_list, format_in_order, parse_id_list, parse_in_order, IdListError,
};
pub use size::{parse_size, SizeError};
