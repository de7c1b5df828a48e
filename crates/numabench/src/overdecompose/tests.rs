//! Unit tests of the MPI-free parts: decomposition, sweep, verification,
//! size model, monitor output, plan and summaries.

use super::*;
use crate::topology::Machine;

/// Runs the strips of `parts` ranks in one process, following the study's
/// schedule and exchanging halos by copying rows as the MPI worker does
/// (except the exchange after iteration `skip`'s red half-sweep, when
/// given), and returns the gathered interior and each strip's trail.
fn solve_in_strips_skipping(
    nx: usize,
    ny: usize,
    parts: usize,
    iterations: usize,
    omega: f64,
    skip: Option<usize>,
) -> (Vec<f64>, Vec<Trail>) {
    let mut grids: Vec<StripGrid> = strips(ny, parts)
        .unwrap()
        .into_iter()
        .map(|strip| StripGrid::new(nx, ny, strip))
        .collect();
    let mut trails = vec![Trail::default(); parts];
    for iteration in 0..iterations {
        for colour in 0..2 {
            for (grid, trail) in grids.iter_mut().zip(trails.iter_mut()) {
                if colour == 0 && flips_before(iteration) {
                    grid.negate_boundary(ny);
                }
                grid.half_sweep(colour, omega);
                if colour == 1 && samples_after(iteration) {
                    let strip = grid.strip();
                    trail.add(grid.rows_sum(strip.first_row, strip.rows));
                }
            }
            if colour == 0 && skip == Some(iteration) {
                continue;
            }
            for index in 0..parts.saturating_sub(1) {
                let (upper, lower) = grids.split_at_mut(index + 1);
                let (upper, lower) = (upper[index].halo_views(), lower[0].halo_views());
                upper.bottom.copy_from_slice(lower.first);
                lower.top.copy_from_slice(upper.last);
            }
        }
    }
    let gathered = grids
        .iter()
        .flat_map(|grid| grid.interior().to_vec())
        .collect();
    (gathered, trails)
}

fn solve_in_strips(nx: usize, ny: usize, parts: usize, iterations: usize, omega: f64) -> Vec<f64> {
    solve_in_strips_skipping(nx, ny, parts, iterations, omega, None).0
}

#[test]
fn strips_cover_every_row_once_and_differ_by_at_most_one() {
    for ny in 1..40 {
        for parts in 1..=ny {
            let strips = strips(ny, parts).unwrap();
            assert_eq!(strips.len(), parts);
            assert_eq!(strips[0].first_row, 1);
            for pair in strips.windows(2) {
                assert_eq!(pair[1].first_row, pair[0].last_row() + 1);
            }
            assert_eq!(strips.last().unwrap().last_row(), ny);
            let min = strips.iter().map(|s| s.rows).min().unwrap();
            let max = strips.iter().map(|s| s.rows).max().unwrap();
            assert!(min >= 1 && max - min <= 1, "ny {ny} parts {parts}");
        }
    }
}

#[test]
fn strips_refuse_more_ranks_than_rows() {
    assert_eq!(strips(3, 4), None);
    assert_eq!(strips(3, 0), None);
}

#[test]
fn a_half_sweep_updates_only_its_colour_and_keeps_the_boundary() {
    let (nx, ny) = (6, 5);
    let before = serial_solve(nx, ny, 0, 1.5);
    let mut after = before.clone();
    after.half_sweep(0, 1.5);
    let width = nx + 2;
    let (old, new) = (before.interior(), after.interior());
    let mut changed = 0;
    for row in 1..=ny {
        for column in 0..width {
            let at = (row - 1) * width + column;
            let interior = (1..=nx).contains(&column);
            if !interior || (row + column) % 2 == 1 {
                assert_eq!(old[at].to_bits(), new[at].to_bits(), "({row},{column})");
            } else if old[at] != new[at] {
                changed += 1;
            }
        }
    }
    // Red points next to the boundary move off zero.
    assert!(changed > 0);
}

