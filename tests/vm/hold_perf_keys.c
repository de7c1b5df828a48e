/*
 * hold_perf_keys: opens, on itself, one software perf event of each kind
 * numabench counts (page-faults, context-switches, cpu-migrations), then
 * says "holding" on stdout and sleeps until killed. Run in the background
 * by the VM harness's /init, which waits for that line while one CPU is
 * online, then brings the others online.
 *
 * Why: the first such event opened in the system enables kernel static keys
 * and the last one closed disables them; each flip patches kernel text with
 * int3 breakpoints and IPIs (text_poke_bp). Under QEMU's multi-threaded TCG
 * that patching sometimes livelocks the guest: vCPUs found spinning in
 * exc_int3 and native_queued_spin_lock_slowpath, no timer firing, the
 * heartbeat silent (two_sockets_applications stalled in 4 of its first 5
 * runs on an idle 2-core host).
 * Holding one event of each kind open for the whole run keeps the keys on,
 * so numabench's own opens and closes only move reference counts; and the
 * one flip that is left, this program's own opens, happens before a second
 * vCPU runs (the stall once hit that flip too: splits::four_nodes_node_splits
 * in CI, both attempts).
 * Real CPUs patch text correctly; this is for the emulator only.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void) {
    const unsigned long long kinds[] = {
        PERF_COUNT_SW_PAGE_FAULTS,
        PERF_COUNT_SW_CONTEXT_SWITCHES,
        PERF_COUNT_SW_CPU_MIGRATIONS,
    };
    for (unsigned i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        struct perf_event_attr attr;
        memset(&attr, 0, sizeof attr);
        attr.size = sizeof attr;
        attr.type = PERF_TYPE_SOFTWARE;
        attr.config = kinds[i];
        /* A per-task event, as numabench's are (they also enable the
         * scheduler's perf_sched_events key). */
        if (syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0) < 0) {
            perror("hold_perf_keys: perf_event_open");
            return 1;
        }
    }
    printf("holding\n");
    fflush(stdout);
    for (;;)
        pause();
}
