#!/usr/bin/env python3
"""The allocator question of issue 8: bench/web.py's backend RSS holding 100,000 frames under
glibc, glibc with one arena, and jemalloc / mimalloc swapped in by LD_PRELOAD (Debian's shared
builds: `apt-get install libjemalloc2 libmimalloc2.0`), interleaved round by round because the
machine is shared. No rebuild is needed, so any build can be measured:

    BENCH_MCPSCOPE=target/debug/mcpscope BENCH_TESTKIT=target/debug/mcpscope-testkit \
        python3 bench/alloc_rss.py 3

Prints each run, then a markdown row per allocator (median (lowest-highest)). A preloaded
allocator also answers the malloc calls of SQLite and aws-lc, as a `#[global_allocator]` crate
would not; its start-up cost is not this one's (a shared library to load), so start-up is
measured with a real build (bench/startup.py --before).
"""
import os, re, subprocess, sys, statistics, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = {
    "glibc": {},
    "glibc ARENA_MAX=1": {"MALLOC_ARENA_MAX": "1"},
    "jemalloc 5.3 (preload)": {"LD_PRELOAD": "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"},
    "mimalloc 2.0.9 (preload)": {"LD_PRELOAD": "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2"},
}
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
res = {k: [] for k in CASES}
for r in range(rounds):
    for name, extra in CASES.items():
        env = dict(os.environ, **extra)
        out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "web.py"), "--runs", "3", "--out", os.path.join(tempfile.gettempdir(), f"alloc-rss-{r}.md")],
                             env=env, capture_output=True, text=True, cwd=ROOT).stdout
        rss = float(re.search(r"frames \(10,000.*?\*\*([\d.]+) MiB\*\* \(peak ([\d.]+)", out).group(1))
        idle = float(re.search(r"idle RSS ([\d.]+)", out).group(1))
        call = float(re.search(r"answered in ([\d.]+) s", out).group(1))
        after = float(re.search(r"RSS ([\d.]+) MiB \(peak [\d.]+ MiB\)\.\n", out).group(1))
        res[name].append((rss, idle, call, after))
        print(r, name, rss, idle, call, after, flush=True)
for name, v in res.items():
    med = lambda i: statistics.median(x[i] for x in v)
    print(f"| {name} | {med(0):.1f} ({min(x[0] for x in v):.1f}–{max(x[0] for x in v):.1f}) | idle {med(1):.1f} | call {med(2):.2f} s | after tools {med(3):.1f} |")
