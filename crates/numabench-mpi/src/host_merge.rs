//! At MPI_Finalize: every rank of a host hands its transition log to the
//! host's first rank, which merges them into the host's time per level
//! ([`crate::levels`]). The logs travel chunk by chunk over the monitor's
//! own host communicator (blocking PMPI sends, an empty message last), and
//! the first rank receives a rank's next chunk only when the merge needs
//! it: memory for one chunk per rank, however long the logs.

use crate::levels::levels;
use crate::transition_log::{Log, CHUNK};
use mpi::ffi::{self, MPI_Comm};
use std::os::raw::c_int;

/// The tag of log chunks on the monitor's host communicator.
const TAG: c_int = 7311;

/// A non-first rank: sends its log to local rank 0.
///
/// # Safety
/// `local` is the monitor's host communicator and local rank 0 runs
/// [`merge`] at the same point.
pub unsafe fn send(log: &Log, local: MPI_Comm) {
    let result = log.for_each_chunk(|chunk| {
        if !chunk.is_empty() {
            // SAFETY: `chunk` holds chunk.len() (at most CHUNK) u64.
            unsafe { send_chunk(chunk, local) };
        }
    });
    if let Err(error) = result {
        eprintln!("numabench-mpi: cannot read the transition log back ({error}): TLP covers less");
    }
    // SAFETY: an empty message ends the log.
    unsafe { send_chunk(&[], local) };
}

/// # Safety
/// `local` is a valid communicator with a rank 0 receiving.
unsafe fn send_chunk(chunk: &[u64], local: MPI_Comm) {
    // SAFETY: a buffer of chunk.len() u64; constants of the library.
    unsafe {
        ffi::PMPI_Send(
            chunk.as_ptr().cast(),
            chunk.len() as c_int,
            ffi::RSMPI_UINT64_T,
            0,
            TAG,
            local,
        );
    }
}

/// One other rank's log as the first rank receives it.
struct Remote {
    local: MPI_Comm,
    source: c_int,
    buffer: Vec<u64>,
    position: usize,
    done: bool,
}

impl Iterator for Remote {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        while self.position == self.buffer.len() {
            if self.done {
                return None;
            }
            self.buffer.resize(CHUNK, 0);
            // SAFETY: MPI_Status is plain data, filled by PMPI_Recv.
            let mut status: ffi::MPI_Status = unsafe { std::mem::zeroed() };
            let mut count: c_int = 0;
            // SAFETY: a buffer of CHUNK u64 (no chunk is longer), from a
            // rank of `local` that sends its chunks in order (`send`).
            unsafe {
                ffi::PMPI_Recv(
                    self.buffer.as_mut_ptr().cast(),
                    CHUNK as c_int,
                    ffi::RSMPI_UINT64_T,
                    self.source,
                    TAG,
                    self.local,
                    &mut status,
                );
                ffi::PMPI_Get_count(&status, ffi::RSMPI_UINT64_T, &mut count);
            }
            self.buffer.truncate(count.max(0) as usize);
            self.done = count <= 0;
            self.position = 0;
        }
        self.position += 1;
        Some(self.buffer[self.position - 1])
    }
}

/// Local rank 0: merges its own log and the `ranks - 1` others' between
/// `start` and `end` (ticks); returns the ticks at each level.
///
/// # Safety
/// `local` is the monitor's host communicator of `ranks` ranks, all of
/// which call [`send`] at the same point.
pub unsafe fn merge(own: &Log, local: MPI_Comm, ranks: usize, start: u64, end: u64) -> Vec<u64> {
    let mut logs: Vec<Box<dyn Iterator<Item = u64> + '_>> = vec![Box::new(own.times())];
    for source in 1..ranks {
        logs.push(Box::new(Remote {
            local,
            source: source as c_int,
            buffer: Vec::new(),
            position: 0,
            done: false,
        }));
    }
    levels(start, end, ranks, logs)
}
