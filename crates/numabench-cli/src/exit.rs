//! Exit statuses and the one-line error messages users see.
//!
//! 0: success; 1: the run finished but found problems (doctor warnings,
//! failed verification); 2: the user asked for something invalid (bad
//! flag, unknown node, unwritable file); 3: the machine failed us (hwloc or
//! the kernel refused something numabench needed).

use clap::error::ErrorKind;
use std::process::ExitCode;

/// Exit status of a command that ran to completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Everything was fine.
    Clean,
    /// The command worked but has warnings to report (status 1).
    Warnings,
}

impl From<Status> for ExitCode {
    fn from(status: Status) -> Self {
        match status {
            Status::Clean => ExitCode::SUCCESS,
            Status::Warnings => ExitCode::from(1),
        }
    }
}

/// A failure that ends the command.
#[derive(Debug)]
pub enum CliError {
    /// Bad input from the user: exit status 2.
    Usage(String),
    /// The system failed: exit status 3.
    System(String),
}

impl CliError {
    pub fn usage(message: impl std::fmt::Display) -> Self {
        Self::Usage(message.to_string())
    }

    pub fn system(message: impl std::fmt::Display) -> Self {
        Self::System(message.to_string())
    }
}

/// Prints the error as one line and returns its exit status.
pub fn report(error: &CliError) -> ExitCode {
    let (message, status) = match error {
        CliError::Usage(message) => (message, 2),
        CliError::System(message) => (message, 3),
    };
    eprintln!("numabench: error: {}", first_line(message));
    ExitCode::from(status)
}

/// Help and version go to stdout with status 0; every parse error is
/// reduced to clap's one-line summary and status 2.
pub fn clap_error(error: &clap::Error) -> ExitCode {
    match error.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = error.print();
            if error.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
        _ => {
            let rendered = error.render().to_string();
            let line = first_line(&rendered);
            let line = line.strip_prefix("error: ").unwrap_or(line);
            eprintln!("numabench: error: {line}");
            ExitCode::from(2)
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or(text)
        .trim_end()
}
