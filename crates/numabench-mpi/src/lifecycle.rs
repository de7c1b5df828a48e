//! Starting the monitor after MPI_Init and, at MPI_Finalize, gathering
//! every rank's report to rank 0, which writes the JSON Lines file.
//! Only PMPI calls are used here, so none of it is accounted.

use crate::cores::{allowed_cpus, core_key};
use crate::host_table;
use crate::report::{self, RankReport};
use crate::state::{now_ns, process_enters, ACTIVE, COUNTERS};
use mpi::ffi;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::SystemTime;

/// Env variable naming the output file.
const OUT_ENV: &str = "NUMABENCH_MPI_MONITOR_OUT";
/// Output file when the variable is unset (in the working directory).
const DEFAULT_OUT: &str = "numabench-mpi-monitor.jsonl";

/// What a monitored process knows between init and finalize.
struct Session {
    local: ffi::MPI_Comm,
    world_rank: c_int,
    world_size: c_int,
    local_rank: c_int,
    leader: c_int,
    start_ns: u64,
    started: SystemTime,
}

// SAFETY: the communicator handle is only used by MPI calls of whichever
// thread finalizes; the Mutex serialises access.
unsafe impl Send for Session {}

static SESSION: Mutex<Option<Session>> = Mutex::new(None);

fn hostname() -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer is writable for its length.
    let status = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) };
    if status != 0 {
        return "unknown".to_string();
    }
    let end = buffer
        .iter()
        .position(|&byte| byte == 0)
        .unwrap_or(buffer.len());
    String::from_utf8_lossy(&buffer[..end]).into_owned()
}

