//! The `flawed-modern` stdio fixture: a small correct 2026-07-28-only server that `mcpscope
//! check` passes — or, with `--flaw`, fails exactly one of the 2026-07-28 checks (and, where the
//! flaw also breaks the schema, `wire-schema-valid`). The 2026-07-28 sibling of `flawed`.
//!
//! What it serves when whole: the `_meta` envelope checked on every request (-32602 without a
//! required field, -32022 for another version), `server/discover`, `tools/list` in two pages with
//! caching hints, and two read-only tools without arguments, so the checker calls both: `status`
//! (a text) and `confirm`, which asks one `input_required` question (elicitation) with a signed
//! `requestState`: the retry with its own state and an answer completes, without the answer it
//! asks again, and a state that fails verification is refused with -32602. The methods
//! 2026-07-28 removed (`ping`, `logging/setLevel`, `resources/subscribe`,
//! `resources/unsubscribe`), `initialize` and everything else are -32601.

use super::{Lines, MODERN_PROTOCOL_VERSION, Sink};
use crate::jsonrpc::{
    self, INVALID_PARAMS, Incoming, METHOD_NOT_FOUND, MISSING_CLIENT_CAPABILITY, PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
};
use serde_json::{Value, json};
use tokio::io::AsyncRead;

const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// What is wrong with the `flawed-modern` server, each failing one 2026-07-28 check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModernFlaw {
    /// Nothing: every check passes or is skipped.
    None,
    /// `status`'s result has no `resultType`: `result-type-present` (and the schema).
    NoResultType,
    /// `tools/list`'s first page has no `ttlMs`: `cache-hint-coverage` (and the schema).
    NoCacheHints,
    /// `tools/list`'s first page says `ttlMs: -1`: `cache-hint-values-valid` (and the schema).
    NegativeTtl,
    /// `tools/list`'s second page is `cacheScope: "private"`, the first `"public"`:
    /// `cache-scope-stable-across-pages`.
    ScopeFlip,
    /// Answers `ping` (removed in 2026-07-28) with a result: `removed-methods-not-found`.
    AnswersPing,
    /// Serves a request without `io.modelcontextprotocol/clientCapabilities`:
    /// `missing-request-meta-rejected`.
    MetaUnchecked,
    /// `status` sends a `notifications/message` although no request carried a log level:
    /// `logs-require-log-level`.
    LogsWithoutLevel,
    /// `confirm` completes with a `requestState` that fails verification:
    /// `input-required-result-tampered-state` (a warning).
    AcceptsTamperedState,
    /// `confirm` refuses its own `requestState`: `input-required-result-request-state`.
    RefusesOwnState,
    /// `confirm` answers a retry without the answer with an error, not a new round:
    /// `input-required-result-missing-input-response` (a warning).
    MissingInputError,
}

impl ModernFlaw {
    /// The value of `--flaw` (`no-result-type`, …).
    pub fn name(self) -> &'static str {
        match self {
            ModernFlaw::None => "none",
            ModernFlaw::NoResultType => "no-result-type",
            ModernFlaw::NoCacheHints => "no-cache-hints",
            ModernFlaw::NegativeTtl => "negative-ttl",
            ModernFlaw::ScopeFlip => "scope-flip",
            ModernFlaw::AnswersPing => "answers-ping",
            ModernFlaw::MetaUnchecked => "meta-unchecked",
            ModernFlaw::LogsWithoutLevel => "logs-without-level",
            ModernFlaw::AcceptsTamperedState => "accepts-tampered-state",
            ModernFlaw::RefusesOwnState => "refuses-own-state",
            ModernFlaw::MissingInputError => "missing-input-error",
        }
    }
}

/// The cursor of `tools/list`'s second page.
const PAGE_TWO: &str = "page-2";

/// The key `requestState` is signed with (a fixture's: the point is that a changed state no
/// longer verifies, not secrecy).
const STATE_KEY: u64 = 0x6d63_7073_636f_7065;

/// Serve until stdin closes; returns the exit status.
pub(super) async fn serve<R: AsyncRead + Unpin>(
    flaw: ModernFlaw,
    mut lines: Lines<R>,
    out: Sink,
) -> i32 {
    while let Some(bytes) = lines.next().await {
        let replies = match jsonrpc::classify(bytes) {
            _ if bytes.trim_ascii().is_empty() => continue,
            Incoming::Request { id, method, params } => answer(flaw, &id, &method, &params),
            Incoming::Notification { .. } | Incoming::Other => continue,
            Incoming::Unparsable => vec![jsonrpc::error(
                &Value::Null,
                PARSE_ERROR,
                "Parse error",
                None,
            )],
        };
        for reply in replies {
            if out.send(&reply).await.is_err() {
                return 1;
            }
        }
    }
    0
}

