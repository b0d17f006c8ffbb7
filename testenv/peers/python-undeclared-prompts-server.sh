#!/usr/bin/env bash
# Run testenv/peers/python/undeclared_prompts_server.py: a Python SDK (mcp 2.3.0) low-level server,
# both eras, that serves prompts/list without declaring the prompts capability.
#
#   testenv/peers/python-undeclared-prompts-server.sh stdio
#   testenv/peers/python-undeclared-prompts-server.sh http|http-stateless|http-json|http-stateless-json PORT   # http://127.0.0.1:PORT/mcp
#
# PORT 0 = pick one. Execs the venv's python, so the pid is the server's.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
testenv_need "$PYTHON_PEERS"
export PYTHONWARNINGS=ignore PYTHONUNBUFFERED=1
exec "$PYTHON_PEERS" "$TESTENV/peers/python/undeclared_prompts_server.py" "$@"
