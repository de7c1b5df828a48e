//! Starting the monitor after MPI_Init and, at MPI_Finalize, gathering
//! every rank's profile to rank 0, which writes the JSON Lines file.
//! Only PMPI calls are used here, so none of it is accounted.

use crate::clock::{self, Reading};
use crate::cores::{allowed_cpus, core_key};
use crate::flush;
use crate::host_merge;
use crate::profile::{self, HostLevels, RankProfile};
use crate::state::{self, ACTIVE};
use mpi::ffi;
use std::os::raw::{c_int, c_void};
use std::path::{Path, PathBuf};
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
    local_size: c_int,
    leader: c_int,
    /// Both clocks at the start: the wall time's origin, the calibration's
    /// first point and (on local rank 0) the host's start.
    start: Reading,
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
/// communicator, the tick counter. Collective over MPI_COMM_WORLD.
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
    // The host's first rank decides the tick counter for the whole host
    // (ranks whose ticks differ could not be merged) and says who leads.
    let mut leader = world_rank;
    let mut tsc = c_int::from(local_rank == 0 && clock::tsc_usable());
    let mut provided: c_int = 0;
    // SAFETY: collective calls on valid communicators, buffers of one
    // element of the given type; `provided` is a local to write.
    unsafe {
        ffi::PMPI_Bcast(
            (&mut leader as *mut c_int).cast::<c_void>(),
            1,
            ffi::RSMPI_INT32_T,
            0,
            local,
        );
        ffi::PMPI_Bcast(
            (&mut tsc as *mut c_int).cast::<c_void>(),
            1,
            ffi::RSMPI_INT32_T,
            0,
            local,
        );
        ffi::PMPI_Query_thread(&mut provided);
    }
    clock::use_tsc(tsc != 0);
    // SAFETY: a constant of the library.
    state::set_multiple(provided == unsafe { ffi::RSMPI_THREAD_MULTIPLE });
    // Every rank starts outside MPI at the first rank's start reading,
    // taken before the barrier after which the ranks begin monitoring.
    let start = Reading::now();
    *guard = Some(Session {
        local,
        world_rank,
        world_size,
        local_rank,
        local_size,
        leader,
        start,
        started: SystemTime::now(),
    });
    // SAFETY: a collective on the host communicator.
    unsafe { ffi::PMPI_Barrier(local) };
    state::with_process(state::Process::sample_cpu);
    ACTIVE.store(true, Ordering::Release);
    let partial = Partial {
        path: partial_path(&out_path().0, world_rank),
        world_rank,
        world_size,
        local_rank,
        leader,
        start,
        started: SystemTime::now(),
        host: hostname(),
        command_line: command_line(),
    };
    flush::start(flush::interval(), Box::new(move || partial.write()));
}

/// The output file: `NUMABENCH_MPI_MONITOR_OUT`, else [`DEFAULT_OUT`];
/// `true` when the variable chose it.
fn out_path() -> (PathBuf, bool) {
    match std::env::var_os(OUT_ENV).filter(|path| !path.is_empty()) {
        Some(path) => (PathBuf::from(path), true),
        None => (PathBuf::from(DEFAULT_OUT), false),
    }
}

/// This rank's partial file beside the output: `<out>.partial-<rank>`.
fn partial_path(out: &Path, rank: c_int) -> PathBuf {
    crate::output_file::with_suffix(out, &format!(".partial-{rank}"))
}

/// What a snapshot needs to know of the session.
#[derive(Clone)]
struct Partial {
    path: PathBuf,
    world_rank: c_int,
    world_size: c_int,
    local_rank: c_int,
    leader: c_int,
    start: Reading,
    started: SystemTime,
    host: String,
    command_line: Vec<String>,
}

