//! Rank-aware pinning: plain processes given the variables an MPI launcher sets
//! (local rank and size), as OpenMPI, Slurm and MPICH name them. Real MPI is not
//! needed to test the shim's handling of them (tests/mpi/run_ranks.rs runs it under
//! a real mpirun).

use super::{list, plan, programs, reports, run, shim, stderr_lines, Report, Scratch};

/// The block the shim's rule gives local rank `rank` of `size` (the documented
/// rules, written out again here): (CPUs, index of the main thread's CPU).
fn expected_block(rule: &str, order: &[usize], rank: usize, size: usize) -> Vec<usize> {
    let n = order.len();
    match rule {
        "compact" => {
            let low = rank * n / size;
            let high = ((rank + 1) * n / size).max(low + 1);
            order[low..high].to_vec()
        }
        "scatter" if size > n => vec![order[rank % n]],
        "scatter" => order.iter().copied().skip(rank).step_by(size).collect(),
        // Each CPU of the order a core of its own (NUMABENCH_PIN_CORES below).
        "k-per-core:2" => vec![order[(rank / 2) % n]],
        _ => unreachable!(),
    }
}

/// The launchers' variables for local rank `rank` of `size`.
fn launcher(kind: &str, rank: usize, size: usize) -> Vec<(&'static str, String)> {
    match kind {
        "openmpi" => vec![
            ("OMPI_COMM_WORLD_LOCAL_RANK", rank.to_string()),
            ("OMPI_COMM_WORLD_LOCAL_SIZE", size.to_string()),
        ],
        "slurm" => vec![
            ("SLURM_LOCALID", rank.to_string()),
            ("SLURM_TASKS_PER_NODE", format!("{size}(x2),1")),
            ("SLURM_NODEID", "1".to_string()),
        ],
        "mpich" => vec![
            ("MPI_LOCALRANKID", rank.to_string()),
            ("MPI_LOCALNRANKS", size.to_string()),
        ],
        _ => unreachable!(),
    }
}

/// Runs the report program with 3 threads as local rank `rank` of `size`.
fn run_rank(
    rule: &str,
    kind: &str,
    rank: usize,
    size: usize,
    main_cpu: Option<usize>,
) -> std::process::Output {
    let order = plan();
    let cores = order
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(";");
    let mut env: Vec<(&str, String)> = vec![
        ("LD_PRELOAD", shim().to_str().unwrap().to_string()),
        ("NUMABENCH_PIN_CPUS", list(&order)),
        ("NUMABENCH_PIN_RANKS", rule.to_string()),
        ("NUMABENCH_PIN_CORES", cores),
    ];
    env.extend(launcher(kind, rank, size));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    run(&programs().pthreads_report, &["3"], &env, main_cpu)
}

/// Four ranks, each alone: its main thread and its threads run on its own block,
/// round robin within it, under every rule and every launcher's variables.
#[test]
fn each_rank_pins_its_threads_within_its_own_block() {
    let order = plan();
    for rule in ["compact", "scatter", "k-per-core:2"] {
        for kind in ["openmpi", "slurm", "mpich"] {
            for rank in 0..4 {
                let output = run_rank(rule, kind, rank, 4, None);
                let block = expected_block(rule, &order, rank, 4);
                let (main, threads) = reports(&output);
                let at = |index: usize| {
                    Some(Report {
                        cpu: block[index % block.len()],
                        allowed: 1,
                    })
                };
                let what = format!("{rule}, {kind}, rank {rank} of 4, block {block:?}");
                assert_eq!(main, at(0), "main thread: {what}");
                assert_eq!(threads.len(), 3, "{what}");
                for (k, report) in threads.iter().enumerate() {
                    assert_eq!(*report, at(k + 1), "thread {k}: {what}");
                }
                assert_eq!(stderr_lines(&output), Vec::<String>::new(), "{what}");
            }
        }
    }
}

/// Two ranks of `k-per-core:2` share the first core; a rank started on CPUs
/// narrower than the list keeps to them: its block is intersected with them.
#[test]
fn a_rank_keeps_to_the_cpuset_it_was_given() {
    let order = plan();
    assert!(order.len() >= 2, "needs 2 CPUs: {order:?}");
    // One core of every CPU: rank 1 of 2 (K = 2) gets all of them, but was given
    // only the last; it keeps to that one.
    let output = {
        let mut env: Vec<(&str, String)> = vec![
            ("LD_PRELOAD", shim().to_str().unwrap().to_string()),
            ("NUMABENCH_PIN_CPUS", list(&order)),
            ("NUMABENCH_PIN_RANKS", "k-per-core:2".to_string()),
            ("NUMABENCH_PIN_CORES", list(&order)),
        ];
        env.extend(launcher("openmpi", 1, 2));
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        run(
            &programs().pthreads_report,
            &["3"],
            &env,
            Some(*order.last().unwrap()),
        )
    };
    let last = Some(Report {
        cpu: *order.last().unwrap(),
        allowed: 1,
    });
    let (main, threads) = reports(&output);
    assert_eq!(main, last);
    assert_eq!(threads, vec![last; 3]);
    assert_eq!(stderr_lines(&output), Vec::<String>::new());
}

