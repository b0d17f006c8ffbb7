#!/usr/bin/env bash
# Run one of the MCP Apps project's example app servers (@modelcontextprotocol/server-basic-*,
# pinned in testenv/npm/peers) on Node 22. Each has one tool, get-time, whose app is the
# ui://get-time/mcp-app.html resource (the vanilla JS one ~220 KB, the React one ~410 KB, single
# HTML files built with @modelcontextprotocol/ext-apps). Legacy era only (2025-11-25).
#
#   testenv/peers/basic-app.sh vanillajs|react stdio        # MCP on stdin/stdout
#   testenv/peers/basic-app.sh vanillajs|react http PORT    # Streamable HTTP (stateless) at
#                                                            #   http://127.0.0.1:PORT/mcp
#
# HTTP mode is pinned to 127.0.0.1 by the loopback-only.cjs preload (the server itself listens on
# 0.0.0.0). PORT 0 picks a free port; the preload then prints
#   mcpscope-testenv: listening on http://127.0.0.1:PORT (pid N)
# on stderr (the server's own "listening on http://localhost:0/mcp" on stdout names the port it
# asked for, not the one it got: ignore it). The script execs node: its pid is the server's.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"

usage() { echo "usage: $0 vanillajs|react stdio | vanillajs|react http PORT" >&2; exit 2; }
variant="${1:-}"
case "$variant" in vanillajs | react) ;; *) usage ;; esac
entry="$PEERS_NM/@modelcontextprotocol/server-basic-$variant/dist/index.js"
testenv_need "$NODE22" "$entry"
case "${2:-}" in
  stdio)
    exec "$NODE22" "$entry" --stdio ;;
  http)
    [ $# -eq 3 ] || usage
    export PORT="$3"; exec "$NODE22" --require "$LOOPBACK_PRELOAD" "$entry" ;;
  *) usage ;;
esac
