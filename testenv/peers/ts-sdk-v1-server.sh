#!/usr/bin/env bash
# Run testenv/peers/ts-sdk-v1-server.mjs (TypeScript SDK v1 1.32.2, legacy era) on Node 22.
#
#   testenv/peers/ts-sdk-v1-server.sh stdio
#   testenv/peers/ts-sdk-v1-server.sh http PORT            # Streamable HTTP, stateful, SSE responses
#   testenv/peers/ts-sdk-v1-server.sh http-stateless PORT  # Streamable HTTP, no sessions
#   testenv/peers/ts-sdk-v1-server.sh http-json PORT       # Streamable HTTP, stateful, JSON responses
#   testenv/peers/ts-sdk-v1-server.sh sse PORT             # HTTP+SSE: GET /sse, POST /messages?sessionId=…
#
# http* modes serve http://127.0.0.1:PORT/mcp. PORT 0 = pick one; the server then prints
#   mcpscope-testenv: listening on http://127.0.0.1:PORT[/mcp] (pid N)
# on stderr. Execs node, so the pid is the server's. See ts-sdk-v1-server.mjs for what it serves.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
testenv_need "$NODE22" "$PEERS_NM/@modelcontextprotocol/sdk/package.json"
export MCPSCOPE_PEERS_DIR="$PEERS_DIR"
exec "$NODE22" "$TESTENV/peers/ts-sdk-v1-server.mjs" "$@"
