#!/usr/bin/env bash
# Run the MCP conformance suite's client scenarios against mcpscope (through adapter.sh), each at
# the spec revision it is scored under, inside a loopback-only network namespace.
#
#   testenv/conformance/run.sh [options] [SCENARIO[@REVISION] ...]
#
#   SCENARIO[@REVISION]   default: every run below — the eleven core runs (tools_call under both
#                         revisions) and the 41 auth runs (14 scored by 2025-11-25, 25 by
#                         2026-07-28, the two 2025-03-26 back-compat ones). A bare name runs under
#                         every default revision listing it (or 2025-11-25 for a name that is not
#                         in the default list); `core` and `auth` select those groups.
#   -o, --output DIR      results (default: target/conformance); per run: DIR/REV/SCENARIO-<ts>/
#                         {checks.json,stdout.txt,stderr.txt}, DIR/REV/SCENARIO.log (suite output),
#                         DIR/summary.ndjson (one JSON line per run)
#   --command CMD         client command (default: <abs>/testenv/conformance/adapter.sh). The suite
#                         splits it on single spaces and appends the server URL.
#   --timeout MS          per-scenario client timeout (default 30000)
#   --baseline FILE       expected failures (default: testenv/conformance/expected-failures.yml)
#   --no-netns            run on the host network (when unshare is unavailable)
#   --trace               adapter.sh passes --trace DIR/REV/traces/<scenario>-<n>.ndjson to mcpscope
#   -v, --verbose         print each run's suite output
#
# Env: MCPSCOPE_BIN (binary used by adapter.sh; default target/debug/mcpscope).
# Exit: 0 when every run is PASS/XFAIL, 1 otherwise, 2 on setup errors.
# A run passes only with >= 1 scored check, no FAILURE/WARNING, no timeout, no bad client exit;
# zero checks is a failure (http-standard-headers "passes" with zero checks if the client does
# nothing).
set -euo pipefail
# shellcheck source=../lib.sh
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"

DEFAULT_RUNS=(
  initialize@2025-11-25
  tools_call@2025-11-25
  elicitation-sep1034-client-defaults@2025-11-25
  sse-retry@2025-11-25
  tools_call@2026-07-28
  request-metadata@2026-07-28
  sep-2322-client-request-state@2026-07-28
  http-standard-headers@2026-07-28
  http-custom-headers@2026-07-28
  http-invalid-tool-headers@2026-07-28
  json-schema-ref-no-deref@2026-07-28
)
CORE_RUNS=("${DEFAULT_RUNS[@]}")

# The auth/* client scenarios each requirement set scores (requirements/2025-11-25.yaml and
# 2026-07-28.yaml of the suite), plus the 2025-03-26 back-compat scenarios (removed in 2025-06-18,
# so they only run at 2025-03-26).
AUTH_BOTH=(
  metadata-default metadata-var1 metadata-var2 metadata-var3 basic-cimd
  scope-from-www-authenticate scope-from-scopes-supported scope-omitted-when-undefined
  scope-step-up scope-retry-limit token-endpoint-auth-basic token-endpoint-auth-post
  token-endpoint-auth-none pre-registration
)
AUTH_2026=(
  resource-mismatch offline-access-scope offline-access-not-supported
  authorization-server-migration iss-supported iss-not-advertised iss-supported-missing
  iss-wrong-issuer iss-unexpected iss-normalized metadata-issuer-mismatch
)
AUTH_RUNS=()
for a in "${AUTH_BOTH[@]}"; do AUTH_RUNS+=("auth/$a@2025-11-25"); done
for a in "${AUTH_BOTH[@]}" "${AUTH_2026[@]}"; do AUTH_RUNS+=("auth/$a@2026-07-28"); done
AUTH_RUNS+=(auth/2025-03-26-oauth-metadata-backcompat@2025-03-26 auth/2025-03-26-oauth-endpoint-fallback@2025-03-26)
DEFAULT_RUNS+=("${AUTH_RUNS[@]}")

out="$REPO_ROOT/target/conformance"
command="$TESTENV/conformance/adapter.sh"
timeout_ms=30000
baseline="$TESTENV/conformance/expected-failures.yml"
netns=1
verbose=0
trace=0
selected=()
orig_args=("$@")
while [ $# -gt 0 ]; do
  case "$1" in
    -o | --output) out="$2"; shift 2 ;;
    --command) command="$2"; shift 2 ;;
    --timeout) timeout_ms="$2"; shift 2 ;;
    --baseline) baseline="$2"; shift 2 ;;
    --no-netns) netns=0; shift ;;
    --trace) trace=1; shift ;;
    -v | --verbose) verbose=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) testenv_die "unknown option $1 (see --help)" ;;
    *) selected+=("$1"); shift ;;
  esac
done

