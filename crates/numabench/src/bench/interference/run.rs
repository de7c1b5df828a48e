//! interference's work: every victim alone and under every pair's every
//! load, once a round in a rotated order (the study engine's
//! [`Schedule`]), each measurement's records flushed as it is made; then
//! the matrix and its finding from what was measured (after Ctrl-C too).

use super::config::{aggressor_bytes, InterferenceConfig};
use super::degradation::{degradations, Cell, Measured};
use super::measure::measure_victim;
use super::records::{finding_records, matrix_records, measurement_records};
use crate::bench::context::Context;
use crate::bench::error::BenchError;
use crate::bench::step::{Ran, StepRun, Work};
use crate::interrupt::interrupted;
use crate::output::Pipeline;
use crate::study::Schedule;

impl Work for InterferenceConfig {
    fn run(&self, run: &mut StepRun) -> Ran {
        run_interference(run.context, self, run.pipeline).map(|_| None)
    }
}

/// One measurement of a round: a victim alone, or a pair under a load.
#[derive(Debug, Clone, Copy)]
enum Measurement {
    Alone { victim: usize },
    Loaded { pair: usize, load: usize },
}

/// Runs every round, then emits the matrix and its finding.
pub fn run_interference(
    context: &Context,
    config: &InterferenceConfig,
    pipeline: &mut Pipeline,
) -> Result<(), BenchError> {
    let mut measurements: Vec<Measurement> = (0..config.victims.len())
        .map(|victim| Measurement::Alone { victim })
        .collect();
    for pair in 0..config.pairs.len() {
        for load in 0..config.loads.len() {
            measurements.push(Measurement::Loaded { pair, load });
        }
    }
    let mut measured = Measured::default();
    for slot in Schedule::rotated(measurements.len(), config.rounds).slots() {
        if interrupted() {
            break;
        }
        let (victim, load, pooled) = match measurements[slot.configuration] {
            Measurement::Alone { victim } => (
                &config.victims[victim],
                None,
                measured.alone.entry(victim).or_default(),
            ),
            Measurement::Loaded { pair, load } => {
                let of_pair = &config.pairs[pair];
                (
                    &config.victims[of_pair.victim],
                    Some((&of_pair.aggressor, config.loads[load])),
                    measured.loaded.entry((pair, load)).or_default(),
                )
            }
        };
        let aggressor_size = load.map_or(0, |(aggressor, _)| {
            aggressor_bytes(config.size, aggressor.cpus.len())
        });
        let found = measure_victim(context, victim, load, (config.size, aggressor_size))?;
        pooled.add(&found.latency_ns, &found.bandwidth_gbs, found.traffic_gbs);
        for record in measurement_records(config, victim, load, slot.repetition, &found) {
            pipeline.emit(&record)?;
        }
    }
    let names: Vec<String> = config.loads.iter().map(|mix| mix.name()).collect();
    let mut cells = Vec::new();
    for (index, pair) in config.pairs.iter().enumerate() {
        for (load, name) in names.iter().enumerate() {
            cells.push(Cell {
                pair: index,
                victim: pair.victim,
                victim_node: config.victims[pair.victim].node,
                aggressor_node: pair.aggressor.node,
                load,
                load_name: name,
            });
        }
    }
    let matrix = matrix_records(config, &degradations(&measured, &cells));
    for record in matrix.iter().chain(&finding_records(&matrix)) {
        pipeline.emit(record)?;
    }
    Ok(())
}
