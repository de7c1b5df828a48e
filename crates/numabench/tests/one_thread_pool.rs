//! One pool of pinned workers (`numabench::threads::Pool`): the runtime's
//! team, the micro-benchmarks (`run_pinned`) and `mlp --threads` start
//! their worker threads through it, so every worker is pinned the same way
//! (before it runs any of the caller's code, so before it touches memory)
//! and the caller's affinity is restored the same way. Two pools (and a
//! third, scoped, in `mlp --threads`) had grown apart before. Structural
//! (read from the sources): that a worker was pinned before its first
//! touch is what the rule protects, and one run on this machine cannot
//! show which code did it.

mod common;

/// The code of a source file without its `#[cfg(test)]` module (tests
/// may start threads and pin them to provoke what they check).
fn code_outside_tests(text: &str) -> &str {
    text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text)
}

/// Whether `code` both starts threads and pins a thread: a pool of its own.
fn starts_and_pins_threads(code: &str) -> bool {
    let starts = ["thread::spawn(", "thread::scope(", "thread::Builder::new()"]
        .iter()
        .any(|start| code.contains(start));
    starts && code.contains("pin_current_thread(")
}

/// Outside `threads/`, no file of the library or the CLI starts threads
/// and pins them itself. (A process that pins its one thread, such as an
/// over-decomposition rank, starts none and is not a pool.)
#[test]
fn only_the_pool_starts_pinned_threads() {
    let found: Vec<String> = common::library_and_cli()
        .into_iter()
        .filter(|(path, _)| !path.starts_with("src/threads/"))
        .filter(|(_, text)| starts_and_pins_threads(code_outside_tests(text)))
        .map(|(path, _)| path)
        .collect();
    assert!(
        found.is_empty(),
        "start pinned workers with threads::Pool (or run_pinned): {found:?}"
    );
}

/// The check finds a file that spawns and pins (the shape `mlp --threads`
/// had), and spares one that only pins its own thread or only spawns.
#[test]
fn the_check_finds_a_pool_of_its_own() {
    let own_pool = "std::thread::scope(|scope| { scope.spawn(|| pin_current_thread(cpu)) });";
    assert!(starts_and_pins_threads(own_pool));
    assert!(!starts_and_pins_threads("pin_current_thread(cpu)?;"));
    assert!(!starts_and_pins_threads(
        "std::thread::spawn(move || work());"
    ));
    let in_tests =
        "fn f() {}\n#[cfg(test)]\nmod tests { std::thread::spawn(|| pin_current_thread(0)); }";
    assert!(!starts_and_pins_threads(code_outside_tests(in_tests)));
}
