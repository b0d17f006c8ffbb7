#!/usr/bin/env bash
# The client command the conformance suite runs:
#   conformance client --command "/abs/path/testenv/conformance/adapter.sh" --scenario S ...
# The suite appends the mock server's URL as the last argument and sets
#   MCP_CONFORMANCE_SCENARIO          scenario name (always)
#   MCP_CONFORMANCE_PROTOCOL_VERSION  revision to speak (2025-11-25 unless --spec-version says otherwise)
#   MCP_CONFORMANCE_CONTEXT           JSON with scenario data (http-custom-headers: the tool calls;
#                                     auth/pre-registration: client_id, client_secret)
#
# Each scenario maps to ORDINARY `mcpscope --cli <url> ...` invocations — everything
# scenario-specific (tool names, arguments) lives here, never in the product. What each scenario
# checks, and why these invocations satisfy it: testenv/conformance/SCENARIOS.md.
#
# Env:
#   MCPSCOPE_BIN                    binary (default <repo>/target/debug/mcpscope)
#   MCPSCOPE_CONFORMANCE_ARGS       extra flags for every invocation (word-split), e.g. "--protocol-era auto"
#   MCPSCOPE_CONFORMANCE_TRACE_DIR  if set, each invocation writes --trace DIR/<scenario>-<n>.ndjson
# Exit: 0 when every invocation did what the scenario needs, else 1 (2 on usage errors).
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="${MCPSCOPE_BIN:-$root/target/debug/mcpscope}"
[ $# -ge 1 ] || { echo "adapter: usage: $0 [...] SERVER_URL" >&2; exit 2; }
url="${!#}"
scenario="${MCP_CONFORMANCE_SCENARIO:?adapter: MCP_CONFORMANCE_SCENARIO is not set}"
version="${MCP_CONFORMANCE_PROTOCOL_VERSION:-2025-11-25}"
[ -x "$bin" ] || { echo "adapter: mcpscope binary not found: $bin (set MCPSCOPE_BIN)" >&2; exit 2; }

case "$version" in
  2026-07-28) era=modern ;;
  2024-* | 2025-*) era=legacy ;;
  *) echo "adapter: unknown protocol version $version" >&2; exit 2 ;;
esac

# Request timeouts stay well under the suite's 30 s client timeout: on timeout the suite kills only
# its `sh -c` wrapper, so a hung mcpscope would otherwise keep the scenario open.
common=(--cli "$url" --transport http --protocol-era "$era" --format json
  --connect-timeout 5000 --request-timeout 10000)
# shellcheck disable=SC2206
[ -n "${MCPSCOPE_CONFORMANCE_ARGS:-}" ] && common+=(${MCPSCOPE_CONFORMANCE_ARGS})

# Every run gets a secret store of its own (an encrypted file in a fresh directory): the mocks
# pick ports at random, so tokens stored by one scenario must never meet another's servers, and
# nothing may land in the user's keyring.
store_dir="$(mktemp -d "${TMPDIR:-/tmp}/mcpscope-conformance-XXXXXX")"
export MCPSCOPE_SECRET_STORE=file MCPSCOPE_DATA_DIR="$store_dir"
unset MCPSCOPE_SECRET_PASSPHRASE MCPSCOPE_SECRET_FILE MCPSCOPE_AUTH_PROFILE

n=0
child=
trap '[ -n "$child" ] && kill "$child" 2>/dev/null; rm -rf "$store_dir"; exit 143' TERM INT
trap 'rm -rf "$store_dir"' EXIT
mcpscope() {
  n=$((n + 1))
  local trace=()
  if [ -n "${MCPSCOPE_CONFORMANCE_TRACE_DIR:-}" ]; then
    mkdir -p "$MCPSCOPE_CONFORMANCE_TRACE_DIR"
    trace=(--trace "$MCPSCOPE_CONFORMANCE_TRACE_DIR/${scenario//\//_}-$n.ndjson")
  fi
  printf 'adapter[%s]: mcpscope' "$n" >&2
  printf ' %q' "${common[@]}" "${trace[@]}" "$@" >&2
  echo >&2
  "$bin" "${common[@]}" "${trace[@]}" "$@" </dev/null &
  child=$!
  wait "$child"
  local rc=$?
  child=
  [ $rc = 0 ] || echo "adapter[$n]: exit $rc" >&2
  return $rc
}

