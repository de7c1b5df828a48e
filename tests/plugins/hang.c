/* A test plugin that never returns from run(): it forks a grandchild that
 * sleeps as well (both must be stopped), then sleeps forever. */
#include <numabench_plugin.h>
#include <unistd.h>

static int run(const numabench_thread *thread) {
    thread->wait(thread);
    if (fork() == 0) {
        for (;;) pause();
    }
    for (;;) pause();
    return 0;
}

static const numabench_plugin plugin = {
    .abi_version = NUMABENCH_PLUGIN_ABI_VERSION,
    .name = "hang",
    .description = "never returns (and forks a child that never returns)",
    .run = run,
};

const numabench_plugin *numabench_plugin_v1(void) { return &plugin; }
