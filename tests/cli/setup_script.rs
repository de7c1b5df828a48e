//! `scripts/setup`: the main job's set-up (`scripts/run`) installs only what
//! building and running the default build needs, and no package of that set
//! brings a system service; the test beds are `scripts/setup --test`'s
//! (called by `scripts/test`). Checked against dpkg's own file lists of the
//! packages, which `scripts/test` installed before running this.

use std::path::PathBuf;
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn listed(set: &str) -> Vec<String> {
    let output = Command::new(repo().join("scripts/setup"))
        .args(["--list", set])
        .output()
        .expect("scripts/setup runs");
    assert!(
        output.status.success(),
        "scripts/setup --list {set}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Every package of the run set is installed here (scripts/test ran the
/// set-up first) and ships no systemd unit and no init script: adding a
/// daemon's package (slurm-wlm, munge, ...) to the main job's list fails
/// this test. The run set is part of the test set.
#[test]
fn the_main_jobs_packages_bring_no_service() {
    let run = listed("run");
    let test = listed("test");
    assert!(!run.is_empty());
    for package in &run {
        assert!(
            test.contains(package),
            "{package} is in the run set but not the test set"
        );
        let files = Command::new("dpkg")
            .args(["-L", package])
            .output()
            .expect("dpkg runs");
        assert!(
            files.status.success(),
            "{package} of the run set is not installed ({}): run scripts/setup",
            String::from_utf8_lossy(&files.stderr).trim()
        );
        let services: Vec<String> = String::from_utf8_lossy(&files.stdout)
            .lines()
            .filter(|path| {
                path.starts_with("/etc/init.d/")
                    || path.contains("/systemd/system/")
                    || path.contains("/systemd/user/")
            })
            .map(str::to_string)
            .collect();
        assert!(
            services.is_empty(),
            "{package} of the run set ships services: {services:?}"
        );
    }
    assert!(
        test.len() > run.len(),
        "the test set adds the test beds: {test:?}"
    );
}

/// The main job asks for the run set, the test command for the test set.
#[test]
fn run_and_test_ask_for_their_own_sets() {
    let setup_line = |script: &str| {
        std::fs::read_to_string(repo().join(script))
            .unwrap()
            .lines()
            .find(|line| line.trim_start().starts_with("scripts/setup"))
            .map(|line| line.trim().to_string())
            .unwrap_or_else(|| panic!("{script} does not call scripts/setup"))
    };
    assert_eq!(setup_line("scripts/run"), "scripts/setup");
    assert_eq!(setup_line("scripts/test"), "scripts/setup --test");
}

#[test]
fn a_bad_set_name_is_exit_2_naming_it() {
    let output = Command::new(repo().join("scripts/setup"))
        .args(["--list", "everything"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("'everything'"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// What one run of the real `scripts/setup` (run set) left, run as root of
/// a private user and mount namespace (`unshare -r -m`) with tmpfs over
/// `/usr/sbin` and `/etc/systemd/system`, and the package tools replaced by
/// the stand-ins of `tests/cli/setup-stubs` (see its README): nothing is
/// installed and nothing outside the namespace is touched.
struct SetupRun {
    status: i32,
    stdout: String,
    stderr: String,
    /// The service links in the namespace's /etc/systemd/system afterwards.
    links: Vec<String>,
    /// Whether the namespace's /usr/sbin/policy-rc.d was there afterwards.
    policy_left: bool,
    /// Whether the policy was there when the stub apt-get ended its install
    /// (`None`: no install ran).
    policy_during_install: Option<bool>,
    /// The stub apt-get's calls, one a line.
    apt_calls: String,
}

/// The namespace's set-up, setup's run, and what it left; the stub
/// apt-get's marker lets it make links only in the namespace's tmpfs.
const NAMESPACE_SCRIPT: &str = r#"set -e
mount -t tmpfs tmpfs /usr/sbin
mount -t tmpfs tmpfs /etc/systemd/system
touch /etc/systemd/system/.numabench-setup-test
mkdir -p /etc/systemd/system/multi-user.target.wants
ln -s /lib/systemd/system/preexisting.service /etc/systemd/system/multi-user.target.wants/preexisting.service
set +e
"$1" >"$STUB_STATE/stdout" 2>"$STUB_STATE/stderr"
echo $? >"$STUB_STATE/status"
# A killed setup's apt-get goes on: wait for it to end.
if [ -n "${STUB_KILL_SETUP:-}" ]; then
  for _ in $(seq 200); do [ -e "$STUB_STATE/policy-at-end-of-install" ] && break; sleep 0.1; done
fi
find /etc/systemd/system -type l | sort >"$STUB_STATE/links-after"
if [ -e /usr/sbin/policy-rc.d ]; then echo present; else echo absent; fi >"$STUB_STATE/policy-after"
"#;

/// Runs setup with none of the run set installed, `libudev1`
/// 252.38-1~deb12u1 installed, `archive` the versions of libudev-dev the
/// archive has, `stubs` the stand-in directories put first on PATH (under
/// tests/cli/setup-stubs) and `env` the stand-ins' switches.
fn run_setup(archive: &[&str], stubs: &[&str], env: &[(&str, &str)]) -> SetupRun {
    let state = tempfile::tempdir().unwrap();
    let path = |name: &str| state.path().join(name);
    std::fs::write(path("installed"), "libudev1 252.38-1~deb12u1\n").unwrap();
    let archive: String = archive
        .iter()
        .map(|version| format!("libudev-dev {version}\n"))
        .collect();
    std::fs::write(path("archive"), archive).unwrap();
    std::fs::create_dir(path("files")).unwrap();
    std::fs::write(
        path("files/fake-daemon"),
        "/lib/systemd/system/fake-daemon.service\n/usr/sbin/fake-daemon\n",
    )
    .unwrap();
    let stub_dir = repo().join("tests/cli/setup-stubs");
    let mut search: Vec<PathBuf> = stubs.iter().map(|dir| stub_dir.join(dir)).collect();
    search.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap()));
    let output = Command::new("unshare")
        .args(["-r", "-m", "--propagation", "private", "bash", "-c"])
        .arg(NAMESPACE_SCRIPT)
        .arg("namespace")
        .arg(repo().join("scripts/setup"))
        .env("PATH", std::env::join_paths(search).unwrap())
        .env("STUB_STATE", state.path())
        .envs(env.iter().copied())
        .output()
        .expect("unshare (util-linux) runs");
    assert!(
        output.status.success(),
        "a private user and mount namespace (unshare -r -m) is needed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let read = |name: &str| std::fs::read_to_string(path(name)).unwrap_or_default();
    SetupRun {
        status: read("status").trim().parse().unwrap(),
        stdout: read("stdout"),
        stderr: read("stderr"),
        links: read("links-after").lines().map(str::to_string).collect(),
        policy_left: read("policy-after").trim() == "present",
        policy_during_install: match read("policy-at-end-of-install").trim() {
            "" => None,
            state => Some(state == "present"),
        },
        apt_calls: read("apt-get.calls"),
    }
}

const OTHERS_LINK: &str = "/etc/systemd/system/multi-user.target.wants/admins-own.service";
const PREEXISTING_LINK: &str = "/etc/systemd/system/multi-user.target.wants/preexisting.service";

/// The install path end to end: one line for the set however much apt and
/// dpkg print (the stub prints 120 lines), libudev-dev asked for at the
/// installed libudev1's version (which the archive has, as the package
/// lists show once `apt-get update` has run: nothing upgraded),
/// the links of the package the install brought (fake-daemon's unit) removed
/// and the link someone else made meanwhile kept, and the policy there
/// during the install and gone after. Before (#34 items 17 and 21): 122
/// lines of output, plain `libudev-dev`, and admins-own.service removed.
#[test]
fn setup_installs_quietly_pins_libudev_dev_and_disables_only_its_packages_services() {
    let run = run_setup(&["252.39-1~deb12u2", "252.38-1~deb12u1"], &[""], &[]);
    assert_eq!(run.status, 0, "{}", run.stdout);
    let install = run
        .apt_calls
        .lines()
        .find(|call| call.contains(" install "))
        .unwrap_or_else(|| panic!("no install: {}", run.apt_calls));
    assert!(
        install
            .split(' ')
            .any(|word| word == "libudev-dev=252.38-1~deb12u1"),
        "{install}"
    );
    assert!(
        install.contains("-qq") && install.contains("--no-install-recommends"),
        "{install}"
    );
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[0].starts_with("setup: installing the run set: ") && lines[0].ends_with(" done"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("Unpacking"), "{}", run.stdout);
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert!(
        lines[1].contains("fake-daemon.service") && lines[1].contains("fake-alias.service"),
        "{}",
        run.stdout
    );
    assert!(lines[2].contains(OTHERS_LINK), "{}", run.stdout);
    assert_eq!(run.links, [OTHERS_LINK, PREEXISTING_LINK]);
    assert_eq!(run.policy_during_install, Some(true));
    assert!(!run.policy_left);
}

/// When the archive no longer has the installed libudev1's version, the
/// newest libudev-dev is asked for and a line says that libudev1 is
/// upgraded with it.
#[test]
fn setup_says_when_libudev_dev_upgrades_libudev1() {
    let run = run_setup(&["252.39-1~deb12u2"], &[""], &[]);
    assert_eq!(run.status, 0, "{}", run.stdout);
    let install = run.apt_calls.lines().last().unwrap();
    assert!(
        install.split(' ').any(|word| word == "libudev-dev"),
        "{install}"
    );
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[0].ends_with(" libudev-dev gcc libc6-dev ... done"),
        "{}",
        run.stdout
    );
    assert!(
        lines[1].starts_with("setup: libudev-dev 252.38-1~deb12u1 (the installed libudev1's version) is not in the archive: the newest libudev-dev upgrades libudev1"),
        "{}",
        run.stdout
    );
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

/// A failed install prints apt's output (only then), exits with its
/// status, and still leaves no policy and no service of its packages.
#[test]
fn a_failed_install_prints_its_log_and_cleans_up() {
    let run = run_setup(&["252.38-1~deb12u1"], &[""], &[("STUB_FAIL", "1")]);
    assert_eq!(run.status, 100, "{}", run.stdout);
    assert!(
        run.stdout
            .contains("failed (apt-get exit status 100); its output:")
            && run.stdout.contains("Unpacking noise-120")
            && run.stdout.contains("E: stub failure"),
        "{}",
        run.stdout
    );
    assert_eq!(run.links, [OTHERS_LINK, PREEXISTING_LINK]);
    assert!(!run.policy_left);
}

/// TERM while apt-get installs: setup waits for it to end with the policy
/// still in place (no service starts meanwhile), then disables what the
/// install enabled, removes the policy and exits 143. Before (#34 item 17):
/// the policy was removed at once while the install went on, and the
/// install's services stayed enabled.
#[test]
fn setup_killed_during_the_install_keeps_the_policy_until_it_ends_then_cleans_up() {
    let run = run_setup(&["252.38-1~deb12u1"], &[""], &[("STUB_KILL_SETUP", "1")]);
    assert_eq!(run.status, 143, "{}", run.stdout);
    assert_eq!(run.policy_during_install, Some(true), "{}", run.stdout);
    assert!(!run.policy_left, "{}", run.stdout);
    assert_eq!(run.links, [OTHERS_LINK, PREEXISTING_LINK], "{}", run.stdout);
}

/// TERM right after the policy file is created (the stub chmod sends it):
/// the traps are already set, so the policy is removed. Before (#34 item
/// 17): the trap was set after the policy was made, and the policy stayed,
/// refusing every service start on the host.
#[test]
fn setup_killed_while_making_its_policy_removes_it() {
    let run = run_setup(&["252.38-1~deb12u1"], &["kill-at-chmod", ""], &[]);
    assert_eq!(run.status, 143, "{}", run.stdout);
    assert!(!run.policy_left, "{}", run.stdout);
    assert_eq!(run.policy_during_install, None);
    assert_eq!(run.links, [PREEXISTING_LINK]);
}
