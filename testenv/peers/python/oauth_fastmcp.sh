#!/usr/bin/env bash
# Run testenv/peers/python/oauth_fastmcp.py (an MCP server on FastMCP behind its in-memory
# OAuth authorization server) in the .peers/python venv.
#
#   testenv/peers/python/oauth_fastmcp.sh http PORT            # http://127.0.0.1:PORT/mcp ; PORT 0 = pick one
#
# Execs python, so the pid is the server's. See oauth_fastmcp.py for what it serves.
set -euo pipefail
# shellcheck source=../../lib.sh
. "$(cd "$(dirname "$0")/../.." && pwd)/lib.sh"
testenv_need "$PYTHON_PEERS"
exec "$PYTHON_PEERS" "$TESTENV/peers/python/oauth_fastmcp.py" "$@"
