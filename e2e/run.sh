#!/usr/bin/env bash
# Run the web UI's Playwright journeys: Debian chromium (installed when missing, as root), the
# debug binaries, then `npx playwright test`. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
  else
    echo "e2e: /usr/bin/chromium is missing (apt-get install chromium)"; exit 1
  fi
fi
cargo build --locked -p mcpscope -p mcpscope-testkit
cd e2e
npm ci --no-audit --no-fund
npx playwright test "$@"
