//! STREAM as an application: copy, scale, add and triad over three large
//! arrays, parallel loops over the team, STREAM's byte counting (copy and
//! scale move 2 arrays, add and triad 3; write-allocate not counted) and
//! its validation of the final values. The loops are the bandwidth
//! kernels' ([`run_loop`]): plain loads and stores (no memcpy, whose
//! streaming stores would skip the write-allocate read STREAM's copy pays),
//! at the SIMD level that a calibration in the first, untimed-by-STREAM
//! iteration finds fastest for each loop, unless one is forced.

use super::kernel::{AppKernel, Verification};
use crate::clock::Stopwatch;
use crate::kernels::{Choice, KernelLoop, LoopVariant, SimdLevel, Variant};
use crate::output::Unit;
use crate::runtime::{SharedArray, Team, TeamError};
use numabench_schema::params::{to_params, StreamSimdParams};
use serde_json::{json, Map, Value};

const SCALAR: f64 = 3.0;
/// STREAM's tolerance for double precision.
const EPSILON: f64 = 1e-13;

/// STREAM over `elements` elements per array for `iterations` passes.
#[derive(Debug)]
pub struct StreamKernel {
    elements: usize,
    iterations: usize,
    arrays: Option<[SharedArray<f64>; 3]>,
    /// Best (shortest) time of each of copy, scale, add, triad, over all
    /// iterations but the first (STREAM's rule).
    best: [f64; 4],
    /// The variant of each step (`None`: calibrated in iteration 0).
    choices: [Option<Choice<LoopVariant>>; 4],
}

/// One of STREAM's four loops: the kernel loop it runs, the array it
/// writes and the arrays it reads (0 = a, 1 = b, 2 = c; unused sources name
/// an array other than the written one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StreamStep {
    name: &'static str,
    kernel_loop: KernelLoop,
    writes: usize,
    reads: [usize; 2],
    /// Arrays moved per element (STREAM's byte counting).
    arrays_moved: usize,
}

/// STREAM's loops in its order: c = a, b = q*c, c = a + b, a = b + q*c.
const STEPS: [StreamStep; 4] = [
    StreamStep {
        name: "copy",
        kernel_loop: KernelLoop::Copy,
        writes: 2,
        reads: [0, 1],
        arrays_moved: 2,
    },
    StreamStep {
        name: "scale",
        kernel_loop: KernelLoop::Scale,
        writes: 1,
        reads: [2, 0],
        arrays_moved: 2,
    },
    StreamStep {
        name: "add",
        kernel_loop: KernelLoop::Add,
        writes: 2,
        reads: [0, 1],
        arrays_moved: 3,
    },
    StreamStep {
        name: "triad",
        kernel_loop: KernelLoop::Triad,
        writes: 0,
        reads: [1, 2],
        arrays_moved: 3,
    },
];

impl StreamKernel {
    /// STREAM over `elements` per array for `iterations` passes, every loop
    /// at `simd` with ordinary stores, or (`None`) the variant each loop's
    /// calibration finds fastest.
    pub fn new(elements: usize, iterations: usize, simd: Option<SimdLevel>) -> Self {
        Self {
            elements,
            iterations: iterations.max(2),
            arrays: None,
            best: [f64::INFINITY; 4],
            choices: std::array::from_fn(|_| {
                simd.map(|level| Choice::Forced(LoopVariant::Loop(level)))
            }),
        }
    }

    /// Runs one step as `variant` over the team and returns its seconds.
    fn run_step(&self, team: &Team, step: &StreamStep, variant: LoopVariant) -> f64 {
        let arrays = self.arrays.as_ref().expect("setup ran");
        let n = self.elements;
        let stopwatch = Stopwatch::start();
        team.run(|worker| {
            let range = team.block(n, worker);
            // SAFETY: each worker touches only its own block of each array, and no step reads
            // the array it writes (STEPS).
            let (out, first, second) = unsafe {
                (
                    arrays[step.writes].slice_mut(range.clone()),
                    &*arrays[step.reads[0]].slice_mut(range.clone()),
                    &*arrays[step.reads[1]].slice_mut(range),
                )
            };
            variant.run(step.kernel_loop, out, first, second, SCALAR);
        });
        stopwatch.seconds()
    }

    /// STREAM's size rule: each array at least 4x the caches (STREAM: "the
    /// sum of all last-level caches"; here every cache in front of the
    /// team's memory, `cache_bytes_in_front`, see
    /// [`Machine::cache_bytes_in_front`](crate::topology::Machine::cache_bytes_in_front))
    /// and at least 10 M elements, capped so the three fit in `budget_bytes`.
    pub fn default_elements(cache_bytes_in_front: u64, budget_bytes: u64) -> usize {
        let wanted = (4 * cache_bytes_in_front / 8).max(10_000_000);
        wanted.min(budget_bytes / 24).max(1 << 16) as usize
    }
}

