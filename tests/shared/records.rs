//! Records read as records, for the test crates that depend on the schema
//! crate (cli, mpi, vm, agreement): each includes this file with
//! `#[path = "../shared/records.rs"] mod records;`. Kept out of
//! `shared/mod.rs`, which the pin tests include without that dependency.
#![allow(dead_code)]

use numabench_schema::params::{AppParams, AppRunParams, BenchmarkParams};
use numabench_schema::read::{self, Mode};
use numabench_schema::{Record, RequestedPlacement, RunMetadata};

/// Every run metadata and the records of a results document or JSON
/// Lines `text` (named `origin` in failures), read strictly through the
/// schema crate's reader ([`numabench_schema::read`]): a line that is not
/// a record of the schema, or run metadata that is not [`RunMetadata`],
/// fails the test.
pub fn read_typed_runs(origin: &str, text: &str) -> (Vec<RunMetadata>, Vec<Record>) {
    read_typed_runs_as(origin, text)
}

/// [`read_typed_runs`], each run metadata read as `M` (a view that adds
/// what a writer puts beside [`RunMetadata`]'s fields, such as the MPI
/// monitor's `partial`).
pub fn read_typed_runs_as<M: serde::de::DeserializeOwned>(
    origin: &str,
    text: &str,
) -> (Vec<M>, Vec<Record>) {
    let results =
        read::read_results(origin, text, Mode::Strict).unwrap_or_else(|error| panic!("{error}"));
    let runs = results
        .metadata
        .iter()
        .map(|(_, metadata)| {
            serde_json::from_value(serde_json::Value::Object(metadata.clone()))
                .unwrap_or_else(|error| panic!("{origin}: not the run metadata ({error})"))
        })
        .collect();
    (runs, results.into_records())
}

/// [`read_typed_runs`], with the first run metadata the text holds.
pub fn read_typed(origin: &str, text: &str) -> (RunMetadata, Vec<Record>) {
    read_typed_as(origin, text)
}

/// [`read_typed_runs_as`], with the first run metadata the text holds.
pub fn read_typed_as<M: serde::de::DeserializeOwned>(origin: &str, text: &str) -> (M, Vec<Record>) {
    let (runs, records) = read_typed_runs_as(origin, text);
    let first = runs
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{origin}: no run metadata"));
    (first, records)
}

/// A record's params read as `T` ([`Record::params_as`]); a field of
/// another type than `T` says fails the test, naming the record.
pub fn params_of<T: BenchmarkParams>(record: &Record) -> T {
    record.params_as().unwrap_or_else(|error| {
        panic!(
            "params not {}: {error}: {record:?}",
            std::any::type_name::<T>()
        )
    })
}

/// A part of a record's params that is no benchmark's own type (the
/// counts an observed run adds, the tags `run --mpi-monitor` puts on its
/// records), read as `T`; a field of another type than `T` says fails the
/// test, naming the record.
pub fn params_part<T: serde::de::DeserializeOwned>(record: &Record) -> T {
    serde_json::from_value(serde_json::Value::Object(record.params.clone())).unwrap_or_else(
        |error| {
            panic!(
                "params have no {}: {error}: {record:?}",
                std::any::type_name::<T>()
            )
        },
    )
}

/// What a record's placement asked for, read as [`RequestedPlacement`];
/// a `requested` of another shape fails the test, naming the record.
pub fn requested(record: &Record) -> RequestedPlacement {
    record
        .placement
        .requested_as()
        .unwrap_or_else(|| panic!("placement.requested of another shape: {record:?}"))
}

/// An application run record's first params (`time`, `mops`, ...): its
/// configuration and figures.
pub fn app_run_params(record: &Record) -> AppRunParams {
    params_of::<AppParams>(record).run
}
