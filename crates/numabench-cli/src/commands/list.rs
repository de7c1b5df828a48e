//! `numabench list`: the built-in benchmarks, then the plugins found in
//! NUMABENCH_PLUGIN_PATH and --plugin files.

use crate::args::ListArgs;
use crate::exit::{CliError, Status};
use numabench::bench::registry;

pub fn run(args: &ListArgs) -> Result<Status, CliError> {
    // Plugins load first: a bad one is refused before anything is printed.
    let plugins = super::plugin::load_plugins(&args.plugin)?;
    for info in registry() {
        if args.describe {
            println!("{}\n  {}\n", info.name, info.description);
        } else {
            println!("{:<16} {}", info.name, info.summary);
        }
    }
    for plugin in &plugins {
        if args.describe {
            println!(
                "{} (plugin {}; run with `numabench plugin {}`)\n  {}\n  \
                 Runs in a child process; stopped and reported failed after --timeout \
                 (default {}).",
                plugin.name,
                plugin.file.display(),
                plugin.name,
                plugin.description,
                crate::args::PLUGIN_TIMEOUT
            );
            for param in &plugin.params {
                println!(
                    "  --param {}=VALUE: {} (default {})",
                    param.name, param.description, param.default
                );
            }
            println!();
        } else {
            println!("{:<16} {} (plugin)", plugin.name, plugin.description);
        }
    }
    Ok(Status::Clean)
}
