#!/usr/bin/env python3
"""mcpscope --tui benchmark: the numbers of issue 10 ("a frame drawn in under 16 ms at 200x60,
input-to-screen latency under 50 ms, RSS under 100 MB, start-up to the first drawn screen under
100 ms"), with the official Inspector's TUI beside it where it runs (Node >= 22.19: .peers/node22).

Run from the repository root (release build; the official Inspector is optional:
`bash testenv/install.sh`):

    python3 bench/tui.py                 # 30 start-ups per case; prints markdown
    python3 bench/tui.py --runs 100 --skip-build

1. In process (crates/mcpscope-tui/examples/bench.rs): 10,000 tools and 100,000 frames fed
   through the real reducer, each tab drawn at 200x60 into ratatui's TestBackend (median, p99),
   a key through update + draw, the RSS of that process.
2. Start-up to the first drawn screen, the real binary in a pseudo-terminal of 120x35 (Python's
   pty; no tmux in the way): the clock starts before fork, stops when the pty has shown the
   screen's marker (mcpscope: the server list's title; the Inspector: its server list). A fresh
   data directory per run (the catalog seeded with the demo, not connected). Then `q`, and the
   time until the process has exited (it closes every connection first).
3. RSS of the real TUI's own process (not the server's) connected to the testkit's `many-tools` server (10,000 tools) on its Tools
   tab, read from /proc/PID/status (VmRSS, VmHWM) once the screen shows a tool.

The machine is shared: cases are interleaved, medians and 90th percentiles reported.
"""

import argparse
import fcntl
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (the shared helpers of bench/run.py)

ROOT = run.ROOT
MCPSCOPE = TESTKIT = ""  # set by main from --profile
NODE22 = os.path.join(ROOT, ".peers", "node22", "node_modules", ".bin", "node")
INSPECTOR_TUI = os.path.join(ROOT, ".peers", "inspector", "node_modules", "@modelcontextprotocol",
                             "inspector", "clients", "tui", "build", "index.js")


