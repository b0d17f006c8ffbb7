#!/usr/bin/env bash
# Run testenv/peers/python/sdk_server.py, a test peer on the Python SDK's MCPServer (mcp 2.3.0), both eras.
#
#   testenv/peers/python-sdk-server.sh stdio
#   testenv/peers/python-sdk-server.sh http|http-stateless|http-json|http-stateless-json PORT   # http://127.0.0.1:PORT/mcp
#   testenv/peers/python-sdk-server.sh sse PORT                                                 # http://127.0.0.1:PORT/sse
#
# PORT 0 = pick one. Execs the venv's python, so the pid is the server's. See sdk_server.py for what it
# serves and python/_serve.py for the modes.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
testenv_need "$PYTHON_PEERS"
# The SDKs' deprecation warnings (logging, sampling, roots are deprecated at 2026-07-28) are
# expected here; keep them off the stderr the tests read.
export PYTHONWARNINGS=ignore PYTHONUNBUFFERED=1
exec "$PYTHON_PEERS" "$TESTENV/peers/python/sdk_server.py" "$@"
