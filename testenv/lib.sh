# shellcheck shell=bash
# shellcheck disable=SC2034  # variables for the scripts that source this file
# Shared paths for testenv scripts. Source it; it defines variables and helpers only.
#
#   TESTENV      absolute path of testenv/
#   REPO_ROOT    absolute path of the repository root (parent of testenv/)
#   PEERS_DIR    $REPO_ROOT/.peers            (override: MCPSCOPE_PEERS_DIR)
#   NODE22       $PEERS_DIR/node22/node_modules/.bin/node   (override: MCPSCOPE_NODE22)
#   PEERS_NM     $PEERS_DIR/peers/node_modules
#   INSPECTOR_NM $PEERS_DIR/inspector/node_modules
#   EVERYTHING_JS, CONFORMANCE_JS, INSPECTOR_JS   entry points of those packages
#   LOOPBACK_PRELOAD  the --require preload that pins listen() to 127.0.0.1
#   PYTHON_PEERS $PEERS_DIR/python/bin/python   the venv with the Python SDK and FastMCP

TESTENV="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$TESTENV/.." && pwd)"
PEERS_DIR="${MCPSCOPE_PEERS_DIR:-$REPO_ROOT/.peers}"
NODE22="${MCPSCOPE_NODE22:-$PEERS_DIR/node22/node_modules/.bin/node}"
PEERS_NM="$PEERS_DIR/peers/node_modules"
INSPECTOR_NM="$PEERS_DIR/inspector/node_modules"
EVERYTHING_JS="$PEERS_NM/@modelcontextprotocol/server-everything/dist/index.js"
CONFORMANCE_JS="$PEERS_NM/@modelcontextprotocol/conformance/dist/index.js"
INSPECTOR_JS="$INSPECTOR_NM/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
LOOPBACK_PRELOAD="$TESTENV/peers/loopback-only.cjs"
PYTHON_PEERS="$PEERS_DIR/python/bin/python"

testenv_die() { echo "testenv: $*" >&2; exit 2; }

# Fails with a hint when a component is not installed.
testenv_need() {
  local f
  for f in "$@"; do
    [ -e "$f" ] || testenv_die "missing $f — run testenv/install.sh first"
  done
}