class Pty:
    """A program in a pseudo-terminal of `cols`x`rows`; everything it wrote so far in `out`."""

    def __init__(self, argv, env, cols=120, rows=35):
        self.t0 = time.perf_counter()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            os.execve(argv[0], argv, env)
        self.out = b""

    def wait_for(self, marker, timeout=30.0):
        """Seconds from the fork until `marker` was shown (None: never, within `timeout`)."""
        until = time.perf_counter() + timeout
        while marker not in self.out:
            left = until - time.perf_counter()
            if left <= 0:
                return None
            r, _, _ = select.select([self.fd], [], [], left)
            if r:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    return None
                if not chunk:
                    return None
                self.out += chunk
                # Answer a cursor-position query (ESC [ 6 n): some TUIs wait for it.
                if b"\x1b[6n" in chunk:
                    os.write(self.fd, b"\x1b[1;1R")
        return time.perf_counter() - self.t0

    def drain(self, seconds):
        until = time.perf_counter() + seconds
        while time.perf_counter() < until:
            r, _, _ = select.select([self.fd], [], [], max(0.0, until - time.perf_counter()))
            if r:
                try:
                    if not os.read(self.fd, 65536):
                        return
                except OSError:
                    return

    def quit(self, keys=b"q", timeout=20.0):
        """Send `keys`; seconds until the process exited (killed after `timeout`: None)."""
        t0 = time.perf_counter()
        os.write(self.fd, keys)
        until = t0 + timeout
        while time.perf_counter() < until:
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return time.perf_counter() - t0
            self.drain(0.005)
        self.kill()
        return None

    def kill(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except OSError:
            pass
        try:
            os.close(self.fd)
        except OSError:
            pass

    def rss_mib(self):
        """(VmRSS, VmHWM) of the TUI's own process (not the server it started), MiB."""
        total = [0.0, 0.0]
        for pid in [self.pid]:
            try:
                with open(f"/proc/{pid}/status") as f:
                    for line in f:
                        for i, k in enumerate(("VmRSS:", "VmHWM:")):
                            if line.startswith(k):
                                total[i] += int(line.split()[1]) / 1024
            except OSError:
                pass
        return tuple(total)


def env_for(data_dir):
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env.pop("MCP_CATALOG_PATH", None)  # the Inspector refuses it beside an ad-hoc server
    env.update(TERM="xterm-256color", MCPSCOPE_DATA_DIR=data_dir, HOME=data_dir)
    return env


def startup(name, argv, marker, quit_keys, runs):
    first, quits, failed = [], [], 0
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as d:
            p = Pty(argv, env_for(d))
            t = p.wait_for(marker)
            if t is None:
                failed += 1
                p.kill()
                continue
            first.append(t)
            p.drain(0.3)
            q = p.quit(quit_keys)
            if q is not None:
                quits.append(q)
    return name, first, quits, failed


def ms(xs):
    if not xs:
        return "—"
    s = sorted(xs)
    return f"{statistics.median(s) * 1000:.0f} ms (p90 {s[int(0.9 * (len(s) - 1))] * 1000:.0f} ms)"


def many_tools_rss(name, argv, markers, keys):
    """RSS once the screen, after `keys`, shows every marker (10,000 tools on the Tools tab)."""
    with tempfile.TemporaryDirectory() as d:
        p = Pty(argv, env_for(d), cols=200, rows=60)
        t = p.wait_for(markers[0], timeout=60)
        for k in keys:
            time.sleep(0.5)
            os.write(p.fd, k)
        shown = all(p.wait_for(m, timeout=60) is not None for m in markers[1:])
        p.drain(1.0)
        rss = p.rss_mib()
        p.kill()
        return name, t, shown, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--skip-build", action="store_true")
    ap.add_argument("--tools", type=int, default=10_000)
    ap.add_argument("--frames", type=int, default=100_000)
    ap.add_argument("--rss-runs", type=int, default=5, help="runs of the 10,000-tool RSS case")
    ap.add_argument("--profile", choices=["release", "debug"], default="release",
                    help="which build to measure (debug: for trying the script, not for numbers)")
    a = ap.parse_args()
    global MCPSCOPE, TESTKIT
    bins = os.path.join(ROOT, "target", a.profile)
    MCPSCOPE, TESTKIT = os.path.join(bins, "mcpscope"), os.path.join(bins, "mcpscope-testkit")
    if not a.skip_build:
        packages = ["-p", "mcpscope-testkit", "-p", "mcpscope-tui", "--bins", "--example", "bench"]
        if a.profile == "release":
            run.build_release(*packages)
        else:
            subprocess.run(["cargo", "build", "--locked", "-p", "mcpscope", *packages], cwd=ROOT, check=True)
    print(f"## In process: {a.tools:,} tools, {a.frames:,} frames, 200x60\n")
    bench = os.path.join(bins, "examples", "bench")
    print(subprocess.run([bench, "--tools", str(a.tools), "--frames", str(a.frames)], check=True,
                         capture_output=True, text=True).stdout)

    cases = [("mcpscope --tui (seeded catalog)", [MCPSCOPE, "--tui"], b"Servers", b"q")]
    inspector = os.path.exists(NODE22) and os.path.exists(INSPECTOR_TUI)
    if inspector:
        demo = [MCPSCOPE, "demo-server"]
        # Its first screen is its server list; Esc quits it.
        cases.append(("official Inspector TUI (ad-hoc demo server, not connected)",
                      [NODE22, INSPECTOR_TUI] + demo, b"MCP Servers", b"\x1b"))
    rounds = max(1, a.runs // 10)
    rows = {c[0]: ([], [], 0) for c in cases}
    for _ in range(rounds):
        for name, argv, marker, keys in cases:
            _, f, q, failed = startup(name, argv, marker, keys, -(-a.runs // rounds))
            old = rows[name]
            rows[name] = (old[0] + f, old[1] + q, old[2] + failed)
    print("## Start-up in a pty (120x35)\n")
    print("| program | to the first screen | `q` to exit | runs (failed) |")
    print("| --- | --- | --- | --- |")
    for name, (f, q, failed) in rows.items():
        print(f"| {name} | {ms(f)} | {ms(q)} | {len(f)} ({failed}) |")
    if not inspector:
        print("\n(the official Inspector is not installed: bash testenv/install.sh)")

    print(f"\n## RSS with {a.tools:,} tools (testkit many-tools), Tools tab, 200x60\n")
    server = [TESTKIT, "many-tools", "--", "--count", str(a.tools), "--page-size", str(a.tools)]
    # mcpscope connects an ad-hoc server at once; `t` opens Tools.
    # glibc's per-thread arenas make one run's RSS land anywhere in a ~30 MiB band (which
    # thread freed what): several runs, the median and the range.
    runs = [many_tools_rss("mcpscope --tui", [MCPSCOPE, "--tui"] + server, [b"Servers", b"tool-0000"],
                           [b"t"]) for _ in range(a.rss_runs)]
    name, t, shown = runs[0][0], statistics.median(r[1] or 0 for r in runs), all(r[2] for r in runs)
    rss = sorted(r[3][0] for r in runs)
    hwm = sorted(r[3][1] for r in runs)
    print(f"({a.rss_runs} runs: median, [lowest–highest])\n")
    print("| program | first screen after | tools shown | RSS | peak RSS |")
    print("| --- | --- | --- | --- | --- |")
    print(f"| {name} | {t * 1000:.0f} ms | {shown} | {statistics.median(rss):.1f} MiB [{rss[0]:.1f}–{rss[-1]:.1f}] "
          f"| {statistics.median(hwm):.1f} MiB [{hwm[0]:.1f}–{hwm[-1]:.1f}] |")
    if inspector:
        # `c` connects, `t` opens Tools.
        name, t, shown, (rss, hwm) = many_tools_rss(
            "official Inspector TUI (node)", [NODE22, INSPECTOR_TUI] + server,
            [b"MCP Servers", b"tool-0000"], [b"c", b"t"])
        print(f"| {name} | {t and f'{t * 1000:.0f} ms'} | {shown} | {rss:.1f} MiB | {hwm:.1f} MiB |")


if __name__ == "__main__":
    sys.exit(main())
