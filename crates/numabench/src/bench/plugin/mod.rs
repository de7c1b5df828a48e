//! Benchmark plugins: shared libraries speaking the versioned C ABI of
//! `include/numabench_plugin.h`, found through `NUMABENCH_PLUGIN_PATH` and
//! `--plugin FILE`, run in a child process on buffers numabench placed and
//! verified, their samples turned into records by the normal pipeline.

mod abi;
mod load;
mod run;
mod supervise;

pub use abi::ABI_VERSION;
pub use load::{discover, plugin_files, Plugin, PluginError, PluginParam, PLUGIN_PATH_VARIABLE};
pub use run::{run_plugin, PluginRunConfig, PluginRunError};
pub use supervise::GRACE;
