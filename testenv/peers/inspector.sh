#!/usr/bin/env bash
# Run the official MCP Inspector 2.12.0 (benchmarks / behaviour comparisons only) on Node 22, with
# HOME pointed at a scratch folder so it never reads or writes a real ~/.mcp-inspector.
#
#   testenv/peers/inspector.sh --cli <server command...> --method tools/list --format json
#   testenv/peers/inspector.sh --cli http://127.0.0.1:PORT/mcp --transport http --method tools/list
#
# Env: MCPSCOPE_INSPECTOR_HOME (default: <repo>/.peers/inspector-home, created on demand).
# Execs node, so the pid is the Inspector's.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
testenv_need "$NODE22" "$INSPECTOR_JS"
export HOME="${MCPSCOPE_INSPECTOR_HOME:-$PEERS_DIR/inspector-home}"
mkdir -p "$HOME"
exec "$NODE22" "$INSPECTOR_JS" "$@"
