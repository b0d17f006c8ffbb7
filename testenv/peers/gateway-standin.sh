#!/usr/bin/env bash
# Run testenv/peers/gateway-standin.py, a stand-in MCP gateway for the gateway mode's tests: FastMCP
# 4.2.3 mounting two prefixed backends (002's demo table) on the Python SDK, mcp 2.3.0.
#
#   testenv/peers/gateway-standin.sh [--era legacy|modern|both] [--json-response]
#       [--tls-cert PEM --tls-key PEM] [--bearer TOKEN] [--session-ttl SECONDS] [--no-prompts]
#       [--header-tools] [--input-required-tool]
#       [--host 127.0.0.1] [--port 0] [--record FILE]
#
# Prints `listening on http(s)://127.0.0.1:PORT/mcp` on stdout once bound (port 0 = pick one).
# Execs the venv's python, so the pid is the server's. See gateway-standin.py for every flag, and
# make-test-ca.sh for a CA and certificate to serve HTTPS with.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
testenv_need "$PYTHON_PEERS"
# The SDKs' deprecation warnings are expected here; keep them off the stderr the tests read.
export PYTHONWARNINGS=ignore PYTHONUNBUFFERED=1
exec "$PYTHON_PEERS" "$TESTENV/peers/gateway-standin.py" "$@"