impl Partial {
    /// Writes this rank's figures so far (its per-rank records, marked
    /// partial; no TLP, which needs every rank's log) to its partial file.
    fn write(&self) {
        let (class_ticks, messages, paused_ticks) = state::mirrored();
        let now = Reading::now();
        let ns_per_tick = self.start.ns_per_tick(&now);
        let paused_ns = (paused_ticks as f64 * ns_per_tick) as u64;
        let profile = RankProfile {
            host: self.host.clone(),
            rank: i64::from(self.world_rank),
            ranks: i64::from(self.world_size),
            local_rank: i64::from(self.local_rank),
            leader: i64::from(self.leader),
            program: self.command_line.first().cloned().unwrap_or_default(),
            ..counted(Counted {
                class_ticks,
                messages,
                ns_per_tick,
                wall_ns: now
                    .ns
                    .saturating_sub(self.start.ns)
                    .saturating_sub(paused_ns),
                usage: usage(),
            })
        };
        let mut metadata = profile::metadata_line(
            &self.command_line,
            &self.host,
            &numabench_schema::utc_timestamp(self.started),
        );
        metadata["partial"] = true.into();
        metadata["flushed_utc"] = numabench_schema::utc_timestamp(SystemTime::now()).into();
        let mut text = metadata.to_string();
        text.push('\n');
        for mut line in profile::records(std::slice::from_ref(&profile)) {
            line["params"]["partial"] = true.into();
            text.push_str(&line.to_string());
            text.push('\n');
        }
        if let Err(error) = crate::output_file::replace(&self.path, text.as_bytes()) {
            eprintln!(
                "numabench-mpi: cannot write the partial records to {}: {error}",
                self.path.display()
            );
        }
    }
}

/// What a rank counted, as a partial snapshot and the final profile both
/// read it.
struct Counted {
    /// Ticks spent in blocking point-to-point, wait and collective calls.
    class_ticks: [u64; 3],
    /// Small, medium and large messages sent, and the bytes.
    messages: [u64; 4],
    ns_per_tick: f64,
    wall_ns: u64,
    usage: libc::rusage,
}

/// The figures of a rank's profile that come from its counts (times,
/// messages, rusage) and its allowed CPUs now; the caller adds who the
/// rank is.
fn counted(counted: Counted) -> RankProfile {
    let class = |index: usize| counted.class_ticks[index] as f64 * counted.ns_per_tick / 1e9;
    let cpus = allowed_cpus();
    RankProfile {
        core_keys: cpus.iter().map(|&cpu| core_key(cpu)).collect(),
        cpus_allowed: cpus,
        wall_time: seconds(counted.wall_ns),
        p2p_time: class(0),
        wait_time: class(1),
        collective_time: class(2),
        small_messages: counted.messages[0],
        medium_messages: counted.messages[1],
        large_messages: counted.messages[2],
        bytes_sent: counted.messages[3],
        user_time: timeval(counted.usage.ru_utime),
        system_time: timeval(counted.usage.ru_stime),
        voluntary_switches: counted.usage.ru_nvcsw as u64,
        involuntary_switches: counted.usage.ru_nivcsw as u64,
        ..RankProfile::default()
    }
}

/// The call types of `table` that were called, in table order.
fn call_profiles(table: &crate::calls::CallTable, ns_per_tick: f64) -> Vec<profile::CallProfile> {
    table
        .iter()
        .zip(crate::calls::CALLS)
        .filter(|(figures, _)| figures.count > 0)
        .map(|(figures, name)| profile::CallProfile {
            call: (*name).to_string(),
            count: figures.count,
            time: figures.ticks as f64 * ns_per_tick / 1e9,
            bytes: figures.bytes,
        })
        .collect()
}

fn usage() -> libc::rusage {
    // SAFETY: rusage is plain data; getrusage fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid rusage to write.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    usage
}

fn seconds(ns: u64) -> f64 {
    ns as f64 / 1e9
}

fn timeval(time: libc::timeval) -> f64 {
    time.tv_sec as f64 + time.tv_usec as f64 / 1e6
}

