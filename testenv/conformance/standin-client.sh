#!/usr/bin/env bash
# Conformance-suite client command for the stand-in client (standin-client.mjs) on Node 22.
#   testenv/conformance/run.sh --command "$PWD/testenv/conformance/standin-client.sh"
set -euo pipefail
# shellcheck source=../lib.sh
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
exec "$NODE22" "$TESTENV/conformance/standin-client.mjs" "$@"
