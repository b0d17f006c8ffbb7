#!/usr/bin/env bash
# Self-test of the test environment (not of mcpscope): every peer launcher answers real MCP in the
# eras it claims, HTTP peers listen on 127.0.0.1 only, and the conformance harness scores the
# stand-in client 11/11 with checks counted. Needs testenv/install.sh node22 peers first.
#
#   testenv/selftest.sh [--no-conformance]
#
# Prints one line per check and ends with "selftest: N passed, M failed"; exit 1 on any failure.
set -uo pipefail
# shellcheck source=lib.sh
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
testenv_need "$NODE22" "$EVERYTHING_JS" "$CONFORMANCE_JS"

conformance=1
[ "${1:-}" = --no-conformance ] && conformance=0
tmp="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT

pass=0
fail=0
ok() { echo "ok    $1"; pass=$((pass + 1)); }
bad() { echo "FAIL  $1${2:+ -- $2}"; fail=$((fail + 1)); }
expect() { # name haystack needle
  if grep -qF -- "$3" <<<"$2"; then ok "$1"; else bad "$1" "missing $3 in: ${2:0:300}"; fi
}

META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"selftest","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}'
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"selftest","version":"1"}}}'
INITIALIZED='{"jsonrpc":"2.0","method":"notifications/initialized"}'

# Starts an HTTP peer with PORT 0; sets $port from its "listening on" line.
start_http() { # name command...
  local name="$1"
  shift
  "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
  pids+=($!)
  port=
  for _ in $(seq 1 100); do
    port=$(grep -o 'listening on http://127\.0\.0\.1:[0-9]*' "$tmp/$name.err" 2>/dev/null | head -1 | sed 's/.*://')
    [ -n "$port" ] && break
    sleep 0.1
  done
  if [ -z "$port" ]; then bad "$name starts" "$(cat "$tmp/$name.err")"; return 1; fi
  if ss -ltn 2>/dev/null | grep -q "127.0.0.1:$port "; then ok "$name listens on 127.0.0.1:$port only"; else bad "$name loopback-only" "$(ss -ltn | grep ":$port ")"; fi
}
post() { # url body [extra curl args...]
  local url="$1" body="$2"
  shift 2
  curl -s -m 10 -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' "$@" "$url" -d "$body"
}

# --- server-everything -------------------------------------------------------------------------
out=$( (printf '%s\n%s\n%s\n' "$INIT" "$INITIALIZED" '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get-sum","arguments":{"a":2,"b":3}}}'; sleep 2) |
  timeout 8 "$TESTENV/peers/everything.sh" stdio 2>/dev/null)
expect "everything stdio: initialize" "$out" '"name":"mcp-servers/everything"'
expect "everything stdio: tools/call get-sum" "$out" 'The sum of 2 and 3 is 5'

if start_http everything-http "$TESTENV/peers/everything.sh" http 0; then
  out=$(post "http://127.0.0.1:$port/mcp" "$INIT")
  expect "everything http: initialize (SSE-framed)" "$out" 'event: message'
  out=$(post "http://127.0.0.1:$port/mcp" '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{'"$META"'}}' -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: server/discover')
  expect "everything http: server/discover is not modern" "$out" '"error"'
fi
if start_http everything-sse "$TESTENV/peers/everything.sh" sse 0; then
  out=$(curl -s -m 2 -N "http://127.0.0.1:$port/sse")
  expect "everything sse: endpoint event" "$out" 'event: endpoint'
fi

# --- TypeScript SDK v2 server ------------------------------------------------------------------
out=$( (printf '%s\n%s\n%s\n' "$INIT" "$INITIALIZED" '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}'; sleep 1) |
  MCPSCOPE_TS_SERVER_QUIET=1 timeout 10 "$TESTENV/peers/ts-sdk-server.sh" stdio)
expect "ts-sdk stdio legacy: initialize" "$out" '"protocolVersion":"2025-11-25"'
expect "ts-sdk stdio legacy: add" "$out" '"structuredContent":{"sum":5}'
out=$( (printf '%s\n%s\n' '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{'"$META"'}}' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{},'"$META"'}}'; sleep 1) |
  MCPSCOPE_TS_SERVER_QUIET=1 timeout 10 "$TESTENV/peers/ts-sdk-server.sh" stdio)
expect "ts-sdk stdio modern: server/discover" "$out" '"supportedVersions":["2026-07-28"]'
expect "ts-sdk stdio modern: greet -> input_required" "$out" '"resultType":"input_required"'

if MCPSCOPE_TS_SERVER_QUIET=1 start_http ts-sdk-http "$TESTENV/peers/ts-sdk-server.sh" http 0; then
  u="http://127.0.0.1:$port/mcp"
  expect "ts-sdk http legacy: initialize" "$(post "$u" "$INIT")" '"protocolVersion":"2025-11-25"'
  H=(-H 'MCP-Protocol-Version: 2026-07-28')
  expect "ts-sdk http modern: server/discover" "$(post "$u" '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{'"$META"'}}' "${H[@]}" -H 'Mcp-Method: server/discover')" '"supportedVersions":["2026-07-28"]'
  expect "ts-sdk http modern: greet -> input_required" "$(post "$u" '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{},'"$META"'}}' "${H[@]}" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: greet')" '"requestState":"greet-round-1"'
  expect "ts-sdk http modern: greet retry -> complete" "$(post "$u" '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{},"inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}}},"requestState":"greet-round-1",'"$META"'}}' "${H[@]}" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: greet')" 'Hello, Ada!'
  expect "ts-sdk http modern: missing Mcp-Name -> -32020" "$(post "$u" '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"},'"$META"'}}' "${H[@]}" -H 'Mcp-Method: tools/call')" '"code":-32020'
fi

# --- conformance harness -----------------------------------------------------------------------
if [ $conformance = 1 ]; then
  if "$TESTENV/conformance/run.sh" --command "$TESTENV/conformance/standin-client.sh" -o "$tmp/conformance" >"$tmp/conf.txt" 2>&1; then
    ok "conformance harness: stand-in client passes all default runs"
  else
    bad "conformance harness: stand-in client" "$(tail -15 "$tmp/conf.txt")"
  fi
  if STANDIN_SKIP=http-standard-headers "$TESTENV/conformance/run.sh" --command "$TESTENV/conformance/standin-client.sh" -o "$tmp/conformance-trap" http-standard-headers >"$tmp/trap.txt" 2>&1; then
    bad "conformance harness: zero checks must fail" "$(cat "$tmp/trap.txt")"
  else
    expect "conformance harness: zero checks fail" "$(cat "$tmp/trap.txt")" 'zero scored checks'
  fi
fi

echo "selftest: $pass passed, $fail failed"
[ $fail = 0 ]
