//! The handler's bookkeeping when a page cannot be unprotected, and that
//! faults outside next-touch ranges still end the process as they would
//! without the handler (checked in child processes: this test binary run
//! again with [`CRASH`] set).

use super::*;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Output};

/// Set in a child process to the fault it must cause.
const CRASH: &str = "NUMABENCH_NEXT_TOUCH_CRASH";

/// Maps `pages` fresh pages.
fn map(pages: usize) -> usize {
    // SAFETY: anonymous private mapping, no fixed address; checked against MAP_FAILED.
    let address = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            pages * PAGE_SIZE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    assert_ne!(address, libc::MAP_FAILED);
    address as usize
}

/// The permissions `/proc/self/maps` shows for the mapping starting at `start`.
fn permissions(start: usize) -> String {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let prefix = format!("{start:x}-");
    let line = maps.lines().find(|line| line.starts_with(&prefix)).unwrap();
    line.split_whitespace().nth(1).unwrap().to_string()
}

/// A page that cannot be made accessible (here unmapped, so mprotect fails
/// for real with ENOMEM, as it does at `vm.max_map_count`) ends the
/// emulation for its range: the range is unprotected, and its pages that
/// had not faulted are reported as left in place.
#[test]
fn a_page_that_cannot_be_opened_ends_the_range_and_is_counted() {
    let start = map(4);
    protect(start, 4 * PAGE_SIZE, PAGE_SIZE).unwrap();
    assert_eq!(permissions(start), "---p");
    let last = start + 3 * PAGE_SIZE;
    // SAFETY: unmaps the last page of our own mapping; nothing refers to it.
    let unmapped = unsafe { libc::munmap(last as *mut libc::c_void, PAGE_SIZE) };
    assert_eq!(unmapped, 0);
    let owner = owner_of(last + 8).unwrap();
    open_page(owner, last, PAGE_SIZE);
    assert_eq!(
        permissions(start),
        "rw-p",
        "the range was unprotected whole"
    );
    let outcome = unprotect(start, 4 * PAGE_SIZE);
    assert_eq!(
        outcome.unprotected_pages, 3,
        "the three pages that never faulted"
    );
    assert_eq!(outcome.migrated_pages, 0);
    // SAFETY: unmaps the rest of our mapping.
    unsafe { libc::munmap(start as *mut libc::c_void, 3 * PAGE_SIZE) };
}

/// The handler's system calls can fail and set `errno` (here its mprotect
/// of an unmapped page fails with ENOMEM); the interrupted code must find
/// its own `errno` unchanged when the handler returns.
#[test]
fn the_handler_keeps_the_interrupted_codes_errno() {
    let start = map(2);
    protect(start, 2 * PAGE_SIZE, PAGE_SIZE).unwrap();
    let last = start + PAGE_SIZE;
    // SAFETY: unmaps the last page of our own mapping; nothing refers to it.
    let unmapped = unsafe { libc::munmap(last as *mut libc::c_void, PAGE_SIZE) };
    assert_eq!(unmapped, 0);
    // A fault at `last`, as the kernel would report it: si_addr is the first
    // pointer-sized field after si_signo, si_errno and si_code (checked below).
    // SAFETY: siginfo_t is plain data; the write stays inside it.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    info.si_signo = libc::SIGSEGV;
    // SAFETY: offset 16 lies inside siginfo_t (128 bytes) and is pointer-aligned.
    unsafe {
        std::ptr::write(
            (&mut info as *mut libc::siginfo_t)
                .cast::<u8>()
                .add(16)
                .cast::<*mut libc::c_void>(),
            last as *mut libc::c_void,
        )
    };
    // SAFETY: reading the field back through libc's accessor.
    assert_eq!(unsafe { info.si_addr() } as usize, last, "si_addr layout");
    const SENTINEL: libc::c_int = 4242;
    // SAFETY: __errno_location returns this thread's errno slot.
    unsafe { *libc::__errno_location() = SENTINEL };
    on_fault(libc::SIGSEGV, &mut info, std::ptr::null_mut());
    // SAFETY: as above.
    let after = unsafe { *libc::__errno_location() };
    unprotect(start, 2 * PAGE_SIZE);
    // SAFETY: unmaps the rest of our mapping.
    unsafe { libc::munmap(start as *mut libc::c_void, PAGE_SIZE) };
    assert_eq!(after, SENTINEL, "errno after the handler");
}

/// Recurses until the stack overflows.
fn recurse(depth: u64) -> u64 {
    let frame = std::hint::black_box([depth; 64]);
    if depth == u64::MAX {
        return 0;
    }
    recurse(depth + 1) + frame[0]
}

/// Run only as a child of the test below, which sets [`CRASH`].
#[test]
#[ignore = "a child process of faults_outside_ranges_end_the_process_as_without_the_handler"]
fn crash_child() {
    let start = map(1);
    protect(start, PAGE_SIZE, PAGE_SIZE).unwrap();
    match std::env::var(CRASH).as_deref() {
        Ok("overflow") => {
            std::thread::spawn(|| recurse(0)).join().unwrap();
        }
        Ok("null") => {
            // SAFETY: deliberately faults: address 8 is never mapped.
            unsafe { std::ptr::read_volatile(8 as *const u8) };
        }
        _ => {}
    }
}

fn crash(kind: &str) -> Output {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "runtime::next_touch::tests::crash_child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CRASH, kind)
        .output()
        .unwrap()
}

/// With the handler installed, a stack overflow is still reported by
/// Rust's own handler (the previous action, reached on the alternate
/// stack) and aborts, and a stray access still dies of SIGSEGV.
#[test]
fn faults_outside_ranges_end_the_process_as_without_the_handler() {
    let overflow = crash("overflow");
    let stderr = String::from_utf8_lossy(&overflow.stderr);
    assert!(stderr.contains("has overflowed its stack"), "{stderr}");
    assert_eq!(overflow.status.signal(), Some(libc::SIGABRT), "{stderr}");
    let null = crash("null");
    assert_eq!(
        null.status.signal(),
        Some(libc::SIGSEGV),
        "{}",
        String::from_utf8_lossy(&null.stderr)
    );
}

/// The permissions of the mapping that holds `address`.
fn permissions_at(address: usize) -> String {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let line = maps
        .lines()
        .find(|line| {
            let range = line.split_whitespace().next().unwrap();
            let (low, high) = range.split_once('-').unwrap();
            let low = usize::from_str_radix(low, 16).unwrap();
            let high = usize::from_str_radix(high, 16).unwrap();
            (low..high).contains(&address)
        })
        .unwrap();
    line.split_whitespace().nth(1).unwrap().to_string()
}

/// With a granule of several pages (a huge page), one touch opens the whole
/// granule around it, so a THP is never protected in parts; the next
/// granule stays protected.
#[test]
fn a_touch_opens_its_whole_granule() {
    let start = map(8);
    let granule = 4 * PAGE_SIZE;
    protect(start, 8 * PAGE_SIZE, granule).unwrap();
    let first = start.next_multiple_of(granule);
    let second = first + granule;
    // SAFETY: a write inside our own protected mapping: the handler opens it.
    unsafe { std::ptr::write_volatile(first as *mut u8, 1) };
    assert_eq!(permissions_at(first + granule - PAGE_SIZE), "rw-p");
    if second < start + 8 * PAGE_SIZE {
        assert_eq!(permissions_at(second), "---p");
    }
    unprotect(start, 8 * PAGE_SIZE);
    // SAFETY: unmaps our own mapping.
    unsafe { libc::munmap(start as *mut libc::c_void, 8 * PAGE_SIZE) };
}
