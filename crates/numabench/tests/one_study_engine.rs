//! One study engine (`numabench::study`): every study interleaves its
//! configurations through `study::Schedule` and judges them through
//! `study::Comparison` and `study::fastest`, and every shared library is
//! found by `companions::locate`. Five hand-written round-robin loops, two
//! summaries calling the rank test and three library look-ups had grown
//! apart before; these checks keep new code from writing them again.
//! Structural (read from the sources): what the rules protect, the same
//! interleaving order and p-values everywhere, is not observable on one
//! machine run.

mod common;

/// Files of the library and the CLI (outside `allowed`) whose text
/// contains `needle`, relative to the library's manifest.
fn offenders(needle: &str, allowed: &[&str]) -> Vec<String> {
    common::library_and_cli()
        .into_iter()
        .filter(|(path, _)| !allowed.iter().any(|prefix| path.starts_with(prefix)))
        .filter(|(_, text)| text.contains(needle))
        .map(|(path, _)| path)
        .collect()
}

/// The rank test is run by the engine's comparison and verdict only.
#[test]
fn only_the_study_engine_runs_the_rank_test() {
    let found = offenders("mann_whitney_u(", &["src/stats/", "src/study/"]);
    assert!(
        found.is_empty(),
        "call study::Comparison instead: {found:?}"
    );
}

/// No study nests its own repetition and configuration loops (the five
/// copies were labelled `'rounds:` and `'repetitions:`).
#[test]
fn no_study_writes_its_own_round_robin() {
    for label in ["'rounds:", "'repetitions:"] {
        let found = offenders(label, &["src/study/"]);
        assert!(found.is_empty(), "iterate study::Schedule: {found:?}");
    }
}

/// Shared libraries are found by one rule (variable, then beside the
/// executable).
#[test]
fn shared_libraries_are_located_in_one_place() {
    let found = offenders("companions::find(", &["src/companions.rs"]);
    assert!(found.is_empty(), "use companions::locate: {found:?}");
}

/// The studies of configurations (`run`, `placement-study`, thread
/// scaling, the one-node baseline, `overdecompose`) hand their loop to
/// `study::run_study`: none iterates a schedule's slots itself to collect
/// its runs and finish them (each had written "finish on the last run,
/// finish the partial ones after Ctrl-C" again). Warm-up rounds, which
/// record nothing, may iterate.
#[test]
fn studies_of_configurations_hand_their_loop_to_the_engine() {
    let found: Vec<String> = common::library_and_cli()
        .into_iter()
        .filter(|(path, _)| {
            ["src/experiments/", "src/runner/", "src/overdecompose/"]
                .iter()
                .any(|folder| path.starts_with(folder))
        })
        .filter(|(_, text)| {
            text.matches(".slots()").count() > text.matches("warm_up.slots()").count()
        })
        .map(|(path, _)| path)
        .collect();
    assert!(found.is_empty(), "call study::run_study: {found:?}");
}
