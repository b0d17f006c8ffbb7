#!/usr/bin/env bash
# Install the real test peers into <repo>/.peers/ (gitignored), reproducibly, with `npm ci`.
#
#   testenv/install.sh                    # node22 + peers + inspector
#   testenv/install.sh node22 peers       # only what tests and the conformance suite need
#
# Components (each pinned by testenv/npm/<component>/package{,-lock}.json):
#   node22     node@22.23.3 (the npm package that ships the Node binary)   -> .peers/node22
#   peers      server-everything, conformance suite, TS SDK v2 server+node -> .peers/peers
#   inspector  the official Inspector 2.12.0 (benchmarks only)             -> .peers/inspector
#
# Idempotent: a component whose lock file hash matches the stamp left by the last successful
# install is skipped, so a second run takes well under a second. Concurrent runs serialise on a
# lock file. Set MCPSCOPE_TESTENV_FORCE=1 to reinstall anyway.
set -euo pipefail

# shellcheck source=lib.sh
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

ALL=(node22 peers inspector)
if [ $# -eq 0 ]; then set -- "${ALL[@]}"; fi
for c in "$@"; do
  case "$c" in node22 | peers | inspector) ;; *) testenv_die "unknown component '$c' (want: ${ALL[*]})" ;; esac
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

stamp_of() { cat "$TESTENV/npm/$1/package.json" "$TESTENV/npm/$1/package-lock.json" | sha256sum | cut -d' ' -f1; }

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
  install_component "$c"
  case "$c" in
    node22)
      v=$("$NODE22" -v) || testenv_die "Node 22 does not run: $NODE22"
      [ "$v" = v22.23.3 ] || testenv_die "expected Node v22.23.3, got $v"
      ;;
    peers) testenv_need "$EVERYTHING_JS" "$CONFORMANCE_JS" \
      "$PEERS_NM/@modelcontextprotocol/server/package.json" "$PEERS_NM/@modelcontextprotocol/node/package.json" ;;
    inspector) testenv_need "$INSPECTOR_JS" ;;
  esac
done
printf 'testenv: done in %ss; node: %s\n' "$(secs "$t_all" "$(now)")" "$NODE22"
