//! ARCHITECTURE.md and docs/adding-a-benchmark.md, checked against the
//! sources they describe: the module table names exactly the modules
//! `lib.rs` declares, and a benchmark touches no more shared files than
//! the guide says. Each check is also shown to catch an offence on
//! made-up text, so it cannot pass by finding nothing.

mod common;

use common::{code, test_file};

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The repository's root.
fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> String {
    let full = repository().join(path);
    fs::read_to_string(&full).unwrap_or_else(|error| panic!("{}: {error}", full.display()))
}

/// The modules `lib.rs` declares (`pub mod NAME;`, `mod NAME;`).
fn declared_modules(lib: &str) -> BTreeSet<String> {
    lib.lines()
        .map(str::trim)
        .filter_map(|line| {
            line.strip_prefix("pub mod ")
                .or_else(|| line.strip_prefix("pub(crate) mod "))
                .or_else(|| line.strip_prefix("mod "))
        })
        .filter_map(|rest| rest.strip_suffix(';'))
        .map(str::to_string)
        .collect()
}

/// The backticked names in the first column of the table under the
/// heading `## The library's modules` (a row may name several:
/// `` `clock`, `interrupt` ``).
fn tabled_modules(architecture: &str) -> BTreeSet<String> {
    architecture
        .lines()
        .skip_while(|line| !line.starts_with("## The library's modules"))
        .skip(1)
        .take_while(|line| !line.starts_with("## "))
        .filter_map(|line| line.strip_prefix('|'))
        .filter_map(|row| row.split('|').next())
        .flat_map(|cell| {
            cell.split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// What one side names and the other does not, in words.
fn table_offences(lib: &str, architecture: &str) -> Vec<String> {
    let declared = declared_modules(lib);
    let tabled = tabled_modules(architecture);
    let mut offences: Vec<String> = declared
        .difference(&tabled)
        .map(|module| {
            format!("`{module}`: declared in lib.rs, missing from ARCHITECTURE.md's table")
        })
        .collect();
    offences.extend(
        tabled.difference(&declared).map(|module| {
            format!("`{module}`: in ARCHITECTURE.md's table, not declared in lib.rs")
        }),
    );
    offences
}

#[test]
fn the_module_table_lists_exactly_the_modules_of_lib_rs() {
    let lib = read("crates/numabench/src/lib.rs");
    let architecture = read("ARCHITECTURE.md");
    assert!(declared_modules(&lib).contains("topology"));
    assert!(tabled_modules(&architecture).contains("topology"));
    let offences = table_offences(&lib, &architecture);
    assert!(
        offences.is_empty(),
        "ARCHITECTURE.md's \"The library's modules\" and lib.rs disagree:\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_table_check_catches_an_offence() {
    let lib = "//! doc\npub mod clock;\npub mod parse;\nmod private_dir;\n";
    let architecture = "## Crates\n| `clock` | x |\n\n## The library's modules (`src`)\n\n| module | concern |\n|---|---|\n| `clock`, `units` | stopwatch, `parse` in the text |\n\n## Next\n| `private_dir` | not this table |\n";
    assert_eq!(
        table_offences(lib, architecture),
        [
            "`parse`: declared in lib.rs, missing from ARCHITECTURE.md's table",
            "`private_dir`: declared in lib.rs, missing from ARCHITECTURE.md's table",
            "`units`: in ARCHITECTURE.md's table, not declared in lib.rs",
        ]
    );
}

/// A registry benchmark: its folder under `bench/` and the names it
/// registers (`name: "..."` in its `describe.rs`; `matrix` has two).
#[derive(Debug)]
struct Benchmark {
    folder: String,
    names: Vec<String>,
}

/// The benchmarks `REGISTRY` lists (`super::FOLDER::ENTRY,` lines), with
/// the names their folders' `describe.rs` register.
fn registry_benchmarks(files: &[(String, String)]) -> Vec<Benchmark> {
    let text = |path: &str| {
        files
            .iter()
            .find(|(have, _)| have == path)
            .map(|(_, text)| text.as_str())
            .unwrap_or_default()
    };
    let mut folders: Vec<String> = Vec::new();
    for line in text("crates/numabench/src/bench/registry.rs").lines() {
        if let Some(folder) = line
            .trim()
            .strip_prefix("super::")
            .and_then(|rest| rest.split("::").next())
        {
            if !folders.iter().any(|have| have == folder) {
                folders.push(folder.to_string());
            }
        }
    }
    folders
        .into_iter()
        .map(|folder| {
            let describe = text(&format!("crates/numabench/src/bench/{folder}/describe.rs"));
            let names = describe
                .lines()
                .filter_map(|line| line.trim().strip_prefix("name: \""))
                .filter_map(|rest| rest.split('"').next())
                .map(str::to_string)
                .collect();
            Benchmark { folder, names }
        })
        .collect()
}

fn identifier(character: Option<char>) -> bool {
    character.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Whether `code` spells `module` as a module path: `mod MODULE;`,
/// `MODULE::...` or `...::MODULE` (a whole path segment), or as a row of
/// the CLI's dispatch table (`Variant => MODULE,`, which declares it).
fn spells_module(code: &str, module: &str) -> bool {
    code.match_indices(module).any(|(at, _)| {
        let before = &code[..at];
        let after = &code[at + module.len()..];
        !identifier(before.chars().next_back())
            && !identifier(after.chars().next())
            && (after.starts_with("::")
                || before.ends_with("::")
                || (before.ends_with("mod ") && after.starts_with(';'))
                || (before.ends_with("=> ") && after.starts_with(',')))
    })
}

/// The files that spell no benchmark on purpose: the schema crate's
/// benchmark names and the registry's list.
const NAME_LISTS: [&str; 2] = [
    "crates/numabench-schema/src/benchmark.rs",
    "crates/numabench/src/bench/registry.rs",
];

/// The source files outside `benchmark`'s folder (of every crate's
/// `src/`, test code left out) that a benchmark touches: one named like it
/// (`commands/c2c.rs`), or one whose code spells one of its names as a
/// string literal or its folder as a module path. Names shared with other
/// concepts (`latency`, `bandwidth`) count files those concepts touch too.
fn shared_files(files: &[(String, String)], benchmark: &Benchmark) -> Vec<String> {
    let folder = format!("crates/numabench/src/bench/{}/", benchmark.folder);
    files
        .iter()
        .filter(|(path, _)| !path.starts_with(&folder) && !test_file(path))
        .filter(|(path, _)| !NAME_LISTS.contains(&path.as_str()))
        .filter(|(path, text)| {
            let stem = Path::new(path).file_stem().and_then(|stem| stem.to_str());
            let code = code(text);
            stem == Some(benchmark.folder.as_str())
                || spells_module(&code, &benchmark.folder)
                || benchmark.names.iter().any(|name| {
                    stem == Some(name.replace('-', "_").as_str())
                        || code.contains(&format!("\"{name}\""))
                })
        })
        .map(|(path, _)| path.clone())
        .collect()
}

/// Registry names that are also plain words of the code: the metric of
/// several benchmarks (`latency`; `mlp`, the mlp benchmark's metric), a
/// health check's quantity, a cluster part, an hwloc memory attribute, a
/// per-CPU measure (`latency`, `bandwidth`). A literal spelling one of them
/// counts only where it stands for a benchmark (see [`names_a_benchmark`]).
const PLAIN_WORDS: [&str; 3] = ["latency", "bandwidth", "mlp"];

/// Whether the literal that follows `before` on its line stands for a
/// benchmark: a record's `benchmark` field (`benchmark: "x"`), compared
/// with one (`benchmark == "x"`, `!=`), or a registry look-up (`find("x")`).
fn names_a_benchmark(before: &str) -> bool {
    let before: String = before.split_whitespace().collect();
    ["benchmark:", "benchmark==", "benchmark!=", "find("]
        .iter()
        .any(|ending| before.ends_with(ending))
}

/// Whether `path` is one of `benchmark`'s own files: its folder, or the
/// CLI's files named after it (`args/c2c.rs`, `commands/c2c.rs`).
fn own_file(path: &str, benchmark: &Benchmark) -> bool {
    let stem = Path::new(path).file_stem().and_then(|stem| stem.to_str());
    path.starts_with(&format!("crates/numabench/src/bench/{}/", benchmark.folder))
        || (path.starts_with("crates/numabench-cli/src/") && stem == Some(&benchmark.folder))
}

/// Every place (`path:line: "name"`) where non-test code outside a
/// benchmark's own files spells one of its names as a whole string
/// literal, where it should use the schema crate's constant
/// (`numabench_schema::benchmark::C2C`) or its registry entry. The schema
/// crate's list of names is where they are spelled; a [`PLAIN_WORDS`]
/// name counts only where it stands for a benchmark.
fn spelled_names(files: &[(String, String)], benchmarks: &[Benchmark]) -> Vec<String> {
    let mut offences = Vec::new();
    for (path, text) in files {
        if test_file(path) || path == NAME_LISTS[0] {
            continue;
        }
        for (number, line) in code(text).lines().enumerate() {
            for benchmark in benchmarks.iter().filter(|b| !own_file(path, b)) {
                for name in &benchmark.names {
                    let literal = format!("\"{name}\"");
                    let spelled = line.match_indices(&literal).any(|(at, _)| {
                        !PLAIN_WORDS.contains(&name.as_str()) || names_a_benchmark(&line[..at])
                    });
                    if spelled {
                        offences.push(format!("{path}:{}: {literal}", number + 1));
                    }
                }
            }
        }
    }
    offences
}

/// No shared file spells a registry benchmark's name: it uses the schema
/// crate's constant or the registry entry (docs/adding-a-benchmark.md,
/// "Names").
#[test]
fn no_shared_file_spells_a_benchmark_name() {
    let files = crate_sources();
    let benchmarks = registry_benchmarks(&files);
    let names: Vec<&str> = benchmarks
        .iter()
        .flat_map(|benchmark| benchmark.names.iter().map(String::as_str))
        .collect();
    for word in PLAIN_WORDS {
        assert!(
            names.contains(&word),
            "{word} is no registry name: {names:?}"
        );
    }
    let offences = spelled_names(&files, &benchmarks);
    assert!(
        offences.is_empty(),
        "benchmark names spelled outside their benchmark's files (use numabench_schema::benchmark::NAME or the registry entry):\n{}",
        offences.join("\n")
    );
}

/// A made-up source file: its path and its text.
fn file(path: &str, text: &str) -> (String, String) {
    (path.to_string(), text.to_string())
}

#[test]
fn the_name_check_catches_an_offence() {
    let files = [
        file(
            "crates/numabench/src/bench/registry.rs",
            "    super::c2c::BENCHMARK,\n    super::latency::BENCHMARK,\n",
        ),
        file("crates/numabench/src/bench/c2c/describe.rs", "    name: \"c2c\",\n"),
        file(
            "crates/numabench/src/bench/c2c/measure.rs",
            "benchmark: \"c2c\".into(), metric: \"latency\".into()\n",
        ),
        file(
            "crates/numabench/src/bench/latency/describe.rs",
            "    name: \"latency\",\n",
        ),
        file(
            "crates/numabench/src/report/c2c.rs",
            "fn f() {}\n#[cfg(test)]\nmod tests;\nmatch name { \"c2c\" => 1 }\n",
        ),
        file(
            "crates/numabench/src/findings/x.rs",
            "of(records, LATENCY, \"latency\");\nr.benchmark == \"latency\"\nfind(\"latency\")\n// \"c2c\"\n",
        ),
        file("crates/numabench-cli/src/commands/c2c.rs", "\"c2c needs\"; \"c2c\"\n"),
        file(
            "crates/numabench-cli/src/args.rs",
            "const G: &[&str] = &[\"c2c\", \"c2cx\"];\n#[cfg(test)]\nmod tests { const T: &str = \"c2c\"; }\nconst H: &str = \"c2c\";\n",
        ),
        file("crates/numabench/src/findings/tests.rs", "\"c2c\"\n"),
        file("crates/numabench-schema/src/benchmark.rs", "pub const C2C: &str = \"c2c\";\n"),
    ];
    let benchmarks = registry_benchmarks(&files);
    assert_eq!(
        spelled_names(&files, &benchmarks),
        [
            "crates/numabench/src/report/c2c.rs:4: \"c2c\"",
            "crates/numabench/src/findings/x.rs:2: \"latency\"",
            "crates/numabench/src/findings/x.rs:3: \"latency\"",
            "crates/numabench-cli/src/args.rs:1: \"c2c\"",
            "crates/numabench-cli/src/args.rs:4: \"c2c\"",
        ]
    );
}

/// Every crate's `src/` files, paths relative to the repository.
fn crate_sources() -> Vec<(String, String)> {
    let root = repository();
    let mut files = Vec::new();
    for entry in fs::read_dir(root.join("crates")).unwrap() {
        let source = entry.unwrap().path().join("src");
        if source.is_dir() {
            files.extend(common::sources(&root, &source));
        }
    }
    files.sort();
    assert!(
        files
            .iter()
            .any(|(path, _)| path == "crates/numabench/src/bench/registry.rs"),
        "the sources were not found"
    );
    files
}

/// The number in docs/adding-a-benchmark.md's "c2c touches N shared files".
fn documented_c2c_files(guide: &str) -> usize {
    guide
        .split("c2c touches ")
        .skip(1)
        .find_map(|rest| rest.split(" shared files").next()?.trim().parse().ok())
        .expect("docs/adding-a-benchmark.md says \"c2c touches N shared files\"")
}

/// Prints how many shared files each registry benchmark touches, and holds
/// c2c, the guide's worked example, to the number the guide gives.
#[test]
fn a_benchmark_touches_no_more_shared_files_than_the_guide_says() {
    let files = crate_sources();
    let benchmarks = registry_benchmarks(&files);
    assert!(benchmarks.len() >= 9, "{benchmarks:?}");
    let mut c2c = None;
    for benchmark in &benchmarks {
        assert!(!benchmark.names.is_empty(), "{benchmark:?} names nothing");
        let shared = shared_files(&files, benchmark);
        eprintln!(
            "{} ({}): {} shared files\n  {}",
            benchmark.folder,
            benchmark.names.join(", "),
            shared.len(),
            shared.join("\n  ")
        );
        if benchmark.folder == "c2c" {
            c2c = Some(shared);
        }
    }
    let c2c = c2c.expect("c2c is in the registry");
    let documented = documented_c2c_files(&read("docs/adding-a-benchmark.md"));
    assert!(
        c2c.len() <= documented,
        "c2c touches {} shared files, docs/adding-a-benchmark.md says {documented}: move what was added into bench/c2c/ or the registry entry:\n{}",
        c2c.len(),
        c2c.join("\n")
    );
}

#[test]
fn the_shared_file_count_catches_an_offence() {
    let files = [
        file(
            "crates/numabench/src/bench/registry.rs",
            "const REGISTRY: &[BenchmarkInfo] = &[\n    super::c2c::BENCHMARK,\n    super::matrix::LATENCY,\n    super::matrix::BANDWIDTH,\n];\n",
        ),
        file("crates/numabench/src/bench/c2c/describe.rs", "    name: \"c2c\",\n"),
        file(
            "crates/numabench/src/bench/matrix/describe.rs",
            "    name: \"matrix-latency\",\n    name: \"matrix-bandwidth\",\n",
        ),
        file("crates/numabench/src/bench/mod.rs", "mod c2c;\nmod matrix;\n"),
        file("crates/numabench/src/bench/cost.rs", "use super::c2c::measure_c2c;\n"),
        file("crates/numabench/src/compare/roles.rs", "match name { \"c2c\" => 1 }\n"),
        file("crates/numabench-cli/src/commands/c2c.rs", "pub fn run() {}\n"),
        file("crates/numabench-cli/src/commands/matrix_latency.rs", ""),
        file(
            "crates/numabench-cli/src/commands/mod.rs",
            "dispatch! {\n    from_flags {\n        C2c => c2c,\n    }\n}\n",
        ),
        file("crates/numabench/src/bench/run_c2c.rs", "fn run_c2c() -> C2c { c2c_pairs() }\n"),
        file("crates/numabench/src/report/mod.rs", "// \"c2c\" in a comment\n#[cfg(test)]\nmod tests { const C: &str = \"c2c\"; }\n"),
        file("crates/numabench/src/report/sections/tests.rs", "\"c2c\"\n"),
        file("crates/numabench-schema/src/benchmark.rs", "pub const C2C: &str = \"c2c\";\n"),
    ];
    let benchmarks = registry_benchmarks(&files);
    assert_eq!(benchmarks.len(), 2);
    assert_eq!(benchmarks[1].names, ["matrix-latency", "matrix-bandwidth"]);
    assert_eq!(
        shared_files(&files, &benchmarks[0]),
        [
            "crates/numabench/src/bench/mod.rs",
            "crates/numabench/src/bench/cost.rs",
            "crates/numabench/src/compare/roles.rs",
            "crates/numabench-cli/src/commands/c2c.rs",
            "crates/numabench-cli/src/commands/mod.rs",
        ]
    );
    assert_eq!(
        shared_files(&files, &benchmarks[1]),
        [
            "crates/numabench/src/bench/mod.rs",
            "crates/numabench-cli/src/commands/matrix_latency.rs",
        ]
    );
    assert_eq!(
        documented_c2c_files(
            "if c2c touches more files than this: c2c touches 10 shared files outside"
        ),
        10
    );
}
