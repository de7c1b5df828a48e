//! `numabench plugin`: loads benchmark plugins and runs each in a child
//! process, its records through the normal pipeline as each finishes.

use super::measuring::{context, pipeline};
use crate::args::PluginArgs;
use crate::exit::{error_line, CliError, Status};
use numabench::bench::plugin::{
    discover, run_plugin, Plugin, PluginRunConfig, PluginRunError, PLUGIN_PATH_VARIABLE,
};
use numabench::bench::{check_memory_fits, resolve_cpu, resolve_node_with_memory, BenchError};
use numabench::threads::CpuOrder;
use std::path::PathBuf;

/// The plugins of NUMABENCH_PLUGIN_PATH and `extra`, or why one was refused.
pub fn load_plugins(extra: &[PathBuf]) -> Result<Vec<Plugin>, CliError> {
    let environment = std::env::var(PLUGIN_PATH_VARIABLE).ok();
    Ok(discover(environment.as_deref(), extra)?)
}

pub fn run(args: &PluginArgs) -> Result<Status, CliError> {
    let plugins = load_plugins(&args.plugin)?;
    if plugins.is_empty() && !args.names.is_empty() {
        return Err(CliError::usage(format!(
            "unknown plugin '{}': no plugins found (set {PLUGIN_PATH_VARIABLE} or give --plugin FILE)",
            args.names.join(",")
        )));
    }
    if plugins.is_empty() {
        return Err(CliError::usage(format!(
            "no plugins: set {PLUGIN_PATH_VARIABLE} or give --plugin FILE"
        )));
    }
    let names: Vec<String> = plugins.iter().map(|plugin| plugin.name.clone()).collect();
    for name in &args.names {
        if !names.contains(name) {
            return Err(CliError::usage(format!(
                "unknown plugin '{name}' (found: {})",
                names.join(", ")
            )));
        }
    }
    let selected: Vec<&Plugin> = plugins
        .iter()
        .filter(|plugin| args.names.is_empty() || args.names.contains(&plugin.name))
        .collect();
    let mut params = Vec::new();
    for text in &args.param {
        let Some((name, value)) = text.split_once('=') else {
            return Err(CliError::usage(format!("--param {text}: not NAME=VALUE")));
        };
        if !selected
            .iter()
            .any(|plugin| plugin.params.iter().any(|param| param.name == name))
        {
            return Err(CliError::usage(format!(
                "--param {name}: no selected plugin has a parameter {name} (see list --describe)"
            )));
        }
        params.push((name.to_string(), value.to_string()));
    }
    let context = context(&args.run)?;
    let topology = &context.topology;
    let cpus = match (&args.cpus, args.threads) {
        (Some(list), _) => list
            .0
            .iter()
            .map(|&cpu| resolve_cpu(topology, cpu))
            .collect::<Result<Vec<_>, _>>()?,
        (None, threads) => {
            let allowed = CpuOrder::CoresFirst.all_allowed(topology);
            let threads = threads.unwrap_or(1) as usize;
            if threads > allowed.len() {
                return Err(BenchError::Invalid(format!(
                    "--threads {threads} is more than the {} CPUs this process may use",
                    allowed.len()
                ))
                .into());
            }
            allowed[..threads].to_vec()
        }
    };
    let mem_node = args
        .mem_node
        .map(|node| resolve_node_with_memory(topology, node))
        .transpose()?;
    let nodes: Vec<u32> = match mem_node {
        Some(node) => vec![node],
        None => topology.nodes_of_cpus(&cpus),
    };
    check_memory_fits(
        topology,
        &nodes,
        args.size.saturating_mul(cpus.len() as u64),
    )?;
    let config = PluginRunConfig {
        cpus,
        size: args.size as usize,
        mem_node,
        params,
        timeout: args.timeout,
    };
    if args.run.planning.plan {
        for plugin in &selected {
            println!(
                "plugin {} ({}): {} threads on CPUs {:?}, {} bytes each, {} repetitions; nothing runs",
                plugin.name,
                plugin.file.display(),
                config.cpus.len(),
                config.cpus,
                config.size,
                context.repeat
            );
        }
        return Ok(Status::Clean);
    }
    let mut pipeline = pipeline(&args.output, &context)?;
    for plugin in selected {
        match run_plugin(&context, plugin, &config, &mut pipeline) {
            Ok(()) => {}
            Err(PluginRunError::Output(error)) => return Err(CliError::system(error)),
            Err(PluginRunError::Interrupted { name, signal }) => {
                // The child is stopped; what was measured before is flushed,
                // and numabench ends as a shell reports a process killed by
                // the signal (130 for SIGINT, 143 for SIGTERM).
                pipeline.finish()?;
                error_line(format!(
                    "plugin {name} interrupted by signal {signal}: forwarded to its process, which is stopped; earlier results are kept"
                ));
                std::process::exit(128 + signal);
            }
            Err(error) => {
                pipeline.finish()?;
                return Err(CliError::system(error));
            }
        }
    }
    pipeline.finish()?;
    Ok(Status::Clean)
}
