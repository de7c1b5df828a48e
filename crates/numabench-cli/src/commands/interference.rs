//! `numabench interference`.

use super::measuring::measure_steps;
use crate::args::InterferenceArgs;
use crate::exit::{CliError, Status};
use numabench::bench::interference::{aggressor_bytes, pairs_of, InterferenceConfig};
use numabench::bench::{check_memory_fits, working_set_of_buffers, Step};

pub fn run(args: &InterferenceArgs) -> Result<Status, CliError> {
    measure_steps(
        &args.run,
        &args.output,
        |context| {
            let topology = &context.topology;
            let (victims, pairs) = pairs_of(
                topology,
                args.victim.as_ref().map(|list| list.0.as_slice()),
                args.aggressor.as_ref().map(|list| list.0.as_slice()),
                args.aggressor_threads.map(|count| count as usize),
            )?;
            // The victim's buffer, sized to miss the caches in front of its
            // CPU; the aggressor threads' buffers together about as large
            // (both held at once).
            let size = match args.size {
                Some(size) => size,
                None => victims
                    .iter()
                    .map(|victim| {
                        let nodes: Vec<u32> = std::iter::once(victim.node)
                            .chain(pairs.iter().map(|pair| pair.aggressor.node))
                            .collect();
                        working_set_of_buffers(topology, &[victim.cpu], &nodes, 2).bytes
                    })
                    .min()
                    .unwrap_or(256 << 20),
            };
            for pair in &pairs {
                let victim = victims[pair.victim].node;
                let aggressor = pair.aggressor.node;
                let threads = pair.aggressor.cpus.len();
                let load = aggressor_bytes(size, threads) * threads as u64;
                match victim == aggressor {
                    true => check_memory_fits(topology, &[victim], size + load)?,
                    false => {
                        check_memory_fits(topology, &[victim], size)?;
                        check_memory_fits(topology, &[aggressor], load)?;
                    }
                }
            }
            Ok(vec![Step::interference(InterferenceConfig {
                victims,
                pairs,
                loads: args.load.clone(),
                size,
                rounds: args.rounds as usize,
            })])
        },
        |_, _| {},
        |_, _| {},
    )
}