status=0
must() { mcpscope "$@" || status=1; }
# For a call mcpscope must refuse: passes when it exits non-zero.
must_refuse() {
  if mcpscope "$@"; then
    echo "adapter: mcpscope did NOT refuse: $*" >&2
    status=1
  fi
}
# For an authorization mcpscope must refuse: passes only with exit 3 (auth_required).
must_refuse_auth() {
  mcpscope "$@"
  local rc=$?
  if [ $rc != 3 ]; then
    echo "adapter: expected exit 3 (auth_required), got $rc: $*" >&2
    status=1
  fi
}
# A value from MCP_CONFORMANCE_CONTEXT.
context() {
  python3 -c 'import json, os, sys; print(json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}").get(sys.argv[1], ""))' "$1"
}

case "$scenario" in
  initialize)
    # legacy: initialize -> notifications/initialized; checks protocolVersion + clientInfo
    must --method initialize
    ;;
  tools_call)
    # both revisions: one tools/call of add_numbers with numeric a and b
    must --method tools/call --tool-name add_numbers --tool-arg a=2 --tool-arg b=3
    ;;
  elicitation-sep1034-client-defaults)
    # legacy: elicitation/create arrives on the standalone GET stream; answer accept + schema defaults
    must --method tools/call --tool-name test_client_elicitation_defaults --elicitation accept-defaults
    ;;
  sse-retry)
    # legacy: the tools/call SSE stream is closed after a priming event (retry: 500); resume with
    # GET + Last-Event-ID after >= 450 ms and read the result there
    must --method tools/call --tool-name test_reconnection
    ;;
  request-metadata)
    # modern: first request is rejected with -32022; retry once at 2026-07-28. The capability
    # flags make the client declare roots, sampling and elicitation so those checks are scored.
    must --method tools/list --root file:///tmp/mcpscope-conformance --sampling-text conformance --elicitation decline
    ;;
  sep-2322-client-request-state)
    # modern MRTR: retry with inputResponses (+ the exact requestState when one was sent), new id;
    # no retry when resultType is absent. One process per call keeps the flows isolated.
    must --method tools/call --tool-name test_mrtr_echo_state --elicitation accept-defaults
    must --method tools/call --tool-name test_mrtr_no_state --elicitation accept-defaults
    must --method tools/call --tool-name test_mrtr_unrelated --elicitation accept-defaults
    must --method tools/call --tool-name test_mrtr_no_result_type --elicitation accept-defaults
    ;;
  http-standard-headers)
    # modern: Mcp-Method on every POST, Mcp-Name on tools/call, resources/read, prompts/get
    must --method tools/list
    must --method tools/call --tool-name test_headers
    must --method tools/call --tool-name my-hyphenated-tool
    must --method resources/list
    must --method resources/read --uri 'file:///path/to/file%20name.txt'
    must --method prompts/list
    must --method prompts/get --prompt-name test_prompt
    ;;
  http-custom-headers)
    # modern: x-mcp-header parameters mirrored as Mcp-Param-<Name> (Base64 where unsafe, omitted
    # when null). The tool calls come from MCP_CONFORMANCE_CONTEXT.toolCalls.
    calls="$(python3 -c 'import json, os
