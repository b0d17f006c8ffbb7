#!/usr/bin/env bash
# Run every test mcpscope has, from a clean checkout on a fresh machine: installs the real peers
# (Node 22, server-everything, the TypeScript SDK server, the conformance suite) into .peers/,
# checks the SPA (typecheck, unit tests, reproducible build), formatting and lints, runs the Rust
# tests (unit, integration against the demo server, the misbehaving-server testkit, the real peers,
# the web backend, the terminal UI in tmux), the spec's conformance suite against our CLI (core and
# auth scenarios), the web UI's Playwright journeys in Debian's chromium, the released binary and
# its OCI image (run under chroot), and validates the Kubernetes manifests in deploy/. Exits
# non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n=== %s (%s)\n' "$1" "$(date +%H:%M:%S)"; }
SECONDS=0

step "install the test peers (testenv/install.sh)"
bash testenv/install.sh

step "tmux for the terminal UI's end-to-end tests (installed when missing, as root)"
if ! command -v tmux >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux
  else
    echo "tmux is missing (apt-get install tmux): the tests tui_tmux:: need it"; exit 1
  fi
fi
tmux -V

step "deploy/kubernetes: strict schemas of two Kubernetes versions, kustomize render, issue 25's rules (scripts/manifests-check.sh)"
bash scripts/manifests-check.sh

step "web: npm ci, typecheck, unit tests, rebuild = committed build (web/check.sh)"
bash web/check.sh

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy -D warnings"
cargo clippy --locked --workspace --all-targets -- -D warnings

step "cargo build"
cargo build --locked --workspace --all-targets

step "proto has no I/O"
if grep -rnE 'std::(fs|net|process)|tokio' crates/mcpscope-proto/src; then
  echo "mcpscope-proto must not do I/O (found the lines above)"; exit 1
fi

step "cargo test"
export MCPSCOPE_TESTKIT_BIN="$PWD/target/debug/mcpscope-testkit"
cargo test --locked --workspace -- --test-threads "${MCPSCOPE_TEST_THREADS:-4}"

step "conformance suite (testenv/conformance/run.sh)"
MCPSCOPE_BIN="$PWD/target/debug/mcpscope" bash testenv/conformance/run.sh

step "web UI end to end: Playwright with Debian chromium (e2e/run.sh)"
bash e2e/run.sh
step "the released binary (cargo ship): statically linked, a one-shot over stdio and over HTTP"
bash scripts/ship-check.sh
step "the OCI image (deploy/Containerfile) of that binary: its config and files, its root filesystem run under chroot as 65532 (scripts/image-check.sh)"
bash scripts/image-check.sh

echo
echo "all tests passed in ${SECONDS}s"
