//! The Fortran bindings (`mpif.h` and `use mpi` as gfortran names them:
//! lowercase with a trailing underscore). OpenMPI's Fortran wrappers call
//! `PMPI_*` directly (`nm -D libmpi_mpifh.so` lists `U PMPI_Send`), so the
//! C wrappers never see Fortran calls: these account them and forward to
//! the library's `pmpi_*_`, found with `dlsym(RTLD_NEXT)` on first use.
//! Every argument is a pointer (Fortran passes by reference; handles are
//! `MPI_Fint`).

use crate::c_api::{count_send, message_bytes};
use crate::lifecycle;
use crate::state::{Call, Class};
use mpi::ffi;
use std::ffi::CStr;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};

type Arg = *mut c_void;

/// The next definition of `name` after this library (the MPI Fortran
/// library's), resolved once. Aborts if there is none: the call cannot
/// be forwarded, and the program could not have called it without one.
fn next(cache: &AtomicUsize, name: &CStr) -> usize {
    let known = cache.load(Ordering::Relaxed);
    if known != 0 {
        return known;
    }
    // SAFETY: `name` is a valid C string; RTLD_NEXT searches after us.
    let address = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) } as usize;
    if address == 0 {
        eprintln!(
            "numabench-mpi: {} not found after the monitor",
            name.to_string_lossy()
        );
        std::process::abort();
    }
    cache.store(address, Ordering::Relaxed);
    address
}

/// Counts a Fortran send of `*count` elements of Fortran type `*datatype`
/// to `*dest`; returns its bytes.
///
/// # Safety
/// The pointers must be the valid Fortran arguments of a send.
unsafe fn fortran_send(count: Arg, datatype: Arg, dest: Arg) -> u64 {
    // SAFETY: Fortran INTEGER arguments (caller), converted to C handles.
    unsafe {
        let datatype = ffi::PMPI_Type_f2c(*datatype.cast::<c_int>());
        count_send(*count.cast::<c_int>(), datatype, *dest.cast::<c_int>())
    }
}

/// The bytes of `*count` elements of Fortran type `*datatype`.
///
/// # Safety
/// The pointers must be a valid Fortran count and datatype.
unsafe fn fortran_bytes(count: Arg, datatype: Arg) -> u64 {
    // SAFETY: Fortran INTEGER arguments (caller), converted to C handles.
    unsafe {
        let datatype = ffi::PMPI_Type_f2c(*datatype.cast::<c_int>());
        message_bytes(*count.cast::<c_int>(), datatype)
    }
}

/// Defines an exported Fortran wrapper forwarding to `$next`.
macro_rules! fortran {
    ($name:ident => $next:literal, $kind:ident $(($class:expr))?, ($($arg:ident),*)
     $(, send($sbuf:ident, $count:ident, $datatype:ident, $dest:ident))?
     $(, recv($rbuf:ident, $rcount:ident, $rtype:ident $(, $rsrc:ident)?))?
     $(, bytes($bcount:ident, $btype:ident))?) => {
        #[doc = concat!("Accounts Fortran `", stringify!($name), "` and forwards it to the MPI library's binding.")]
        ///
        /// # Safety
        /// The MPI standard's contract for this Fortran binding.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: Arg),*) {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            const ID: usize = crate::calls::call_id(stringify!($name));
            #[allow(unused_mut)]
            let mut call = Call::$kind($($class,)? ID);
            $(
                if call.counting() {
                    // SAFETY: the caller's Fortran arguments.
                    let bytes = unsafe { fortran_send($count, $datatype, $dest) };
                    call.add_bytes(bytes);
                    crate::state::sample_buffer($sbuf as *const c_void, bytes);
                }
            )?
            $(
                // SAFETY: the caller's Fortran INTEGER source; PROC_NULL is a
                // constant of the library.
                let from_nowhere = false $(|| unsafe { *$rsrc.cast::<c_int>() == ffi::RSMPI_PROC_NULL })?;
                if call.counting() && !from_nowhere {
                    // SAFETY: the caller's Fortran arguments.
                    let bytes = unsafe { fortran_bytes($rcount, $rtype) };
                    crate::state::sample_buffer($rbuf as *const c_void, bytes);
                }
            )?
            $(
                if call.counting() {
                    // SAFETY: the caller's Fortran arguments.
                    call.add_bytes(unsafe { fortran_bytes($bcount, $btype) });
                }
            )?
            let address = next(&NEXT, $next);
            // SAFETY: `address` is the MPI library's binding of this very
            // function, which takes these pointer arguments.
            let forward: unsafe extern "C" fn($($arg: Arg),*) = unsafe { std::mem::transmute(address) };
            // SAFETY: the caller's arguments, forwarded unchanged.
            unsafe { forward($($arg),*) };
            drop(call);
        }
    };
}