for c in json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}").get("toolCalls", []):
    print(c["name"] + "\t" + json.dumps(c.get("arguments", {}), ensure_ascii=True))')" || { echo "adapter: bad MCP_CONFORMANCE_CONTEXT" >&2; exit 1; }
    [ -n "$calls" ] || { echo "adapter: MCP_CONFORMANCE_CONTEXT has no toolCalls" >&2; exit 1; }
    while IFS=$'\t' read -r name args; do
      must --method tools/call --tool-name "$name" --tool-args-json "$args"
    done <<<"$calls"
    ;;
  http-invalid-tool-headers)
    # modern: list tools, keep valid_tool usable, refuse every tool whose x-mcp-header is invalid
    must --method tools/list
    must --method tools/call --tool-name valid_tool --tool-arg region=us-west1
    must_refuse --method tools/call --tool-name invalid_empty_header --tool-args-json '{"value":"x"}'
    must_refuse --method tools/call --tool-name invalid_object_header --tool-args-json '{"data":{}}'
    must_refuse --method tools/call --tool-name invalid_array_header --tool-args-json '{"items":["x"]}'
    must_refuse --method tools/call --tool-name invalid_null_header --tool-args-json '{"nil":null}'
    must_refuse --method tools/call --tool-name invalid_number_header --tool-args-json '{"score":1.5}'
    must_refuse --method tools/call --tool-name invalid_duplicate_same_case --tool-args-json '{"field1":"a","field2":"b"}'
    must_refuse --method tools/call --tool-name invalid_duplicate_diff_case --tool-args-json '{"field1":"a","field2":"b"}'
    must_refuse --method tools/call --tool-name invalid_space_in_name --tool-args-json '{"value":"x"}'
    must_refuse --method tools/call --tool-name invalid_colon_in_name --tool-args-json '{"value":"x"}'
    must_refuse --method tools/call --tool-name invalid_non_ascii_name --tool-args-json '{"value":"x"}'
    must_refuse --method tools/call --tool-name invalid_control_char_name --tool-args-json '{"value":"x"}'
    ;;
  json-schema-ref-no-deref)
    # modern: list tools; never fetch the network $ref in lookup_user's inputSchema
    must --method tools/list
    ;;
  # --- authorization (both revisions). The mocks' authorization endpoints approve at once and
  # redirect back, so --headless-auth reads code and iss from that redirect's Location. Every
  # request after the 401 must carry the token; see SCENARIOS.md § Authorization.
  auth/basic-cimd)
    # the AS accepts client ID metadata documents: the URL the suite expects is the client id
    must --method tools/list --headless-auth \
      --client-metadata-url https://conformance-test.local/client-metadata.json
    ;;
  auth/pre-registration)
    # no DCR: the pre-registered client from the context, client_secret_basic at the token endpoint
    id="$(context client_id)" secret="$(context client_secret)"
    [ -n "$id" ] || { echo "adapter: MCP_CONFORMANCE_CONTEXT has no client_id" >&2; exit 1; }
    must --method tools/list --headless-auth --client-id "$id" --client-secret "$secret"
    ;;
  auth/scope-step-up)
    # initialize is open; tools/call gets 401 (scope mcp:basic), then 403 insufficient_scope
    # (mcp:write): re-authorize for the union, retry, succeed
    must --method tools/call --tool-name test-tool --headless-auth
    ;;
  auth/scope-retry-limit)
    # every authorized request gets 403 insufficient_scope: give up after a bounded number of
    # authorizations (1 + 2 step-ups <= the suite's 3) with auth_required
    must_refuse_auth --method tools/call --tool-name test-tool --headless-auth
    ;;
  auth/resource-mismatch | auth/iss-supported-missing | auth/iss-wrong-issuer | auth/iss-unexpected | \
    auth/iss-normalized | auth/metadata-issuer-mismatch)
    # refusals: PRM resource not this server; iss missing though advertised; iss of another
    # issuer (advertised or not); iss equal only after normalization; AS metadata with a foreign
    # issuer. mcpscope must stop before the token request and exit 3.
    must_refuse_auth --method tools/list --headless-auth
    ;;
  auth/*)
    # discovery variants, scope selection, token endpoint auth methods, offline_access, iss
    # accepted, authorization server migration, 2025-03-26 back-compat: one ordinary call
    must --method tools/list --headless-auth
    ;;
  *)
    echo "adapter: no mapping for scenario '$scenario' (see testenv/conformance/SCENARIOS.md)" >&2
    exit 1
    ;;
esac
exit $status
