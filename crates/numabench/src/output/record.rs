//! The record types, for the sinks and readers of this module: they are
//! the schema crate's (`numabench_schema`), re-exported from `output`.

pub(crate) use numabench_schema::Record;
