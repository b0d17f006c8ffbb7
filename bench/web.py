#!/usr/bin/env python3
"""mcpscope web backend at scale: 100,000 traffic frames and a 10,000-tool list.

Starts the real `mcpscope` web UI (release build) with its own data directory and a catalog of
two testkit servers — `flood` (one tools/call that sends 100,000 notifications/message) and
`tools` (tools/list with 10,000 tools) — and drives it over its HTTP API like the SPA does:

- ingest: the time for the flood call to come back, and until SQLite holds every frame;
- backend RSS (VmRSS after ingest, VmHWM peak) with 100,000 frames in the window + SQLite;
- /api/servers/:name/frames pages of 500: newest (memory window), paging back past the window
  (SQLite), the oldest (SQLite), and a source filter that matches nothing in the window;
- /api/servers/:name/list of 10,000 tools, in one page and in 100 pages of 100.

Run from the repository root:

    cargo ship && cargo build --release -p mcpscope-testkit
    python3 bench/web.py            # writes bench/RESULTS-web.md
"""

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (write_section, the one owner of a results file's generated part)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Another build can be measured in place of target/release (bench/alloc_rss.py uses this).
MCPSCOPE = os.environ.get("BENCH_MCPSCOPE", os.path.join(ROOT, "target", "release", "mcpscope"))
TESTKIT = os.environ.get("BENCH_TESTKIT", os.path.join(ROOT, "target", "release", "mcpscope-testkit"))
TOKEN = "bench-token"
FRAMES = 100_000
TOOLS = 10_000


def status_kb(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


class Api:
    def __init__(self, base):
        self.base = base

    def call(self, method, path, body=None, timeout=600):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("x-mcp-remote-auth", "Bearer " + TOKEN)
        if data is not None:
            req.add_header("content-type", "application/json")
        t = time.perf_counter()
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw = r.read()
        return time.perf_counter() - t, raw

    def timed(self, method, path, body=None, runs=20):
        times, size = [], 0
        for _ in range(runs):
            dt, raw = self.call(method, path, body)
            times.append(dt * 1000)
            size = len(raw)
        return statistics.median(times), size, json.loads(raw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "RESULTS-web.md"))
    args = ap.parse_args()
    for exe in (MCPSCOPE, TESTKIT):
        if not os.path.exists(exe):
            sys.exit(f"{exe} is missing: cargo ship && cargo build --release -p mcpscope-testkit")

    data = tempfile.mkdtemp(prefix="mcpscope-web-bench-")
    catalog = os.path.join(data, "mcp.json")
    with open(catalog, "w") as f:
        json.dump({"mcpServers": {
            "flood": {"command": TESTKIT, "args": ["flood", "--count", str(FRAMES)],
                      "protocolEra": "legacy", "requestTimeout": 0},
            "tools": {"command": TESTKIT,
                      "args": ["many-tools", "--count", str(TOOLS), "--page-size", str(TOOLS)],
                      "protocolEra": "legacy"},
            "tools-paged": {"command": TESTKIT,
                            "args": ["many-tools", "--count", str(TOOLS), "--page-size", "100"],
                            "protocolEra": "legacy"},
        }}, f)
    env = dict(os.environ, MCPSCOPE_DATA_DIR=data, CLIENT_PORT="0",
               MCP_INSPECTOR_API_TOKEN=TOKEN)
    for k in ("HOST", "DANGEROUSLY_OMIT_AUTH", "ALLOWED_ORIGINS"):
        env.pop(k, None)
    t0 = time.perf_counter()
    p = subprocess.Popen([MCPSCOPE, "--no-open", "--catalog", catalog], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = p.stdout.readline()
    startup_ms = (time.perf_counter() - t0) * 1000
    base = line.split("web UI: ", 1)[1].split("/?token=", 1)[0].strip()
    api = Api(base)
    results = {}
    try:
        idle_rss = status_kb(p.pid, "VmRSS") / 1024
        api.call("POST", "/api/servers/flood/connect", {})
        t = time.perf_counter()
        api.call("POST", "/api/servers/flood/request",
                 {"method": "tools/call", "params": {"name": "flood", "arguments": {}},
                  "timeoutMs": None})
        call_s = time.perf_counter() - t
        db = sqlite3.connect(f"file:{os.path.join(data, 'history.sqlite')}?mode=ro", uri=True)
        while True:
            n = db.execute("SELECT COUNT(*) FROM frames WHERE server = 'flood'").fetchone()[0]
            if n >= FRAMES:
                break
            if time.perf_counter() - t > 600:
                sys.exit(f"only {n} frames reached SQLite in 600 s")
            time.sleep(0.05)
        persisted_s = time.perf_counter() - t
        db_mb = sum(os.path.getsize(os.path.join(data, f)) for f in os.listdir(data)
                    if f.startswith("history.sqlite")) / (1 << 20)
        rss = status_kb(p.pid, "VmRSS") / 1024
        hwm = status_kb(p.pid, "VmHWM") / 1024
        newest = api.timed("GET", "/api/servers/flood/frames?limit=500", runs=args.runs)
        first_in_window = newest[2]["frames"][0]["seq"] - (10_000 - 500)
        back = api.timed("GET", f"/api/servers/flood/frames?before={first_in_window}&limit=500",
                         runs=args.runs)
        oldest = api.timed("GET", "/api/servers/flood/frames?after=0&limit=500", runs=args.runs)
        tail = api.timed("GET", f"/api/servers/flood/frames?after={newest[2]['frames'][-1]['seq'] - 500}&limit=500",
                         runs=args.runs)
        stderr_only = api.timed("GET", "/api/servers/flood/frames?limit=500&source=stderr",
                                runs=args.runs)
        api.call("POST", "/api/servers/flood/disconnect", {})

        api.call("POST", "/api/servers/tools/connect", {})
        one = api.timed("POST", "/api/servers/tools/list", {"method": "tools/list"},
                        runs=max(3, args.runs // 4))
        assert len(one[2]["result"]["tools"]) == TOOLS, "all 10,000 tools"
        api.call("POST", "/api/servers/tools-paged/connect", {})
        paged = api.timed("POST", "/api/servers/tools-paged/list", {"method": "tools/list"},
                          runs=max(3, args.runs // 4))
        assert len(paged[2]["result"]["tools"]) == TOOLS
        rss_after_tools = status_kb(p.pid, "VmRSS") / 1024
        hwm_end = status_kb(p.pid, "VmHWM") / 1024
        results = {
            "startup_ms": startup_ms, "idle_rss": idle_rss,
            "call_s": call_s, "persisted_s": persisted_s, "db_mb": db_mb,
            "rss": rss, "hwm": hwm, "rss_after_tools": rss_after_tools, "hwm_end": hwm_end,
            "pages": [
                ("newest 500 (memory window)", newest),
                ("500 before the window (SQLite)", back),
                ("oldest 500, after=0 (SQLite)", oldest),
                ("500 after a recent seq (tailing, memory)", tail),
                ("newest 500 with source=stderr (no match: scans window + SQLite)", stderr_only),
            ],
            "tools_one": one, "tools_paged": paged,
        }
    finally:
        p.terminate()
        p.wait(timeout=20)
    r = results
    lines = [
        "# Web backend at scale",
        "",
        f"Machine: 2 cores; {time.strftime('%Y-%m-%d')}; release build; medians of {args.runs} requests "
        "(tool lists: a quarter as many). Rerun: `cargo ship && cargo build --release -p mcpscope-testkit && python3 bench/web.py`.",
        "",
        f"- Start-up to the printed URL: {r['startup_ms']:.0f} ms; idle RSS {r['idle_rss']:.1f} MiB.",
        f"- {FRAMES:,} notifications (one tools/call, stdio): the call answered in {r['call_s']:.2f} s; "
        f"every frame in SQLite after {r['persisted_s']:.2f} s ({r['db_mb']:.0f} MiB database with WAL).",
        f"- Backend RSS with {FRAMES:,} frames (10,000 in the window, all in SQLite): "
        f"**{r['rss']:.1f} MiB** (peak {r['hwm']:.1f} MiB).",
        f"- After also listing 10,000 tools {2 * max(3, args.runs // 4)} times on two servers (each list a "
        f"history entry, its schemas kept for validation): RSS {r['rss_after_tools']:.1f} MiB (peak {r['hwm_end']:.1f} MiB).",
        "",
        "| request | median | response |",
        "| --- | --- | --- |",
    ]
    for name, (ms, size, _) in r["pages"]:
        lines.append(f"| `/frames` {name} | {ms:.1f} ms | {size / 1024:.0f} KiB |")
    lines.append(f"| `/list` tools/list, 10,000 tools in one page | {r['tools_one'][0]:.0f} ms | {r['tools_one'][1] / (1 << 20):.1f} MiB |")
    lines.append(f"| `/list` tools/list, 10,000 tools in 100 pages | {r['tools_paged'][0]:.0f} ms | {r['tools_paged'][1] / (1 << 20):.1f} MiB |")
    # Only the generated part between the `web` markers: the notes below it are kept.
    run.write_section(args.out, "web", lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
