#!/usr/bin/env python3
"""`mcpscope check` (issue 26) by its numbers, side by side with the official conformance suite's
`server` mode where both apply.

Run from the repository root, on the release build the numbers are of:

    cargo ship && cargo build --release -p mcpscope-testkit
    python3 bench/check.py               # writes bench/RESULTS-check.md
    python3 bench/check.py --quick       # fewer repetitions, printed only

Cases (each the median of N runs, wall time from spawn to exit):

1. `mcpscope check --demo`: the built-in demo over stdio, both eras (goal: under 2 s).
2. The demo over Streamable HTTP (`mcpscope demo-server --http 0`): `mcpscope check URL` (both
   eras) against the official suite, `conformance server --url URL --requirements 2025-11-25`
   and `--requirements 2026-07-28` (0.2.0-alpha.12, run with the Node 22 it needs), their sum
   against ours. The suite's verdicts are printed too: most of its tool, prompt and resource
   scenarios call fixture tools a real server does not have (conformance#516), so its failures
   on the demo are not the demo's.
3. A 1,000-tool server (`mcpscope-testkit many-tools`, 50 per page; goal: under 5 s).
4. A server that never answers (`mcpscope-testkit silent`) with `--timeout 3`: the run ends at
   its bound whatever the server does.
"""

import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MCPSCOPE = os.environ.get("BENCH_MCPSCOPE", os.path.join(ROOT, "target", "release", "mcpscope"))
TESTKIT = os.environ.get("BENCH_TESTKIT", os.path.join(ROOT, "target", "release", "mcpscope-testkit"))
NODE22 = os.path.join(ROOT, ".peers", "node22", "node_modules", ".bin", "node")
SUITE = os.path.join(ROOT, ".peers", "peers", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")


def timed(cmd, runs):
    """Median wall seconds of `runs` runs of `cmd`, and the last run's exit code and stdout."""
    times, last = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        last = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), last


def counts(stdout):
    """The closing count line of a text report."""
    lines = [l for l in stdout.splitlines() if " passed · " in l]
    return lines[-1].strip() if lines else "(no summary)"


def start_demo_http():
    # The demo says where it listens on stderr.
    proc = subprocess.Popen([MCPSCOPE, "demo-server", "--http", "0"], stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    url = re.search(r"http://\S+/mcp", line).group(0)
    return proc, url


def suite_line(stdout):
    m = re.search(r"Total: (\d+) passed, (\d+) failed", stdout)
    return f"{m.group(1)} passed, {m.group(2)} failed" if m else "(no total)"


def main():
    quick = "--quick" in sys.argv
    runs = 3 if quick else 10
    rows = []
    build = "release" if "/release/" in MCPSCOPE else "debug"

    t, r = timed([MCPSCOPE, "check", "--demo"], runs)
    rows.append(("`check --demo` (stdio, both eras)", f"{t * 1000:.0f} ms", "—", "—", counts(r.stdout)))

    demo, url = start_demo_http()
    try:
        ours, r = timed([MCPSCOPE, "check", url], runs)
        suite_total, suite_verdicts = None, []
        if os.path.exists(NODE22) and os.path.exists(SUITE):
            suite_total = 0.0
            for rev in ("2025-11-25", "2026-07-28"):
                st, sr = timed([NODE22, SUITE, "server", "--url", url, "--requirements", rev], max(1, runs // 3))
                suite_total += st
                suite_verdicts.append(f"{rev}: {suite_line(sr.stdout)}")
        rows.append((
            "demo over HTTP, both eras",
            f"{ours * 1000:.0f} ms",
            f"{suite_total * 1000:.0f} ms" if suite_total else "not installed",
            f"{suite_total / ours:.0f}×" if suite_total else "—",
            counts(r.stdout) + ("; suite " + "; ".join(suite_verdicts) if suite_verdicts else ""),
        ))
    finally:
        demo.terminate()
        demo.wait()

    t, r = timed([MCPSCOPE, "check", TESTKIT, "--", "many-tools", "--count", "1000"], runs)
    rows.append(("1,000 tools (20 pages)", f"{t * 1000:.0f} ms", "—", "—", counts(r.stdout)))

    t, r = timed([MCPSCOPE, "check", "--timeout", "3", TESTKIT, "silent"], 1)
    rows.append(("a silent server, `--timeout 3`", f"{t:.2f} s", "—", "—", f"exit {r.returncode}"))

    out = [
        "# `mcpscope check` — results",
        "",
        f"Written by `bench/check.py` ({build} build, median of {runs} runs; the suite's median of "
        f"{max(1, runs // 3)} per revision), {time.strftime('%Y-%m-%d')}, on this 2-core machine.",
        "",
        "| Case | mcpscope check | official suite `server` | ratio | verdicts |",
        "|---|---|---|---|---|",
    ]
    out += [f"| {a} | {b} | {c} | {d} | {e} |" for a, b, c, d, e in rows]
    text = "\n".join(out) + "\n"
    print(text)
    if not quick:
        with open(os.path.join(ROOT, "bench", "RESULTS-check.md"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
