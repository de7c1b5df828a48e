//! Exit statuses and the one-line error messages users see.
//!
//! 0: success; 1: the run finished but found problems (doctor warnings,
//! failed verification); 2: the user asked for something invalid (bad
//! flag, unknown node, unwritable file); 3: the machine failed us (hwloc or
//! the kernel refused something numabench needed). A library error says
//! which of 2 and 3 it is itself ([`numabench::error::Faulty`]).

use clap::error::{ContextKind, ContextValue, ErrorKind};
use numabench::error::{Fault, Faulty};
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

/// A failure that ends the command. A library error becomes one by `?`
/// (the [`From`] below): its own [`Fault`] chooses the variant, and its
/// message is kept as it is.
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

    /// `message` with the exit status `error`'s fault gives: for a call
    /// site that rewords a library error or adds context to it.
    pub fn from_fault(error: &impl Faulty, message: impl std::fmt::Display) -> Self {
        match error.fault() {
            Fault::Usage => Self::usage(message),
            Fault::System => Self::system(message),
        }
    }

    /// The message, whoever is at fault.
    pub fn message(&self) -> &str {
        match self {
            Self::Usage(message) | Self::System(message) => message,
        }
    }
}

/// Every library error, by who is at fault: the user's is status 2, the
/// system's status 3. (`CliError` itself is neither [`Faulty`] nor
/// `Display`, so this does not overlap `From<T> for T`.)
impl<E: Faulty + std::fmt::Display> From<E> for CliError {
    fn from(error: E) -> Self {
        Self::from_fault(&error, &error)
    }
}

/// Writes `numabench: error: MESSAGE` and its newline to stderr in one
/// write: stderr is unbuffered and `eprintln!` writes its pieces one by
/// one, so lines of several processes sharing a stderr (MPI ranks whose
/// output mpirun forwards) could interleave mid-line.
pub fn error_line(message: impl std::fmt::Display) {
    use std::io::Write;
    let line = format!("numabench: error: {message}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// Prints the error as one line and returns its exit status.
pub fn report(error: &CliError) -> ExitCode {
    let (message, status) = match error {
        CliError::Usage(message) => (message, 2),
        CliError::System(message) => (message, 3),
    };
    error_line(first_line(message));
    ExitCode::from(status)
}

/// Help and version go to stdout with status 0. A command run without its
/// subcommand (`numabench`, `numabench matrix`) prints its help on stdout
/// too, with status 2 as git does: the user gets the list to choose from,
/// and scripts still see that nothing ran. Every parse error is reduced to
/// one line and status 2.
pub fn clap_error(error: &clap::Error) -> ExitCode {
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = error.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            print!("{}", error.render());
            ExitCode::from(2)
        }
        _ => {
            error_line(one_line(error));
            ExitCode::from(2)
        }
    }
}

/// clap's message as one line: its first line, and for a missing argument
/// the names of what is missing (clap lists them on the following lines).
fn one_line(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let line = first_line(&rendered);
    let line = line.strip_prefix("error: ").unwrap_or(line);
    if error.kind() == ErrorKind::MissingRequiredArgument {
        if let Some(ContextValue::Strings(missing)) = error.get(ContextKind::InvalidArg) {
            return format!("missing required argument: {}", missing.join(", "));
        }
    }
    line.to_string()
}

fn first_line(text: &str) -> &str {
    text.lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or(text)
        .trim_end()
}
