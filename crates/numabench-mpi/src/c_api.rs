//! The C bindings: exported `MPI_*` symbols that account the call and
//! forward it to `PMPI_*`. Loaded first (LD_PRELOAD), they are what an
//! unmodified program's calls reach.
//!
//! Calls that return at once (MPI_Isend, MPI_Irecv, MPI_Test*, MPI_Iprobe)
//! are timed for the per-call table only ([`crate::calls`]): the process is
//! not waiting in them. Nonblocking sends count their message when posted.
//! Persistent requests (MPI_Send_init/MPI_Recv_init, then MPI_Start or
//! MPI_Startall) block only in MPI_Wait*, which is timed; their messages
//! are not counted (the request does not say its size when started).

use crate::lifecycle;
use crate::state::{count_message, Call, Class};
use mpi::ffi::{
    self, MPI_Aint, MPI_Comm, MPI_Datatype, MPI_Group, MPI_Message, MPI_Op, MPI_Request, MPI_Status,
};
use std::os::raw::{c_char, c_int, c_void};

/// Bytes of `count` elements of `datatype` (0 when MPI cannot say).
///
/// # Safety
/// `datatype` must be a valid datatype handle.
pub unsafe fn message_bytes(count: c_int, datatype: MPI_Datatype) -> u64 {
    let mut size: c_int = 0;
    // SAFETY: a valid datatype (caller); `size` is a local to write.
    let status = unsafe { ffi::PMPI_Type_size(datatype, &mut size) };
    if status != 0 || count < 0 || size < 0 {
        return 0;
    }
    count as u64 * size as u64
}

/// Counts a message sent to `dest` unless it goes nowhere (MPI_PROC_NULL);
/// returns its bytes (0 for one that goes nowhere).
///
/// # Safety
/// `datatype` must be a valid datatype handle.
pub unsafe fn count_send(count: c_int, datatype: MPI_Datatype, dest: c_int) -> u64 {
    // SAFETY: PROC_NULL is a constant of the library.
    if dest == unsafe { ffi::RSMPI_PROC_NULL } {
        return 0;
    }
    // SAFETY: as the caller promises.
    let bytes = unsafe { message_bytes(count, datatype) };
    count_message(bytes);
    bytes
}

/// Defines an exported wrapper: `blocking(Class)` calls are timed and the
/// process is inside MPI during them, `returning` ones are timed for the
/// per-call table only; `send(buf, count, datatype, dest)` counts a message,
/// `bytes(count, datatype)` names a collective's send buffer.
macro_rules! wrap {
    ($name:ident => $pmpi:ident, $kind:ident $(($class:expr))?,
     ($($arg:ident: $ty:ty),* $(,)?)
     $(, send($sbuf:ident, $count:ident, $datatype:ident, $dest:ident))?
     $(, recv($rbuf:ident, $rcount:ident, $rtype:ident $(, $rsrc:ident)?))?
     $(, bytes($bcount:ident, $btype:ident))?) => {
        #[doc = concat!("Accounts `", stringify!($name), "` and forwards it to `", stringify!($pmpi), "`.")]
        ///
        /// # Safety
        /// The MPI standard's contract for this function.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> c_int {
            const ID: usize = crate::calls::call_id(stringify!($name));
            #[allow(unused_mut)]
            let mut call = Call::$kind($($class,)? ID);
            $(
                if call.counting() {
                    // SAFETY: the caller's datatype, valid per the MPI contract.
                    let bytes = unsafe { count_send($count, $datatype, $dest) };
                    call.add_bytes(bytes);
                    crate::state::sample_buffer($sbuf as *const c_void, bytes);
                }
            )?
            $(
                // SAFETY: PROC_NULL is a constant of the library.
                let from_nowhere = false $(|| $rsrc == unsafe { ffi::RSMPI_PROC_NULL })?;
                if call.counting() && !from_nowhere {
                    // SAFETY: the caller's datatype, valid per the MPI contract.
                    let bytes = unsafe { message_bytes($rcount, $rtype) };
                    crate::state::sample_buffer($rbuf as *const c_void, bytes);
                }
            )?
            $(
                if call.counting() {
                    // SAFETY: the caller's datatype, valid per the MPI contract.
                    call.add_bytes(unsafe { message_bytes($bcount, $btype) });
                }
            )?
            // SAFETY: the caller's arguments, forwarded unchanged.
            let status = unsafe { ffi::$pmpi($($arg),*) };
            drop(call);
            status
        }
    };
}

