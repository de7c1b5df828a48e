/* A test plugin that returns success without ever calling sample(). */
#include <numabench_plugin.h>

static int run(const numabench_thread *thread) {
    thread->wait(thread);
    return 0;
}

static const numabench_plugin plugin = {
    .abi_version = NUMABENCH_PLUGIN_ABI_VERSION,
    .name = "no-sample",
    .description = "measures nothing and reports no sample",
    .run = run,
};

const numabench_plugin *numabench_plugin_v1(void) { return &plugin; }
