#!/usr/bin/env python3
"""mcpscope benchmark: one-shot CLI speed and memory against the official MCP Inspector and curl,
a 100 MB tool result over stdio, and a burst of 100,000 notifications.

Run from the repository root after `bash testenv/install.sh` (for Node 22 and the official
Inspector 2.12):

    python3 bench/run.py            # 10 runs per case, writes bench/RESULTS.md
    python3 bench/run.py --runs 30  # more runs

Wall time is measured around the whole process (spawn to exit). Peak memory is the client
process's own high-water mark (VmHWM from /proc, sampled every millisecond until it exits), so
the server a stdio client spawns is not counted for either tool. Medians are reported.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MCPSCOPE = os.path.join(ROOT, "target", "release", "mcpscope")
TESTKIT = os.path.join(ROOT, "target", "release", "mcpscope-testkit")
INSPECTOR = os.path.join(ROOT, "testenv", "peers", "inspector.sh")
NODE22 = os.path.join(ROOT, ".peers", "node22", "node_modules", ".bin", "node")
INSPECTOR_JS = os.path.join(
    ROOT, ".peers", "inspector", "node_modules", "@modelcontextprotocol", "inspector",
    "clients", "launcher", "build", "index.js")


def build_release(*cargo_args):
    """The release build the numbers are of: `cargo build --release` of what `cargo_args` name
    (other packages, examples), then `cargo ship` (.cargo/config.toml), the mcpscope binary as
    released, statically linked. A plain `cargo build --release -p mcpscope` would relink it
    dynamically, which is slower to start (bench/startup.py)."""
    if cargo_args:
        subprocess.run(["cargo", "build", "--release", "--locked", *cargo_args], cwd=ROOT, check=True)
    subprocess.run(["cargo", "ship"], cwd=ROOT, check=True)


def vm_hwm_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


def measure(cmd, env=None, stdout=subprocess.DEVNULL):
    """Run cmd once; return (wall seconds, peak RSS in MiB of that process, exit code, stderr)."""
    peak = [0]
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, env=env)
    done = threading.Event()

    def sample():
        while not done.is_set():
            v = vm_hwm_kb(p.pid)
            if v:
                peak[0] = max(peak[0], v)
            time.sleep(0.001)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    _, err = p.communicate()
    wall = time.perf_counter() - start
    done.set()
    t.join()
    return wall, peak[0] / 1024.0, p.returncode, err.decode(errors="replace")


def series(name, cmd, runs, env=None, warmup=1):
    for _ in range(warmup):
        measure(cmd, env)
    walls, rss = [], []
    for _ in range(runs):
        w, m, code, err = measure(cmd, env)
        if code != 0:
            raise SystemExit(f"{name}: exit {code}\n{err[-2000:]}")
        walls.append(w)
        rss.append(m)
    return {"name": name, "wall_ms": statistics.median(walls) * 1000, "rss_mib": statistics.median(rss),
            "runs": runs}


def start_demo_http():
    p = subprocess.Popen([MCPSCOPE, "demo-server", "--http", "0"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    m = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
    if not m:
        p.kill()
        raise SystemExit(f"demo server did not announce its URL: {line!r}")
    return p, m.group(1)


CURL_SCRIPT = r"""
set -e
url="$1"
h=$(mktemp)
curl -s -D "$h" -o /dev/null -X POST "$url" -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' \
  --data '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
