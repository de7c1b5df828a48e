//! The duration estimate of a plan: a simple model whose rates are either
//! fixed assumptions (stated in docs/plan.md: for `--plan`, and for another
//! machine's topology) or a short calibration on this machine
//! ([`super::cost_calibration`], made before a run).

use numabench_schema::params::findings::EstimateRatesParams;

/// Assumed cost of building a buffer (allocate, place, touch, lay a chain):
/// bytes per second. An assumption of the estimate, not a measurement.
pub const ASSUMED_SETUP_BYTES_PER_SECOND: f64 = 1e9;
/// Assumed read bandwidth of one thread, bytes per second.
pub const ASSUMED_THREAD_BYTES_PER_SECOND: f64 = 5e9;
/// Assumed time of one dependent load from memory (a chase walks every
/// line once), seconds.
pub const ASSUMED_LOAD_SECONDS: f64 = 100e-9;
/// The shortest latency sample (see the latency benchmark), seconds.
pub const MIN_SAMPLE_SECONDS: f64 = 0.02;
/// Assumed time of one repetition of one cache-to-cache pair, seconds.
pub const ASSUMED_C2C_REPETITION_SECONDS: f64 = 0.002;
/// Assumed passes an application run makes over its arrays (STREAM's
/// iterations x 3 arrays, an NPB class's sweeps), for the estimate.
pub const ASSUMED_APP_PASSES: f64 = 30.0;

/// The estimate's error as measured for issue #34 (docs/plan.md, "Error of
/// the estimate"): characterize's elapsed time over its calibrated
/// estimate on a 2-vCPU and a 16-vCPU Xeon and in an emulated two-socket
/// guest, and over `--plan`'s assumed-rate estimate on the two machines.
/// `--plan` states it under the budget.
pub const MEASURED_ERROR: &str = "runs took 0.89-0.94x their calibrated estimate \
     on two machines, 1.15x in an emulated two-socket guest, 0.78-0.81x a --plan at assumed rates";

/// Bandwidth calibration: this many extra passes (one per SIMD level tried).
pub const CALIBRATION_PASSES: f64 = 4.0;

/// What a step measures, for the estimate.
#[derive(Debug, Clone, Copy)]
pub(super) enum Cost {
    /// Chases of `bytes` (one per `count`), each walking every line once.
    Chase { bytes: u64, count: usize },
    /// Bandwidth runs of `bytes` by `threads` threads.
    Stream {
        bytes: u64,
        threads: usize,
        count: usize,
    },
    /// Chases of `bytes` (one per `count`), each built and timed for
    /// `loads` dependent loads, not a whole walk (interference's victim).
    SampledChase {
        bytes: u64,
        loads: u64,
        count: usize,
    },
    /// Chases of 1 to `chains` chains at once over one buffer of `bytes`
    /// (mlp): built once; with k chains, each walks its `1/k` share.
    Chains { bytes: u64, chains: usize },
    /// Cache-to-cache ping-pongs, one per pair.
    PingPong { pairs: usize },
    /// Buffers built and not measured themselves (loaded-latency's traffic).
    Setup { bytes: u64 },
    /// [`Cost::Chase`] of another node's memory: every access `slowdown`
    /// times slower than the local one the rates were measured on (a
    /// matrix's remote cells: the SLIT distance over the local one).
    RemoteChase {
        bytes: u64,
        count: usize,
        slowdown: f64,
    },
    /// [`Cost::Stream`] of another node's memory, `slowdown` as above.
    RemoteStream {
        bytes: u64,
        threads: usize,
        count: usize,
        slowdown: f64,
    },
}

impl CostModel {
    /// These rates with every memory access `slowdown` times slower:
    /// builds and reads at 1/slowdown the rate, loads slowdown times
    /// longer; the fixed costs unchanged.
    fn slower(&self, slowdown: f64) -> CostModel {
        let slowdown = slowdown.max(1.0);
        CostModel {
            setup_bytes_per_second: self.setup_bytes_per_second / slowdown,
            chase_setup_bytes_per_second: self.chase_setup_bytes_per_second / slowdown,
            thread_bytes_per_second: self.thread_bytes_per_second / slowdown,
            all_threads_bytes_per_second: self
                .all_threads_bytes_per_second
                .map(|all| all / slowdown),
            load_seconds: self.load_seconds * slowdown,
            ..*self
        }
    }
}

/// The rates an estimate is made with (written in a run's `run_time`
/// finding as [`EstimateRatesParams`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostModel {
    /// Building a bandwidth buffer (allocate, place, touch, verify), bytes
    /// per second.
    pub setup_bytes_per_second: f64,
    /// Building a chase buffer (the same, plus laying the random chain),
    /// bytes per second.
    pub chase_setup_bytes_per_second: f64,
    /// Read bandwidth of one thread, bytes per second.
    pub thread_bytes_per_second: f64,
    /// The most all threads together read, bytes per second; `None`: no
    /// bound (every thread adds its own rate).
    pub all_threads_bytes_per_second: Option<f64>,
    /// One dependent load from memory, seconds.
    pub load_seconds: f64,
    /// Fixed cost of one measurement (threads started and pinned, pages
    /// verified, the record written), seconds.
    pub measurement_seconds: f64,
    /// One repetition of one cache-to-cache pair, seconds.
    pub c2c_repetition_seconds: f64,
    /// `assumed` or `calibrated`.
    pub source: &'static str,
}

