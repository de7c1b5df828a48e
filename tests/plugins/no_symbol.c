/* A shared library that is not a numabench plugin (no numabench_plugin_v1). */
int not_a_plugin(void) { return 42; }
