#!/usr/bin/env bash
# Build the mcpscope binary as it is released (`cargo ship`, .cargo/config.toml: linked
# statically on Linux) and check that it is what it claims and that it works: no program
# interpreter (the dynamic loader) in it, a one-shot `tools/list` over stdio to our demo and to
# server-everything (the TypeScript SDK's, from testenv), and one over Streamable HTTP to
# `localhost` (a name glibc resolves from /etc/hosts, which a static glibc does itself) — the
# tests run the debug build, and this is the one the benchmarks measure.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=../testenv/lib.sh
. testenv/lib.sh
cargo ship
bin="${CARGO_TARGET_DIR:-$PWD/target}/release/mcpscope"
if readelf -l "$bin" | grep -q INTERP; then
  echo "$bin has a program interpreter: it is not statically linked"; exit 1
fi
"$bin" --cli "$bin" demo-server --method tools/list --format json | grep -q '"name":"echo"'
"$bin" --cli "$NODE22" "$EVERYTHING_JS" --method tools/list --format json | grep -q '"name":"echo"'
log=$(mktemp)
"$bin" demo-server --http 0 >"$log" 2>&1 &
demo=$!
trap 'kill $demo 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q 'listening on' "$log" && break; sleep 0.1; done
port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/mcp.*|\1|p' "$log" | head -n1)
[ -n "$port" ] || { echo "the demo server did not start:"; cat "$log"; exit 1; }
"$bin" --cli "http://localhost:$port/mcp" --method tools/list --format json | grep -q '"name":"echo"'
echo "$bin: static; tools/list answered over stdio (demo, server-everything) and HTTP"