#[test]
fn sor_converges_to_the_harmonic_boundary_function() {
    let (nx, ny) = (12, 10);
    // The plain SOR iteration, without the study's sign changes.
    let mut grid = StripGrid::whole(nx, ny);
    for _ in 0..400 {
        grid.half_sweep(0, 1.5);
        grid.half_sweep(1, 1.5);
    }
    let width = nx + 2;
    let mut worst: f64 = 0.0;
    for row in 1..=ny {
        for column in 1..=nx {
            let exact = boundary_value(row, column, nx, ny);
            worst = worst.max((grid.interior()[(row - 1) * width + column] - exact).abs());
        }
    }
    // x² - y² is harmonic and exact for the 5-point stencil.
    assert!(worst < 1e-9, "largest error {worst}");
}

#[test]
fn strips_with_halo_exchanges_give_the_serial_grid_bit_for_bit() {
    let (nx, ny, iterations) = (9, 13, 25);
    let serial = serial_solve(nx, ny, iterations, 1.5);
    for parts in [1, 2, 3, 5, 13] {
        let gathered = solve_in_strips(nx, ny, parts, iterations, 1.5);
        let comparison = compare(&gathered, &serial);
        assert!(comparison.identical, "{parts} strips: {comparison:?}");
        assert_eq!(comparison.max_abs_diff, 0.0);
        assert_eq!(checksum(&gathered), checksum(serial.interior()));
    }
}

#[test]
fn a_missed_exchange_fails_the_verification() {
    let (nx, ny, iterations) = (9, 12, 10);
    let serial = serial_solve(nx, ny, iterations, 1.5);
    // Two strips that never exchange: each sees a stale zero halo.
    let mut gathered = Vec::new();
    for strip in strips(ny, 2).unwrap() {
        let mut grid = StripGrid::new(nx, ny, strip);
        for _ in 0..iterations {
            grid.half_sweep(0, 1.5);
            grid.half_sweep(1, 1.5);
        }
        gathered.extend_from_slice(grid.interior());
    }
    let comparison = compare(&gathered, &serial);
    assert!(!comparison.identical);
    assert!(comparison.max_abs_diff > 0.0 && comparison.max_abs_diff.is_finite());
    assert_ne!(checksum(&gathered), checksum(serial.interior()));
    let short = compare(&gathered[1..], &serial);
    assert!(!short.identical && short.max_abs_diff.is_infinite());
}

fn calibration() -> Calibration {
    Calibration {
        nx: 100,
        compute_per_point: 1e-9,
        exchange_per_half_sweep: 2e-6,
    }
}

#[test]
fn the_size_model_hits_each_target_share() {
    let calibration = calibration();
    for share in [0.25, 0.5, 0.75] {
        let rows = calibration.rows_for_share(share).unwrap();
        let exact = 2.0 * 2e-6 / (2.0 * 2e-6 + rows * 100.0 * 1e-9);
        assert!((exact - share).abs() < 1e-12, "{share}: {exact}");
        let choice = choose_rows(&calibration, share, 1, 1 << 20);
        assert!(choice.reachable);
        assert!((choice.predicted_share - share).abs() < 0.02, "{choice:?}");
    }
    // More communication, fewer rows.
    let rows = |share| choose_rows(&calibration, share, 1, 1 << 20).rows_per_core;
    assert!(rows(0.25) > rows(0.5) && rows(0.5) > rows(0.75));
}

#[test]
fn the_size_model_says_when_a_target_cannot_hold() {
    let calibration = calibration();
    // 75% wants about 13 rows; 32 ranks per core need 32.
    let clamped = choose_rows(&calibration, 0.75, 32, 1 << 20);
    assert_eq!(clamped.rows_per_core, 32);
    assert!(!clamped.reachable);
    assert!(clamped.predicted_share < 0.75);
    let silent = Calibration {
        exchange_per_half_sweep: 0.0,
        ..calibration
    };
    let none = choose_rows(&silent, 0.5, 4, 1 << 20);
    assert!(!none.reachable);
    assert_eq!(none.rows_per_core, 4);
    assert_eq!(none.predicted_share, 0.0);
}

#[test]
fn iterations_follow_the_run_time_asked_for() {
    let calibration = calibration();
    let per_iteration = calibration.iteration_seconds(40);
    let iterations = iterations_for(&calibration, 40, 0.5, 1, 1 << 30);
    assert!(((iterations as f64) * per_iteration - 0.5).abs() < per_iteration);
    assert_eq!(iterations_for(&calibration, 40, 1e9, 1, 77), 77);
}

