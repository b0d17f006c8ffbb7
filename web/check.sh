#!/usr/bin/env bash
# CI check of the SPA: install exactly, typecheck, unit tests, rebuild, and fail when the rebuilt
# files differ from the committed ones in crates/mcpscope-server/assets/dist/.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
npm run typecheck
npm test
npm run build
git diff --exit-code --stat -- ../crates/mcpscope-server/assets/dist \
  || { echo "the committed SPA build is stale: run 'npm run build' in web/ and commit crates/mcpscope-server/assets/dist"; exit 1; }
if [ -n "$(git status --porcelain -- ../crates/mcpscope-server/assets/dist)" ]; then
  git status --porcelain -- ../crates/mcpscope-server/assets/dist
  echo "the SPA build wrote files that are not committed"; exit 1
fi
