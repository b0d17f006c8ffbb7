#!/usr/bin/env bash
# Run testenv/peers/python/oauth_server.py (an MCP server behind the official Python SDK's own
# OAuth authorization server) in the .peers/python venv.
#
#   testenv/peers/python/oauth_server.sh http PORT            # http://127.0.0.1:PORT/mcp ; PORT 0 = pick one
#   testenv/peers/python/oauth_server.sh rotated-secret PORT  # every token request refused invalid_client
#
# Execs python, so the pid is the server's. See oauth_server.py for what it serves.
set -euo pipefail
# shellcheck source=../../lib.sh
. "$(cd "$(dirname "$0")/../.." && pwd)/lib.sh"
testenv_need "$PYTHON_PEERS"
exec "$PYTHON_PEERS" "$TESTENV/peers/python/oauth_server.py" "$@"