impl AppKernel for StreamKernel {
    fn name(&self) -> &'static str {
        "stream"
    }

    fn memory_bytes(&self) -> u64 {
        24 * self.elements as u64
    }

    fn setup(&mut self, team: &Team) -> Result<(), TeamError> {
        let arrays = [
            team.alloc::<f64>(self.elements, 1)?,
            team.alloc::<f64>(self.elements, 1)?,
            team.alloc::<f64>(self.elements, 1)?,
        ];
        // STREAM's initial values, a = 2 * 1 after its timer-granularity test.
        team.run(|worker| {
            let range = team.block(self.elements, worker);
            // SAFETY: workers write disjoint blocks.
            let (a, b, c) = unsafe {
                (
                    arrays[0].slice_mut(range.clone()),
                    arrays[1].slice_mut(range.clone()),
                    arrays[2].slice_mut(range),
                )
            };
            a.fill(2.0);
            b.fill(2.0);
            c.fill(0.0);
        });
        self.arrays = Some(arrays);
        Ok(())
    }

    fn iterations(&self) -> usize {
        self.iterations
    }

    fn iterate(&mut self, team: &Team, iteration: usize) {
        let mut times = [0.0; 4];
        for (index, step) in STEPS.iter().enumerate() {
            if self.choices[index].is_none() {
                // STREAM discards the first iteration's times, so calibration runs there: each
                // variant in turn; repeating a loop changes nothing (no step reads what it writes).
                let bytes = (step.arrays_moved * 8 * self.elements) as f64;
                let variants = LoopVariant::candidates(step.kernel_loop);
                self.choices[index] = Some(Choice::timed(variants, 1, bytes, |variant| {
                    self.run_step(team, step, variant)
                }));
            }
            let variant = self.choices[index].as_ref().expect("chosen").level();
            times[index] = self.run_step(team, step, variant);
        }
        if iteration > 0 {
            for (best, time) in self.best.iter_mut().zip(times) {
                *best = best.min(time);
            }
        }
    }

    fn verify(&mut self, _team: &Team) -> Verification {
        let [a, b, c] = self.arrays.as_ref().expect("setup ran");
        // Replay the arithmetic on scalars, as STREAM's checkSTREAMresults does.
        let (mut aj, mut bj, mut cj) = (2.0f64, 2.0f64, 0.0f64);
        for _ in 0..self.iterations {
            cj = aj;
            bj = SCALAR * cj;
            cj = aj + bj;
            aj = bj + SCALAR * cj;
        }
        let error = |array: &SharedArray<f64>, expected: f64| {
            let sum: f64 = array
                .as_slice()
                .iter()
                .map(|value| (value - expected).abs())
                .sum();
            sum / self.elements as f64 / expected.abs()
        };
        let worst = error(a, aj).max(error(b, bj)).max(error(c, cj));
        Verification {
            quantity: "max average relative error",
            computed: worst,
            reference: None,
            epsilon: EPSILON,
            passed: worst <= EPSILON,
        }
    }

    fn operations(&self) -> f64 {
        // Floating-point operations: scale 1, add 1, triad 2 per element.
        4.0 * self.elements as f64 * (self.iterations as f64)
    }

    fn extra_metrics(&self) -> Vec<(String, f64, Unit)> {
        STEPS
            .iter()
            .zip(self.best)
            .filter(|(_, best)| best.is_finite())
            .map(|(step, best)| {
                (
                    format!("{}_bandwidth", step.name),
                    (step.arrays_moved * 8 * self.elements) as f64 / best / 1e9,
                    Unit::GigabytesPerSecond,
                )
            })
            .collect()
    }

    /// `simd` (level per loop, `libc` for memcpy), `variant` (per loop:
    /// the level, `-nt` for streaming stores, or `memcpy`), `simd_chosen_by`
    /// and `simd_calibration` (per loop: GB/s of each variant, or null when
    /// forced).
    fn extra_params(&self) -> Map<String, Value> {
        let chosen: Vec<(&str, &Choice<LoopVariant>)> = STEPS
            .iter()
            .zip(&self.choices)
            .filter_map(|(step, choice)| Some((step.name, choice.as_ref()?)))
            .collect();
        let Some((_, first)) = chosen.first() else {
            return Map::new();
        };
        let per_loop = |value: &dyn Fn(&Choice<LoopVariant>) -> Value| -> Map<String, Value> {
            chosen
                .iter()
                .map(|(name, choice)| (name.to_string(), value(choice)))
                .collect()
        };
        to_params(&StreamSimdParams {
            simd: per_loop(&|choice| json!(choice.level().simd_name())),
            variant: per_loop(&|choice| json!(choice.level().name())),
            simd_chosen_by: first.chosen_by().to_string(),
            simd_calibration: match first {
                Choice::Forced(_) => None,
                Choice::Calibrated { .. } => Some(per_loop(&Choice::calibration_json)),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::{plan_cpus, PlacementScheme, ThreadScheme};

    #[test]
    fn stream_validates_under_every_scheme() {
        for scheme in PlacementScheme::study_set() {
            for threads in [1, 3] {
                let team = Team::compact_here(threads, scheme.clone());
                let mut kernel = StreamKernel::new(100_003, 3, None);
                let verification = crate::workloads::kernel::run_untimed(&mut kernel, &team);
                assert!(verification.passed, "{scheme} x{threads}: {verification:?}");
                assert_eq!(kernel.extra_metrics().len(), 4);
            }
        }
    }

    /// STREAM's copy and triad are the bandwidth kernels' loops, scale and
    /// add the same code's, each writing one array and reading others.
    #[test]
    fn stream_runs_the_bandwidth_kernels_loops() {
        for name in ["copy", "triad"] {
            let step = STEPS.iter().find(|step| step.name == name).unwrap();
            let kernel = crate::kernels::kernel_by_name(name).unwrap();
            assert_eq!(step.kernel_loop, kernel.kernel_loop(), "{name}");
            assert_eq!(step.arrays_moved, kernel.arrays(), "{name}");
        }
        let loops: Vec<KernelLoop> = STEPS.iter().map(|step| step.kernel_loop).collect();
        assert_eq!(
            loops,
            [
                KernelLoop::Copy,
                KernelLoop::Scale,
                KernelLoop::Add,
                KernelLoop::Triad
            ]
        );
        for step in STEPS {
            assert!(!step.reads.contains(&step.writes), "{}", step.name);
        }
    }

    /// The kernel's params keep their text (a forced level: no rates).
    #[test]
    fn stream_params_keep_their_text() {
        let team = Team::compact_here(1, PlacementScheme::FirstTouch);
        let mut kernel = StreamKernel::new(1_001, 1, Some(SimdLevel::Scalar));
        crate::workloads::kernel::run_untimed(&mut kernel, &team);
        assert_eq!(
            Value::Object(kernel.extra_params()).to_string(),
            r#"{"simd":{"copy":"scalar","scale":"scalar","add":"scalar","triad":"scalar"},"variant":{"copy":"scalar","scale":"scalar","add":"scalar","triad":"scalar"},"simd_chosen_by":"forced","simd_calibration":null}"#
        );
    }

    /// Every forced level computes STREAM's values; unforced, each loop is
    /// calibrated over every variant it has and records which ran.
    #[test]
    fn stream_records_its_simd_level_per_loop() {
        let topology = crate::topology::discover_this_system().unwrap();
        let team = Team::new(
            &topology,
            plan_cpus(&topology, ThreadScheme::Compact, 2, 1),
            PlacementScheme::FirstTouch,
        )
        .unwrap();
        let levels = SimdLevel::supported();
        for simd in levels.iter().copied().map(Some).chain([None]) {
            let mut kernel = StreamKernel::new(10_007, 3, simd);
            kernel.setup(&team).unwrap();
            for iteration in 0..kernel.iterations() {
                kernel.iterate(&team, iteration);
            }
            assert!(kernel.verify(&team).passed, "{simd:?}");
            let params = kernel.extra_params();
            for step in STEPS {
                let level = params["simd"][step.name].as_str().unwrap();
                let variant = params["variant"][step.name].as_str().unwrap();
                match simd {
                    Some(forced) => {
                        assert_eq!(level, forced.name());
                        assert_eq!(variant, forced.name(), "a forced level runs the plain loop");
                        assert_eq!(params["simd_chosen_by"], "forced");
                    }
                    None => {
                        let rates = params["simd_calibration"][step.name].as_object().unwrap();
                        let candidates = LoopVariant::candidates(step.kernel_loop);
                        assert_eq!(rates.len(), candidates.len(), "{}", step.name);
                        assert!(rates.contains_key(variant));
                        let ran = candidates.iter().find(|v| v.name() == variant).unwrap();
                        assert_eq!(level, ran.simd_name());
                        assert_eq!(params["simd_chosen_by"], "calibration");
                    }
                }
            }
        }
    }

    #[test]
    fn a_wrong_value_fails_validation() {
        let topology = crate::topology::discover_this_system().unwrap();
        let team = Team::new(
            &topology,
            plan_cpus(&topology, ThreadScheme::Compact, 1, 1),
            PlacementScheme::FirstTouch,
        )
        .unwrap();
        let mut kernel = StreamKernel::new(1000, 2, None);
        kernel.setup(&team).unwrap();
        for iteration in 0..2 {
            kernel.iterate(&team, iteration);
        }
        kernel.arrays.as_mut().unwrap()[0].as_mut_slice()[7] += 1.0;
        assert!(!kernel.verify(&team).passed);
    }
}
