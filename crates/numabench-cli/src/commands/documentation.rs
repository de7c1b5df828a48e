//! `numabench completions SHELL` and `numabench man DIR`: shell completion
//! scripts and manual pages generated from the same clap definitions as the
//! flags themselves, so they never drift from `--help`.

use crate::args::{Cli, CompletionsArgs, ManArgs};
use crate::exit::{CliError, Status};
use clap::CommandFactory;
use std::io::Write;
use std::path::Path;

/// Prints the completion script for the shell on stdout (made in memory
/// first: a reader that closes the pipe early, `| head`, is no error).
pub fn completions(args: &CompletionsArgs) -> Result<Status, CliError> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "numabench", &mut script);
    match std::io::stdout().lock().write_all(&script) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::system(
            format!("cannot write the completion script: {error}"),
        )),
        _ => Ok(Status::Clean),
    }
}

/// Writes numabench.1 and numabench-SUBCOMMAND.1 (nested ones as
/// numabench-matrix-latency.1) into the directory; hidden commands get no
/// page. Prints the files written, one a line.
pub fn man(args: &ManArgs) -> Result<Status, CliError> {
    let dir = &args.dir;
    std::fs::create_dir_all(dir).map_err(|error| {
        CliError::usage(format!(
            "cannot create the directory {}: {error}",
            dir.display()
        ))
    })?;
    let mut command = Cli::command();
    command.build();
    let mut written = Vec::new();
    write_pages(&command, "numabench", dir, &mut written)?;
    for file in written {
        println!("{file}");
    }
    Ok(Status::Clean)
}

/// Writes `name`.1 for `command`, then a page for each visible subcommand.
fn write_pages(
    command: &clap::Command,
    name: &str,
    dir: &Path,
    written: &mut Vec<String>,
) -> Result<(), CliError> {
    let page = command.clone().name(name.to_string());
    let mut text = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut text)
        .map_err(|error| CliError::system(format!("cannot render the page of {name}: {error}")))?;
    let path = dir.join(format!("{name}.1"));
    super::write_whole(&path, &text)?;
    written.push(path.display().to_string());
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        if sub.get_name() == "help" {
            continue;
        }
        write_pages(sub, &format!("{name}-{}", sub.get_name()), dir, written)?;
    }
    Ok(())
}