#[test]
fn list_flags_are_checked_and_k_1_is_always_run() {
    assert_eq!(parse_ranks_per_core("8,2,2").unwrap(), vec![1, 2, 8]);
    assert_eq!(parse_ranks_per_core("32").unwrap(), vec![1, 32]);
    for bad in ["0", "33", "2,,4", "x", "-1"] {
        let error = parse_ranks_per_core(bad).unwrap_err().to_string();
        assert!(error.contains(&format!("'{bad}'")), "{error}");
    }
    assert_eq!(
        parse_comm_shares("25,50,75").unwrap(),
        vec![0.25, 0.5, 0.75]
    );
    assert_eq!(parse_comm_shares("50%,50").unwrap(), vec![0.5]);
    for bad in ["0", "100", "abc", "25,", "-5"] {
        assert!(parse_comm_shares(bad).is_err(), "{bad}");
    }
}

fn smt_topology() -> Machine {
    crate::threads::smt_server(2, 2, 2)
}

#[test]
fn k_ranks_of_a_core_share_its_cpu_and_cores_are_distinct() {
    let topology = smt_topology();
    let cores = core_cpus(&topology);
    assert!(!cores.is_empty());
    // One CPU per core: no two share a core.
    for (index, cpu) in cores.iter().enumerate() {
        let core = topology.core_of_cpu(*cpu);
        for other in &cores[index + 1..] {
            assert_ne!(core, topology.core_of_cpu(*other));
        }
    }
    assert_eq!(cores.len(), topology.cores.len());
    for k in [1, 2, 4] {
        for local in 0..cores.len() * k {
            assert_eq!(cpu_for_local_rank(&cores, local, k), Some(cores[local / k]));
        }
        assert_eq!(cpu_for_local_rank(&cores, cores.len() * k, k), None);
    }
}

/// Monitor output in the contract's shape (common.md), for `ranks` ranks on one host.
fn monitor_text(ranks: usize) -> String {
    let mut lines = vec![
        r#"{"type":"metadata","tool":"numabench-mpi-monitor","schema_version":1}"#.to_string(),
    ];
    let record = |metric: &str, value: f64, params: String| {
        format!(
            r#"{{"type":"record","benchmark":"mpi-monitor","metric":"{metric}","value":{value},"unit":"s","params":{params},"placement":{{"requested":{{}},"verified":null}},"stats":{{"n":1,"min":{value},"median":{value},"mean":{value},"max":{value},"stddev":0,"cv":0,"p90":{value},"p99":{value}}}}}"#
        )
    };
    for rank in 0..ranks {
        let params =
            format!(r#"{{"host":"h0","rank":{rank},"ranks":{ranks},"local_rank":{rank}}}"#);
        for (metric, value) in [
            ("wall_time", 2.0 + rank as f64),
            ("mpi_time", 0.5),
            ("mpi_share", 0.25 * (rank + 1) as f64),
            ("user_time", 1.0),
            ("system_time", 0.25),
            ("voluntary_switches", 10.0),
            ("involuntary_switches", 5.0),
        ] {
            lines.push(record(metric, value, params.clone()));
        }
    }
    let host = r#"{"host":"h0","ranks_on_host":2,"cores":1}"#.to_string();
    for (metric, value) in [
        ("tlp_1", 0.9),
        ("tlp_2", 0.4),
        ("tlp_3", 0.0),
        ("tlp_4", 0.0),
    ] {
        lines.push(record(metric, value, host.clone()));
    }
    lines.join("\n") + "\n"
}

/// The figures of a monitor file's text, read by the one reader.
fn parse_monitor_output(text: &str) -> Result<MonitorFigures, MonitorOutputError> {
    let results = crate::output::read_results("monitor.jsonl", text, crate::output::Mode::Strict)?;
    monitor_figures(&results.into_records())
}

#[test]
fn monitor_output_adds_up_per_rank_and_per_host() {
    let figures = parse_monitor_output(&monitor_text(2)).unwrap();
    assert_eq!(figures.ranks, 2);
    assert_eq!(figures.hosts, 1);
    assert_eq!(figures.wall_s, 3.0);
    assert!((figures.mpi_share - 0.375).abs() < 1e-12);
    assert_eq!(figures.user_s, 2.0);
    assert_eq!(figures.system_s, 0.5);
    assert_eq!(figures.context_switches, 30.0);
    assert_eq!((figures.tlp_1, figures.tlp_2), (0.9, 0.4));
}

#[test]
fn monitor_output_without_tlp_or_ranks_is_an_error() {
    let text = monitor_text(1);
    let without_hosts: String = text
        .lines()
        .filter(|line| !line.contains("ranks_on_host"))
        .map(|line| format!("{line}\n"))
        .collect();
    assert_eq!(
        parse_monitor_output(&without_hosts),
        Err(MonitorOutputError::Missing("per-host tlp_1"))
    );
    assert!(matches!(
        parse_monitor_output("{\"type\":\"metadata\"}\n"),
        Err(MonitorOutputError::Missing(_))
    ));
}

#[test]
fn the_monitor_library_is_found_beside_the_program_or_named() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("numabench");
    assert!(matches!(
        find_monitor_library(None, Some(&exe)),
        Err(MonitorLibraryError::NotFound { .. })
    ));
    std::fs::create_dir(dir.path().join("deps")).unwrap();
    let in_deps = dir.path().join("deps").join(MONITOR_LIBRARY);
    std::fs::write(&in_deps, b"").unwrap();
    assert_eq!(find_monitor_library(None, Some(&exe)), Ok(in_deps));
    let beside = dir.path().join(MONITOR_LIBRARY);
    std::fs::write(&beside, b"").unwrap();
    assert_eq!(find_monitor_library(None, Some(&exe)), Ok(beside.clone()));
    let missing = dir.path().join("nothing.so");
    assert!(matches!(
        find_monitor_library(Some(missing.clone().into()), Some(&exe)),
        Err(MonitorLibraryError::NotAFile(_))
    ));
    assert_eq!(
        find_monitor_library(Some(beside.clone().into()), None),
        Ok(beside)
    );
}

