//! `numabench overdecompose` across two hosts (network namespaces joined by
//! OpenMPI's TCP transport, [`crate::hosts`]), each with a `/dev/shm` of its
//! own as real nodes have. numabench runs on a third host, as on a
//! cluster's login node, and starts mpirun there itself: rank 0, which
//! writes the monitor's records, runs on another host than numabench.

use crate::hosts::{Hosts, HostsConfig};
use crate::overdecompose::monitor_library;
use crate::records::{params_of, read_typed};
use numabench_schema::benchmark;
use numabench_schema::params::{OverdecomposeCalibrationParams, OverdecomposeParams};
use numabench_schema::Record;
use std::path::Path;

const NUMABENCH: &str = env!("CARGO_BIN_EXE_numabench");

/// The overdecompose records of a results file, read strictly through
/// the schema crate's reader.
fn records(path: &Path) -> Vec<Record> {
    let text = std::fs::read_to_string(path).unwrap();
    let (_, records) = read_typed(&path.display().to_string(), &text);
    records
        .into_iter()
        .filter(|record| record.benchmark == benchmark::OVERDECOMPOSE)
        .collect()
}

#[test]
fn the_study_runs_k_ranks_per_core_on_every_host_and_checks_where_they_ran() {
    let _alone = crate::alone();
    let library = monitor_library();
    let hosts = Hosts::create(HostsConfig {
        count: 3,
        private_shm: true,
        ..HostsConfig::default()
    })
    .unwrap_or_else(|error| panic!("{error}"));
    let work = hosts.shared_dir().join("work");
    std::fs::create_dir(&work).unwrap();
    let jsonl = hosts.shared_dir().join("od.jsonl");
    let (first, second) = (hosts.address(1), hosts.address(2));
    let list = format!("{first},{second}");
    let output = hosts
        .on_host(
            0,
            Path::new(NUMABENCH),
            &[
                "overdecompose",
                "--host",
                &list,
                "--cores",
                "1",
                "--ranks-per-core",
                "1,2",
                "--comm-share",
                "50",
                "--repeat",
                "1",
                "--iterations",
                "200",
                "--jsonl",
                jsonl.to_str().unwrap(),
            ],
        )
        .current_dir(&work)
        .env("NUMABENCH_MPI_LIB", &library)
        .envs(hosts.mca_env())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(&format!(
            "hosts: 2 hosts from --host: {first}, {second}; K x 1 ranks on each"
        )),
        "{stdout}"
    );
    let records = records(&jsonl);
    // The calibration: one rank on each host's one core, so the one
    // exchange crosses the network and takes time.
    assert_eq!(records[0].metric, "compute_per_point", "{records:?}");
    let exchange = &records[1];
    assert_eq!(exchange.metric, "exchange_per_half_sweep", "{records:?}");
    let calibration: OverdecomposeCalibrationParams = params_of(exchange);
    assert_eq!(calibration.ranks.hosts, Some(2), "{exchange:?}");
    assert_eq!(calibration.ranks.ranks, Some(2), "{exchange:?}");
    assert!(exchange.value > 0.0, "{exchange:?}");
    // Every figure of both K, with the monitor's TLP of each host.
    for k in [1, 2] {
        for metric in ["time", "tlp_1", "comm_share"] {
            let found: Vec<(&Record, OverdecomposeParams)> = records
                .iter()
                .filter(|r| r.metric == metric)
                .map(|r| (r, params_of::<OverdecomposeParams>(r)))
                .filter(|(_, params)| params.point.ranks.ranks_per_core == Some(k))
                .collect();
            assert_eq!(found.len(), 1, "{metric} K={k}: {records:?}");
            let (record, params) = &found[0];
            let ranks = &params.point.ranks;
            assert_eq!(ranks.hosts, Some(2), "{record:?}");
            assert_eq!(ranks.cores, Some(1), "{record:?}");
            assert_eq!(ranks.ranks, Some(2 * k), "{record:?}");
            assert_eq!(params.verified, Some(true), "{record:?}");
        }
    }
    // The study's folder for the monitor, in the current folder (rank 0's
    // host sees it there, not in numabench's /dev/shm), is gone.
    let left: Vec<_> = std::fs::read_dir(&work).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    hosts.teardown().unwrap();
}