impl CostModel {
    /// The fixed assumptions: what `--plan` and another machine's topology
    /// are estimated with.
    pub const ASSUMED: CostModel = CostModel {
        setup_bytes_per_second: ASSUMED_SETUP_BYTES_PER_SECOND,
        chase_setup_bytes_per_second: ASSUMED_SETUP_BYTES_PER_SECOND,
        thread_bytes_per_second: ASSUMED_THREAD_BYTES_PER_SECOND,
        all_threads_bytes_per_second: None,
        load_seconds: ASSUMED_LOAD_SECONDS,
        measurement_seconds: 0.0,
        c2c_repetition_seconds: ASSUMED_C2C_REPETITION_SECONDS,
        source: "assumed",
    };

    /// Read bandwidth of `threads` threads together, bytes per second.
    pub fn rate(&self, threads: usize) -> f64 {
        let sum = threads.max(1) as f64 * self.thread_bytes_per_second;
        self.all_threads_bytes_per_second
            .map_or(sum, |all| sum.min(all.max(self.thread_bytes_per_second)))
    }
}

impl From<&CostModel> for EstimateRatesParams {
    fn from(rates: &CostModel) -> Self {
        Self {
            setup_bytes_per_second: rates.setup_bytes_per_second,
            chase_setup_bytes_per_second: rates.chase_setup_bytes_per_second,
            thread_bytes_per_second: rates.thread_bytes_per_second,
            all_threads_bytes_per_second: rates.all_threads_bytes_per_second,
            load_seconds: rates.load_seconds,
            measurement_seconds: rates.measurement_seconds,
            c2c_repetition_seconds: rates.c2c_repetition_seconds,
            source: rates.source.to_string(),
        }
    }
}

impl Default for CostModel {
    fn default() -> Self {
        Self::ASSUMED
    }
}

/// The tail's batches after a chase's samples ([`crate::kernels::tail`]):
/// as many as fit its time, between its fewest and most.
fn tail(model: &CostModel) -> f64 {
    use crate::kernels::tail::{BATCH_LOADS, MAX_BATCHES, MIN_BATCHES, TAIL_SECONDS};
    let batch = BATCH_LOADS as f64 * model.load_seconds;
    (MAX_BATCHES as f64 * batch).min(TAIL_SECONDS.max(MIN_BATCHES as f64 * batch))
}

/// Seconds a measurement of `cost` is estimated to take with `repeat`
/// timed repetitions at `model`'s rates: each measurement's fixed cost,
/// plus building each buffer (a bandwidth run's threads build theirs
/// together, as much faster as they read); a chase's samples take the longer of
/// (repeat + 1) x [`MIN_SAMPLE_SECONDS`] and one walk of every line (with
/// k chains at once, each walks 1/k of them, the buffer built once); a
/// the tail's timed batches follow ([`tail`]); a
/// bandwidth run reads its bytes (repeat + 1 + calibration passes) times
/// at the threads' rate; a cache-to-cache pair costs (repeat + 1)
/// repetitions. An estimate, not a promise.
pub(super) fn estimate(cost: Cost, repeat: usize, model: &CostModel) -> f64 {
    let passes = (repeat + 1) as f64;
    let fixed = model.measurement_seconds;
    match cost {
        Cost::Chase { bytes, count } => {
            let setup = bytes as f64 / model.chase_setup_bytes_per_second;
            let walk = (bytes / 64) as f64 * model.load_seconds;
            count as f64 * (fixed + setup + walk.max(passes * MIN_SAMPLE_SECONDS) + tail(model))
        }
        Cost::Stream {
            bytes,
            threads,
            count,
        } => {
            // The threads place and touch their own shares at once: the
            // build speeds up as the reading does.
            let speedup = model.rate(threads) / model.rate(1);
            let setup = bytes as f64 / (model.setup_bytes_per_second * speedup);
            let pass = bytes as f64 / model.rate(threads);
            count as f64 * (fixed + setup + (passes + CALIBRATION_PASSES) * pass)
        }
        Cost::SampledChase {
            bytes,
            loads,
            count,
        } => {
            let setup = bytes as f64 / model.chase_setup_bytes_per_second;
            count as f64 * (fixed + setup + loads as f64 * model.load_seconds)
        }
        Cost::Chains { bytes, chains } => {
            let setup = bytes as f64 / model.chase_setup_bytes_per_second;
            let walk = (bytes / 64) as f64 * model.load_seconds;
            fixed
                + setup
                + (1..=chains)
                    .map(|k| (walk / k as f64).max(passes * MIN_SAMPLE_SECONDS))
                    .sum::<f64>()
        }
        Cost::PingPong { pairs } => pairs as f64 * passes * model.c2c_repetition_seconds,
        Cost::Setup { bytes } => bytes as f64 / model.setup_bytes_per_second,
        Cost::RemoteChase {
            bytes,
            count,
            slowdown,
        } => estimate(
            Cost::Chase { bytes, count },
            repeat,
            &model.slower(slowdown),
        ),
        Cost::RemoteStream {
            bytes,
            threads,
            count,
            slowdown,
        } => estimate(
            Cost::Stream {
                bytes,
                threads,
                count,
            },
            repeat,
            &model.slower(slowdown),
        ),
    }
}