fn study(ranks_per_core: Vec<usize>, cores: usize) -> StudyConfig {
    StudyConfig {
        shares: vec![0.25, 0.75],
        ranks_per_core,
        cores,
        core_cpus: (0..cores as u32).map(|core| core * 2).collect(),
        repeat: 3,
        nx: DEFAULT_NX,
        omega: DEFAULT_OMEGA,
        iterations: None,
        run_seconds: 0.2,
        launcher: Launcher {
            mpirun: "mpirun".into(),
            program: "/bin/numabench".into(),
            allow_root: true,
            hosts: Hosts::local(),
        },
        monitor: None,
    }
}

#[test]
fn the_launch_line_preloads_the_monitor_into_the_ranks_only() {
    let config = study(vec![1, 2], 2);
    let worker = WorkerConfig {
        nx: 16,
        ny: 8,
        iterations: 5,
        omega: 1.5,
        ranks_per_core: 2,
        verify: false,
        skip_exchange: None,
    };
    let line = config.launcher.command_line(
        4,
        &worker,
        Some((
            std::path::Path::new("/lib/m.so"),
            std::path::Path::new("/tmp/o.jsonl"),
        )),
    );
    let text = line.join(" ");
    assert!(text.starts_with("mpirun --allow-run-as-root --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -np 4 -x LD_PRELOAD=/lib/m.so -x NUMABENCH_MPI_MONITOR_OUT=/tmp/o.jsonl -x NUMABENCH_TMPDIR=/tmp /bin/numabench overdecompose-worker"), "{text}");
    assert!(text.ends_with("--ranks-per-core 2 --no-verify"), "{text}");
    let plain = config.launcher.command_line(2, &worker, None).join(" ");
    assert!(!plain.contains("LD_PRELOAD"));
}