fortran!(mpi_send_ => c"pmpi_send_", blocking(Class::P2p), (buf, count, datatype, dest, tag, comm, ierr),
    send(buf, count, datatype, dest));
fortran!(mpi_ssend_ => c"pmpi_ssend_", blocking(Class::P2p), (buf, count, datatype, dest, tag, comm, ierr),
    send(buf, count, datatype, dest));
fortran!(mpi_bsend_ => c"pmpi_bsend_", blocking(Class::P2p), (buf, count, datatype, dest, tag, comm, ierr),
    send(buf, count, datatype, dest));
fortran!(mpi_rsend_ => c"pmpi_rsend_", blocking(Class::P2p), (buf, count, datatype, dest, tag, comm, ierr),
    send(buf, count, datatype, dest));
fortran!(mpi_recv_ => c"pmpi_recv_", blocking(Class::P2p),
    (buf, count, datatype, source, tag, comm, status, ierr),
    recv(buf, count, datatype, source));
fortran!(mpi_sendrecv_ => c"pmpi_sendrecv_", blocking(Class::P2p),
    (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,
     status, ierr),
    send(sendbuf, sendcount, sendtype, dest),
    recv(recvbuf, recvcount, recvtype, source));
fortran!(mpi_sendrecv_replace_ => c"pmpi_sendrecv_replace_", blocking(Class::P2p),
    (buf, count, datatype, dest, sendtag, source, recvtag, comm, status, ierr),
    send(buf, count, datatype, dest));
fortran!(mpi_ibsend_ => c"pmpi_ibsend_", returning,
    (buf, count, datatype, dest, tag, comm, request, ierr), send(buf, count, datatype, dest));
fortran!(mpi_irsend_ => c"pmpi_irsend_", returning,
    (buf, count, datatype, dest, tag, comm, request, ierr), send(buf, count, datatype, dest));
fortran!(mpi_reduce_scatter_block_ => c"pmpi_reduce_scatter_block_", blocking(Class::Collective),
    (sendbuf, recvbuf, recvcount, datatype, op, comm, ierr));
fortran!(mpi_scan_ => c"pmpi_scan_", blocking(Class::Collective),
    (sendbuf, recvbuf, count, datatype, op, comm, ierr),
    bytes(count, datatype));
fortran!(mpi_exscan_ => c"pmpi_exscan_", blocking(Class::Collective),
    (sendbuf, recvbuf, count, datatype, op, comm, ierr),
    bytes(count, datatype));
fortran!(mpi_probe_ => c"pmpi_probe_", blocking(Class::P2p), (source, tag, comm, status, ierr));
fortran!(mpi_isend_ => c"pmpi_isend_", returning,
    (buf, count, datatype, dest, tag, comm, request, ierr), send(buf, count, datatype, dest));
fortran!(mpi_issend_ => c"pmpi_issend_", returning,
    (buf, count, datatype, dest, tag, comm, request, ierr), send(buf, count, datatype, dest));