/// Stops monitoring, gathers every rank's profile to rank 0 and writes
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
    flush::stop();
    // Finalize waits for the others: from now on this rank is inside MPI,
    // and its figures are final.
    let (log, class_ticks, messages, ran, paused_ticks, calls, buffers) =
        state::with_process(|process| {
            // No CPU sample here: where the rank ran is known from its run.
            let now = clock::ticks();
            process.end_pause(now);
            process.enter(now);
            process.closed = true;
            (
                std::mem::take(&mut process.log),
                process.class_ticks,
                [process.small, process.medium, process.large, process.bytes],
                process.ran_cpus(),
                process.paused_ticks,
                process.calls,
                process.buffers,
            )
        });
    ACTIVE.store(false, Ordering::Release);
    let end = Reading::now();
    let ns_per_tick = session.start.ns_per_tick(&end);
    // The profiled wall time: MPI_Pcontrol(0) stops it, as it stops mpiP's.
    let paused_ns = (paused_ticks as f64 * ns_per_tick) as u64;
    let wall_ns = end
        .ns
        .saturating_sub(session.start.ns)
        .saturating_sub(paused_ns);
    let usage = usage();
    let mut local = session.local;
    // SAFETY: a collective on the host communicator: every local rank has
    // closed its log when the first one takes the host's end.
    unsafe { ffi::PMPI_Barrier(local) };
    let host_levels = if session.local_rank == 0 {
        let host_end = clock::ticks();
        // SAFETY: every rank of `local` reaches the send below.
        let ticks = unsafe {
            host_merge::merge(
                &log,
                local,
                session.local_size as usize,
                session.start.ticks,
                host_end,
            )
        };
        let level_ns: Vec<u64> = ticks
            .iter()
            .map(|&ticks| (ticks as f64 * ns_per_tick).round() as u64)
            .collect();
        Some(HostLevels {
            total_ns: level_ns.iter().sum(),
            level_ns,
        })
    } else {
        // SAFETY: local rank 0 merges at the same point.
        unsafe { host_merge::send(&log, local) };
        None
    };
    drop(log);
    let profile = RankProfile {
        host: hostname(),
        rank: i64::from(session.world_rank),
        ranks: i64::from(session.world_size),
        local_rank: i64::from(session.local_rank),
        leader: i64::from(session.leader),
        ran_core_keys: ran.iter().map(|&cpu| core_key(cpu)).collect(),
        cpus_ran: ran,
        program: command_line().into_iter().next().unwrap_or_default(),
        host_levels,
        calls: call_profiles(&calls, ns_per_tick),
        buffers,
        ..counted(Counted {
            class_ticks,
            messages,
            ns_per_tick,
            wall_ns,
            usage,
        })
    };
    let bytes = profile.to_json().to_string().into_bytes();
    // SAFETY: collectives over MPI_COMM_WORLD with buffers sized for them.
    let gathered = unsafe { gather(&bytes, session.world_rank, session.world_size) };
    // SAFETY: `local` is the communicator made in `start`.
    unsafe { ffi::PMPI_Comm_free(&mut local) };
    let mut written = c_int::from(gathered.is_some_and(|texts| write(&texts, &session)));
    // The partial files go once the whole file is written.
    // SAFETY: a broadcast of one int over MPI_COMM_WORLD, every rank.
    unsafe {
        ffi::PMPI_Bcast(
            (&mut written as *mut c_int).cast::<c_void>(),
            1,
            ffi::RSMPI_INT32_T,
            0,
            ffi::RSMPI_COMM_WORLD,
        );
    }
    if written != 0 {
        let _ = std::fs::remove_file(partial_path(&out_path().0, session.world_rank));
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

/// Rank 0: the metadata line, then every record, to the output file;
/// true when it was written.
fn write(texts: &[Vec<u8>], session: &Session) -> bool {
    let profiles: Vec<RankProfile> = texts
        .iter()
        .filter_map(|text| serde_json::from_slice(text).ok())
        .filter_map(|value| RankProfile::from_json(&value))
        .collect();
    if profiles.len() != texts.len() {
        eprintln!(
            "numabench-mpi: {} of {} rank reports could not be read",
            texts.len() - profiles.len(),
            texts.len()
        );
    }
    let (path, configured) = out_path();
    let mut metadata = profile::metadata_line(
        &command_line(),
        &hostname(),
        &numabench_schema::utc_timestamp(session.started),
    );
    metadata["partial"] = false.into();
    let mut text = metadata.to_string();
    text.push('\n');
    for line in profile::records(&profiles) {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    match crate::output_file::replace(&path, text.as_bytes()) {
        Ok(()) => {
            if !configured {
                eprintln!(
                    "numabench-mpi: wrote the monitor's records to {} (set {OUT_ENV} to choose)",
                    path.display()
                );
            }
            true
        }
        Err(error) => {
            eprintln!(
                "numabench-mpi: cannot write the monitor's records to {}: {error}",
                path.display()
            );
            false
        }
    }
}
