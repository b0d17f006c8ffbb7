#!/usr/bin/env bash
# Run @modelcontextprotocol/server-everything (the legacy-era reference server) on Node 22.
#
#   testenv/peers/everything.sh stdio          # MCP on stdin/stdout (does not exit on EOF: SIGTERM it)
#   testenv/peers/everything.sh http PORT      # Streamable HTTP at http://127.0.0.1:PORT/mcp
#   testenv/peers/everything.sh sse PORT       # legacy HTTP+SSE: GET http://127.0.0.1:PORT/sse,
#                                              #   POST /message?sessionId=…
#
# HTTP modes are pinned to 127.0.0.1 by the loopback-only.cjs preload (the server itself listens
# on all interfaces). PORT 0 picks a free port; the preload then prints
#   mcpscope-testenv: listening on http://127.0.0.1:PORT (pid N)
# on stderr — wait for that line (or poll the port) before connecting.
# The script execs node, so its pid is the server's pid.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
testenv_need "$NODE22" "$EVERYTHING_JS"

usage() { echo "usage: $0 stdio | http PORT | sse PORT" >&2; exit 2; }
mode="${1:-}"
case "$mode" in
  stdio)
    exec "$NODE22" "$EVERYTHING_JS" stdio ;;
  http | streamableHttp)
    [ $# -eq 2 ] || usage
    export PORT="$2"; exec "$NODE22" --require "$LOOPBACK_PRELOAD" "$EVERYTHING_JS" streamableHttp ;;
  sse)
    [ $# -eq 2 ] || usage
    export PORT="$2"; exec "$NODE22" --require "$LOOPBACK_PRELOAD" "$EVERYTHING_JS" sse ;;
  *) usage ;;
esac
