#!/usr/bin/env bash
# Run testenv/peers/ts-sdk-server.mjs (TypeScript SDK v2, both eras) on Node 22.
#
#   testenv/peers/ts-sdk-server.sh stdio
#   testenv/peers/ts-sdk-server.sh http PORT     # http://127.0.0.1:PORT/mcp ; PORT 0 = pick one
#
# Execs node, so the pid is the server's. See ts-sdk-server.mjs for what it serves.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
testenv_need "$NODE22" "$PEERS_NM/@modelcontextprotocol/server/package.json"
export MCPSCOPE_PEERS_DIR="$PEERS_DIR"
exec "$NODE22" "$TESTENV/peers/ts-sdk-server.mjs" "$@"