# Enter a fresh network namespace with only `lo` (up): the suite's mock servers listen on all
# interfaces, and nothing here may leave the machine anyway.
if [ $netns = 1 ] && [ "${MCPSCOPE_CONFORMANCE_IN_NETNS:-}" != 1 ]; then
  if ! unshare -n true 2>/dev/null; then
    testenv_die "cannot create a network namespace (unshare -n needs root or CAP_SYS_ADMIN); rerun with --no-netns"
  fi
  export MCPSCOPE_CONFORMANCE_IN_NETNS=1
  exec unshare -n -- bash -c 'ip link set lo up && exec bash "$@"' netns-init "$0" "${orig_args[@]}"
fi

testenv_need "$NODE22" "$CONFORMANCE_JS"
case "$command" in *"  "* | " "* ) testenv_die "--command must not have leading or doubled spaces (the suite splits on single spaces)" ;; esac
if [ "$command" = "$TESTENV/conformance/adapter.sh" ]; then
  case "$TESTENV" in *" "*) testenv_die "the repository path contains a space; the suite cannot run $command" ;; esac
  bin="${MCPSCOPE_BIN:-$REPO_ROOT/target/debug/mcpscope}"
  [ -x "$bin" ] || testenv_die "mcpscope binary not found at $bin (build it, or set MCPSCOPE_BIN)"
fi

# Expand the selection into scenario@revision runs.
runs=()
if [ ${#selected[@]} -eq 0 ]; then
  runs=("${DEFAULT_RUNS[@]}")
else
  for s in "${selected[@]}"; do
    if [ "$s" = core ]; then runs+=("${CORE_RUNS[@]}"); continue; fi
    if [ "$s" = auth ]; then runs+=("${AUTH_RUNS[@]}"); continue; fi
    if [[ "$s" == *@* ]]; then runs+=("$s"); continue; fi
    found=0
    for d in "${DEFAULT_RUNS[@]}"; do
      if [ "${d%@*}" = "$s" ]; then runs+=("$d"); found=1; fi
    done
    [ $found = 1 ] || runs+=("$s@2025-11-25")
  done
fi

mkdir -p "$out"
out="$(cd "$out" && pwd)"
summary="$out/summary.ndjson"
: >"$summary"
now() { echo "${EPOCHREALTIME/,/.}"; }
t_all=$(now)
echo "conformance: suite $("$NODE22" "$CONFORMANCE_JS" --version), client: $command"
echo "conformance: results in $out$([ "${MCPSCOPE_CONFORMANCE_IN_NETNS:-}" = 1 ] && echo ' (loopback-only network namespace)')"

# Kills what is left of process group $1 (created by setsid above, so every member is ours).
kill_group() {
  pgrep -g "$1" >/dev/null 2>&1 || return 0
  kill -TERM -- "-$1" 2>/dev/null
  sleep 1
  pgrep -g "$1" >/dev/null 2>&1 && kill -KILL -- "-$1" 2>/dev/null
  return 0
}

pass=0
fail=0
for run in "${runs[@]}"; do
  scenario="${run%@*}"
  revision="${run#*@}"
  dir="$out/$revision"
  mkdir -p "$dir"
  log="$dir/${scenario//\//_}.log"
  before=$(ls -d "$dir/$scenario"-2* 2>/dev/null | sort || true)
  [ $trace = 1 ] && export MCPSCOPE_CONFORMANCE_TRACE_DIR="$dir/traces"
  t0=$(now)
  set +e
  # Own process group: on timeout the suite SIGTERMs only its `sh -c` wrapper, and a client that
  # keeps stdout open (or a hung mcpscope) would keep the suite waiting forever. The watchdog
  # kills the whole group after the suite's timeout + 30 s; leftovers are killed after each run.
  setsid "$NODE22" "$CONFORMANCE_JS" client --command "$command" --scenario "$scenario" \
    --spec-version "$revision" --timeout "$timeout_ms" -o "$dir" >"$log" 2>&1 &
  spid=$!
  killed=0
  limit=$((timeout_ms / 1000 + 30))
  start=$SECONDS
  while kill -0 "$spid" 2>/dev/null; do
    if [ $((SECONDS - start)) -ge $limit ]; then
      echo "run.sh: no result after ${limit}s; killing the scenario's process group" >>"$log"
      kill_group "$spid"
      killed=1
      break
    fi
    sleep 0.2
  done
  wait "$spid"
  rc=$?
  kill_group "$spid" # clients left behind by the suite
  set -e
  secs=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  result=$(comm -13 <(echo "$before") <(ls -d "$dir/$scenario"-2* 2>/dev/null | sort) | tail -1)
  [ $verbose = 1 ] && sed 's/^/    | /' "$log"
  set +e
  line=$("$NODE22" "$TESTENV/conformance/verdict.mjs" --scenario "$scenario" --revision "$revision" \
    --result-dir "$result" --log "$log" --rc "$rc" --killed "$killed" --baseline "$baseline" --summary "$summary")
  vrc=$?
  set -e
  echo "$line  [${secs}s]"
  if [ $vrc = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done

secs=$(awk -v a="$t_all" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
echo "conformance: ${#runs[@]} runs in ${secs}s; details: <dir>/<revision>/<scenario>.log and checks.json"
echo "conformance: $pass passed, $fail failed"
[ $fail = 0 ]
