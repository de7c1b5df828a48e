//! Per MPI call type figures, as mpiP reports them: how many calls of each
//! wrapped function a rank made, the time it spent in them and the bytes
//! their count arguments name. A wrapper finds its slot at compile time
//! ([`call_id`] of its own name, C or Fortran spelling), so the hot path
//! adds to an array entry and looks nothing up.

/// The wrapped MPI functions, in the C spelling; a name's index is its
/// slot in a rank's per-call table.
pub const CALLS: &[&str] = &[
    "MPI_Send",
    "MPI_Ssend",
    "MPI_Bsend",
    "MPI_Rsend",
    "MPI_Recv",
    "MPI_Sendrecv",
    "MPI_Sendrecv_replace",
    "MPI_Probe",
    "MPI_Isend",
    "MPI_Issend",
    "MPI_Ibsend",
    "MPI_Irsend",
    "MPI_Wait",
    "MPI_Waitall",
    "MPI_Waitany",
    "MPI_Waitsome",
    "MPI_Barrier",
    "MPI_Bcast",
    "MPI_Reduce",
    "MPI_Allreduce",
    "MPI_Gather",
    "MPI_Gatherv",
    "MPI_Scatter",
    "MPI_Scatterv",
    "MPI_Allgather",
    "MPI_Allgatherv",
    "MPI_Alltoall",
    "MPI_Alltoallv",
    "MPI_Reduce_scatter",
    "MPI_Reduce_scatter_block",
    "MPI_Scan",
    "MPI_Exscan",
    "MPI_Mprobe",
    "MPI_Mrecv",
    "MPI_Alltoallw",
    "MPI_Neighbor_allgather",
    "MPI_Neighbor_allgatherv",
    "MPI_Neighbor_alltoall",
    "MPI_Neighbor_alltoallv",
    "MPI_Neighbor_alltoallw",
    "MPI_Irecv",
    "MPI_Iprobe",
    "MPI_Test",
    "MPI_Testall",
    "MPI_Testany",
    "MPI_Testsome",
    "MPI_Comm_split",
    "MPI_Comm_dup",
    "MPI_Comm_create",
];

/// The slot of the wrapper named `name`: a C name (`MPI_Send`) or a
/// Fortran one (`mpi_send_`), compared without case and without the
/// Fortran trailing underscore. Evaluated at compile time by the wrapper
/// macros, where a name missing from [`CALLS`] stops the build.
pub const fn call_id(name: &str) -> usize {
    let name = name.as_bytes();
    let length = if !name.is_empty() && name[name.len() - 1] == b'_' {
        name.len() - 1
    } else {
        name.len()
    };
    let mut index = 0;
    while index < CALLS.len() {
        let candidate = CALLS[index].as_bytes();
        if candidate.len() == length && length > 0 {
            let mut at = 0;
            while at < length && name[at].eq_ignore_ascii_case(&candidate[at]) {
                at += 1;
            }
            if at == length {
                return index;
            }
        }
        index += 1;
    }
    panic!("a wrapper whose name is not in CALLS")
}

/// One call type's figures in one rank (or added over ranks).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CallFigures {
    /// Calls made.
    pub count: u64,
    /// Ticks inside them (the monitor's clock, [`crate::clock`]).
    pub ticks: u64,
    /// The bytes their count and datatype arguments name: a send's
    /// message, a collective's send buffer (this rank's contribution, as
    /// mpiP counts it); 0 for calls that name none (waits, barriers,
    /// receives, the v/w variants).
    pub bytes: u64,
}

impl CallFigures {
    /// Adds one call of `ticks` naming `bytes`.
    #[inline]
    pub fn add(&mut self, ticks: u64, bytes: u64) {
        self.count += 1;
        self.ticks += ticks;
        self.bytes += bytes;
    }
}

/// A table of every call type.
pub type CallTable = [CallFigures; CALLS.len()];

/// An empty table.
pub const EMPTY_TABLE: CallTable = [CallFigures {
    count: 0,
    ticks: 0,
    bytes: 0,
}; CALLS.len()];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_and_fortran_names_find_the_same_slot() {
        assert_eq!(call_id("MPI_Send"), 0);
        assert_eq!(call_id("mpi_send_"), 0);
        assert_eq!(
            call_id("mpi_sendrecv_replace_"),
            call_id("MPI_Sendrecv_replace")
        );
        assert_ne!(call_id("MPI_Sendrecv"), call_id("MPI_Sendrecv_replace"));
        assert_eq!(
            CALLS[call_id("mpi_neighbor_alltoallw_")],
            "MPI_Neighbor_alltoallw"
        );
    }

    #[test]
    fn names_are_unique() {
        let mut sorted = CALLS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), CALLS.len());
    }
}