wrap!(MPI_Send => PMPI_Send, blocking(Class::P2p),
    (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm),
    send(buf, count, datatype, dest));
wrap!(MPI_Ssend => PMPI_Ssend, blocking(Class::P2p),
    (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm),
    send(buf, count, datatype, dest));
wrap!(MPI_Bsend => PMPI_Bsend, blocking(Class::P2p),
    (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm),
    send(buf, count, datatype, dest));
wrap!(MPI_Rsend => PMPI_Rsend, blocking(Class::P2p),
    (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm),
    send(buf, count, datatype, dest));
wrap!(MPI_Recv => PMPI_Recv, blocking(Class::P2p),
    (buf: *mut c_void, count: c_int, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm,
     status: *mut MPI_Status),
    recv(buf, count, datatype, source));
wrap!(MPI_Sendrecv => PMPI_Sendrecv, blocking(Class::P2p),
    (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, dest: c_int, sendtag: c_int,
     recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, source: c_int, recvtag: c_int,
     comm: MPI_Comm, status: *mut MPI_Status),
    send(sendbuf, sendcount, sendtype, dest),
    recv(recvbuf, recvcount, recvtype, source));
wrap!(MPI_Sendrecv_replace => PMPI_Sendrecv_replace, blocking(Class::P2p),
    (buf: *mut c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, sendtag: c_int, source: c_int,
     recvtag: c_int, comm: MPI_Comm, status: *mut MPI_Status),
    send(buf, count, datatype, dest));
wrap!(MPI_Probe => PMPI_Probe, blocking(Class::P2p),
    (source: c_int, tag: c_int, comm: MPI_Comm, status: *mut MPI_Status));
wrap!(MPI_Isend => PMPI_Isend, returning,
    (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm,
     request: *mut MPI_Request),
    send(buf, count, datatype, dest));
wrap!(MPI_Issend => PMPI_Issend, returning,
    (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm,
     request: *mut MPI_Request),
    send(buf, count, datatype, dest));
wrap!(MPI_Ibsend => PMPI_Ibsend, returning,
    (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm,
     request: *mut MPI_Request),
    send(buf, count, datatype, dest));
wrap!(MPI_Irsend => PMPI_Irsend, returning,
    (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm,
     request: *mut MPI_Request),
    send(buf, count, datatype, dest));
wrap!(MPI_Wait => PMPI_Wait, blocking(Class::Wait),
    (request: *mut MPI_Request, status: *mut MPI_Status));
wrap!(MPI_Waitall => PMPI_Waitall, blocking(Class::Wait),
    (count: c_int, array_of_requests: *mut MPI_Request, array_of_statuses: *mut MPI_Status));
wrap!(MPI_Waitany => PMPI_Waitany, blocking(Class::Wait),
    (count: c_int, array_of_requests: *mut MPI_Request, index: *mut c_int, status: *mut MPI_Status));
wrap!(MPI_Waitsome => PMPI_Waitsome, blocking(Class::Wait),
    (incount: c_int, array_of_requests: *mut MPI_Request, outcount: *mut c_int,
     array_of_indices: *mut c_int, array_of_statuses: *mut MPI_Status));
wrap!(MPI_Barrier => PMPI_Barrier, blocking(Class::Collective), (comm: MPI_Comm));
wrap!(MPI_Bcast => PMPI_Bcast, blocking(Class::Collective),
    (buffer: *mut c_void, count: c_int, datatype: MPI_Datatype, root: c_int, comm: MPI_Comm),
    bytes(count, datatype));
wrap!(MPI_Reduce => PMPI_Reduce, blocking(Class::Collective),
    (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op,
     root: c_int, comm: MPI_Comm),
    bytes(count, datatype));
wrap!(MPI_Allreduce => PMPI_Allreduce, blocking(Class::Collective),
    (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op,
     comm: MPI_Comm),
    bytes(count, datatype));
wrap!(MPI_Gather => PMPI_Gather, blocking(Class::Collective),
    (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void,
     recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm),
    bytes(sendcount, sendtype));
