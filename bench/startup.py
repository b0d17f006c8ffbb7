#!/usr/bin/env python3
"""mcpscope start-up benchmark: how soon a one-shot CLI puts its first byte on the wire, and a
one-shot `tools/list` beside a minimal in-process client, curl and the official Inspector.

Run from the repository root (the official Inspector is optional: `bash testenv/install.sh`):

    python3 bench/startup.py                    # 50 runs per case, updates bench/RESULTS.md
    python3 bench/startup.py --runs 200
    python3 bench/startup.py --before OLD_BINARY # add rows for another mcpscope build

1. exec → first byte (bench/first_byte.rs). A TCP listener on 127.0.0.1 that never answers
   records when the first byte of the first connection arrives; the clock starts just before
   the client is spawned. The client is then killed. mcpscope's first byte is its `initialize` POST, so this is the
   cost of everything before it (process start, argument parsing, the runtime, the HTTP
   client). The minimal client (bench/minimal_client.rs, std only) and curl are the floor.
   mcpscope is measured against `http://127.0.0.1:PORT` and, once more, `http://localhost:PORT`.
2. tools/list against the demo server over Streamable HTTP (release build), spawn to exit, timed
   by the same harness (`--exit`): mcpscope --cli, the minimal client (the same four requests on
   one keep-alive connection), curl (four processes, as in bench/run.py) and the official
   Inspector if installed. Beside the wall clock, the client's CPU time (user + system) and minor
   page faults, which other people's load on the shared machine moves far less.

The machine is shared, so the cases are interleaved: rounds of 10 runs of each case in turn, so a
burst of load from someone else's build falls on every case alike (the Inspector, at a second a
run, is measured after the others). Medians, 90th percentiles and the fastest run; the ratios are
against the minimal client. The section between the `startup` markers of bench/RESULTS.md is
replaced (bench/run.py keeps it).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (the shared helpers of bench/run.py)

ROOT = run.ROOT
MINIMAL_SRC = os.path.join(ROOT, "bench", "minimal_client.rs")
MINIMAL = os.path.join(ROOT, "target", "release", "minimal-client")
FIRST_BYTE_SRC = os.path.join(ROOT, "bench", "first_byte.rs")
FIRST_BYTE = os.path.join(ROOT, "target", "release", "first-byte")
CHUNK = 10  # runs of one case before the next case has its turn


def build(skip):
    if not skip:
        run.build_release()
    for src, out in [(MINIMAL_SRC, MINIMAL), (FIRST_BYTE_SRC, FIRST_BYTE)]:
        if not (os.path.exists(out) and os.path.getmtime(out) > os.path.getmtime(src)):
            subprocess.run(["rustc", "--edition", "2024", "-O", src, "-o", out], check=True)


def stats(runs):
    s = sorted(r.wall for r in runs)
    out = {"median_ms": statistics.median(s) * 1000, "p90_ms": s[int(0.9 * (len(s) - 1))] * 1000,
           "min_ms": s[0] * 1000, "runs": len(s)}
    if runs[0].cpu is not None:
        out["cpu_ms"] = statistics.median(r.cpu for r in runs) * 1000
        out["faults"] = statistics.median(r.faults for r in runs)
    return out


def timed(argv, runs, env=None):
    """Seconds per run of bench/first_byte.rs with `argv`: its mode (`--exit` or none), then the
    program and its arguments."""
    mode = argv[:1] if argv[0] == "--exit" else []
    out = subprocess.run([FIRST_BYTE] + mode + [str(runs)] + argv[len(mode):], check=True,
                         capture_output=True, text=True, env=env).stdout
    return [Run(*(int(f) for f in line.split())) for line in out.splitlines()]


class Run:
    """One timed run: seconds; with `--exit` also CPU seconds (user + system) and minor faults."""

    def __init__(self, us, cpu_us=None, faults=None):
        self.wall, self.faults = us / 1e6, faults
        self.cpu = None if cpu_us is None else cpu_us / 1e6


def interleaved(cases, runs):
    """`cases`: (name, timer argv). Rounds of CHUNK runs of each case in turn; one row per case."""
    samples = {name: [] for name, _ in cases}
    for _ in range(-(-runs // CHUNK)):
        for name, argv in cases:
            samples[name] += timed(argv, CHUNK)
    return [dict(stats(samples[name][:runs]), name=name) for name, _ in cases]


def cli(binary):
    return lambda url: [binary, "--cli", url, "--method", "tools/list", "--format", "json"]


def curl_first(url):
    return ["curl", "-s", "-o", "/dev/null", "-X", "POST", url, "-H", "Content-Type: application/json",
            "--data", '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}']


def ca_files_read(cmd):
    """Files under /etc/ssl the command opens (strace), or None without strace."""
    if not shutil.which("strace"):
        return None
    with tempfile.NamedTemporaryFile(mode="r", suffix=".strace") as log:
        subprocess.run(["strace", "-f", "-e", "trace=openat", "-o", log.name] + cmd, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return sum(1 for line in log if "/etc/ssl/" in line)


def table(title, rows, base):
    """Wall-clock columns; with CPU time and page faults when the rows have them (`--exit`)."""
    usage = "cpu_ms" in base
    extra = " CPU time (median) | CPU vs minimal client | minor page faults |" if usage else ""
    out = [f"| {title} | median | p90 | fastest | median vs minimal client |{extra}",
           "| --- " * (5 + 3 * usage) + "|"]
    for r in rows:
        line = (f"| {r['name']} | {r['median_ms']:.2f} ms | {r['p90_ms']:.2f} ms | {r['min_ms']:.2f} ms | "
                f"{r['median_ms'] / base['median_ms']:.2f}× |")
        if usage:
            line += f" {r['cpu_ms']:.2f} ms | {r['cpu_ms'] / base['cpu_ms']:.2f}× | {r['faults']:.0f} |"
        out.append(line)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "RESULTS.md"))
    ap.add_argument("--skip-build", action="store_true")
    ap.add_argument("--binary", default=run.MCPSCOPE, help="the mcpscope binary (default: the release build)")
    ap.add_argument("--label", help="what --binary is, for its rows (e.g. a commit)")
    ap.add_argument("--before", help="another mcpscope binary to measure beside this one (e.g. an older build)")
    ap.add_argument("--before-label", default="before", help="what --before is, for its rows (e.g. a commit)")
    args = ap.parse_args()
    build(args.skip_build)
    load_start = os.getloadavg()[0]
    ours = [("mcpscope --cli" + (f" ({args.label})" if args.label else ""), args.binary)]
    if args.before:
        ours.append((f"mcpscope --cli ({args.before_label})", args.before))

    # The same by name: `localhost` must cost no more than the address (no resolver, no thread).
    by_name = [(f"{n}, http://localhost:PORT", cli(b)("{localhost_url}")) for n, b in ours[:1]]
    starts = interleaved([(n, cli(b)("{url}")) for n, b in ours] + by_name +
                         [("minimal client (std Rust)", [MINIMAL, "{url}"]), ("curl", curl_first("{url}"))],
                         args.runs)
    minimal = starts[len(ours) + len(by_name)]
    demo, url = run.start_demo_http()
    try:
        certs = [(n, ca_files_read(cli(b)(url))) for n, b in ours]
        lists = interleaved([(n, ["--exit"] + cli(b)(url)) for n, b in ours] +
                            [("minimal client (std Rust)", ["--exit", MINIMAL, url]),
                             ("curl, same 4 requests (4 processes)", ["--exit", "bash", "-c", run.CURL_SCRIPT, "curl", url])],
                            args.runs)
        base = lists[len(ours)]
        if os.path.exists(run.INSPECTOR_JS) and os.path.exists(run.NODE22):
            env = dict(os.environ, HOME=tempfile.mkdtemp(prefix="inspector-home-"))
            runs = max(5, args.runs // 5)
            inspector = timed(["--exit", run.NODE22, run.INSPECTOR_JS, "--cli", url, "--transport", "http",
                               "--method", "tools/list", "--format", "json"], runs, env)
            lists.append(dict(stats(inspector), name="official Inspector 2.12 --cli"))
    finally:
        demo.kill()
        demo.wait()

    load = os.getloadavg()[0]
    lines = ["## Start-up and one-shot tools/list (`bench/startup.py`)", "",
             f"Machine: {os.cpu_count()} cores; {time.strftime('%Y-%m-%d')}; load average "
             f"{load_start:.1f} at the start, {load:.1f} at the end; release build; {args.runs} runs per case, "
             f"interleaved in rounds of {CHUNK} (the Inspector: a fifth of them, after the others). "
             "Rerun: `python3 bench/startup.py`.", ""]
    lines += table("exec → first byte on the wire", starts, minimal) + [""]
    lines += table("tools/list, Streamable HTTP (demo server), spawn to exit", lists, base)
    if any(n is not None for _, n in certs):
        lines += ["", "CA certificate files opened by one `tools/list` to the http:// demo server (strace): " +
                  "; ".join(f"{name}: {n}" for name, n in certs if n is not None) + "."]
    run.write_section(args.out, "startup", lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
