#!/usr/bin/env python3
"""`mcpscope check` beside the official conformance suite's `server` mode, verdict by verdict
(issue 26, "Agreement with the official suite").

Run from the repository root (after `cargo build -p mcpscope` and `testenv/install.sh`):

    python3 bench/agreement.py                   # every server, prints the markdown tables
    python3 bench/agreement.py demo fastmcp      # some servers only
    python3 bench/agreement.py --keep /tmp/agr   # keep the suite's checks.json and our JSON

For each server in the test peers that serves Streamable HTTP (SERVERS below), it starts the
server on 127.0.0.1 (port 0), runs `mcpscope check URL --format json` (both eras, whichever the
server offers), then the official suite (0.2.0-alpha.12, on the Node 22 it needs) scenario by
scenario with `--spec-version REVISION -o DIR`, only the scenarios that apply to any server
(SCENARIOS: lifecycle, session, stateless, DNS rebinding, header validation, caching, ping,
logging level, list methods, resource-not-found) and only for the revisions the server speaks.
The suite's other scenarios call its own fixture tools, which a real server does not have
(conformance#516), so they say nothing about these servers.

Each suite check is mapped to the check of ours that judges the same requirement (MAP; ALSO
names where we judge an item's shape in the frames instead). The output, pasted into
docs/checks.md ("Agreement with the official suite"): the eras each server offers; a matrix of
check × server, one word where both say the same, `suite / ours` where not (✗ when one fails and
the other does not, ≈ when both pass and one warns, `—` when we have no such check); the ✗ rows
with both messages; the suite's failures and warnings that no check of ours makes, grouped, the
ones that need the suite's own fixture tools marked (conformance#516). docs/checks.md says for
each ✗ who is right against the spec text.

The last two servers are testenv peers with one flaw each on purpose, which both must fail. This
is not a benchmark and not in CI: it takes under three minutes, most of it the suite's Node
starts (one per scenario, three at a time).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MCPSCOPE = os.environ.get("AGREEMENT_MCPSCOPE", os.path.join(ROOT, "target", "debug", "mcpscope"))
NODE22 = os.path.join(ROOT, ".peers", "node22", "node_modules", ".bin", "node")
SUITE = os.path.join(ROOT, ".peers", "peers", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
PEERS = os.path.join(ROOT, "testenv", "peers")

# name, what it is, how it is started (each prints the URL it listens on, on stderr).
SERVERS = [
    ("demo", "`mcpscope demo-server --http`", [MCPSCOPE, "demo-server", "--http", "0"]),
    ("python-sdk", "Python SDK `mcp` 2.3.0 (`MCPServer`, stateful)", [os.path.join(PEERS, "python-sdk-server.sh"), "http", "0"]),
    ("python-sdk-stateless", "Python SDK `mcp` 2.3.0 (stateless, JSON)", [os.path.join(PEERS, "python-sdk-server.sh"), "http-stateless-json", "0"]),
    ("fastmcp", "FastMCP 4.2.3 (`http_app`, stateful)", [os.path.join(PEERS, "fastmcp-server.sh"), "http", "0"]),
    ("ts-sdk-v2", "TypeScript SDK v2 2.4.0 (stateless)", [os.path.join(PEERS, "ts-sdk-server.sh"), "http", "0"]),
    ("ts-sdk-v1", "TypeScript SDK v1 1.32.2 (stateful)", [os.path.join(PEERS, "ts-sdk-v1-server.sh"), "http", "0"]),
    ("everything", "server-everything 2026.8.31", [os.path.join(PEERS, "everything.sh"), "http", "0"]),
    # One flaw on purpose (SEP-2164: an empty contents for a missing resource): both must fail it.
    ("empty-contents", "testenv's empty-contents peer (Python SDK low-level, one flaw)", [os.path.join(PEERS, "python-empty-contents-server.sh"), "http", "0"]),
    # One flaw on purpose (prompts served, not declared): both must fail it.
    ("undeclared-prompts", "testenv's undeclared-prompts peer (Python SDK low-level, one flaw)", [os.path.join(PEERS, "python-undeclared-prompts-server.sh"), "http", "0"]),
]

# The suite's scenarios that apply to any server, per revision.
SCENARIOS = {
    "2025-11-25": [
        "server-initialize", "server-session-lifecycle", "ping", "logging-set-level",
        "tools-list", "resources-list", "prompts-list", "dns-rebinding-protection",
    ],
    "2026-07-28": [
        "server-stateless", "tools-list", "resources-list", "prompts-list", "dns-rebinding-protection",
        "caching", "http-header-validation", "http-custom-header-server-validation",
        "sep-2164-resource-not-found",
    ],
}

# (scenario or "*", the suite's check id (a trailing * is a prefix), its description must contain
# this (or None), our check id). First match wins; a check matching nothing is "ours: none".
MAP = [
    ("*", "wire-schema-valid", None, "wire-schema-valid"),
    ("server-initialize", "server-initialize", None, "server-initialize"),
    ("server-initialize", "server-session-id-visible-ascii", None, "session-id-visible-ascii"),
    ("server-session-lifecycle", "server-session-initialized-accepted", None, "notification-post-accepted"),
    ("server-session-lifecycle", "server-session-delete-accepted", None, "server-session-lifecycle"),
    ("server-session-lifecycle", "server-session-terminated-returns-404", None, "server-session-lifecycle"),
    ("ping", "ping", None, "ping"),
    ("logging-set-level", "logging-set-level", None, "logging-set-level"),
    ("tools-list", "tools-list", None, "tools-list"),
    ("tools-list", "tools-name-format", None, "tools-input-schemas-valid"),
    ("resources-list", "resources-list", None, "resources-list"),
    ("prompts-list", "prompts-list", None, "prompts-list"),
    ("dns-rebinding-protection", "localhost-host-*", None, "dns-rebinding-protection"),
    ("caching", "sep-2549-ttl-non-negative", None, "cache-hint-values-valid"),
    ("caching", "sep-2549-cache-scope-valid", None, "cache-hint-values-valid"),
    ("caching", "sep-2549-*", None, "cache-hint-coverage"),
    ("http-header-validation", "sep-2243-server-reject-*", "Mcp-Method header does not match", "method-header-mismatch"),
    ("http-header-validation", "sep-2243-server-reject-*", "missing Mcp-Method header", "missing-method-header-rejected"),
    ("http-header-validation", "sep-2243-server-reject-*", "Mcp-Name does not match", "name-header-mismatch"),
    ("sep-2164-resource-not-found", "sep-2164-*", None, "resource-not-found"),
    ("server-stateless", "sep-2575-server-implements-discover", None, "server-discover"),
    ("server-stateless", "sep-2575-server-unsupported-version-error", None, "unsupported-version-error"),
    ("server-stateless", "sep-2575-http-server-unsupported-version-400", None, "unsupported-version-error"),
    ("server-stateless", "sep-2575-discover-capabilities-match-handlers", None, "capabilities-served"),
    ("server-stateless", "sep-2575-server-declares-prompts-in-discover", None, "undeclared-capability-error"),
    ("server-stateless", "sep-2575-request-meta-invalid-missing-*", None, "missing-request-meta-rejected"),
    ("server-stateless", "sep-2575-http-server-meta-invalid-400", None, "missing-request-meta-rejected"),
    ("server-stateless", "sep-2575-http-server-method-not-found-404*", None, "removed-methods-not-found"),
    ("server-stateless", "sep-2575-server-no-log-without-loglevel", None, "logs-require-log-level"),
]

# Where the suite judges an item's shape inside its list or initialize check, we judge it in the
# frames: a suite failure there agrees with a failure of one of these checks of ours.
ALSO = {
    "server-initialize": ["wire-schema-valid"],
    "tools-list": ["wire-schema-valid", "tools-input-schemas-valid"],
    "prompts-list": ["wire-schema-valid"],
    "resources-list": ["wire-schema-valid"],
}

SUITE_OUTCOME = {"SUCCESS": "pass", "WARNING": "warn", "FAILURE": "fail", "SKIPPED": "skipped", "INFO": "skipped"}
RANK = {"fail": 4, "warn": 3, "pass": 2, "skipped": 1, "untestable": 1, "none": 0}


def suite_outcome(check):
    """The suite's verdict in our words. It reports a check it could not make (its fixture tool
    missing, a setup step that needs a tool) as a FAILURE saying "Not testable": that is no
    verdict on the server, so it is `untestable` here, never a fail."""
    msg = check.get("errorMessage") or ""
    if check.get("status") == "FAILURE" and (msg.startswith("Not testable") or (check.get("details") or {}).get("untestable")):
        return "untestable"
    return SUITE_OUTCOME.get(check.get("status"), "fail")


def our_id(scenario, check):
    for sc, cid, desc, ours in MAP:
        if sc not in ("*", scenario):
            continue
        if not (check["id"] == cid or (cid.endswith("*") and check["id"].startswith(cid[:-1]))):
            continue
        if desc and desc not in check.get("description", ""):
            continue
        return ours
    return None


def start(cmd):
    """Start a server; return the process and the Streamable HTTP URL it printed on stderr."""
    env = dict(os.environ, MCPSCOPE_TS_SERVER_QUIET="1")
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    for _ in range(50):  # a few lines of start-up chatter at most
        line = proc.stderr.readline()
        if not line:
            break
        m = re.search(r"(http://127\.0\.0\.1:\d+)(/mcp)?\b", line)
        if m and "/sse" not in line:
            # Drain the rest of stderr so the server never blocks on a full pipe.
            threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
            return proc, m.group(1) + "/mcp"
    proc.kill()
    raise RuntimeError(f"{cmd[0]} printed no URL")


def run_ours(url, out):
    r = subprocess.run([MCPSCOPE, "check", url, "--format", "json"], capture_output=True, text=True, timeout=120)
    with open(os.path.join(out, "mcpscope-check.json"), "w") as f:
        f.write(r.stdout)
    doc = json.loads(r.stdout)
    eras = [e["era"] for e in doc["eras"] if e.get("offered")]
    verdicts = {}
    for v in doc["verdicts"]:
        key = (v["id"], v["era"])
        prev = verdicts.get(key)
        if prev is None or RANK[v["outcome"]] > RANK[prev["outcome"]]:
            verdicts[key] = v
    return eras, verdicts


def run_scenario(url, rev, scenario, out):
    d = os.path.join(out, rev, scenario)
    subprocess.run(
        [NODE22, SUITE, "server", "--url", url, "--scenario", scenario, "--spec-version", rev, "-o", d, "--timeout", "20000"],
        capture_output=True, text=True, timeout=90,
    )
    checks = []
    for sub in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        p = os.path.join(d, sub, "checks.json")
        if os.path.exists(p):
            checks += json.load(open(p))
    if not checks:
        checks = [{"id": scenario, "status": "FAILURE", "description": "scenario did not run", "errorMessage": "no checks.json"}]
    return rev, scenario, checks


def check_server(name, cmd, out):
    proc, url = start(cmd)
    try:
        eras, ours = run_ours(url, out)
        jobs = [(url, rev, sc, out) for rev in SCENARIOS if rev in eras for sc in SCENARIOS[rev]]
        with ThreadPoolExecutor(3) as pool:
            results = list(pool.map(lambda j: run_scenario(*j), jobs))
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
    return eras, ours, results


def short(text, n=110):
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"


def compare(name, eras, ours, results):
    """Rows of the side-by-side table and the suite's unmatched findings for one server."""
    suite = {}  # (our id, rev) -> [(outcome, suite check id, message)]
    unmatched = []
    for rev, scenario, checks in results:
        for c in checks:
            outcome = suite_outcome(c)
            mine = our_id(scenario, c)
            if mine is None:
                if outcome in ("fail", "warn", "untestable"):
                    msg = c.get("errorMessage") or c.get("description") or ""
                    # The suite's own fixture tools (conformance#516): nothing a real server has.
                    fixture = msg.startswith(("Not testable", "Mutated the")) or "test_" in msg
                    tag = " (fixture-bound)" if fixture else ""
                    unmatched.append((rev, scenario, c["id"], outcome + tag, short(msg)))
                continue
            suite.setdefault((mine, rev), []).append((outcome, f"{scenario}/{c['id']}", c.get("errorMessage") or ""))
    rows = []
    for (mine, rev), found in sorted(suite.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        worst = max(found, key=lambda f: RANK[f[0]])
        theirs = worst[0]
        v = ours.get((mine, rev))
        ours_outcome = v["outcome"] if v else "none"
        also = [a for a in ALSO.get(mine, []) if ours.get((a, rev), {}).get("outcome") == "fail"]
        if ours_outcome == "none":
            agree = "— (no check of ours)"
        elif theirs == "fail" and ours_outcome != "fail" and also:
            agree = f"✓ (ours fails it as {', '.join(also)})"
        elif (theirs == "fail") == (ours_outcome == "fail"):
            if theirs == ours_outcome:
                agree = "✓"
            elif "warn" in (theirs, ours_outcome) and "fail" not in (theirs, ours_outcome):
                agree = "≈"
            else:
                agree = "·"  # one side did not judge it (skipped, untestable)
        else:
            agree = "✗"
        why = ""
        if theirs in ("fail", "warn"):
            why = f"suite {worst[1]}: {short(worst[2], 90)}"
        if v and ours_outcome in ("fail", "warn", "skipped"):
            why += ("; " if why else "") + f"ours: {short(v['message'], 90)}"
        rows.append((name, mine, rev, theirs, ours_outcome, agree, why))
    return rows, unmatched


def print_matrix(names, rows):
    """One row per check of ours and revision, one column per server: the suite's verdict and
    ours in one word when they are the same, `suite / ours` when not."""
    cells = {}
    for name, mine, rev, theirs, ours_outcome, agree, _ in rows:
        if theirs == ours_outcome or {theirs, ours_outcome} <= {"pass", "skipped"} and theirs == ours_outcome:
            cell = theirs
        elif agree.startswith("—"):
            cell = f"{theirs} / —"
        else:
            cell = f"{theirs} / {ours_outcome}"
        mark = {"✗": " ✗", "≈": " ≈"}.get(agree[:1], "")
        if "fails it as" in agree:
            cell += " (ours: " + agree.split("fails it as ")[1].rstrip(")") + ")"
        cells[(mine, rev, name)] = cell + mark
    keys = sorted({(mine, rev) for _, mine, rev, *_ in rows}, key=lambda k: (k[1], k[0]))
    print("| Check (ours) | Revision | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for mine, rev in keys:
        line = [cells.get((mine, rev, n), "") for n in names]
        print(f"| `{mine}` | {rev} | " + " | ".join(line) + " |")


def main():
    args = [a for a in sys.argv[1:]]
    keep = None
    if "--keep" in args:
        i = args.index("--keep")
        keep = args[i + 1]
        del args[i : i + 2]
    chosen = [s for s in SERVERS if not args or s[0] in args]
    for path in (MCPSCOPE, NODE22, SUITE):
        if not os.path.exists(path):
            sys.exit(f"missing {path} (cargo build -p mcpscope; testenv/install.sh)")
    base = keep or tempfile.mkdtemp(prefix="mcpscope-agreement-")
    all_rows, all_unmatched, eras_of = [], [], {}
    try:
        for name, what, cmd in chosen:
            out = os.path.join(base, name)
            os.makedirs(out, exist_ok=True)
            print(f"… {name}", file=sys.stderr, flush=True)
            eras, ours, results = check_server(name, cmd, out)
            eras_of[name] = eras
            rows, unmatched = compare(name, eras, ours, results)
            all_rows += rows
            all_unmatched += [(name, *u) for u in unmatched]
    finally:
        if not keep:
            shutil.rmtree(base, ignore_errors=True)

    labels = {name: what for name, what, _ in SERVERS}
    print("| Server | eras offered |\n|---|---|")
    for name, _, _ in chosen:
        print(f"| {labels[name]} | {', '.join(eras_of.get(name, [])) or 'none'} |")
    print()
    print_matrix([n for n, _, _ in chosen], all_rows)
    print()
    print("Where one fails and the other does not (✗), or ours fails it under another id:\n")
    print("| Server | Check (ours) | Revision | Suite | Ours | | Why |")
    print("|---|---|---|---|---|---|---|")
    for name, mine, rev, theirs, ours_outcome, agree, why in all_rows:
        if not (agree.startswith("✗") or "fails it as" in agree):
            continue  # agreed, ≈ (both pass, one warns: shown in the matrix), or no check of ours
        print(f"| {name} | `{mine}` | {rev} | {theirs} | {ours_outcome} | {agree} | {why.replace('|', '/')} |")
    print()
    print("The suite's failures and warnings that no check of ours makes:\n")
    print("| Revision | Scenario | Suite check | Suite | Servers | Message (first server's) |")
    print("|---|---|---|---|---|---|")
    grouped = {}
    for name, rev, scenario, cid, outcome, msg in all_unmatched:
        grouped.setdefault((rev, scenario, cid, outcome), ([], msg))[0].append(name)
    for (rev, scenario, cid, outcome), (names, msg) in grouped.items():
        names = ", ".join(dict.fromkeys(names))
        print(f"| {rev} | {scenario} | `{cid}` | {outcome} | {names} | {msg.replace('|', '/')} |")
    disagreements = sum(1 for r in all_rows if r[5] == "✗")
    print(f"\n{len(all_rows)} verdicts side by side, {disagreements} disagreements (✗).", file=sys.stderr)


if __name__ == "__main__":
    main()