/// The messages answering one request (a log notification may go first).
fn answer(flaw: ModernFlaw, id: &Value, method: &str, params: &Value) -> Vec<Value> {
    if let Err(refusal) = envelope(flaw, id, method, params) {
        return vec![refusal];
    }
    match method {
        "server/discover" => vec![complete(
            id,
            json!({"supportedVersions": [MODERN_PROTOCOL_VERSION], "capabilities": {"tools": {}},
                   "ttlMs": 60000, "cacheScope": "public"}),
        )],
        "tools/list" => vec![match tools_page(flaw, params.get("cursor")) {
            Some(page) => jsonrpc::result(id, page),
            None => jsonrpc::error(id, INVALID_PARAMS, "Invalid cursor", None),
        }],
        "tools/call" => call(flaw, id, params),
        "ping" if flaw == ModernFlaw::AnswersPing => vec![complete(id, json!({}))],
        _ => vec![jsonrpc::error(
            id,
            METHOD_NOT_FOUND,
            &format!("Method not found: {method}"),
            None,
        )],
    }
}

/// The per-request `_meta`: a version, our version, client capabilities. `initialize` is not a
/// 2026-07-28 method: refused naming the versions spoken, as the versioning page asks.
fn envelope(flaw: ModernFlaw, id: &Value, method: &str, params: &Value) -> Result<(), Value> {
    if method == "initialize" {
        return Err(jsonrpc::error(
            id,
            METHOD_NOT_FOUND,
            "Method not found: initialize (this server speaks only 2026-07-28)",
            Some(json!({"supported": [MODERN_PROTOCOL_VERSION]})),
        ));
    }
    let meta = params.get("_meta");
    let Some(version) = meta.and_then(|m| m.get(PROTOCOL_VERSION_KEY)) else {
        return Err(missing(id, PROTOCOL_VERSION_KEY));
    };
    if version != MODERN_PROTOCOL_VERSION {
        return Err(jsonrpc::error(
            id,
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            Some(json!({"supported": [MODERN_PROTOCOL_VERSION], "requested": version})),
        ));
    }
    let declared = meta
        .and_then(|m| m.get(CLIENT_CAPABILITIES_KEY))
        .is_some_and(Value::is_object);
    if !declared && flaw != ModernFlaw::MetaUnchecked {
        return Err(missing(id, CLIENT_CAPABILITIES_KEY));
    }
    Ok(())
}

fn missing(id: &Value, key: &str) -> Value {
    jsonrpc::error(
        id,
        INVALID_PARAMS,
        &format!("Invalid params: _meta lacks {key}"),
        None,
    )
}

/// A complete result with the server's identity in `_meta`.
fn complete(id: &Value, mut result: Value) -> Value {
    result["resultType"] = json!("complete");
    result["_meta"] = json!({SERVER_INFO_KEY: {"name": "mcpscope-testkit-flawed-modern", "version": env!("CARGO_PKG_VERSION")}});
    jsonrpc::result(id, result)
}

fn tool(name: &str, description: &str) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": true}
    })
}

/// A `tools/list` page, or `None` for a cursor this server never handed out.
fn tools_page(flaw: ModernFlaw, cursor: Option<&Value>) -> Option<Value> {
    let (mut page, scope) = match cursor {
        None => (
            json!({"tools": [tool("status", "Reports whether the server is up.")], "nextCursor": PAGE_TWO}),
            "public",
        ),
        Some(c) if c == PAGE_TWO => (
            json!({"tools": [tool("confirm", "Asks the user to confirm, in one input_required round.")]}),
            if flaw == ModernFlaw::ScopeFlip {
                "private"
            } else {
                "public"
            },
        ),
        Some(_) => return None,
    };
    page["resultType"] = json!("complete");
    page["cacheScope"] = json!(scope);
    let first = cursor.is_none();
    match flaw {
        ModernFlaw::NoCacheHints if first => {}
        ModernFlaw::NegativeTtl if first => page["ttlMs"] = json!(-1),
        _ => page["ttlMs"] = json!(60000),
    }
    Some(page)
}