sid=$(grep -i '^mcp-session-id:' "$h" | cut -d' ' -f2 | tr -d '\r')
curl -s -o /dev/null -X POST "$url" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  -H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25' --data '{"jsonrpc":"2.0","method":"notifications/initialized"}'
curl -s -o /dev/null -X POST "$url" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  -H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25' --data '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
curl -s -o /dev/null -X DELETE "$url" -H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25'
rm -f "$h"
"""


def ratio(a, b):
    return f"{a / b:.1f}×" if b else "n/a"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "RESULTS.md"))
    ap.add_argument("--skip-build", action="store_true")
    args = ap.parse_args()

    if not args.skip_build:
        build_release("-p", "mcpscope-testkit")
    have_inspector = os.path.exists(INSPECTOR_JS) and os.path.exists(NODE22)
    if not have_inspector:
        print("note: official Inspector not installed (run testenv/install.sh); comparing with curl only",
              file=sys.stderr)
    inspector_env = dict(os.environ, HOME=tempfile.mkdtemp(prefix="inspector-home-"))
    inspector = [NODE22, INSPECTOR_JS]
    rows = []

    # 1. tools/list against a running Streamable HTTP server (the demo, release build).
    demo, url = start_demo_http()
    try:
        ours = series("mcpscope --cli (HTTP)", [MCPSCOPE, "--cli", url, "--method", "tools/list", "--format", "json"],
                      args.runs)
        curl = series("curl, same 4 requests (HTTP)", ["bash", "-c", CURL_SCRIPT, "curl", url], args.runs)
        theirs = series("official Inspector 2.12 --cli (HTTP)",
                        inspector + ["--cli", url, "--transport", "http", "--method", "tools/list", "--format", "json"],
                        args.runs, env=inspector_env) if have_inspector else None
    finally:
        demo.kill()
        demo.wait()
    rows.append(("tools/list, Streamable HTTP (demo server)", ours, theirs, curl))

    # 2. tools/list against the demo server over stdio (each client spawns it).
    ours = series("mcpscope --cli (stdio)", [MCPSCOPE, "--cli", MCPSCOPE, "demo-server", "--method", "tools/list",
                                             "--format", "json"], args.runs)
    theirs = series("official Inspector 2.12 --cli (stdio)",
                    inspector + ["--cli", MCPSCOPE, "demo-server", "--method", "tools/list", "--format", "json"],
                    args.runs, env=inspector_env) if have_inspector else None
    rows.append(("tools/list, stdio (demo server)", ours, theirs, None))

    # 3. A 100 MB tool result over stdio: intact, and peak RSS vs payload.
    size = 100 * 1024 * 1024
    out = os.path.join(tempfile.mkdtemp(prefix="mcpscope-bench-"), "big.json")
    wall, rss, code, err = measure([MCPSCOPE, "--cli", TESTKIT, "huge-result",
                                    "--method", "tools/call", "--tool-name", "huge", "--format", "json",
                                    "--output", out, "--max-message-bytes", str(size * 2), "--", "--bytes", str(size)])
    if code != 0:
        raise SystemExit(f"100 MB case failed: {err[-2000:]}")
    with open(out) as f:
        doc = json.load(f)
    got = len(doc["result"]["content"][0]["text"])
    os.unlink(out)
    big = {"wall_ms": wall * 1000, "rss_mib": rss, "intact": got == size, "bytes": got}
    big_theirs = None
    if have_inspector:
        wall_t, rss_t, code_t, err_t = measure(inspector + ["--cli", TESTKIT, "huge-result", "--bytes", str(size),
                                                            "--", "--method", "tools/call", "--tool-name", "huge",
                                                            "--format", "json"], env=inspector_env)
        big_theirs = {"wall_ms": wall_t * 1000, "rss_mib": rss_t, "exit": code_t,
                      "error": err_t.strip().splitlines()[-1][:200] if err_t.strip() else ""}

    # 4. 100,000 notifications in a burst: none lost, none reordered.
    n = 100_000
    trace = os.path.join(tempfile.mkdtemp(prefix="mcpscope-bench-"), "flood.ndjson")
    wall, rss, code, err = measure([MCPSCOPE, "--cli", TESTKIT, "flood", "--method", "tools/call",
                                    "--tool-name", "flood", "--format", "json", "--trace", trace,
                                    "--", "--count", str(n)])
    if code != 0:
        raise SystemExit(f"flood case failed: {err[-2000:]}")
    seqs = []
    with open(trace) as f:
        for line in f:
            fr = json.loads(line)
            if fr.get("method") == "notifications/message" and fr["direction"] == "in":
                seqs.append(json.loads(fr["text"])["params"]["data"]["seq"])
    os.unlink(trace)
    flood = {"wall_ms": wall * 1000, "rss_mib": rss, "received": len(seqs), "in_order": seqs == list(range(n))}

    lines = ["# Benchmark results", "",
             f"Machine: {os.cpu_count()} cores; {time.strftime('%Y-%m-%d')}; release build; median of {args.runs} runs "
             "after one warm-up. Peak RSS is the client process's own (its spawned server is not counted).",
             "Rerun: `bash testenv/install.sh && python3 bench/run.py`.", "",
             "| case | mcpscope | official Inspector 2.12 | curl | speed-up vs Inspector | memory vs Inspector | mcpscope vs curl |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for title, o, t, c in rows:
        tcell = f"{t['wall_ms']:.0f} ms, {t['rss_mib']:.1f} MiB" if t else "not installed"
        ccell = f"{c['wall_ms']:.0f} ms, {c['rss_mib']:.1f} MiB" if c else "—"
        lines.append(f"| {title} | {o['wall_ms']:.1f} ms, {o['rss_mib']:.1f} MiB | {tcell} | {ccell} | "
                     f"{ratio(t['wall_ms'], o['wall_ms']) if t else '—'} | "
                     f"{ratio(t['rss_mib'], o['rss_mib']) if t else '—'} | "
                     f"{ratio(o['wall_ms'], c['wall_ms']) + ' the time' if c else '—'} |")
    lines += ["",
              f"- 100 MB tool result over stdio: {'intact' if big['intact'] else 'NOT INTACT'} ({big['bytes']} bytes), "
              f"{big['wall_ms']:.0f} ms, peak RSS {big['rss_mib']:.0f} MiB = {big['rss_mib'] / 100:.2f}× the payload "
              "(goal: below 3×)."]
    if big_theirs:
        lines.append(f"  - official Inspector on the same server: exit {big_theirs['exit']}, "
                     f"{big_theirs['wall_ms']:.0f} ms, {big_theirs['rss_mib']:.0f} MiB; {big_theirs['error']}")
    lines.append(f"- 100,000 notifications in a burst: {flood['received']} received, "
                 f"{'in order' if flood['in_order'] else 'OUT OF ORDER'}, {flood['wall_ms']:.0f} ms "
                 f"(with --trace writing every frame), peak RSS {flood['rss_mib']:.0f} MiB.")
    text = "\n".join(lines) + "\n"
    # bench/startup.py owns the section between its markers: keep it.
    if os.path.exists(args.out):
        old = open(args.out).read()
        begin, end = "<!-- startup:begin -->", "<!-- startup:end -->"
        if begin in old and end in old:
            text += "\n" + begin + old.split(begin, 1)[1].split(end, 1)[0] + end + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


def write_section(path, name, lines):
    """Replace the part of `path` between `<!-- NAME:begin -->` and `<!-- NAME:end -->` with
    `lines` (appended when the markers are not there), keeping everything else: a results file
    holds one generated section per script beside the notes written by hand."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    text = open(path).read() if os.path.exists(path) else ""
    section = "\n".join([begin] + lines + [end]) + "\n"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        after = rest.split(end, 1)[1].lstrip("\n")
        text = head + section + ("\n" + after if after else "")
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + section
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
