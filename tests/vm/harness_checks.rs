//! The harness's own checks (no VM, but for one ignored test): topologies
//! translate to QEMU arguments, impossible ones are refused, and commands
//! may not switch the kernel's static keys.

use super::harness::{self, VmOptions};
use super::{numabench, topologies};

#[test]
fn topologies_are_valid_and_translate_to_qemu_arguments() {
    let t = topologies::two_sockets();
    t.validate().unwrap();
    let args = t.qemu_machine_args().join(" ");
    for want in [
        "-accel tcg",
        "-smp 4,sockets=2,cores=2,threads=1",
        "-m 768M",
        "-numa node,nodeid=0,cpus=0-1,memdev=mem0",
        "-numa dist,src=0,dst=1,val=21",
        "-numa dist,src=1,dst=0,val=21",
    ] {
        assert!(args.contains(want), "{want:?} missing from {args}");
    }
    assert!(!args.contains("hmat"), "{args}");

    let t = topologies::four_nodes_cpuless_hmat();
    t.validate().unwrap();
    let args = t.qemu_machine_args().join(" ");
    for want in [
        "-machine pc,hmat=on",
        "-numa node,nodeid=3,memdev=mem3,initiator=1",
        "-numa node,nodeid=0,cpus=0-1,memdev=mem0,initiator=0",
        "-numa dist,src=0,dst=1,val=21",
        "-numa dist,src=1,dst=0,val=24",
        "hmat-lb,initiator=1,target=3,hierarchy=memory,data-type=access-latency,latency=250",
        "hmat-lb,initiator=1,target=3,hierarchy=memory,data-type=access-bandwidth,bandwidth=8192M",
    ] {
        assert!(args.contains(want), "{want:?} missing from {args}");
    }
    assert_eq!(t.visible_hmat().len(), 4);
}

#[test]
fn harness_rejects_topologies_linux_would_renumber() {
    let mut t = topologies::four_nodes_cpuless_hmat();
    t.nodes.swap(2, 3); // CPU-less node before a node with CPUs
    for row in t.distances.as_mut().unwrap() {
        row.swap(2, 3);
    }
    t.distances.as_mut().unwrap().swap(2, 3);
    t.hmat.clear();
    let err = t.validate().unwrap_err();
    assert!(err.contains("Linux would number"), "{err}");
}

/// A command may not switch NUMA balancing: that flips a kernel static key
/// with every vCPU online (see `harness::KERNEL_CMDLINE`). Reading it is fine.
#[test]
fn harness_refuses_commands_that_switch_numa_balancing() {
    for command in [
        "echo 0 > /proc/sys/kernel/numa_balancing && numabench latency",
        "echo 1 >/proc/sys/kernel/numa_balancing",
        "sysctl -w kernel.numa_balancing=1",
    ] {
        let err = harness::refuse_static_key_writes(&["true", command]).unwrap_err();
        assert!(err.contains("VmOptions::numa_balancing"), "{err}");
        assert!(err.contains(command), "{err}");
    }
    harness::refuse_static_key_writes(&[
        "cat /proc/sys/kernel/numa_balancing",
        "numabench stream > /tmp/out",
    ])
    .unwrap();
}

/// Every run checks that `/init` set the kernel's static keys while CPU 0
/// alone was online; a guest that could not take its CPUs offline fails
/// saying so instead of passing unprotected.
#[test]
fn harness_checks_static_keys_were_set_on_one_cpu() {
    let said = |cpus: &str| {
        format!("init started\nnumabench-vm [7.7 s]: static keys set with CPUs online: {cpus}\r\n")
    };
    harness::keys_set_on_one_cpu(&said("0")).unwrap();
    let err = harness::keys_set_on_one_cpu(&said("0-5")).unwrap_err();
    assert!(err.contains("CPUs 0-5 online"), "{err}");
    let err = harness::keys_set_on_one_cpu("init started\n").unwrap_err();
    assert!(err.contains("never said"), "{err}");
}

/// The harness tells a stalled guest (no heartbeat) from a slow command:
/// stopping the heartbeat makes the run be made twice, then fail saying the
/// guest stalled. Ignored: it takes two boots and two stall limits.
#[test]
#[ignore]
fn a_guest_without_heartbeat_counts_as_stalled() {
    let error = harness::run_in_vm_with(
        &topologies::two_sockets(),
        &[numabench()],
        &["kill $(cat /vm/heartbeat.pid) && sleep 300"],
        VmOptions::default(),
    )
    .unwrap_err();
    assert!(error.contains("stalled twice"), "{error}");
}
