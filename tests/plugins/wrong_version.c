/* A test plugin built for an ABI numabench does not speak. */
#include <numabench_plugin.h>

static int run(const numabench_thread *thread) { (void)thread; return 0; }

static const numabench_plugin plugin = {
    .abi_version = 99,
    .name = "future",
    .description = "ABI version 99",
    .run = run,
};

const numabench_plugin *numabench_plugin_v1(void) { return &plugin; }
