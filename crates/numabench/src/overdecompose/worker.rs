//! The MPI worker (every rank of one `mpirun`): pins itself so the K
//! ranks of a core share it, solves its strip with blocking halo
//! exchanges after each colour, and gathers the timings and the grid to
//! rank 0, which after MPI_Finalize compares the grid with a serial run.

use super::grid::{HaloViews, StripGrid};
use super::placement::{core_cpus, cpu_for_local_rank};
use super::rank_threads::{pin_all_threads, threads_not_on};
use super::schedule::{flips_before, samples_after, Trail};
use super::serial::{checksum, compare, serial_solve_traced};
use super::strips::strips;
use super::worker_config::{HostRanks, Verification, WorkerConfig, WorkerReport};
use crate::cluster::every_rank_host;
use crate::counters::usage_now;
use crate::threads::pin_current_thread;
use crate::topology::discover_this_system;
use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::point_to_point as p2p;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;
use std::time::Instant;
use thiserror::Error;

/// Why the worker could not run (a placement failure is returned by
/// every rank, naming the rank that failed).
///
/// Always the system's fault: MPI, or the study that started the worker
/// (its flags were checked by the study).
#[derive(Debug, Error)]
pub enum WorkerError {
    #[error("MPI could not be initialised (or was already)")]
    Init,
    #[error("{ranks} ranks cannot share {ny} rows: every rank needs a row")]
    TooFewRows { ranks: usize, ny: usize },
    #[error("rank {rank}: {reason}")]
    Placement { rank: i32, reason: String },
}

crate::error::all_faulty!(System: WorkerError);

