//! `numabench cache`: another core's caches by state, level and relation,
//! printed as one table per state.

use super::measuring::measure_steps_closing;
use crate::args::CacheArgs;
use crate::exit::{CliError, Status};
use numabench::bench::cache::{
    default_measurers, level_sizes, measurer, sharer_for, CacheConfig, State,
};
use numabench::bench::{resolve_cpu, BenchError, Context, Step};
use numabench::output::Record;
use numabench::threads::CpuOrder;
use std::collections::BTreeMap;

pub fn run(args: &CacheArgs) -> Result<Status, CliError> {
    let show_tables = !args.output.json;
    measure_steps_closing(
        &args.run,
        &args.output,
        |context| Ok(vec![Step::cache(validate(args, context)?)]),
        |_, _| {},
        |_, _| {},
        |records, _| {
            if show_tables {
                print_tables(records);
            }
            Ok(())
        },
    )
}

fn parse_state(text: &str) -> Result<State, BenchError> {
    match text.to_ascii_lowercase().as_str() {
        "m" | "modified" => Ok(State::Modified),
        "e" | "exclusive" => Ok(State::Exclusive),
        "s" | "shared" => Ok(State::Shared),
        _ => Err(BenchError::Invalid(format!(
            "--states {text}: not a state (M, E, S or modified, exclusive, shared)"
        ))),
    }
}

fn parse_level(text: &str) -> Result<u32, BenchError> {
    match text.to_ascii_uppercase().as_str() {
        "L1" => Ok(1),
        "L2" => Ok(2),
        "L3" => Ok(3),
        "DRAM" => Ok(0),
        _ => Err(BenchError::Invalid(format!(
            "--levels {text}: not a level (L1, L2, L3, DRAM)"
        ))),
    }
}

fn validate(args: &CacheArgs, context: &Context) -> Result<CacheConfig, BenchError> {
    let topology = &context.topology;
    let allowed = CpuOrder::Compact.all_allowed(topology);
    let owner = match args.owner {
        Some(cpu) => resolve_cpu(topology, cpu)?,
        None => allowed[0],
    };
    let mut states = args
        .states
        .iter()
        .map(|text| parse_state(text))
        .collect::<Result<Vec<_>, _>>()?;
    states.sort_unstable();
    states.dedup();
    let mut levels = args
        .levels
        .iter()
        .map(|text| parse_level(text))
        .collect::<Result<Vec<_>, _>>()?;
    levels.sort_unstable_by_key(|&level| if level == 0 { u32::MAX } else { level });
    levels.dedup();
    let measurers = match &args.cpus {
        Some(list) => list
            .0
            .iter()
            .map(|&cpu| {
                let cpu = resolve_cpu(topology, cpu)?;
                if cpu == owner {
                    return Err(BenchError::Invalid(format!(
                        "--cpus {cpu}: the owner's own CPU cannot measure another core's cache"
                    )));
                }
                Ok(measurer(topology, owner, cpu))
            })
            .collect::<Result<Vec<_>, _>>()?,
        None => default_measurers(topology, owner, &allowed),
    };
    if measurers.is_empty() {
        return Err(BenchError::Invalid(format!(
            "cache: no CPU other than the owner (CPU {owner}) is allowed to measure from"
        )));
    }
    if states.contains(&State::Shared) {
        for m in &measurers {
            if let Err(why) = sharer_for(topology, owner, m.cpu, &allowed) {
                eprintln!(
                    "numabench: warning: the shared state from CPU {} is not measured: {why}",
                    m.cpu
                );
            }
        }
    }
    Ok(CacheConfig {
        owner,
        measurers,
        states,
        levels: level_sizes(topology, owner, &levels),
        allowed,
    })
}

/// One table per state: a row per level, a column per measuring CPU (its
/// relation), cells `latency ns / read GB/s`; the DRAM references last.
fn print_tables(records: &[Record]) {
    type Cell = (Option<f64>, Option<f64>);
    // state -> level -> column -> (latency, bandwidth)
    // Levels keyed by (rank, label): L1, L2, L3, then DRAM.
    type Level = (u8, String);
    let mut tables: BTreeMap<String, BTreeMap<Level, BTreeMap<String, Cell>>> = BTreeMap::new();
    let mut columns: Vec<String> = Vec::new();
    // Shared state: column -> the sharer's CPU and why it was chosen.
    let mut sharers: BTreeMap<String, String> = BTreeMap::new();
    for record in records.iter().filter(|r| r.benchmark == "cache") {
        let text = |key: &str| {
            record
                .params
                .get(key)
                .map(|value| value.as_str().map_or(value.to_string(), str::to_string))
                .unwrap_or_default()
        };
        let mut column = format!("{} (CPU {})", text("relation"), text("measurer_cpu"));
        if let Some(distance) = record.params.get("distance").and_then(|d| d.as_u64()) {
            if text("relation").ends_with("package") {
                column = format!(
                    "{} d={distance} (CPU {})",
                    text("relation"),
                    text("measurer_cpu")
                );
            }
        }
        if !columns.contains(&column) {
            columns.push(column.clone());
        }
        if text("state") == "shared" {
            sharers.entry(column.clone()).or_insert_with(|| {
                format!("CPU {}: {}", text("sharer_cpu"), text("sharer_reason"))
            });
        }
        let state = match text("state").as_str() {
            "flushed" => "flushed from every cache: local / remote DRAM".to_string(),
            other => other.to_string(),
        };
        let name = text("level");
        let rank = match name.as_str() {
            "DRAM" => u8::MAX,
            other => other.trim_start_matches('L').parse().unwrap_or(u8::MAX - 1),
        };
        let bytes = record
            .params
            .get("size_bytes")
            .and_then(|v| v.as_u64())
            .unwrap_or(0);
        let level = (
            rank,
            format!("{name} ({})", numabench::units::format_bytes(bytes)),
        );
        let cell = tables
            .entry(state)
            .or_default()
            .entry(level)
            .or_default()
            .entry(column)
            .or_default();
        match record.metric.as_str() {
            "latency" => cell.0 = Some(record.value),
            "read_bandwidth" => cell.1 = Some(record.value),
            _ => {}
        }
    }
    let order = ["modified", "exclusive", "shared"];
    let mut states: Vec<&String> = tables.keys().collect();
    states.sort_by_key(|state| order.iter().position(|o| o == state).unwrap_or(order.len()));
    for state in states {
        println!("\nState {state}: latency ns / read bandwidth GB/s, measured from");
        let mut header = format!("{:<16}", "level");
        for column in &columns {
            header += &format!(" {column:>26}");
        }
        println!("{header}");
        for ((_, level), cells) in &tables[state] {
            let mut line = format!("{level:<16}");
            for column in &columns {
                let text = match cells.get(column) {
                    Some((latency, bandwidth)) => format!(
                        "{} / {}",
                        latency.map_or("-".into(), |ns| format!("{ns:.1}")),
                        bandwidth.map_or("-".into(), |gbs| format!("{gbs:.1}"))
                    ),
                    None => "-".into(),
                };
                line += &format!(" {text:>26}");
            }
            println!("{line}");
        }
        if state == "shared" {
            for column in &columns {
                if let Some(sharer) = sharers.get(column) {
                    println!("  sharer for {column}: {sharer}");
                }
            }
        }
    }
}
