#!/usr/bin/env bash
# Run testenv/peers/python/fastmcp_server.py, a test peer on FastMCP 4.2.3, both eras.
#
#   testenv/peers/fastmcp-server.sh stdio
#   testenv/peers/fastmcp-server.sh http|http-stateless|http-json|http-stateless-json PORT   # http://127.0.0.1:PORT/mcp
#   testenv/peers/fastmcp-server.sh sse PORT                                                 # http://127.0.0.1:PORT/sse
#
# PORT 0 = pick one. Execs the venv's python, so the pid is the server's. See fastmcp_server.py for what it
# serves and python/_serve.py for the modes.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
testenv_need "$PYTHON_PEERS"
# The SDKs' deprecation warnings (logging, sampling, roots are deprecated at 2026-07-28) are
# expected here; keep them off the stderr the tests read.
export PYTHONWARNINGS=ignore PYTHONUNBUFFERED=1
exec "$PYTHON_PEERS" "$TESTENV/peers/python/fastmcp_server.py" "$@"