/// Why this rank could not take its CPU ([`place`]); every rank is told
/// the lowest failing rank's reason, as text ([`WorkerError::Placement`]).
///
/// Fault: always the system's (hwloc, the kernel, or the study that chose
/// the ranks).
#[derive(Debug, Error)]
enum PlaceError {
    #[error(transparent)]
    Topology(#[from] crate::topology::TopologyError),
    #[error("local rank {local} with {per_core} ranks per core needs core {core} but only {cores} cores are allowed")]
    NoCore {
        local: usize,
        per_core: usize,
        core: usize,
        cores: usize,
    },
    #[error(transparent)]
    Pin(#[from] crate::threads::PinError),
    #[error("cannot pin the rank's threads to CPU {cpu}: {error}")]
    PinThreads { cpu: u32, error: std::io::Error },
}

crate::error::all_faulty!(System: PlaceError);

/// Figures of one rank, in the order gathered: loop, compute, exchange
/// time, CPU, rows, and over the loop user time, system time, voluntary
/// and involuntary context switches, and the rank's threads not on its CPU.
const FIGURES: usize = 10;

/// This rank's CPU: core (local rank / K) of the cores it may use.
fn place(world: &SimpleCommunicator, ranks_per_core: usize) -> Result<u32, PlaceError> {
    let local = world.split_shared(world.rank()).rank() as usize;
    let topology = discover_this_system()?;
    let cores = core_cpus(&topology);
    let cpu = cpu_for_local_rank(&cores, local, ranks_per_core).ok_or(PlaceError::NoCore {
        local,
        per_core: ranks_per_core,
        core: local / ranks_per_core.max(1),
        cores: cores.len(),
    })?;
    pin_current_thread(cpu)?;
    // MPI_Init's helper threads follow the rank onto its CPU.
    pin_all_threads(cpu).map_err(|error| PlaceError::PinThreads { cpu, error })?;
    Ok(cpu)
}

/// This rank's CPU when every rank was placed; else the lowest failing
/// rank's reason, which every rank returns (mpirun stops the job when the
/// first rank exits, so each must be able to say why).
fn placed_everywhere(
    world: &SimpleCommunicator,
    placed: Result<u32, PlaceError>,
) -> Result<u32, WorkerError> {
    // The reason travels to the other ranks as text.
    let placed = placed.map_err(|error| error.to_string());
    let mine = if placed.is_err() {
        world.rank()
    } else {
        i32::MAX
    };
    let mut failing = i32::MAX;
    world.all_reduce_into(&mine, &mut failing, SystemOperation::min());
    if failing == i32::MAX {
        return placed.map_err(|reason| WorkerError::Placement {
            rank: world.rank(),
            reason,
        });
    }
    let root = world.process_at_rank(failing);
    let mut reason = placed.err().unwrap_or_default().into_bytes();
    let mut length = reason.len() as u64;
    root.broadcast_into(&mut length);
    reason.resize(length as usize, 0);
    root.broadcast_into(&mut reason[..]);
    Err(WorkerError::Placement {
        rank: failing,
        reason: String::from_utf8_lossy(&reason).into_owned(),
    })
}

/// One blocking exchange: first rows go up while the rank below's come
/// in, then last rows go down while the rank above's come in.
fn exchange(world: &SimpleCommunicator, views: HaloViews<'_>) {
    let (rank, size) = (world.rank(), world.size());
    let up = (rank > 0).then(|| world.process_at_rank(rank - 1));
    let down = (rank + 1 < size).then(|| world.process_at_rank(rank + 1));
    match (&up, &down) {
        (Some(up), Some(down)) => {
            p2p::send_receive_into(views.first, up, views.bottom, down);
            p2p::send_receive_into(views.last, down, views.top, up);
        }
        (Some(up), None) => {
            up.send(views.first);
            up.receive_into(views.top);
        }
        (None, Some(down)) => {
            down.receive_into(views.bottom);
            down.send(views.last);
        }
        (None, None) => {}
    }
}

/// `MPI_Pcontrol(level)`: the MPI monitor, when preloaded, counts its
/// host's TLP levels only while no rank has paused with level 0 (issue 21
/// item 11: the TLP of the timed loop alone, not of the setup and gathers
/// around it). Without the monitor MPI's own MPI_Pcontrol does nothing.
fn monitor_window(level: i32) {
    // SAFETY: MPI is initialised; MPI_Pcontrol takes the level and reads
    // no further argument.
    unsafe { mpi::ffi::MPI_Pcontrol(level) };
}

/// Runs the worker; rank 0 gets the report, the other ranks `None`.
pub fn run_worker(config: &WorkerConfig) -> Result<Option<WorkerReport>, WorkerError> {
    let universe = mpi::initialize().ok_or(WorkerError::Init)?;
    // The monitor's TLP window opens after the barrier before the loop and
    // closes at its end.
    monitor_window(0);
    let world = universe.world();
    let (rank, size) = (world.rank(), world.size() as usize);
    let Some(all_strips) = strips(config.ny, size) else {
        return Err(WorkerError::TooFewRows {
            ranks: size,
            ny: config.ny,
        });
    };
    let cpu = placed_everywhere(&world, place(&world, config.ranks_per_core))?;
    let hosts = HostRanks::of(&every_rank_host(&world));
    let strip = all_strips[rank as usize];
    let mut grid = StripGrid::new(config.nx, config.ny, strip);
    let (mut compute, mut communicate) = (0.0, 0.0);
    world.barrier();
    monitor_window(1);
    let usage_before = usage_now();
    let start = Instant::now();
    // A lone rank exchanges nothing: its exchange time stays 0 rather
    // than the clock's own cost.
    let alone = size == 1;
    let mut trail = Trail::default();
    for iteration in 0..config.iterations {
        for colour in 0..2 {
            let before = Instant::now();
            if colour == 0 && flips_before(iteration) {
                grid.negate_boundary(config.ny);
            }
            grid.half_sweep(colour, config.omega);
            if colour == 1 && samples_after(iteration) {
                trail.add(grid.rows_sum(strip.first_row, strip.rows));
            }
            let swept = Instant::now();
            compute += (swept - before).as_secs_f64();
            let skipped = colour == 0 && config.skip_exchange == Some(iteration);
            if !alone && !skipped {
                exchange(&world, grid.halo_views());
                communicate += swept.elapsed().as_secs_f64();
            }
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    let usage = usage_now().since(&usage_before);
    monitor_window(0);
    let mine: [f64; FIGURES] = [
        elapsed,
        compute,
        communicate,
        f64::from(cpu),
        strip.rows as f64,
        usage.user_seconds,
        usage.system_seconds,
        usage.voluntary_switches as f64,
        usage.involuntary_switches as f64,
        threads_not_on(cpu).map_or(f64::NAN, |count| count as f64),
    ];
    let root = world.process_at_rank(0);
    let width = config.nx + 2;
    let (mut figures, mut gathered) = (Vec::new(), Vec::new());
    let mut trails = Vec::new();
    if rank == 0 {
        figures = vec![0.0; FIGURES * size];
        root.gather_into_root(&mine[..], &mut figures[..]);
        trails = vec![0_u64; size];
        root.gather_into_root(&trail.0, &mut trails[..]);
    } else {
        root.gather_into(&mine[..]);
        root.gather_into(&trail.0);
    }
    if config.verify {
        if rank == 0 {
            let counts: Vec<Count> = all_strips
                .iter()
                .map(|strip| (strip.rows * width) as Count)
                .collect();
            let displacements: Vec<Count> = all_strips
                .iter()
                .map(|strip| ((strip.first_row - 1) * width) as Count)
                .collect();
            gathered = vec![0.0; config.ny * width];
            let mut partition = PartitionMut::new(&mut gathered[..], counts, &displacements[..]);
            root.gather_varcount_into_root(grid.interior(), &mut partition);
        } else {
            root.gather_varcount_into(grid.interior());
        }
    }
    drop(world);
    // MPI_Finalize: the monitor writes its records now, before the serial
    // reference runs, so the reference is not counted in the ranks' time.
    drop(universe);
    if rank != 0 {
        return Ok(None);
    }
    let per_rank = |index: usize| figures.iter().skip(index).step_by(FIGURES).copied();
    let verification = config.verify.then(|| {
        let (serial, serial_trails) = serial_solve_traced(
            config.nx,
            config.ny,
            config.iterations,
            config.omega,
            &all_strips,
        );
        let comparison = compare(&gathered, &serial);
        let trail_identical = serial_trails
            .iter()
            .map(|trail| trail.0)
            .eq(trails.iter().copied());
        Verification {
            identical: comparison.identical && trail_identical,
            trail_identical,
            max_abs_diff: comparison.max_abs_diff,
            checksum: checksum(&gathered),
            serial_checksum: checksum(serial.interior()),
        }
    });
    let rows: Vec<usize> = all_strips.iter().map(|strip| strip.rows).collect();
    Ok(Some(WorkerReport {
        ranks: size,
        nx: config.nx,
        ny: config.ny,
        iterations: config.iterations,
        time_s: per_rank(0).fold(0.0, f64::max),
        compute_s: per_rank(1).sum::<f64>() / size as f64,
        exchange_s: per_rank(2).sum::<f64>() / size as f64,
        comm_share: per_rank(2)
            .zip(per_rank(0))
            .map(|(exchange, elapsed)| {
                if elapsed > 0.0 {
                    exchange / elapsed
                } else {
                    0.0
                }
            })
            .sum::<f64>()
            / size as f64,
        rows_min: rows.iter().copied().min().unwrap_or(0),
        rows_max: rows.iter().copied().max().unwrap_or(0),
        cpus: per_rank(3).map(|cpu| cpu as u32).collect(),
        hosts,
        user_s: per_rank(5).sum(),
        system_s: per_rank(6).sum(),
        context_switches: per_rank(7).sum::<f64>() + per_rank(8).sum::<f64>(),
        threads_off_cpu: per_rank(9)
            .map(|count| (count.is_finite()).then_some(count as usize))
            .sum(),
        verification,
    }))
}