#[test]
fn across_hosts_every_host_runs_k_ranks_per_core_and_the_plan_says_so() {
    let mut config = study(vec![1, 2], 2);
    config.launcher.hosts =
        Hosts::from_hostfile_text(std::path::Path::new("/etc/hosts.mpi"), "n1\nn2\nn3\n").unwrap();
    assert_eq!(config.all_cores(), 6);
    let k2 = &config.configurations()[1];
    assert_eq!(k2.ranks, 12);
    assert_eq!(config.rank_cpus(k2), [Some(0), Some(0), Some(2), Some(2)]);
    let worker = WorkerConfig {
        nx: 16,
        ny: 24,
        iterations: 5,
        omega: 1.5,
        ranks_per_core: 2,
        verify: false,
        skip_exchange: None,
    };
    let text = config.launcher.command_line(12, &worker, None).join(" ");
    assert!(text.contains(" --hostfile /etc/hosts.mpi --map-by ppr:4:node -np 12 /bin/numabench overdecompose-worker"), "{text}");
    let plan = config.plan_text();
    assert!(
        plan.contains(
            "hosts: 3 hosts from --hostfile /etc/hosts.mpi: n1, n2, n3; each runs K x 2 ranks"
        ),
        "{plan}"
    );
    assert!(plan.contains("(rows per core x 6 cores)"), "{plan}");
    assert!(
        plan.contains("K=2   ranks 12   CPU per rank on each host (rank order): 0,0,2,2"),
        "{plan}"
    );
    let plan = config.plan();
    assert_eq!(plan.hosts, 3);
    assert_eq!(plan.configurations[1].ranks_per_host, 4);
    let records = calibration_records(&config, &calibration());
    assert_eq!(records[0].params["hosts"], 3);
    assert_eq!(records[0].params["ranks"], 6);
    let alone = calibration_records(&study(vec![1], 2), &calibration());
    assert!(!alone[0].params.contains_key("hosts"));
}

#[test]
fn the_plan_lists_every_configuration_with_its_cpus() {
    let config = study(vec![1, 2], 2);
    let plan = config.plan_text();
    assert_eq!(config.configurations().len(), 4);
    assert!(
        plan.contains("comm share  25%  K=1   ranks 2    CPU per rank (rank order): 0,2"),
        "{plan}"
    );
    assert!(
        plan.contains("comm share  75%  K=2   ranks 4    CPU per rank (rank order): 0,0,2,2"),
        "{plan}"
    );
    assert!(plan.contains("4 configurations x 3 repetitions"));
}

fn run_with(time: f64, identical: bool) -> RunResult {
    RunResult {
        report: WorkerReport {
            ranks: 2,
            nx: 16,
            ny: 8,
            iterations: 5,
            time_s: time,
            compute_s: 0.0,
            exchange_s: 0.0,
            comm_share: 0.6,
            rows_min: 4,
            rows_max: 4,
            cpus: vec![0, 0],
            hosts: vec![HostRanks {
                host: "h0".into(),
                ranks: 2,
            }],
            user_s: time * 0.5,
            system_s: time * 0.25,
            context_switches: 40.0,
            threads_off_cpu: Some(0),
            verification: Some(Verification {
                identical,
                trail_identical: identical,
                max_abs_diff: if identical { 0.0 } else { 1e-3 },
                checksum: String::new(),
                serial_checksum: String::new(),
            }),
        },
        monitor: parse_monitor_output(&monitor_text(2)).unwrap(),
    }
}

#[test]
fn summaries_give_speedups_against_k_1_and_records_for_every_figure() {
    let config = study(vec![1, 2], 1);
    let size = choose_rows(&calibration(), 0.25, 2, 1 << 20);
    let mut summaries: Vec<ConfigSummary> = config
        .configurations()
        .into_iter()
        .map(|configuration| {
            let time = if configuration.ranks_per_core == 1 {
                2.0
            } else {
                1.0
            };
            ConfigSummary {
                configuration,
                size,
                ny: 8,
                iterations: 5,
                runs: vec![
                    run_with(time, true),
                    run_with(time * 3.0, true),
                    run_with(time, true),
                ],
                speedup: None,
            }
        })
        .collect();
    summaries[3].runs[1] = run_with(1.0, false);
    set_speedups(&mut summaries);
    assert_eq!(summaries[0].speedup, Some(1.0));
    assert_eq!(summaries[1].speedup, Some(2.0));
    assert!(summaries[1].verified());
    assert!(!summaries[3].verified());
    let records = summaries[1].records(&config);
    let metrics: Vec<&str> = records
        .iter()
        .map(|record| record.metric.as_str())
        .collect();
    assert_eq!(
        metrics,
        [
            "time",
            "speedup",
            "tlp_1",
            "tlp_2",
            "system_time",
            "context_switches",
            "idle_share",
            "comm_share"
        ]
    );
    assert_eq!(records[0].value, 1.0);
    assert_eq!(records[0].stats.n, 3);
    assert_eq!(records[0].params["ranks_per_core"], 2);
    assert_eq!(records[0].params["verified"], true);
    // 0.75 s of CPU per 1 s of run on 1 core.
    let idle = records.iter().find(|r| r.metric == "idle_share").unwrap();
    assert!((idle.value - 0.25).abs() < 1e-12, "{idle:?}");
    let switches = records
        .iter()
        .find(|r| r.metric == "context_switches")
        .unwrap();
    assert_eq!(switches.value, 40.0);
    let table = render_sweep(&summaries, 1);
    assert_eq!(table.lines().count(), 5, "{table}");
    assert!(table.contains("NO 1.0e-3"), "{table}");
    assert!(table.lines().nth(2).unwrap().contains(" 2.00 "), "{table}");
}

