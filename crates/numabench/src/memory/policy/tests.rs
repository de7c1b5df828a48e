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
        assert_eq!(policy, MemoryPolicy::new(mode, nodes), "{text}");
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
        let error = MemoryPolicy::parse(text).unwrap().unwrap_err().to_string();
        assert!(error.contains(reason), "{text}: {error}");
    }
    assert_eq!(
        parsed("bind:all").single_node().unwrap_err().to_string(),
        "bind takes one node"
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
        let policy = MemoryPolicy::new(mode, vec![0]);
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

#[test]
fn weighted_forms_round_trip_and_bad_weights_say_why() {
    for (text, nodes, weights) in [
        ("weighted:0=3,2=1", vec![0, 2], vec![3, 1]),
        ("weighted:0=1", vec![0], vec![1]),
        ("weighted:0,2", vec![0, 2], vec![]),
        ("weighted", vec![], vec![]),
    ] {
        let policy = parsed(text);
        assert_eq!(policy.mode, PolicyMode::WeightedInterleave, "{text}");
        assert_eq!(
            (policy.nodes.clone(), policy.weights.clone()),
            (nodes, weights)
        );
        assert_eq!(policy.label(), text);
        assert_eq!(parsed(&policy.label()), policy);
    }
    // Nodes in any order; the label sorts them.
    assert_eq!(parsed("weighted:2=1,0=3").label(), "weighted:0=3,2=1");
    assert_eq!(parsed("weighted:all").label(), "weighted");
    assert_eq!(PolicyMode::WeightedInterleave.mpol(), 6);
    for (text, reason) in [
        ("weighted:0=0", "node 0's weight 0 is not from 1 to 255"),
        ("weighted:0=256", "node 0's weight 256 is not from 1 to 255"),
        ("weighted:0=1,0=2", "node 0 is given twice"),
        ("weighted:0=3,2", "'2' is not NODE=WEIGHT"),
        ("weighted:x=1", "'x=1' is not NODE=WEIGHT"),
    ] {
        let error = MemoryPolicy::parse(text).unwrap().unwrap_err().to_string();
        assert!(error.contains(reason), "{text}: {error}");
    }
}

#[test]
fn a_weighted_policy_is_placed_by_its_weights() {
    let per_node: BTreeMap<u32, u64> = [(0, 75), (1, 25)].into_iter().collect();
    assert_eq!(
        parsed("weighted:0=3,1=1").fraction_placed(&per_node, 100, 1),
        1.0
    );
    assert_eq!(
        parsed("weighted:0=1,1=1").fraction_placed(&per_node, 100, 1),
        0.75
    );
    // or_nodes keeps a weighted policy's weights, and fills a bare one.
    assert_eq!(
        parsed("weighted:0=3,1=1").or_nodes(&[0, 1, 2]),
        parsed("weighted:0=3,1=1")
    );
    assert_eq!(parsed("weighted").or_nodes(&[0, 1]), parsed("weighted:0-1"));
}

/// The emulation binds the buffer's chunks in the weights' pattern (here
/// all to node 0, the one node every machine has), and the kernel's mode,
/// where this kernel has it, places every page on the only node weighted.
#[test]
fn a_weighted_buffer_lands_where_its_weights_say_in_either_mode() {
    use crate::memory::location::page_nodes;
    let policy = parsed("weighted:0=3");
    let emulated = Buffer::new(64 * PAGE_SIZE).unwrap();
    policy.apply_emulated(&emulated).unwrap();
    let mut emulated = emulated;
    emulated.touch_pages();
    let nodes = page_nodes(emulated.as_ptr(), emulated.len()).unwrap();
    assert_eq!(nodes.per_node.get(&0), Some(&64));
    match policy.weighted_mode().unwrap() {
        Ok(weighted::WeightedMode::Kernel) => {
            let mut buffer = Buffer::new(64 * PAGE_SIZE).unwrap();
            policy.apply(&buffer).unwrap();
            buffer.touch_pages();
            let nodes = page_nodes(buffer.as_ptr(), buffer.len()).unwrap();
            assert_eq!(
                policy.fraction_placed(&nodes.per_node, 64, 1),
                1.0,
                "{nodes:?}"
            );
            let held = std::thread::spawn(move || {
                policy.set_for_this_thread().unwrap();
                thread_mempolicy().unwrap()
            })
            .join()
            .unwrap();
            assert_eq!(held, (6, vec![0]));
        }
        // A kernel without weighted interleave (before 6.9), or with
        // another weight on node 0 than a multiple: emulated, as above.
        other => assert!(
            weighted::kernel_weights().is_none() || other == Ok(weighted::WeightedMode::Emulated),
            "{other:?}"
        ),
    }
}
