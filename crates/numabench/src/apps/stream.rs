//! STREAM as an application: copy, scale, add and triad over three large
//! arrays, parallel loops over the team, STREAM's byte counting (copy and
//! scale move 2 arrays, add and triad 3; write-allocate not counted) and
//! its validation of the final values.

use super::kernel::{AppKernel, Verification};
use super::shared_array::SharedArray;
use super::team::{Team, TeamError};
use crate::bench::Stopwatch;
use crate::output::Unit;

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
}

const NAMES: [&str; 4] = ["copy", "scale", "add", "triad"];
const ARRAYS_MOVED: [usize; 4] = [2, 2, 3, 3];

impl StreamKernel {
    pub fn new(elements: usize, iterations: usize) -> Self {
        Self {
            elements,
            iterations: iterations.max(2),
            arrays: None,
            best: [f64::INFINITY; 4],
        }
    }

    /// STREAM's size rule: each array at least 4x the last-level cache
    /// (and at least 10 M elements), capped so the three fit in `budget_bytes`.
    pub fn default_elements(last_level_cache: u64, budget_bytes: u64) -> usize {
        let wanted = (4 * last_level_cache / 8).max(10_000_000);
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
        let [a, b, c] = self.arrays.as_ref().expect("setup ran");
        let n = self.elements;
        let mut times = [0.0; 4];
        for (kernel, time) in times.iter_mut().enumerate() {
            let stopwatch = Stopwatch::start();
            team.run(|worker| {
                let range = team.block(n, worker);
                // SAFETY: each worker touches only its own block of each array.
                let (a, b, c) = unsafe {
                    (
                        a.slice_mut(range.clone()),
                        b.slice_mut(range.clone()),
                        c.slice_mut(range),
                    )
                };
                match kernel {
                    0 => c.copy_from_slice(a),
                    1 => b
                        .iter_mut()
                        .zip(c.iter())
                        .for_each(|(b, c)| *b = SCALAR * c),
                    2 => c
                        .iter_mut()
                        .zip(a.iter().zip(b.iter()))
                        .for_each(|(c, (a, b))| *c = a + b),
                    _ => a
                        .iter_mut()
                        .zip(b.iter().zip(c.iter()))
                        .for_each(|(a, (b, c))| *a = b + SCALAR * c),
                }
            });
            *time = stopwatch.seconds();
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
        NAMES
            .iter()
            .zip(self.best)
            .zip(ARRAYS_MOVED)
            .filter(|((_, best), _)| best.is_finite())
            .map(|((name, best), arrays)| {
                (
                    format!("{name}_bandwidth"),
                    (arrays * 8 * self.elements) as f64 / best / 1e9,
                    Unit::GigabytesPerSecond,
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::{plan_cpus, PlacementScheme, ThreadScheme};

    #[test]
    fn stream_validates_under_every_scheme() {
        let topology = crate::topology::discover_this_system().unwrap();
        for scheme in PlacementScheme::study_set() {
            for threads in [1, 3] {
                let team = Team::new(
                    &topology,
                    plan_cpus(&topology, ThreadScheme::Compact, threads, 1),
                    scheme.clone(),
                )
                .unwrap();
                let mut kernel = StreamKernel::new(100_003, 3);
                kernel.setup(&team).unwrap();
                team.start_compute().unwrap();
                for iteration in 0..kernel.iterations() {
                    kernel.iterate(&team, iteration);
                }
                team.finish_compute();
                let verification = kernel.verify(&team);
                assert!(verification.passed, "{scheme} x{threads}: {verification:?}");
                assert_eq!(kernel.extra_metrics().len(), 4);
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
        let mut kernel = StreamKernel::new(1000, 2);
        kernel.setup(&team).unwrap();
        for iteration in 0..2 {
            kernel.iterate(&team, iteration);
        }
        kernel.arrays.as_mut().unwrap()[0].as_mut_slice()[7] += 1.0;
        assert!(!kernel.verify(&team).passed);
    }
}