/// A rank whose whole block lies outside the cpuset it was given keeps that cpuset,
/// its threads unpinned, and the shim says so.
#[test]
fn a_rank_given_none_of_its_cpus_keeps_its_cpuset_and_warns() {
    let order = plan();
    assert!(order.len() >= 2, "needs 2 CPUs: {order:?}");
    // Compact, rank 1 of 2: the second half of the order; given the first CPU.
    let output = run_rank("compact", "openmpi", 1, 2, Some(order[0]));
    let given = Some(Report {
        cpu: order[0],
        allowed: 1,
    });
    let (main, threads) = reports(&output);
    assert_eq!(main, given);
    assert_eq!(threads, vec![given; 3]);
    let block = expected_block("compact", &order, 1, 2);
    assert_eq!(
        stderr_lines(&output),
        [format!(
            "numabench-pin: rank 1 of 2: its CPUs ({}) are all outside the cpuset it was given ({}); it keeps that cpuset, unpinned",
            list(&block),
            order[0]
        )]
    );
}

/// A rank that execs another program (a wrapper script): the program keeps the
/// rank's whole block, not just the CPU the script's main thread was pinned to.
#[test]
fn a_program_the_rank_execs_keeps_the_ranks_block() {
    let order = plan();
    assert!(order.len() >= 2, "needs 2 CPUs: {order:?}");
    let program = programs().pthreads_report.to_str().unwrap().to_string();
    let mut env: Vec<(&str, String)> = vec![
        ("LD_PRELOAD", shim().to_str().unwrap().to_string()),
        ("NUMABENCH_PIN_CPUS", list(&order)),
        ("NUMABENCH_PIN_RANKS", "compact".to_string()),
    ];
    env.extend(launcher("openmpi", 0, 1));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let output = run(
        std::path::Path::new("/bin/sh"),
        &["-c", "exec \"$0\" 3", &program],
        &env,
        None,
    );
    let (main, threads) = reports(&output);
    let at = |index: usize| {
        Some(Report {
            cpu: order[index % order.len()],
            allowed: 1,
        })
    };
    assert_eq!(main, at(0));
    for (k, report) in threads.iter().enumerate() {
        assert_eq!(*report, at(k + 1), "thread {k}");
    }
}

/// With the counter file `numabench run` shares: the CPU the shim pinned a forked
/// process to, or numabench's pin of the run's first process, is not a cpuset the
/// launcher gave the rank, so the rank still gets its own block.
#[test]
fn the_shims_own_pins_are_not_taken_for_a_given_cpuset() {
    let order = plan();
    assert!(order.len() >= 2, "needs 2 CPUs: {order:?}");
    let report = programs().pthreads_report.to_str().unwrap().to_string();
    let shell = "/bin/sh".to_string();
    let forked = "OMPI_COMM_WORLD_LOCAL_RANK=0 OMPI_COMM_WORLD_LOCAL_SIZE=2 \"$0\" 3; true";
    for (who, program, args, rank) in [
        // A launcher (the shell, index 0) forks the rank (index 1: order[1], outside
        // rank 0's block), which execs the program.
        (
            "forked by a pinned launcher",
            &shell,
            vec!["-c", forked, &report],
            None,
        ),
        // The run's first process is the rank, pinned to order[0] before exec as
        // numabench does: outside rank 1's block.
        ("first process", &report, vec!["3"], Some(1)),
    ] {
        let block = expected_block("compact", &order, rank.unwrap_or(0), 2);
        let counter = Scratch::new("rank-counter");
        std::fs::write(&counter.0, b"").unwrap();
        let mut env = vec![
            ("LD_PRELOAD", shim().to_str().unwrap().to_string()),
            ("NUMABENCH_PIN_CPUS", list(&order)),
            ("NUMABENCH_PIN_RANKS", "compact".to_string()),
            ("NUMABENCH_PIN_COUNTER", counter.str().to_string()),
        ];
        if let Some(rank) = rank {
            env.extend(launcher("openmpi", rank, 2));
        }
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let output = run(std::path::Path::new(program), &args, &env, Some(order[0]));
        let (main, threads) = reports(&output);
        let at = |index: usize| {
            Some(Report {
                cpu: block[index % block.len()],
                allowed: 1,
            })
        };
        assert_eq!(main, at(0), "{who}: block {block:?}");
        for (k, report) in threads.iter().enumerate() {
            assert_eq!(*report, at(k + 1), "{who}: thread {k}");
        }
        assert_eq!(stderr_lines(&output), Vec::<String>::new(), "{who}");
    }
}
