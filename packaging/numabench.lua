-- Lmod modulefile for numabench installed with `scripts/install --prefix PREFIX`.
-- Copy it to MODULEPATH/numabench/VERSION.lua and set `root` to the prefix.
-- The prefix may be moved: numabench finds its libraries in ../lib relative
-- to itself, so only `root` changes.
help([[
numabench: what NUMA costs on this machine, and which thread and memory
placement makes a program fast and repeatable. Start with
`numabench characterize`, then `numabench report`; `man numabench`.
]])
whatis("Name: numabench")
whatis("Description: NUMA bandwidth/latency characterization, placement studies, pinned runs")

local root = "/opt/numabench"

prepend_path("PATH", pathJoin(root, "bin"))
prepend_path("MANPATH", pathJoin(root, "share/man"))
-- C programs that use the pinning API (include/numabench_pin.h) link libnumabench_pin.
prepend_path("CPATH", pathJoin(root, "include"))
prepend_path("LIBRARY_PATH", pathJoin(root, "lib"))
prepend_path("LD_LIBRARY_PATH", pathJoin(root, "lib"))
-- Site plugins (include/numabench_plugin.h): uncomment with a directory that exists.
-- prepend_path("NUMABENCH_PLUGIN_PATH", pathJoin(root, "lib/numabench/plugins"))