wrap!(MPI_Gatherv => PMPI_Gatherv, blocking(Class::Collective),
    (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void,
     recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm));
wrap!(MPI_Scatter => PMPI_Scatter, blocking(Class::Collective),
    (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void,
     recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm),
    bytes(sendcount, sendtype));
wrap!(MPI_Scatterv => PMPI_Scatterv, blocking(Class::Collective),
    (sendbuf: *const c_void, sendcounts: *const c_int, displs: *const c_int, sendtype: MPI_Datatype,
     recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm));
wrap!(MPI_Allgather => PMPI_Allgather, blocking(Class::Collective),
    (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void,
     recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm),
    bytes(sendcount, sendtype));
wrap!(MPI_Allgatherv => PMPI_Allgatherv, blocking(Class::Collective),
    (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void,
     recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm));
wrap!(MPI_Alltoall => PMPI_Alltoall, blocking(Class::Collective),
    (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void,
     recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm),
    bytes(sendcount, sendtype));
wrap!(MPI_Alltoallv => PMPI_Alltoallv, blocking(Class::Collective),
    (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype,
     recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype,
     comm: MPI_Comm));
wrap!(MPI_Reduce_scatter => PMPI_Reduce_scatter, blocking(Class::Collective),
    (sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const c_int, datatype: MPI_Datatype,
     op: MPI_Op, comm: MPI_Comm));
wrap!(MPI_Reduce_scatter_block => PMPI_Reduce_scatter_block, blocking(Class::Collective),
    (sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: c_int, datatype: MPI_Datatype,
     op: MPI_Op, comm: MPI_Comm));
wrap!(MPI_Scan => PMPI_Scan, blocking(Class::Collective),
    (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op,
     comm: MPI_Comm),
    bytes(count, datatype));
wrap!(MPI_Exscan => PMPI_Exscan, blocking(Class::Collective),
    (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op,
     comm: MPI_Comm),
    bytes(count, datatype));

wrap!(MPI_Mprobe => PMPI_Mprobe, blocking(Class::P2p),
    (source: c_int, tag: c_int, comm: MPI_Comm, message: *mut MPI_Message, status: *mut MPI_Status));
wrap!(MPI_Mrecv => PMPI_Mrecv, blocking(Class::P2p),
    (buf: *mut c_void, count: c_int, datatype: MPI_Datatype, message: *mut MPI_Message,
     status: *mut MPI_Status),
    recv(buf, count, datatype));
wrap!(MPI_Alltoallw => PMPI_Alltoallw, blocking(Class::Collective),
    (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int,
     sendtypes: *const MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int,
     rdispls: *const c_int, recvtypes: *const MPI_Datatype, comm: MPI_Comm));
wrap!(MPI_Neighbor_allgather => PMPI_Neighbor_allgather, blocking(Class::Collective),
    (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void,
     recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm));
wrap!(MPI_Neighbor_allgatherv => PMPI_Neighbor_allgatherv, blocking(Class::Collective),
    (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void,
     recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm));
wrap!(MPI_Neighbor_alltoall => PMPI_Neighbor_alltoall, blocking(Class::Collective),
    (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void,
     recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm));
wrap!(MPI_Neighbor_alltoallv => PMPI_Neighbor_alltoallv, blocking(Class::Collective),
    (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype,
     recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype,
     comm: MPI_Comm));
wrap!(MPI_Neighbor_alltoallw => PMPI_Neighbor_alltoallw, blocking(Class::Collective),
    (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const MPI_Aint,
     sendtypes: *const MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int,
     rdispls: *const MPI_Aint, recvtypes: *const MPI_Datatype, comm: MPI_Comm));
wrap!(MPI_Irecv => PMPI_Irecv, returning,
    (buf: *mut c_void, count: c_int, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm,
     request: *mut MPI_Request),
    recv(buf, count, datatype, source));
wrap!(MPI_Iprobe => PMPI_Iprobe, returning,
    (source: c_int, tag: c_int, comm: MPI_Comm, flag: *mut c_int, status: *mut MPI_Status));
wrap!(MPI_Test => PMPI_Test, returning,
    (request: *mut MPI_Request, flag: *mut c_int, status: *mut MPI_Status));
