//! Memory-level parallelism: independent chains against ns per load and
//! the speed-up over one chain.

use crate::output::tables::cells::{distinct, figure, placement_note, ratio};
use crate::output::tables::{generic, CacheLadder, TableModel};
use crate::output::Record;
use numabench_schema::params::MlpParams;

/// A record's `chains`, read as `mlp`'s params.
fn chains(record: &Record) -> Option<u64> {
    record.params_or_default::<MlpParams>().chains
}

/// The chains table, then any other metric.
pub fn tables(records: &[&Record], _caches: &CacheLadder) -> Vec<TableModel> {
    let (points, others): (Vec<&Record>, Vec<&Record>) = records.iter().partition(|record| {
        (record.metric == "ns_per_load" || record.metric == "mlp") && chains(record).is_some()
    });
    let mut table = TableModel::new(
        "Memory-level parallelism: independent chases in one thread",
        &["chains", "ns per load", "speed-up"],
    );
    for count in distinct(points.iter().filter_map(|record| chains(record))) {
        let of = |metric: &str| {
            points
                .iter()
                .copied()
                .find(|record| record.metric == metric && chains(record) == Some(count))
        };
        table.push(vec![
            count.to_string(),
            of("ns_per_load").map_or("-".into(), figure),
            of("mlp").map_or("-".into(), |record| ratio(record.value)),
        ]);
    }
    table.note("speed-up: loads per second over one chain's (the misses in flight at once)");
    table.notes.extend(placement_note(&points));
    generic::followed_by_others((!points.is_empty()).then_some(table), &others)
}
