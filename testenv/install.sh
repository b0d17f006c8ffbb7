#!/usr/bin/env bash
# Install the real test peers into <repo>/.peers/ (gitignored), reproducibly, with `npm ci`.
#
#   testenv/install.sh                    # node22 + peers + inspector
#   testenv/install.sh node22 peers       # only what tests and the conformance suite need
#
# Components (each pinned by testenv/npm/<component>/package{,-lock}.json):
#   node22     node@22.23.3 (the npm package that ships the Node binary)   -> .peers/node22
#   peers      server-everything/-filesystem/-memory, conformance suite,
#              TS SDK v1, TS SDK v2 server+node                            -> .peers/peers
#   inspector  the official Inspector 2.12.0 (benchmarks only)             -> .peers/inspector
#   python     the Python SDK (mcp) and FastMCP in a venv (pip, pinned)     -> .peers/python
#
# Idempotent: a component whose lock file hash matches the stamp left by the last successful
# install is skipped, so a second run takes well under a second. Concurrent runs serialise on a
# lock file. Set MCPSCOPE_TESTENV_FORCE=1 to reinstall anyway.
set -euo pipefail

# shellcheck source=lib.sh
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

ALL=(node22 peers inspector python)
if [ $# -eq 0 ]; then set -- "${ALL[@]}"; fi
for c in "$@"; do
  case "$c" in node22 | peers | inspector | python) ;; *) testenv_die "unknown component '$c' (want: ${ALL[*]})" ;; esac
done
# Everything else runs on Node 22, and npm itself runs on it too (no EBADENGINE noise).
want_node22=0
for c in "$@"; do [ "$c" = node22 ] && want_node22=1; done
if [ $want_node22 = 0 ]; then set -- node22 "$@"; fi

command -v npm >/dev/null || testenv_die "npm not found on PATH"
mkdir -p "$PEERS_DIR"

# One install at a time (cargo test may start several helpers in parallel).
exec 9>"$PEERS_DIR/.install.lock"
flock 9

now() { echo "${EPOCHREALTIME/,/.}"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
t_all=$(now)

stamp_of() {
  if [ "$1" = python ]; then cat "$TESTENV/python/requirements.txt"; else cat "$TESTENV/npm/$1/package.json" "$TESTENV/npm/$1/package-lock.json"; fi |
    sha256sum | cut -d' ' -f1
}

# The Python peers: a venv of its own (never the machine's site-packages), every pin exact.
install_python() {
  local dst="$PEERS_DIR/python" want have t0
  want=$(stamp_of python)
  have=$(cat "$dst/.installed" 2>/dev/null || true)
  if [ "$want" = "$have" ] && [ -x "$PYTHON_PEERS" ] && [ "${MCPSCOPE_TESTENV_FORCE:-0}" != 1 ]; then
    printf 'testenv: %-9s up to date (%s)\n' python "$dst"
    return
  fi
  t0=$(now)
  command -v python3 >/dev/null || testenv_die "python3 not found on PATH"
  rm -rf "$dst"
  python3 -m venv "$dst"
  "$dst/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$TESTENV/python/requirements.txt"
  echo "$want" >"$dst/.installed"
  printf 'testenv: %-9s installed in %ss (%s, %s)\n' python "$(secs "$t0" "$(now)")" "$(du -sh "$dst" | cut -f1)" "$dst"
}

install_component() {
  local c="$1" src="$TESTENV/npm/$1" dst="$PEERS_DIR/$1" t0 want have
  want=$(stamp_of "$c")
  have=$(cat "$dst/.installed" 2>/dev/null || true)
  if [ "$want" = "$have" ] && [ -d "$dst/node_modules" ] && [ "${MCPSCOPE_TESTENV_FORCE:-0}" != 1 ]; then
    printf 'testenv: %-9s up to date (%s)\n' "$c" "$dst"
    return
  fi
  t0=$(now)
  mkdir -p "$dst"
  rm -f "$dst/.installed"
  cp "$src/package.json" "$src/package-lock.json" "$dst/"
  local path="$PATH"
  # Once Node 22 is there, run npm (a `#!/usr/bin/env node` script) on it.
  if [ "$c" != node22 ]; then path="$(dirname "$NODE22"):$PATH"; fi
  (cd "$dst" && PATH="$path" npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" >"$dst/.installed"
  printf 'testenv: %-9s installed in %ss (%s, %s)\n' "$c" "$(secs "$t0" "$(now)")" \
    "$(du -sh "$dst/node_modules" | cut -f1)" "$dst"
}

for c in "$@"; do
  if [ "$c" = python ]; then install_python; else install_component "$c"; fi
  case "$c" in
    node22)
      v=$("$NODE22" -v) || testenv_die "Node 22 does not run: $NODE22"
      [ "$v" = v22.23.3 ] || testenv_die "expected Node v22.23.3, got $v"
      ;;
    peers) testenv_need "$EVERYTHING_JS" "$CONFORMANCE_JS" \
      "$PEERS_NM/@modelcontextprotocol/server/package.json" "$PEERS_NM/@modelcontextprotocol/node/package.json" \
      "$PEERS_NM/@modelcontextprotocol/sdk/package.json" \
      "$PEERS_NM/@modelcontextprotocol/server-filesystem/dist/index.js" "$PEERS_NM/@modelcontextprotocol/server-memory/dist/index.js" ;;
    inspector) testenv_need "$INSPECTOR_JS" ;;
    python) "$PYTHON_PEERS" -c 'import mcp, fastmcp' || testenv_die "the Python peers do not import" ;;
  esac
done
printf 'testenv: done in %ss; node: %s\n' "$(secs "$t_all" "$(now)")" "$NODE22"