fn command_line() -> Vec<String> {
    std::fs::read("/proc/self/cmdline")
        .map(|bytes| {
            bytes
                .split(|&byte| byte == 0)
                .filter(|part| !part.is_empty())
                .map(|part| String::from_utf8_lossy(part).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Sets up monitoring once MPI_Init(_thread) succeeded: ranks, the host
/// communicator, the host table. Collective over MPI_COMM_WORLD.
///
/// # Safety
/// MPI must be initialised, and every rank must call this.
pub unsafe fn start() {
    let mut guard = SESSION.lock().unwrap_or_else(|poison| poison.into_inner());
    if guard.is_some() {
        return;
    }
    let (mut world_rank, mut world_size, mut local_rank, mut local_size) = (0, 0, 0, 0);
    // SAFETY: reads a constant handle of the library.
    let mut local: ffi::MPI_Comm = unsafe { ffi::RSMPI_COMM_NULL };
    // SAFETY: MPI is initialised (caller); every pointer is to a local.
    // COMM_WORLD and COMM_TYPE_SHARED are the library's own constants.
    unsafe {
        ffi::PMPI_Comm_rank(ffi::RSMPI_COMM_WORLD, &mut world_rank);
        ffi::PMPI_Comm_size(ffi::RSMPI_COMM_WORLD, &mut world_size);
        ffi::PMPI_Comm_split_type(
            ffi::RSMPI_COMM_WORLD,
            ffi::RSMPI_COMM_TYPE_SHARED,
            0,
            ffi::RSMPI_INFO_NULL,
            &mut local,
        );
        ffi::PMPI_Comm_rank(local, &mut local_rank);
        ffi::PMPI_Comm_size(local, &mut local_size);
    }
    // A name unique to this job (rank 0's pid) and host (the world rank
    // of the host's first local rank): hosts may share /dev/shm.
    let mut job = u64::from(std::process::id());
    let mut leader = world_rank;
    // SAFETY: collective calls on valid communicators, buffers of one
    // element of the given type.
    unsafe {
        ffi::PMPI_Bcast(
            (&mut job as *mut u64).cast::<c_void>(),
            1,
            ffi::RSMPI_UINT64_T,
            0,
            ffi::RSMPI_COMM_WORLD,
        );
        ffi::PMPI_Bcast(
            (&mut leader as *mut c_int).cast::<c_void>(),
            1,
            ffi::RSMPI_INT32_T,
            0,
            local,
        );
    }
    let name = format!("/numabench-mpi-{job}-{leader}");
    let mut failure = None;
    if local_rank == 0 {
        // A table of a dead job whose rank 0 had the same pid goes first.
        host_table::unlink(&name);
        failure = host_table::attach(&name, true).err();
    }
    // SAFETY: a collective on the host communicator.
    unsafe { ffi::PMPI_Barrier(local) };
    if local_rank != 0 {
        failure = host_table::attach(&name, false).err();
    }
    // SAFETY: as above.
    unsafe { ffi::PMPI_Barrier(local) };
    if local_rank == 0 {
        host_table::unlink(&name);
        host_table::begin(local_size as usize);
    }
    if let Some(error) = failure {
        eprintln!("numabench-mpi: rank {world_rank}: host table {name} unavailable ({error}): no TLP figures for this host");
        host_table::detach();
    }
    *guard = Some(Session {
        local,
        world_rank,
        world_size,
        local_rank,
        leader,
        start_ns: now_ns(),
        started: SystemTime::now(),
    });
    // SAFETY: as above; nobody enters blocking MPI before the table began.
    unsafe { ffi::PMPI_Barrier(local) };
    ACTIVE.store(true, Ordering::Release);
}

fn seconds(ns: u64) -> f64 {
    ns as f64 / 1e9
}

fn timeval(time: libc::timeval) -> f64 {
    time.tv_sec as f64 + time.tv_usec as f64 / 1e6
}

/// Stops monitoring, gathers every rank's report to rank 0 and writes
/// the records there. Collective over MPI_COMM_WORLD, before
/// PMPI_Finalize.
///
/// # Safety
/// MPI must still be initialised, and every rank must call this.
pub unsafe fn finish() {
    let Some(session) = SESSION
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
        .take()
    else {
        return;
    };
    // Finalize waits for the others: from now on this rank is inside MPI.
    let now = now_ns();
    process_enters(now);
    ACTIVE.store(false, Ordering::Release);
    let wall_ns = now.saturating_sub(session.start_ns);
    // SAFETY: rusage is plain data; getrusage fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid rusage to write.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let mut local = session.local;
    // SAFETY: a collective on the host communicator: every local rank has
    // stopped monitoring when the first one closes the table.
    unsafe { ffi::PMPI_Barrier(local) };
    let host_levels = if session.local_rank == 0 {
        host_table::close()
    } else {
        None
    };
    host_table::detach();
    let cpus = allowed_cpus();
    let class = |index: usize| seconds(COUNTERS.class_ns[index].load(Ordering::Relaxed));
    let load = |counter: &std::sync::atomic::AtomicU64| counter.load(Ordering::Relaxed);
    let report = RankReport {
        host: hostname(),
        rank: i64::from(session.world_rank),
        ranks: i64::from(session.world_size),
        local_rank: i64::from(session.local_rank),
        leader: i64::from(session.leader),
        core_keys: cpus.iter().map(|&cpu| core_key(cpu)).collect(),
        cpus_allowed: cpus,
        program: command_line().into_iter().next().unwrap_or_default(),
        wall_time: seconds(wall_ns),
        p2p_time: class(0),
        wait_time: class(1),
        collective_time: class(2),
        small_messages: load(&COUNTERS.small),
        medium_messages: load(&COUNTERS.medium),
        large_messages: load(&COUNTERS.large),
        bytes_sent: load(&COUNTERS.bytes),
        user_time: timeval(usage.ru_utime),
        system_time: timeval(usage.ru_stime),
        voluntary_switches: usage.ru_nvcsw as u64,
        involuntary_switches: usage.ru_nivcsw as u64,
        host_levels,
    };
    let bytes = report.to_json().to_string().into_bytes();
    // SAFETY: collectives over MPI_COMM_WORLD with buffers sized for them.
    let gathered = unsafe { gather(&bytes, session.world_rank, session.world_size) };
    // SAFETY: `local` is the communicator made in `start`.
    unsafe { ffi::PMPI_Comm_free(&mut local) };
    if let Some(texts) = gathered {
        write(&texts, &session);
    }
}

/// Gathers every rank's bytes to rank 0 (`Some` there only).
///
/// # Safety
/// Collective over MPI_COMM_WORLD.
unsafe fn gather(bytes: &[u8], rank: c_int, size: c_int) -> Option<Vec<Vec<u8>>> {
    let length = bytes.len() as c_int;
    let mut lengths = vec![0 as c_int; if rank == 0 { size as usize } else { 0 }];
    // SAFETY: one int sent per rank; rank 0 receives `size` ints.
    unsafe {
        ffi::PMPI_Gather(
            (&length as *const c_int).cast(),
            1,
            ffi::RSMPI_INT32_T,
            lengths.as_mut_ptr().cast(),
            1,
            ffi::RSMPI_INT32_T,
            0,
            ffi::RSMPI_COMM_WORLD,
        );
    }
    let mut displacements = Vec::with_capacity(lengths.len());
    let mut total = 0;
    for &length in &lengths {
        displacements.push(total);
        total += length;
    }
    let mut buffer = vec![0u8; total as usize];
    // SAFETY: every rank sends its bytes; rank 0 receives them at the
    // displacements computed from the lengths gathered just before.
    unsafe {
        ffi::PMPI_Gatherv(
            bytes.as_ptr().cast(),
            length,
            ffi::RSMPI_UINT8_T,
            buffer.as_mut_ptr().cast(),
            lengths.as_ptr(),
            displacements.as_ptr(),
            ffi::RSMPI_UINT8_T,
            0,
            ffi::RSMPI_COMM_WORLD,
        );
    }
    (rank == 0).then(|| {
        lengths
            .iter()
            .zip(&displacements)
            .map(|(&length, &start)| buffer[start as usize..(start + length) as usize].to_vec())
            .collect()
    })
}

/// Rank 0: the metadata line, then every record, to the output file.
fn write(texts: &[Vec<u8>], session: &Session) {
    let reports: Vec<RankReport> = texts
        .iter()
        .filter_map(|text| serde_json::from_slice(text).ok())
        .filter_map(|value| RankReport::from_json(&value))
        .collect();
    if reports.len() != texts.len() {
        eprintln!(
            "numabench-mpi: {} of {} rank reports could not be read",
            texts.len() - reports.len(),
            texts.len()
        );
    }
    let configured = std::env::var_os(OUT_ENV).filter(|path| !path.is_empty());
    let path = configured
        .clone()
        .map_or_else(|| DEFAULT_OUT.into(), std::path::PathBuf::from);
    let mut text = report::metadata_line(
        &command_line(),
        &hostname(),
        &crate::utc::timestamp(session.started),
    )
    .to_string();
    text.push('\n');
    for line in report::records(&reports) {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    match std::fs::write(&path, text) {
        Ok(()) if configured.is_none() => eprintln!(
            "numabench-mpi: wrote the monitor's records to {} (set {OUT_ENV} to choose)",
            path.display()
        ),
        Ok(()) => {}
        Err(error) => eprintln!(
            "numabench-mpi: cannot write the monitor's records to {}: {error}",
            path.display()
        ),
    }
}
