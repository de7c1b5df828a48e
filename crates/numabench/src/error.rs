//! Who is at fault when something fails: every error the library returns
//! knows it, so that the command line turns it into an exit status without
//! deciding by hand (status 2 for the user's fault, 3 for the system's).
//!
//! Each error enum implements [`Faulty`] and says in its documentation who
//! is at fault for each variant (one enum per operation, as hwlocality
//! does). An enum that wraps another error (`#[error(transparent)]`) asks
//! the wrapped one.

/// Who must act for a failed operation to succeed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The caller asked for something invalid: a bad size or list, an
    /// unknown node or benchmark, an unwritable or unreadable path, a
    /// request that leaves nothing to measure. Fixed by asking differently.
    Usage,
    /// The kernel, hwloc or the machine refused or failed something the
    /// request was entitled to: an allocation, a pinning, a write midway.
    System,
}

/// An error that knows whose fault it is.
pub trait Faulty {
    /// Who is at fault for this error.
    fn fault(&self) -> Fault;
}

/// Implements [`Faulty`] for error types whose every value has one fault:
/// `all_faulty!(Usage: SizeError, DurationError; System: PinError);`.
macro_rules! all_faulty {
    ($($fault:ident: $($error:ty),+);+ $(;)?) => {
        $($(
            impl $crate::error::Faulty for $error {
                fn fault(&self) -> $crate::error::Fault {
                    $crate::error::Fault::$fault
                }
            }
        )+)+
    };
}
pub(crate) use all_faulty;

// The errors of other crates that the library hands on as they are.
all_faulty!(
    // A CPU or node list as the user typed it.
    Usage: numabench_schema::cpulist::IdListError,
    // A results file the user named that cannot be read.
    numabench_schema::read::ReadError;
    // Serializing numabench's own records and reports.
    System: serde_json::Error
);
