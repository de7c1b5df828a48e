/*
 * An example numabench plugin: every thread reads its buffer through,
 * `passes` times (a parameter), after the start barrier, and reports its
 * read bandwidth in GB/s.
 *
 *     make -C examples/plugins
 *     NUMABENCH_PLUGIN_PATH=examples/plugins numabench list --describe
 *     numabench plugin --plugin examples/plugins/libnumabench_read_bandwidth.so \
 *         read-bandwidth --threads 2 --size 64M --param passes=4
 */
#include <numabench_plugin.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int run(const numabench_thread *thread) {
    const char *text = thread->param(thread, "passes");
    long passes = text ? strtol(text, NULL, 10) : 1;
    if (passes < 1)
        return 1;
    const volatile uint64_t *words = thread->buffer;
    size_t count = thread->buffer_bytes / sizeof(uint64_t);
    uint64_t sum = 0;
    thread->wait(thread);
    double start = now();
    for (long pass = 0; pass < passes; pass++)
        for (size_t i = 0; i < count; i++)
            sum += words[i];
    double seconds = now() - start;
    /* Keep the sum alive so the loads stay. */
    if (sum == 1)
        thread->sample(thread, "checksum", "count", (double)sum);
    thread->sample(thread, "read_bandwidth", "GB/s",
                   (double)thread->buffer_bytes * passes / seconds / 1e9);
    return 0;
}

static const numabench_param params[] = {
    {"passes", "read the buffer this many times per repetition", "1"},
};

static const numabench_plugin plugin = {
    .abi_version = NUMABENCH_PLUGIN_ABI_VERSION,
    .name = "read-bandwidth",
    .description = "each thread reads its own placed buffer through; GB/s per thread",
    .params = params,
    .param_count = sizeof params / sizeof params[0],
    .run = run,
};

const numabench_plugin *numabench_plugin_v1(void) { return &plugin; }
