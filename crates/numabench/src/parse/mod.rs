//! Pure parsers for what users type: sizes (`4K`, `64KiB`, `1G`) and
//! CPU or node lists in numactl/taskset syntax (`0-3,8,10-11`).
//!
//! Each parser returns a typed error naming the bad value, so the CLI can
//! print one clear line and exit with status 2.

mod duration;
mod id_list;
mod size;

pub use duration::{parse_interval, DurationError};
pub use id_list::{format_id_list, parse_id_list, IdListError};
pub use size::{parse_size, SizeError};
