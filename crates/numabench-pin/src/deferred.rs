//! The main thread's pin, deferred for OpenMP programs.
//!
//! OpenMP runtimes size their default team, and choose how their threads wait, from the
//! affinity mask they find when they start: libgomp in its ELF constructor, LLVM's
//! libomp at the first parallel region. A main thread pinned to one CPU before either
//! looks makes a one-thread team (`OMP_NUM_THREADS` unset), or a team that sleeps in
//! futex waits instead of spinning (set). So in a process that has an OpenMP runtime
//! loaded, the shim leaves the main thread on the CPUs `numabench run` gave the process
//! (all of the policy's CPUs) and pins it at its first `pthread_create`, which comes
//! after the runtime has read its mask. A process that never creates a thread then stays
//! unpinned; the shim says so in a warning at exit, so the run's record shows it.
//!
//! In an MPI rank, the MPI library starts threads of its own (progress threads) in
//! `MPI_Init`, often before the runtime's first team: the shim tells them apart by the
//! object their start routine lives in ([`started_by_runtime`]).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The OpenMP runtimes recognised (sonames as linked by gcc, gfortran, clang, icx).
const RUNTIMES: [&std::ffi::CStr; 4] = [
    c"libgomp.so.1",
    c"libomp.so.5",
    c"libomp.so",
    c"libiomp5.so",
];

/// Whether the main thread's pin is still to be made.
static PENDING: AtomicBool = AtomicBool::new(false);

/// Load address of the OpenMP runtime found by [`openmp_runtime`]; 0 when none.
static RUNTIME_BASE: AtomicUsize = AtomicUsize::new(0);

/// The load address of the object that holds `address`, if any.
fn object_base(address: *const libc::c_void) -> Option<usize> {
    // SAFETY: Dl_info is plain data (pointers and addresses); all-zero is a valid value.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads the loader's tables and writes `info`.
    let found = unsafe { libc::dladdr(address, &mut info) };
    (found != 0 && !info.dli_fbase.is_null()).then_some(info.dli_fbase as usize)
}

/// The OpenMP runtime loaded in this process, if any (and records where it is loaded,
/// for [`started_by_runtime`]). At load every `DT_NEEDED` library is mapped already,
/// so `RTLD_NOLOAD` finds it without loading anything.
pub fn openmp_runtime() -> Option<&'static std::ffi::CStr> {
    RUNTIMES.into_iter().find(|name| {
        // SAFETY: a NUL-terminated name; RTLD_NOLOAD only looks up a loaded object.
        let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
        if handle.is_null() {
            return false;
        }
        // SAFETY: a live handle and a NUL-terminated name; every runtime exports it.
        let symbol = unsafe { libc::dlsym(handle, c"omp_get_num_threads".as_ptr()) };
        if let Some(base) = (!symbol.is_null()).then(|| object_base(symbol)).flatten() {
            RUNTIME_BASE.store(base, Ordering::Relaxed);
        }
        // SAFETY: drops the reference RTLD_NOLOAD took on an object that stays loaded.
        unsafe { libc::dlclose(handle) };
        true
    })
}

/// Whether a thread starting at `routine` is one of the OpenMP runtime's (its start
/// routine lives in the runtime); `None` when no runtime was found.
pub fn started_by_runtime(routine: usize) -> Option<bool> {
    let base = RUNTIME_BASE.load(Ordering::Relaxed);
    (base != 0).then(|| object_base(routine as *const libc::c_void) == Some(base))
}

/// Marks the main thread's pin as deferred, and arranges the warning at exit if it
/// never happens.
pub fn defer() {
    PENDING.store(true, Ordering::Release);
    // SAFETY: registers a plain function of this never-unloaded library.
    unsafe { libc::atexit(warn_if_still_pending) };
}

/// True exactly once: when called on the main thread while its pin is deferred.
pub fn claim_on_main_thread() -> bool {
    if !PENDING.load(Ordering::Acquire) {
        return false;
    }
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::gettid() };
    tid == std::process::id() as libc::pid_t && PENDING.swap(false, Ordering::AcqRel)
}

/// At exit: the main thread was never pinned.
extern "C" fn warn_if_still_pending() {
    if PENDING.load(Ordering::Acquire) {
        crate::diag::warn(&format!(
            "process {}: the main thread was not pinned (it has an OpenMP runtime, whose pin waits for its first thread, and created none); it ran on all of the CPUs it started with",
            std::process::id()
        ));
    }
}
