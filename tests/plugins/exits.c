/* A test plugin that calls exit(EXIT_STATUS) in run() after one sample
 * (EXIT_STATUS: the `status` parameter, default 3). */
#include <numabench_plugin.h>
#include <stdlib.h>

static int run(const numabench_thread *thread) {
    thread->wait(thread);
    thread->sample(thread, "x", "count", 1.0);
    exit(atoi(thread->param(thread, "status")));
    return 0;
}

static const numabench_param params[] = {
    {.name = "status", .description = "the status passed to exit()", .default_value = "3"},
};

static const numabench_plugin plugin = {
    .abi_version = NUMABENCH_PLUGIN_ABI_VERSION,
    .name = "exits",
    .description = "calls exit() in run()",
    .params = params,
    .param_count = 1,
    .run = run,
};

const numabench_plugin *numabench_plugin_v1(void) { return &plugin; }
