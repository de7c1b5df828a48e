/*
 * numabench_plugin.h - the C ABI of numabench benchmark plugins, version 1.
 *
 * A plugin is a shared library exporting one function,
 *
 *     const numabench_plugin *numabench_plugin_v1(void);
 *
 * that returns a descriptor with abi_version == NUMABENCH_PLUGIN_ABI_VERSION:
 * the plugin's name, description, parameters and its run function.
 *
 * numabench loads plugins from the directories and files listed in
 * NUMABENCH_PLUGIN_PATH (colon-separated) and from --plugin FILE. It runs a
 * plugin in a child process (a crash loses nothing already written), with
 * --threads threads pinned to CPUs, each with its own buffer of --size bytes
 * that numabench allocated, placed (first touch by its thread, or bound with
 * --mem-node) and verified before the run. run() is called on every thread,
 * --repeat times; each call should wait at the start barrier, measure, and
 * report what it measured through sample(). numabench turns the samples into
 * records (median over threads and repetitions, with the placement check).
 *
 * A run fails, naming the plugin, when the child is killed by a signal,
 * ends (exit(), even exit(0)) before numabench's runner finished, reports
 * no sample at all, or is still running after --timeout (default 1h; then
 * SIGTERM, and SIGKILL 2 s later). The child runs in its own process group:
 * SIGINT or SIGTERM sent to numabench is forwarded to that group.
 */
#ifndef NUMABENCH_PLUGIN_H
#define NUMABENCH_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NUMABENCH_PLUGIN_ABI_VERSION 1u

/* A parameter the plugin accepts (--param NAME=VALUE). */
typedef struct numabench_param {
    const char *name;
    const char *description;
    const char *default_value;
} numabench_param;

/* What one thread of the run gets. */
typedef struct numabench_thread {
    uint32_t abi_version;  /* NUMABENCH_PLUGIN_ABI_VERSION */
    uint32_t index;        /* 0 .. threads - 1 */
    uint32_t threads;
    uint32_t cpu;          /* the CPU this thread is pinned to */
    uint32_t repetition;   /* 0 .. repeat - 1 */
    void *buffer;          /* this thread's buffer: allocated, placed, verified */
    size_t buffer_bytes;
    /* The value of a parameter (given, else its default); NULL if unknown. */
    const char *(*param)(const struct numabench_thread *thread, const char *name);
    /* The start barrier: returns once every thread has called it. */
    void (*wait)(const struct numabench_thread *thread);
    /* Reports one measured value. unit: "ns", "GB/s", "s", "cycles",
       "Mop/s", "ratio" or "count"; anything else fails the run. */
    void (*sample)(const struct numabench_thread *thread, const char *metric,
                   const char *unit, double value);
    void *numabench;       /* numabench's own; do not touch */
} numabench_thread;

/* The descriptor numabench_plugin_v1() returns (static storage). */
typedef struct numabench_plugin {
    uint32_t abi_version;  /* NUMABENCH_PLUGIN_ABI_VERSION */
    const char *name;      /* [a-z0-9-]+, as in list and --only */
    const char *description;
    const numabench_param *params;
    size_t param_count;
    /* Called on every thread, once per repetition; 0 on success. */
    int (*run)(const numabench_thread *thread);
} numabench_plugin;

const numabench_plugin *numabench_plugin_v1(void);

#ifdef __cplusplus
}
#endif

#endif /* NUMABENCH_PLUGIN_H */
