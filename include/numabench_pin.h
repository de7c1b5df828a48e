/*
 * numabench_pin.h - C API of libnumabench_pin.so (crates/numabench-pin).
 *
 * Link with -lnumabench_pin (and an rpath, or LD_LIBRARY_PATH, to find it).
 *
 * The same library is numabench's LD_PRELOAD pinning shim: it exports
 * pthread_create, and with NUMABENCH_PIN_CPUS set (e.g. "0,2,1,3" or "0-3") pins
 * the thread made by the k-th pthread_create call (k = 0, 1, ... in call order) to
 * entry (k + NUMABENCH_PIN_SKIP) % length of that list before its start routine
 * runs (NUMABENCH_PIN_SKIP defaults to 1: the first entry is the main thread's).
 * With NUMABENCH_PIN_COUNTER naming a file shared by every process of a run
 * (numabench run makes one), the count goes on across processes instead: each
 * process's main thread (at fork, or when the library loads into a new program)
 * and each new thread takes the next entry, wrapping round, and
 * NUMABENCH_PIN_SKIP does not apply. NUMABENCH_PIN_WARNINGS names a file the
 * shim appends its warnings to (default: stderr).
 * Linking against the library for this API puts that pthread_create in front of
 * libc's too; without NUMABENCH_PIN_CPUS it only forwards to libc.
 *
 * "Allowed CPUs" below: the affinity of the thread making the first call into
 * this API, in ascending CPU order, read once and kept for the life of the
 * process (pinning through this API does not shrink it). Make the first call
 * from a thread that is not yet pinned, e.g. numabench_pin_cpu_count() early in
 * main().
 *
 * All functions act on the calling thread only and are thread-safe.
 */
#ifndef NUMABENCH_PIN_H
#define NUMABENCH_PIN_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * numabench_pin_cpu_count - number of allowed CPUs.
 *
 * Returns the count (>= 1), or -1 with errno set by sched_getaffinity if the
 * allowed set cannot be read.
 */
int numabench_pin_cpu_count(void);

/*
 * numabench_pin_thread - pin the calling thread to one CPU.
 *
 * Pins the calling thread to the n-th allowed CPU (0-based, taken modulo
 * numabench_pin_cpu_count(), so any n >= 0 is valid).
 *
 * Returns the CPU number it was pinned to, or -1 with errno set:
 *   EINVAL  n is negative;
 *   other   as set by sched_getaffinity/sched_setaffinity (e.g. EINVAL when the
 *           CPU was taken offline or removed from the cpuset since).
 */
int numabench_pin_thread(int n);

/*
 * numabench_pin_self_to_node - pin the calling thread to a NUMA node's CPUs.
 *
 * Restricts the calling thread to all allowed CPUs of NUMA node `node`, as
 * listed in /sys/devices/system/node/node<node>/cpulist (the thread may still
 * move between those CPUs). Memory policy is not changed.
 *
 * Returns 0, or -1 with errno set:
 *   EINVAL  node is negative, does not exist, or has no allowed CPU (including
 *           CPU-less memory nodes);
 *   other   as set by reading sysfs or by sched_setaffinity.
 */
int numabench_pin_self_to_node(int node);

#ifdef __cplusplus
}
#endif

#endif /* NUMABENCH_PIN_H */
