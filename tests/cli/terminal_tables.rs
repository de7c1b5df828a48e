//! What a person sees: measuring commands print tables shaped for what
//! they measured, fitted to `$COLUMNS` (else 100), in a real terminal as
//! in a pipe; `--records` prints one line per record; `run` prints only
//! its summary table.

use super::{numabench, succeeding};
use std::process::Command;
use std::time::{Duration, Instant};

/// The lines of stdout.
fn stdout_of(arguments: &[&str]) -> String {
    String::from_utf8(succeeding(arguments).stdout).unwrap()
}

/// The widest line, in characters.
fn widest(text: &str) -> usize {
    text.lines()
        .map(|line| line.chars().count())
        .max()
        .unwrap_or(0)
}

/// `latency` prints its sweep as a table (size, level, ns), not record
/// lines; `--records` brings back today's lines (their header and one
/// row per record). Fails on the record-dump output: no "size | level".
#[test]
fn latency_prints_a_sweep_table_and_records_on_request() {
    let text = stdout_of(&["latency", "--size", "16K,64M", "--repeat", "1"]);
    assert!(text.contains("Latency by working-set size"), "{text}");
    let header = text
        .lines()
        .find(|line| line.starts_with("| size"))
        .unwrap_or_else(|| panic!("no sweep header in\n{text}"));
    for column in ["level", "ns", "cycles", "cv"] {
        assert!(header.contains(column), "{header}");
    }
    assert!(
        text.lines().any(|line| line.starts_with("| 16 KiB ")),
        "{text}"
    );
    assert!(
        !text.contains("order_measures="),
        "params are not dumped: {text}"
    );
    assert!(widest(&text) <= 100, "{text}");

    let records = stdout_of(&["latency", "--size", "16K", "--repeat", "1", "--records"]);
    assert!(records.contains("benchmark          metric"), "{records}");
    let rows = records
        .lines()
        .filter(|line| line.starts_with("latency "))
        .count();
    assert_eq!(rows, 2, "latency and latency_cycles: {records}");
}

/// `--records` and `--json` are two views of stdout: asking both is refused.
#[test]
fn records_and_json_are_refused_together() {
    let output = numabench()
        .args(["latency", "--records", "--json", "--plan"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    // Refused as a conflict (an unknown `--records` would be refused too,
    // saying so instead).
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}

/// `$COLUMNS` sets the width: a narrow terminal gets narrow lines, with
/// the long note wrapped, not cut.
#[test]
fn columns_sets_the_width() {
    let output = numabench()
        .env("COLUMNS", "60")
        .args(["latency", "--size", "16K", "--repeat", "1"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(widest(&text) <= 60, "{text}");
    let words: Vec<&str> = text.split_whitespace().collect();
    assert!(words.windows(2).any(|w| w == ["chase:", "idle"]), "{text}");
}

/// `run` prints its summary table only; `--records` adds the per-run
/// record lines. Fails on the old output, which printed a `run` line per
/// run before the summary.
#[test]
fn run_prints_only_its_summary_unless_records() {
    let arguments = [
        "run", "--repeat", "2", "--warmup", "0", "--policy", "as-is", "--", "true",
    ];
    let record_lines = |text: &str| text.lines().filter(|line| line.starts_with("run ")).count();
    let text = stdout_of(&arguments);
    assert_eq!(record_lines(&text), 0, "{text}");
    assert!(text.contains("median s"), "the summary table: {text}");
    let mut with_records = arguments.to_vec();
    with_records.insert(1, "--records");
    let text = stdout_of(&with_records);
    assert!(record_lines(&text) >= 2, "{text}");
    assert!(text.contains("median s"), "{text}");
}

/// A private tmux server (its own socket, one per server this test process
/// starts), killed when dropped.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// A detached session with a `width` x `height` window.
    pub fn start(width: u16, height: u16) -> Self {
        static SERVERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let server = SERVERS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let tmux = Tmux {
            socket: format!("numabench-test-{}-{server}", std::process::id()),
        };
        let status = tmux
            .command()
            .args(["-f", "/dev/null", "new-session", "-d", "-s", "t"])
            .args(["-x", &width.to_string(), "-y", &height.to_string()])
            .status()
            .expect("tmux runs (scripts/setup --test installs it)");
        assert!(status.success());
        tmux
    }

    fn command(&self) -> Command {
        let mut command = Command::new("tmux");
        command.args(["-L", &self.socket]);
        command
    }

    /// Types `line` and Enter into the window.
    pub fn send(&self, line: &str) {
        let status = self
            .command()
            .args(["send-keys", "-t", "t", line, "Enter"])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Everything the pane shows and scrolled past, wrapped lines joined
    /// back (so a line wider than the window shows as one long line).
    pub fn capture(&self) -> String {
        let output = self
            .command()
            .args(["capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", "t"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }
}

impl Tmux {
    /// The pane once it shows `marker`; fails the test with the pane if it
    /// does not within `patience` (a hang detector, far above the time the
    /// command needs).
    pub fn wait_for(&self, marker: &str, patience: Duration) -> String {
        let started = Instant::now();
        loop {
            let pane = self.capture();
            if pane.contains(marker) {
                return pane;
            }
            assert!(
                started.elapsed() < patience,
                "no {marker} after {patience:?}:\n{pane}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.command().arg("kill-server").status();
    }
}

/// Every part of `characterize`, run in a real 100 x 40 terminal (tmux)
/// with COLUMNS=100, prints its table and no line wider than 100
/// characters (stdout and stderr as the terminal shows them). Fails on
/// the record-dump output, whose lines were 255 to 616 characters.
#[test]
fn characterize_fits_a_100_column_terminal() {
    let tmux = Tmux::start(100, 40);
    let binary = env!("CARGO_BIN_EXE_numabench");
    tmux.send("export COLUMNS=100 PS1='$ '");
    tmux.send(&format!(
        // The marker is split in the typed line, so only the echo shows it whole.
        "{binary} characterize --repeat 1; echo \"characterize\"\"-exit=$?\""
    ));
    let pane = tmux.wait_for("characterize-exit=", Duration::from_secs(900));
    assert!(pane.contains("characterize-exit=0"), "{pane}");
    let output: Vec<&str> = pane
        .lines()
        .skip_while(|line| !line.contains(" characterize --repeat 1;"))
        .skip(1)
        .collect();
    for line in &output {
        assert!(
            line.trim_end().chars().count() <= 100,
            "{} characters: {line}\n{}",
            line.trim_end().chars().count(),
            output.join("\n")
        );
    }
    let text = output.join("\n");
    for title in [
        "Latency by working-set size",
        "Bandwidth",
        "Node matrix: latency, ns",
        "Node matrix: read_bandwidth (serial), GB/s",
        "Contention: ",
        "Scaling: ",
        "Loaded latency: ",
        "Memory-level parallelism: ",
        "Core-to-core latency",
        "Each CPU against its node's median",
    ] {
        assert!(text.contains(title), "no `{title}` table in\n{text}");
    }
}