fortran!(mpi_wait_ => c"pmpi_wait_", blocking(Class::Wait), (request, status, ierr));
fortran!(mpi_waitall_ => c"pmpi_waitall_", blocking(Class::Wait), (count, requests, statuses, ierr));
fortran!(mpi_waitany_ => c"pmpi_waitany_", blocking(Class::Wait), (count, requests, index, status, ierr));
fortran!(mpi_waitsome_ => c"pmpi_waitsome_", blocking(Class::Wait),
    (incount, requests, outcount, indices, statuses, ierr));
fortran!(mpi_barrier_ => c"pmpi_barrier_", blocking(Class::Collective), (comm, ierr));
fortran!(mpi_bcast_ => c"pmpi_bcast_", blocking(Class::Collective), (buffer, count, datatype, root, comm, ierr),
    bytes(count, datatype));
fortran!(mpi_reduce_ => c"pmpi_reduce_", blocking(Class::Collective),
    (sendbuf, recvbuf, count, datatype, op, root, comm, ierr),
    bytes(count, datatype));
fortran!(mpi_allreduce_ => c"pmpi_allreduce_", blocking(Class::Collective),
    (sendbuf, recvbuf, count, datatype, op, comm, ierr),
    bytes(count, datatype));
fortran!(mpi_gather_ => c"pmpi_gather_", blocking(Class::Collective),
    (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr),
    bytes(sendcount, sendtype));
fortran!(mpi_gatherv_ => c"pmpi_gatherv_", blocking(Class::Collective),
    (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, ierr));
fortran!(mpi_scatter_ => c"pmpi_scatter_", blocking(Class::Collective),
    (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr),
    bytes(sendcount, sendtype));
fortran!(mpi_scatterv_ => c"pmpi_scatterv_", blocking(Class::Collective),
    (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr));
fortran!(mpi_allgather_ => c"pmpi_allgather_", blocking(Class::Collective),
    (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr),
    bytes(sendcount, sendtype));
fortran!(mpi_allgatherv_ => c"pmpi_allgatherv_", blocking(Class::Collective),
    (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierr));
fortran!(mpi_alltoall_ => c"pmpi_alltoall_", blocking(Class::Collective),
    (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr),
    bytes(sendcount, sendtype));
fortran!(mpi_alltoallv_ => c"pmpi_alltoallv_", blocking(Class::Collective),
    (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, ierr));
fortran!(mpi_reduce_scatter_ => c"pmpi_reduce_scatter_", blocking(Class::Collective),
    (sendbuf, recvbuf, recvcounts, datatype, op, comm, ierr));

fortran!(mpi_mprobe_ => c"pmpi_mprobe_", blocking(Class::P2p), (source, tag, comm, message, status, ierr));
fortran!(mpi_mrecv_ => c"pmpi_mrecv_", blocking(Class::P2p),
    (buf, count, datatype, message, status, ierr),
    recv(buf, count, datatype));
fortran!(mpi_alltoallw_ => c"pmpi_alltoallw_", blocking(Class::Collective),
    (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, ierr));
fortran!(mpi_neighbor_allgather_ => c"pmpi_neighbor_allgather_", blocking(Class::Collective),
    (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr));
fortran!(mpi_neighbor_allgatherv_ => c"pmpi_neighbor_allgatherv_", blocking(Class::Collective),
    (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierr));
fortran!(mpi_neighbor_alltoall_ => c"pmpi_neighbor_alltoall_", blocking(Class::Collective),
    (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr));
fortran!(mpi_neighbor_alltoallv_ => c"pmpi_neighbor_alltoallv_", blocking(Class::Collective),
    (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, ierr));
fortran!(mpi_neighbor_alltoallw_ => c"pmpi_neighbor_alltoallw_", blocking(Class::Collective),
    (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, ierr));
fortran!(mpi_irecv_ => c"pmpi_irecv_", returning,
    (buf, count, datatype, source, tag, comm, request, ierr),
    recv(buf, count, datatype, source));
