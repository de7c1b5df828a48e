//! The shared memory policy: its text forms, its kernel modes, and what
//! the kernel holds once it is set.

use super::*;
use crate::memory::syscalls::thread_mempolicy;

fn parsed(text: &str) -> MemoryPolicy {
    MemoryPolicy::parse(text)
        .unwrap_or_else(|| panic!("{text}: not a policy form"))
        .unwrap_or_else(|error| panic!("{text}: {error}"))
}

/// Every form `--placement` (bind, interleave) and `run --policy` (bind,
/// membind, interleave, preferred, preferred-many) write reads back to
/// the same text, and each label parses to the policy it came from.
#[test]
fn every_form_round_trips_through_its_label() {
    for (text, mode, nodes) in [
        ("bind:1", PolicyMode::Bind, vec![1]),
        ("membind:0-1", PolicyMode::Bind, vec![0, 1]),
        ("membind:all", PolicyMode::Bind, vec![]),
        ("interleave", PolicyMode::Interleave, vec![]),
        ("interleave:0", PolicyMode::Interleave, vec![0]),
        ("interleave:0-3", PolicyMode::Interleave, vec![0, 1, 2, 3]),
        ("interleave:0,2", PolicyMode::Interleave, vec![0, 2]),
        ("preferred:1", PolicyMode::Preferred, vec![1]),
        ("preferred:all", PolicyMode::Preferred, vec![]),
        ("preferred-many:0,2", PolicyMode::PreferredMany, vec![0, 2]),
    ] {
        let policy = parsed(text);
        assert_eq!(policy, MemoryPolicy { mode, nodes }, "{text}");
        assert_eq!(policy.label(), text);
        assert_eq!(parsed(&policy.label()), policy);
    }
    // Other spellings of the same policies: the label is the canonical one.
    for (text, label) in [
        ("interleave:all", "interleave"),
        ("membind:1", "bind:1"),
        ("bind:all", "membind:all"),
        ("interleave:1,0", "interleave:0-1"),
    ] {
        assert_eq!(parsed(text).label(), label, "{text}");
    }
    assert_eq!(MemoryPolicy::bind(3), parsed("bind:3"));
    assert_eq!(MemoryPolicy::interleave(vec![]), parsed("interleave:all"));
}

#[test]
fn only_policy_forms_parse_and_bad_nodes_say_why() {
    for text in [
        "bind",
        "membind",
        "preferred",
        "local",
        "first-touch",
        "pin-compact",
    ] {
        assert_eq!(MemoryPolicy::parse(text), None, "{text}");
    }
    for (text, reason) in [
        ("bind:0-1", "bind takes one node"),
        (
            "preferred:0,1",
            "preferred takes one node (preferred-many takes a list)",
        ),
        ("bind:x", "malformed"),
        ("interleave:0,,1", "malformed"),
    ] {
        let error = MemoryPolicy::parse(text).unwrap().unwrap_err();
        assert!(error.contains(reason), "{text}: {error}");
    }
    assert_eq!(
        parsed("bind:all").single_node(),
        Err("bind takes one node".into())
    );
    assert_eq!(parsed("preferred:2").single_node(), Ok(2));
}

/// Each mode is the MPOL_* value of linux/mempolicy.h, and back.
#[test]
fn modes_map_to_the_kernel_constants_and_back() {
    for (mode, mpol) in [
        (PolicyMode::Preferred, libc::MPOL_PREFERRED),
        (PolicyMode::Bind, libc::MPOL_BIND),
        (PolicyMode::Interleave, libc::MPOL_INTERLEAVE),
        (PolicyMode::PreferredMany, MPOL_PREFERRED_MANY),
    ] {
        assert_eq!(mode.mpol(), mpol, "{mode:?}");
        assert_eq!(PolicyMode::from_mpol(mpol), Some(mode));
    }
    assert_eq!(PolicyMode::from_mpol(libc::MPOL_DEFAULT), None);
    assert_eq!(PolicyMode::from_mpol(libc::MPOL_LOCAL), None);
    // Every mode has its own value.
    let mut values: Vec<_> = PolicyMode::ALL.iter().map(|mode| mode.mpol()).collect();
    values.dedup();
    assert_eq!(values.len(), PolicyMode::ALL.len());
}

/// Set on a thread, the policy is what the kernel then reports for it.
#[test]
fn a_policy_set_on_a_thread_is_what_the_kernel_holds() {
    for mode in [
        PolicyMode::Bind,
        PolicyMode::Interleave,
        PolicyMode::Preferred,
    ] {
        let policy = MemoryPolicy {
            mode,
            nodes: vec![0],
        };
        let held = std::thread::spawn(move || {
            policy.set_for_this_thread().unwrap();
            thread_mempolicy().unwrap()
        })
        .join()
        .unwrap();
        assert_eq!(held, (mode.mpol(), vec![0]), "{mode:?}");
    }
}

#[test]
fn or_nodes_fills_in_only_an_empty_list() {
    assert_eq!(
        parsed("interleave").or_nodes(&[0, 1]),
        parsed("interleave:0-1")
    );
    assert_eq!(
        parsed("interleave:1").or_nodes(&[0, 1]),
        parsed("interleave:1")
    );
}

#[test]
fn the_fraction_placed_follows_the_mode() {
    let per_node: BTreeMap<u32, u64> = [(0, 75), (1, 25)].into_iter().collect();
    assert_eq!(
        MemoryPolicy::bind(0).fraction_placed(&per_node, 100, 1),
        0.75
    );
    assert_eq!(
        parsed("membind:0-1").fraction_placed(&per_node, 100, 1),
        1.0
    );
    // An even split is asked: node 0's pages beyond its half are misplaced.
    assert_eq!(
        parsed("interleave:0-1").fraction_placed(&per_node, 100, 1),
        0.75
    );
    assert_eq!(MemoryPolicy::bind(0).fraction_placed(&per_node, 0, 1), 0.0);
}
