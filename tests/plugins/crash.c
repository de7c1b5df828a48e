/* A test plugin that crashes (SIGSEGV) in run(). */
#include <numabench_plugin.h>
#include <stddef.h>

static int run(const numabench_thread *thread) {
    thread->wait(thread);
    volatile int *nowhere = NULL;
    *nowhere = 1;
    return 0;
}

static const numabench_plugin plugin = {
    .abi_version = NUMABENCH_PLUGIN_ABI_VERSION,
    .name = "crash",
    .description = "dereferences a null pointer",
    .run = run,
};

const numabench_plugin *numabench_plugin_v1(void) { return &plugin; }