wrap!(MPI_Testall => PMPI_Testall, returning,
    (count: c_int, array_of_requests: *mut MPI_Request, flag: *mut c_int,
     array_of_statuses: *mut MPI_Status));
wrap!(MPI_Testany => PMPI_Testany, returning,
    (count: c_int, array_of_requests: *mut MPI_Request, index: *mut c_int, flag: *mut c_int,
     status: *mut MPI_Status));
wrap!(MPI_Testsome => PMPI_Testsome, returning,
    (incount: c_int, array_of_requests: *mut MPI_Request, outcount: *mut c_int,
     array_of_indices: *mut c_int, array_of_statuses: *mut MPI_Status));
// Making a communicator is a collective: a rank waits there for the others.
wrap!(MPI_Comm_split => PMPI_Comm_split, blocking(Class::Collective),
    (comm: MPI_Comm, color: c_int, key: c_int, newcomm: *mut MPI_Comm));
wrap!(MPI_Comm_dup => PMPI_Comm_dup, blocking(Class::Collective),
    (comm: MPI_Comm, newcomm: *mut MPI_Comm));
wrap!(MPI_Comm_create => PMPI_Comm_create, blocking(Class::Collective),
    (comm: MPI_Comm, group: MPI_Group, newcomm: *mut MPI_Comm));

/// Initialises MPI, then starts the monitor.
///
/// # Safety
/// The MPI standard's contract for MPI_Init.
#[no_mangle]
pub unsafe extern "C" fn MPI_Init(argc: *mut c_int, argv: *mut *mut *mut c_char) -> c_int {
    let call = Call::immediate();
    // SAFETY: the caller's arguments, forwarded unchanged.
    let status = unsafe { ffi::PMPI_Init(argc, argv) };
    if status == 0 && call.outermost() {
        // SAFETY: MPI is initialised; every rank calls MPI_Init.
        unsafe { lifecycle::start() };
    }
    status
}

/// Initialises MPI with threads, then starts the monitor.
///
/// # Safety
/// The MPI standard's contract for MPI_Init_thread.
#[no_mangle]
pub unsafe extern "C" fn MPI_Init_thread(
    argc: *mut c_int,
    argv: *mut *mut *mut c_char,
    required: c_int,
    provided: *mut c_int,
) -> c_int {
    let call = Call::immediate();
    // SAFETY: the caller's arguments, forwarded unchanged.
    let status = unsafe { ffi::PMPI_Init_thread(argc, argv, required, provided) };
    if status == 0 && call.outermost() {
        // SAFETY: MPI is initialised; every rank calls MPI_Init_thread.
        unsafe { lifecycle::start() };
    }
    status
}

/// Gathers and writes the monitor's records, then finalizes MPI.
///
/// # Safety
/// The MPI standard's contract for MPI_Finalize.
#[no_mangle]
pub unsafe extern "C" fn MPI_Finalize() -> c_int {
    let call = Call::immediate();
    if call.outermost() {
        // SAFETY: MPI is still initialised; every rank calls MPI_Finalize.
        unsafe { lifecycle::finish() };
    }
    // SAFETY: forwards the call.
    unsafe { ffi::PMPI_Finalize() }
}

/// `MPI_Pcontrol(level, ...)`: level 0 pauses this rank's part of the
/// host's TLP window, any other level resumes it ([`crate::state::pcontrol`]);
/// then forwarded to `PMPI_Pcontrol`.
///
/// Defined without the standard's variadic tail (stable Rust cannot define
/// a variadic function): the monitor reads no argument after `level`, and
/// on the System V x86-64 and AAPCS64 calling conventions a named `int`
/// argument is passed the same way to a variadic and to a non-variadic
/// function, so a caller's extra arguments are simply not read.
///
/// # Safety
/// The MPI standard's contract for MPI_Pcontrol.
#[no_mangle]
pub unsafe extern "C" fn MPI_Pcontrol(level: c_int) -> c_int {
    let call = Call::immediate();
    if call.counting() {
        crate::state::pcontrol(level);
    }
    // SAFETY: forwards the level; the MPI library reads no further argument
    // for the levels it defines (it only profiles through them).
    let status = unsafe { ffi::PMPI_Pcontrol(level) };
    drop(call);
    status
}
