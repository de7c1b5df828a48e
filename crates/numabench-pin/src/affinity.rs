//! The calling thread's CPU affinity, with masks sized for any number of CPUs.

use numabench_schema::affinity::{cpus_in_mask, mask_of_cpus, WORD_BITS};
use std::io;

/// Words of glibc's `cpu_set_t` (1024 CPUs), the smallest mask passed.
const CPU_SET_WORDS: usize = 1024 / WORD_BITS;

/// The CPUs the calling thread may run on, ascending.
pub fn get_self() -> io::Result<Vec<usize>> {
    // Start at glibc's cpu_set_t (1024 CPUs); the kernel refuses (EINVAL) a mask
    // smaller than its nr_cpu_ids, so grow until it fits.
    let mut words = CPU_SET_WORDS;
    loop {
        let mut mask = vec![0u64; words];
        let bytes = words * std::mem::size_of::<u64>();
        // SAFETY: `mask` is a writable, 8-byte-aligned buffer of `bytes` bytes; the
        // kernel writes at most `bytes` bytes into it.
        let result = unsafe {
            libc::sched_getaffinity(0, bytes, mask.as_mut_ptr().cast::<libc::cpu_set_t>())
        };
        if result == 0 {
            return Ok(cpus_in_mask(&mask));
        }
        let error = io::Error::last_os_error();
        if error.raw_os_error() != Some(libc::EINVAL) || words >= (1 << 20) / WORD_BITS {
            return Err(error);
        }
        words *= 2;
    }
}

/// Restricts the calling thread to `cpus` (any order, repeats allowed).
pub fn set_self(cpus: &[usize]) -> io::Result<()> {
    if cpus.is_empty() {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    // At least a cpu_set_t's worth, like glibc callers pass.
    let mask = mask_of_cpus(cpus, CPU_SET_WORDS);
    let bytes = mask.len() * std::mem::size_of::<u64>();
    // SAFETY: `mask` is a readable, 8-byte-aligned buffer of `bytes` bytes.
    let result =
        unsafe { libc::sched_setaffinity(0, bytes, mask.as_ptr().cast::<libc::cpu_set_t>()) };
    if result == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}
