//! CPU time and context switches of this process (getrusage).

/// A difference of two getrusage snapshots.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    pub user_seconds: f64,
    pub system_seconds: f64,
    pub voluntary_switches: i64,
    pub involuntary_switches: i64,
}

/// This process's usage so far.
pub fn usage_now() -> Usage {
    // SAFETY: rusage is plain data; getrusage fills it.
    let mut raw: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid pointer.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut raw) };
    let seconds = |time: libc::timeval| time.tv_sec as f64 + time.tv_usec as f64 * 1e-6;
    Usage {
        user_seconds: seconds(raw.ru_utime),
        system_seconds: seconds(raw.ru_stime),
        voluntary_switches: raw.ru_nvcsw,
        involuntary_switches: raw.ru_nivcsw,
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
