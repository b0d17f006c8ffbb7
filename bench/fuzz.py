#!/usr/bin/env python3
"""mcpscope fuzzing, long budget: every property/fuzz harness of the parsers of server bytes,
in a release build, for a fixed total time; writes bench/RESULTS-fuzz.md.

    python3 bench/fuzz.py                # 60 minutes in total (the long budget)
    python3 bench/fuzz.py --minutes 3    # a short check that everything runs

The harnesses are the same code `cargo test` runs with a small case count: each reads
MCPSCOPE_FUZZ_SECONDS (run rounds of cases until then) and MCPSCOPE_FUZZ_CASES (cases a round),
checks its per-case time bound (CPU time of the thread, so other load on the machine does not
count) only under this budget (a case running 30x its bound, at least
60 s, is a hang: the run ends naming the seed that replays it), and prints one line
`fuzz NAME: N cases in S s, slowest X ms (bound B ms)` that this script collects.
"""

import argparse
import datetime
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (cargo test arguments, harnesses it runs, what each bounds)
SUITES = [
    (["-p", "mcpscope-proto", "--test", "fuzz"], {
        "jsonrpc_values": "JSON-RPC classifier on arbitrary and JSON-RPC-shaped values: agrees "
                          "with classifying its bytes; an Invalid reason <= 256 B + 2x the message",
        "jsonrpc_bytes": "classifier on arbitrary bytes, mangled messages, 5,000-deep brackets: "
                         "never panics; same reason bound",
        "headers_round_trip": "Mcp-Param-*/Mcp-Name encoding: decode(encode(s)) = s, always a "
                              "valid header value, <= 4/3 of the input + 16 B",
        "headers_schema": "x-mcp-header walk and value mirroring on any schema and arguments: "
                          "<= one header per annotation, each a valid header value",
        "form_model": "schema -> form model on recursive, fanned-out, deep, wide, contradictory "
                      "schemas: <= 10,000 nodes, <= 4 MiB + 512 B/node of JSON, <= 27 levels",
        "validate": "validator on the same schemas ($refs as #/ pointers, $anchor, $id, "
                    "$dynamicRef), arbitrary values, values following a recursive fan-out up to "
                    "35 deep, and the form's initial value: answers or refuses (> 100,000 "
                    "subschemas, > 500,000 applications for the value, > 256 deep) in time",
        "lint": "schema lint of any message in both revisions: <= 20 findings of <= 1 KiB each",
    }),
    (["-p", "mcpscope-transport", "--lib", "fuzz::"], {
        "stdio_lines": "stdio line splitter: any chunking gives the lines of the whole input, cut "
                       "when over the limit; buffer <= max(limit, 64 KiB) x 5/4 + 192 KiB",
        "sse": "SSE parser: any chunking gives the same events; data <= limit, pending line "
               "<= limit + 64 B, wire lengths <= input",
    }),
]

# Searched, not matched: with --test-threads 1 the line follows "test NAME ... " on the same line.
LINE = re.compile(r"fuzz (\S+): (\d+) cases in ([\d.]+) s, slowest ([\d.]+) ms \(bound (\d+) ms\)")


def cargo(args, env=None):
    cmd = ["cargo", "test", "--release", "--locked"] + args
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=60.0, help="total time for all harnesses")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "RESULTS-fuzz.md"))
    a = ap.parse_args()
    harnesses = sum(len(h) for _, h in SUITES)
    per = max(1, int(a.minutes * 60 / harnesses))

    for args, _ in SUITES:
        built = cargo(args + ["--no-run"])
        if built.returncode != 0:
            sys.exit(built.stdout[-4000:] + "\nbuild failed")

    rows, failures = {}, []
    started = time.time()
    for args, names in SUITES:
        env = dict(os.environ, MCPSCOPE_FUZZ_SECONDS=str(per))
        # One harness at a time, so each has the machine and its time is its own.
        r = cargo(args + ["--", "--nocapture", "--test-threads", "1"], env=env)
        for line in r.stdout.splitlines():
            m = LINE.search(line)
            if m:
                rows[m.group(1)] = m.groups()[1:]
        if r.returncode != 0:
            failures.append(r.stdout[-6000:])
        missing = [n for n in names if n not in rows]
        if missing and r.returncode == 0:
            failures.append(f"no result line from {missing}")
    total = time.time() - started

    today = datetime.date.today().isoformat()
    out = [
        "# Fuzzing results",
        "",
        f"{today}; release build; {os.cpu_count()} cores; {per} s per harness, "
        f"{total / 60:.1f} min in total. Rerun: `python3 bench/fuzz.py --minutes 60`.",
        "Each harness is a `proptest` property run by `cargo test` (small case count in CI); "
        "a failure is a panic, a bound exceeded, a case slower than its bound, or a hang (a case "
        "past 30x its bound, at least 60 s, ends the run with the seed that replays it; runner: "
        "`crates/mcpscope-fuzz`).",
        "",
        "Slowest case and time bound are CPU time of the thread running the case.",
        "",
        "| harness | cases | seconds | slowest case | time bound | what is checked and bounded |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for _, names in SUITES:
        for name, bounds in names.items():
            if name in rows:
                cases, secs, slowest, bound = rows[name]
                out.append(f"| {name} | {int(cases):,} | {float(secs):.0f} | {slowest} ms | "
                           f"{bound} ms | {bounds} |")
            else:
                out.append(f"| {name} | — | — | — | — | {bounds} (did not report) |")
    cases_total = sum(int(r[0]) for r in rows.values())
    out += ["", f"Total: {cases_total:,} cases, {'no failures' if not failures else 'FAILURES below'}."]
    for f in failures:
        out += ["", "```", f.strip(), "```"]
    with open(a.out, "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
