//! The duration estimate of a plan: a simple model from fixed
//! assumptions (stated in docs/plan.md), never from timing this machine.

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
    /// Chases of 1 to `chains` chains at once over one buffer of `bytes`
    /// (mlp): built once; with k chains, each walks its `1/k` share.
    Chains { bytes: u64, chains: usize },
    /// Cache-to-cache ping-pongs, one per pair.
    PingPong { pairs: usize },
    /// Buffers built and not measured themselves (loaded-latency's traffic).
    Setup { bytes: u64 },
}

/// Seconds a measurement of `cost` is estimated to take with `repeat`
/// timed repetitions: building each buffer at
/// [`ASSUMED_SETUP_BYTES_PER_SECOND`]; a chase's samples take the longer
/// of (repeat + 1) x [`MIN_SAMPLE_SECONDS`] and one walk of every line at
/// [`ASSUMED_LOAD_SECONDS`] (with k chains at once, each walks 1/k of
/// them, the buffer built once); a bandwidth run reads its bytes (repeat + 1 +
/// calibration passes) times at [`ASSUMED_THREAD_BYTES_PER_SECOND`] per
/// thread; a cache-to-cache pair costs (repeat + 1) x
/// [`ASSUMED_C2C_REPETITION_SECONDS`]. An estimate, not a promise: real
/// machines are faster or slower than these assumptions.
pub(super) fn estimate(cost: Cost, repeat: usize) -> f64 {
    let passes = (repeat + 1) as f64;
    match cost {
        Cost::Chase { bytes, count } => {
            let setup = bytes as f64 / ASSUMED_SETUP_BYTES_PER_SECOND;
            let walk = (bytes / 64) as f64 * ASSUMED_LOAD_SECONDS;
            count as f64 * (setup + walk.max(passes * MIN_SAMPLE_SECONDS))
        }
        Cost::Stream {
            bytes,
            threads,
            count,
        } => {
            let setup = bytes as f64 / ASSUMED_SETUP_BYTES_PER_SECOND;
            let pass = bytes as f64 / (threads.max(1) as f64 * ASSUMED_THREAD_BYTES_PER_SECOND);
            count as f64 * (setup + (passes + CALIBRATION_PASSES) * pass)
        }
        Cost::Chains { bytes, chains } => {
            let setup = bytes as f64 / ASSUMED_SETUP_BYTES_PER_SECOND;
            let walk = (bytes / 64) as f64 * ASSUMED_LOAD_SECONDS;
            setup
                + (1..=chains)
                    .map(|k| (walk / k as f64).max(passes * MIN_SAMPLE_SECONDS))
                    .sum::<f64>()
        }
        Cost::PingPong { pairs } => pairs as f64 * passes * ASSUMED_C2C_REPETITION_SECONDS,
        Cost::Setup { bytes } => bytes as f64 / ASSUMED_SETUP_BYTES_PER_SECOND,
    }
}