fn call(flaw: ModernFlaw, id: &Value, params: &Value) -> Vec<Value> {
    match params.get("name").and_then(Value::as_str).unwrap_or("") {
        "status" => status(flaw, id),
        "confirm" => vec![confirm(flaw, id, params)],
        name => vec![jsonrpc::error(
            id,
            INVALID_PARAMS,
            &format!("Unknown tool: {name}"),
            None,
        )],
    }
}

fn status(flaw: ModernFlaw, id: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    if flaw == ModernFlaw::LogsWithoutLevel {
        out.push(jsonrpc::notification(
            "notifications/message",
            json!({"level": "info", "logger": "flawed-modern", "data": "status asked"}),
        ));
    }
    let mut result = complete(id, jsonrpc::text_content("up"));
    if flaw == ModernFlaw::NoResultType {
        result["result"]
            .as_object_mut()
            .map(|r| r.remove("resultType"));
    }
    out.push(result);
    out
}

/// `confirm`: one elicitation round, its state signed; the retry completes with the answer.
fn confirm(flaw: ModernFlaw, id: &Value, params: &Value) -> Value {
    let can_elicit = params
        .pointer(&format!(
            "/_meta/{}",
            CLIENT_CAPABILITIES_KEY.replace('/', "~1")
        ))
        .and_then(|c| c.get("elicitation"))
        .is_some();
    if !can_elicit {
        return jsonrpc::error(
            id,
            MISSING_CLIENT_CAPABILITY,
            "Missing required client capability: elicitation",
            Some(json!({"requiredCapabilities": {"elicitation": {}}})),
        );
    }
    let Some(state) = params.get("requestState") else {
        return round(id);
    };
    let verified = state.as_str().is_some_and(|s| s == signed("confirm-1"));
    if flaw == ModernFlaw::RefusesOwnState
        || (!verified && flaw != ModernFlaw::AcceptsTamperedState)
    {
        return jsonrpc::error(id, INVALID_PARAMS, "requestState failed verification", None);
    }
    match params
        .pointer("/inputResponses/confirm/action")
        .and_then(Value::as_str)
    {
        Some(action) => complete(id, jsonrpc::text_content(&format!("confirmed: {action}"))),
        None if flaw == ModernFlaw::MissingInputError => jsonrpc::error(
            id,
            INVALID_PARAMS,
            "inputResponses.confirm is missing",
            None,
        ),
        None => round(id),
    }
}

/// The one round: a yes/no question, the state signed.
fn round(id: &Value) -> Value {
    jsonrpc::result(
        id,
        json!({
            "resultType": "input_required",
            "inputRequests": {"confirm": {"method": "elicitation/create", "params": {
                "mode": "form",
                "message": "Confirm?",
                "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}
            }}},
            "requestState": signed("confirm-1")
        }),
    )
}

/// `payload.signature`: FNV-1a of the key and the payload.
fn signed(payload: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325 ^ STATE_KEY;
    for b in payload.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{payload}.{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> Value {
        json!({PROTOCOL_VERSION_KEY: MODERN_PROTOCOL_VERSION, CLIENT_CAPABILITIES_KEY: {"elicitation": {}}})
    }

    #[test]
    fn a_changed_state_is_refused_and_its_own_completes() {
        let id = json!(1);
        let first = confirm(ModernFlaw::None, &id, &json!({"_meta": meta()}));
        let state = first["result"]["requestState"].clone();
        let answer = json!({"confirm": {"action": "decline"}});
        let ok = confirm(
            ModernFlaw::None,
            &id,
            &json!({"_meta": meta(), "requestState": state, "inputResponses": answer}),
        );
        assert_eq!(ok["result"]["resultType"], "complete");
        let forged = json!(format!("{}x", state.as_str().unwrap()));
        let refused = confirm(
            ModernFlaw::None,
            &id,
            &json!({"_meta": meta(), "requestState": forged, "inputResponses": answer}),
        );
        assert_eq!(refused["error"]["code"], INVALID_PARAMS);
    }

    #[test]
    fn only_scope_flip_changes_the_scope() {
        let two = json!(PAGE_TWO);
        assert_eq!(
            tools_page(ModernFlaw::None, Some(&two)).unwrap()["cacheScope"],
            "public"
        );
        assert_eq!(
            tools_page(ModernFlaw::ScopeFlip, Some(&two)).unwrap()["cacheScope"],
            "private"
        );
    }
}