#[test]
fn calibration_records_carry_both_figures() {
    let config = study(vec![1, 2], 2);
    let records = calibration_records(&config, &calibration());
    let figures: Vec<(&str, f64)> = records
        .iter()
        .map(|record| (record.metric.as_str(), record.value))
        .collect();
    assert_eq!(
        figures,
        [
            ("compute_per_point", 1e-9),
            ("exchange_per_half_sweep", 2e-6)
        ]
    );
    assert_eq!(records[0].params["ranks"], 2);
    assert_eq!(records[0].unit, crate::output::Unit::Seconds);
}

/// A single exchange missed in the middle of a run as long as the study's
/// (tens of thousands of iterations) must fail the check. With a fixed
/// boundary the grid converges within a few thousand iterations, after
/// which the stale halo equals the fresh one (or differs only in the last
/// bit of a rounding cycle) and whether the final grids differ is left to
/// chance; the sign changes keep the grid moving and each strip's trail
/// keeps the error however much the iteration damps it afterwards.
#[test]
fn a_single_missed_exchange_mid_run_fails_the_check_after_a_long_run() {
    for (nx, ny, parts, iterations) in [(16, 8, 2, 40_000), (128, 4, 2, 60_000)] {
        let layout = strips(ny, parts).unwrap();
        let (serial, serial_trails) = serial_solve_traced(nx, ny, iterations, 1.5, &layout);
        let (clean, clean_trails) = solve_in_strips_skipping(nx, ny, parts, iterations, 1.5, None);
        assert!(compare(&clean, &serial).identical);
        assert_eq!(clean_trails, serial_trails);
        for skip in [iterations / 2, iterations / 2 + 37] {
            let (_, faulty_trails) =
                solve_in_strips_skipping(nx, ny, parts, iterations, 1.5, Some(skip));
            assert_ne!(
                faulty_trails, serial_trails,
                "{nx}x{ny}, {parts} strips: the exchange skipped at {skip} went unseen"
            );
        }
    }
}

/// The `system_time` record is the timed loop's (the ranks' getrusage over
/// the iterations, as the table's `sys s`), not the monitor's whole-process
/// figure; `comm_share` (record and table) is the loop's exchange share,
/// not the monitor's window, which also holds MPI_Init, the hwloc load,
/// placement and the gathers.
#[test]
fn system_time_and_comm_share_are_the_timed_loops_in_record_and_table() {
    let config = study(vec![1], 1);
    let size = choose_rows(&calibration(), 0.25, 1, 1 << 20);
    let summary = ConfigSummary {
        configuration: config.configurations().remove(0),
        size,
        ny: 8,
        iterations: 5,
        runs: vec![
            run_with(1.0, true),
            run_with(3.0, true),
            run_with(1.0, true),
        ],
        speedup: None,
    };
    let records = summary.records(&config);
    let value = |metric: &str| records.iter().find(|r| r.metric == metric).unwrap().value;
    // The monitor's figures differ: 0.5 s of system time, 37.5% in MPI.
    assert_eq!(summary.runs[0].monitor.system_s, 0.5);
    assert_eq!(value("system_time"), 0.25);
    assert_eq!(value("comm_share"), 0.6);
    let table = render_sweep(&[summary], 1);
    let row = table.lines().nth(1).unwrap();
    assert!(row.contains(" 0.250 "), "{table}");
    assert!(row.contains(" 60% "), "{table}");
}

#[path = "params_tests.rs"]
mod params_tests;
