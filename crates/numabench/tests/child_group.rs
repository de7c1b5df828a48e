//! `interrupt::ChildGroup`, the guard every command that starts processes
//! holds (run, overdecompose's mpirun, the VM harness's QEMU): a SIGTERM
//! to this process reaches the registered group, whatever ignores it is
//! killed after the grace period, and a guard made `kill_on_drop` leaves no
//! process of its group when dropped. In a test binary of its own: the
//! signal sets this process's interrupted flag for good.

use numabench::interrupt::{self, ChildGroup, GRACE_SECONDS};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::{Duration, Instant};

/// Live (non-zombie) processes of process group `group`.
fn members(group: i32) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
        .filter(|stat| {
            let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..]
                .split_whitespace()
                .collect();
            fields[2].parse::<i32>() == Ok(group) && fields[0] != "Z"
        })
        .count()
}

fn start(script: &str) -> std::process::Child {
    Command::new("sh")
        .args(["-c", script])
        .process_group(0)
        .spawn()
        .unwrap()
}

#[test]
fn sigterm_is_forwarded_then_killed_after_the_grace_period_and_drop_kills() {
    // A group whose every process ignores SIGTERM (a background one too).
    let mut stubborn = start("trap '' TERM; sleep 60 & sleep 60; wait");
    let group = ChildGroup::new(stubborn.id());
    let id = group.id();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(members(id), 3, "sh and its two sleeps");
    let sent = Instant::now();
    // SAFETY: signals this process; the handler ChildGroup installed forwards it.
    unsafe { libc::raise(libc::SIGTERM) };
    assert_eq!(interrupt::signal(), Some(libc::SIGTERM));
    assert_eq!(interrupt::exit_status(), Some(143));
    let status = stubborn.wait().unwrap();
    let waited = sent.elapsed();
    assert!(
        waited >= Duration::from_secs(u64::from(GRACE_SECONDS)) - Duration::from_millis(500),
        "it ignores SIGTERM, so only the SIGKILL after the grace period ends it ({waited:?})"
    );
    assert!(
        waited < Duration::from_secs(u64::from(GRACE_SECONDS) + 5),
        "{waited:?}"
    );
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(libc::SIGKILL)
    );
    drop(group);
    let deadline = Instant::now() + Duration::from_secs(2);
    while members(id) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(members(id), 0, "the background sleep was killed too");

    // After the signal, a newly registered group gets it at once, and
    // kill_on_drop leaves nothing of a group.
    let mut late = start("sleep 60 & sleep 60; wait");
    let late_group = ChildGroup::new(late.id()).kill_on_drop();
    let late_id = late_group.id();
    let status = late.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(libc::SIGTERM)
    );
    drop(late_group);
    let deadline = Instant::now() + Duration::from_secs(2);
    while members(late_id) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(members(late_id), 0);
}
