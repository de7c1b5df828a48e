//! `numabench overdecompose --plan`: the configurations, without MPI and
//! without running anything (the runs themselves are in tests/mpi).

use super::{numabench, succeeding, OTHER_MACHINE_XML};

#[test]
fn the_plan_lists_each_share_and_k_with_every_ranks_cpu() {
    let output = succeeding(&[
        "--topology",
        OTHER_MACHINE_XML,
        "overdecompose",
        "--plan",
        "--json",
        "--ranks-per-core",
        "4,2",
        "--comm-share",
        "25,75",
        "--cores",
        "3",
    ]);
    let plan: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(plan["cores"], 3);
    let core_cpus: Vec<u64> = plan["core_cpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|cpu| cpu.as_u64().unwrap())
        .collect();
    assert_eq!(core_cpus.len(), 3);
    let configurations = plan["configurations"].as_array().unwrap();
    // K = 1 (the baseline) is added: 2 shares x K in {1, 2, 4}.
    let keys: Vec<(f64, u64)> = configurations
        .iter()
        .map(|c| {
            (
                c["target_comm_share"].as_f64().unwrap(),
                c["ranks_per_core"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        keys,
        [
            (0.25, 1),
            (0.25, 2),
            (0.25, 4),
            (0.75, 1),
            (0.75, 2),
            (0.75, 4)
        ]
    );
    for configuration in configurations {
        let k = configuration["ranks_per_core"].as_u64().unwrap() as usize;
        assert_eq!(configuration["ranks"], 3 * k as u64);
        let cpus: Vec<u64> = configuration["rank_cpus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|cpu| cpu.as_u64().unwrap())
            .collect();
        // The K ranks of a core share its CPU; each core's CPU comes K times in a row.
        let expected: Vec<u64> = core_cpus
            .iter()
            .flat_map(|&cpu| std::iter::repeat_n(cpu, k))
            .collect();
        assert_eq!(cpus, expected, "{configuration}");
    }
}

#[test]
fn the_text_plan_names_the_calibration_and_runs_nothing() {
    let output = numabench()
        .args([
            "overdecompose",
            "--plan",
            "--cores",
            "1",
            "--ranks-per-core",
            "2",
        ])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("calibration first"), "{text}");
    assert!(text.contains("6 configurations x 3 repetitions"), "{text}");
    assert_eq!(text.matches("K=2 ").count(), 3, "{text}");
}