fortran!(mpi_iprobe_ => c"pmpi_iprobe_", returning, (source, tag, comm, flag, status, ierr));
fortran!(mpi_test_ => c"pmpi_test_", returning, (request, flag, status, ierr));
fortran!(mpi_testall_ => c"pmpi_testall_", returning, (count, requests, flag, statuses, ierr));
fortran!(mpi_testany_ => c"pmpi_testany_", returning, (count, requests, index, flag, status, ierr));
fortran!(mpi_testsome_ => c"pmpi_testsome_", returning,
    (incount, requests, outcount, indices, statuses, ierr));
fortran!(mpi_comm_split_ => c"pmpi_comm_split_", blocking(Class::Collective),
    (comm, color, key, newcomm, ierr));
fortran!(mpi_comm_dup_ => c"pmpi_comm_dup_", blocking(Class::Collective), (comm, newcomm, ierr));
fortran!(mpi_comm_create_ => c"pmpi_comm_create_", blocking(Class::Collective),
    (comm, group, newcomm, ierr));

/// Forwards to `$next`, then starts the monitor if the call succeeded.
macro_rules! fortran_init {
    ($name:ident => $next:literal, ($($arg:ident),*), $ierr:ident) => {
        #[doc = concat!("Fortran `", stringify!($name), "`: initialises MPI, then starts the monitor.")]
        ///
        /// # Safety
        /// The MPI standard's contract for this Fortran binding.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: Arg),*) {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let call = Call::immediate();
            let address = next(&NEXT, $next);
            // SAFETY: the MPI library's binding of this function.
            let forward: unsafe extern "C" fn($($arg: Arg),*) = unsafe { std::mem::transmute(address) };
            // SAFETY: the caller's arguments, forwarded unchanged.
            unsafe { forward($($arg),*) };
            // SAFETY: `ierr` is the caller's INTEGER, just set by MPI.
            if call.outermost() && unsafe { *$ierr.cast::<c_int>() } == 0 {
                // SAFETY: MPI is initialised; every rank calls this.
                unsafe { lifecycle::start() };
            }
        }
    };
}

fortran_init!(mpi_init_ => c"pmpi_init_", (ierr), ierr);
fortran_init!(mpi_init_thread_ => c"pmpi_init_thread_", (required, provided, ierr), ierr);

/// Fortran `mpi_finalize_`: writes the monitor's records, then finalizes.
///
/// # Safety
/// The MPI standard's contract for MPI_FINALIZE.
#[no_mangle]
pub unsafe extern "C" fn mpi_finalize_(ierr: Arg) {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let call = Call::immediate();
    if call.outermost() {
        // SAFETY: MPI is still initialised; every rank calls this.
        unsafe { lifecycle::finish() };
    }
    let address = next(&NEXT, c"pmpi_finalize_");
    // SAFETY: the MPI library's binding of MPI_FINALIZE.
    let forward: unsafe extern "C" fn(Arg) = unsafe { std::mem::transmute(address) };
    // SAFETY: the caller's argument, forwarded unchanged.
    unsafe { forward(ierr) };
}

/// Fortran `mpi_pcontrol_(level)`: as C's `MPI_Pcontrol` (OpenMPI's
/// Fortran binding calls `PMPI_Pcontrol` itself, so the C wrapper never
/// sees it), then forwarded to `pmpi_pcontrol_`.
///
/// # Safety
/// The MPI standard's contract for MPI_PCONTROL.
#[no_mangle]
pub unsafe extern "C" fn mpi_pcontrol_(level: Arg) {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let call = Call::immediate();
    if call.counting() {
        // SAFETY: `level` is the caller's INTEGER.
        crate::state::pcontrol(unsafe { *level.cast::<c_int>() });
    }
    let address = next(&NEXT, c"pmpi_pcontrol_");
    // SAFETY: the MPI library's binding of MPI_PCONTROL (OpenMPI's takes
    // the level alone: its binding is not variadic).
    let forward: unsafe extern "C" fn(Arg) = unsafe { std::mem::transmute(address) };
    // SAFETY: the caller's argument, forwarded unchanged.
    unsafe { forward(level) };
}
