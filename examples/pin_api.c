/*
 * pin_api - exercise the C API of libnumabench_pin (include/numabench_pin.h).
 *
 * Prints one "OK <check>" or "FAIL <check>: <why>" line per check; exit status 0
 * only if every check passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "numabench_pin.h"

static int failures;

static void check(int ok, const char *what, const char *why)
{
    if (ok) {
        printf("OK %s\n", what);
    } else {
        printf("FAIL %s: %s\n", what, why);
        failures++;
    }
}

int main(void)
{
    char what[128], why[256];

    /* The allowed CPUs, ascending, before anything is pinned. */
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        perror("sched_getaffinity");
        return 1;
    }
    int cpus[CPU_SETSIZE], count = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &allowed))
            cpus[count++] = cpu;

    int reported = numabench_pin_cpu_count();
    snprintf(why, sizeof why, "got %d, sched_getaffinity says %d", reported, count);
    check(reported == count, "numabench_pin_cpu_count", why);

    /* One full round and a bit: k >= count wraps around. */
    for (int k = 0; k < count + 2; k++) {
        int expected = cpus[k % count];
        int cpu = numabench_pin_thread(k);
        cpu_set_t now;
        CPU_ZERO(&now);
        sched_getaffinity(0, sizeof now, &now);
        int running = sched_getcpu();
        snprintf(what, sizeof what, "numabench_pin_thread(%d) -> cpu %d", k, expected);
        snprintf(why, sizeof why, "returned %d (%s), running on %d, affinity count %d", cpu,
                 cpu < 0 ? strerror(errno) : "no error", running, CPU_COUNT(&now));
        check(cpu == expected && running == expected && CPU_COUNT(&now) == 1
                  && CPU_ISSET(expected, &now),
              what, why);
    }

    errno = 0;
    int result = numabench_pin_thread(-1);
    snprintf(why, sizeof why, "returned %d, errno %d", result, errno);
    check(result == -1 && errno == EINVAL, "numabench_pin_thread(-1) fails with EINVAL", why);

    /* Node 0: exists on every Linux with NUMA support in the kernel. */
    int has_node0 = access("/sys/devices/system/node/node0/cpulist", R_OK) == 0;
    errno = 0;
    result = numabench_pin_self_to_node(0);
    int saved = errno;
    cpu_set_t now;
    CPU_ZERO(&now);
    sched_getaffinity(0, sizeof now, &now);
    if (has_node0) {
        snprintf(why, sizeof why, "returned %d (%s), affinity count %d", result,
                 result ? strerror(saved) : "no error", CPU_COUNT(&now));
        /* Pinned to node 0's allowed CPUs: a non-empty subset of the allowed set. */
        cpu_set_t outside;
        CPU_XOR(&outside, &now, &allowed);
        CPU_AND(&outside, &outside, &now);
        check(result == 0 && CPU_COUNT(&now) >= 1 && CPU_COUNT(&outside) == 0,
              "numabench_pin_self_to_node(0)", why);
    } else {
        snprintf(why, sizeof why, "returned %d, errno %d", result, saved);
        check(result == -1 && saved == EINVAL,
              "numabench_pin_self_to_node(0) fails with EINVAL (no node 0 in sysfs)", why);
    }

    errno = 0;
    result = numabench_pin_self_to_node(9999);
    snprintf(why, sizeof why, "returned %d, errno %d", result, errno);
    check(result == -1 && errno == EINVAL, "numabench_pin_self_to_node(9999) fails with EINVAL",
          why);

    errno = 0;
    result = numabench_pin_self_to_node(-1);
    snprintf(why, sizeof why, "returned %d, errno %d", result, errno);
    check(result == -1 && errno == EINVAL, "numabench_pin_self_to_node(-1) fails with EINVAL",
          why);

    printf("%s\n", failures ? "FAILED" : "ALL OK");
    return failures ? 1 : 0;
}
