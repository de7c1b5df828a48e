//! CPU time and context switches of this process (getrusage).

use nix::sys::resource::{getrusage, UsageWho};
use nix::sys::time::TimeVal;

/// A difference of two getrusage snapshots.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    pub user_seconds: f64,
    pub system_seconds: f64,
    pub voluntary_switches: i64,
    pub involuntary_switches: i64,
}

/// This process's usage so far (all zero in the unlikely case getrusage
/// fails: RUSAGE_SELF cannot be refused).
pub fn usage_now() -> Usage {
    let Ok(raw) = getrusage(UsageWho::RUSAGE_SELF) else {
        return Usage::default();
    };
    let seconds = |time: TimeVal| time.tv_sec() as f64 + time.tv_usec() as f64 * 1e-6;
    Usage {
        user_seconds: seconds(raw.user_time()),
        system_seconds: seconds(raw.system_time()),
        voluntary_switches: raw.voluntary_context_switches(),
        involuntary_switches: raw.involuntary_context_switches(),
    }
}

impl Usage {
    /// `self - earlier`.
    pub fn since(&self, earlier: &Usage) -> Usage {
        Usage {
            user_seconds: self.user_seconds - earlier.user_seconds,
            system_seconds: self.system_seconds - earlier.system_seconds,
            voluntary_switches: self.voluntary_switches - earlier.voluntary_switches,
            involuntary_switches: self.involuntary_switches - earlier.involuntary_switches,
        }
    }
}
