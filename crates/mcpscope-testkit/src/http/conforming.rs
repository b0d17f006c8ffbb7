//! [`HttpMode::Conforming`](super::HttpMode::Conforming): a small server of both eras on one
//! endpoint that keeps every Streamable HTTP rule `mcpscope check` tests — a foreign `Origin`
//! refused with 403; 2025-11-25 sessions (`initialize` issues an id, `DELETE` ends it, its id then
//! gets 404), no standalone stream (a GET gets 405), notifications answered 202 with no body, an
//! unknown `MCP-Protocol-Version` 400;
//! 2026-07-28 requests (told by their `_meta` envelope) answered without a session id, their
//! `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` checked against the body (400, -32020). Each
//! [`HttpFlaw`] breaks exactly one of those rules, so a test can show that each check fails on its
//! own rule and on nothing else.

use super::{json_response, legacy_answer, parse_error};
use crate::jsonrpc::{
    self, INVALID_PARAMS, Incoming, METHOD_NOT_FOUND, UNSUPPORTED_PROTOCOL_VERSION, call_echo,
    echo_tool,
};
use crate::{LEGACY_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSION};
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use serde_json::{Map, Value, json};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// The one rule a [`HttpMode::Conforming`](super::HttpMode::Conforming) server breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpFlaw {
    /// A request with a foreign `Origin` is served (`dns-rebinding-protection`).
    ForeignOriginAccepted,
    /// Session ids contain a space (`session-id-visible-ascii`).
    SessionIdNotVisibleAscii,
    /// A notification is answered `200 OK` instead of `202 Accepted` (`notification-post-accepted`).
    NotificationAnswered200,
    /// A 2025-11-25 request with an unknown `MCP-Protocol-Version` is served
    /// (`protocol-version-header-invalid`).
    InvalidProtocolVersionAccepted,
    /// `DELETE` answers 200 but the session lives on (`server-session-lifecycle`).
    SessionOutlivesDelete,
    /// A 2026-07-28 request's `Mcp-Session-Id` is echoed on its answer (`no-session-id`). Echoed,
    /// not minted: mcpscope's own client would adopt a minted id, and that would change other
    /// verdicts too.
    SessionIdEchoed,
    /// Every 2026-07-28 answer carries a fresh `Mcp-Session-Id` (`no-session-id`). mcpscope's
    /// client adopts it, so other verdicts change too; [`HttpFlaw::SessionIdEchoed`] breaks the
    /// rule alone.
    SessionIdMinted,
    /// An `Mcp-Method` that disagrees with the body is not noticed (`method-header-mismatch`).
    MethodHeaderUnchecked,
    /// An `Mcp-Name` that disagrees with the body is not noticed (`name-header-mismatch`).
    NameHeaderUnchecked,
    /// A request without `Mcp-Method` is served (`missing-method-header-rejected`).
    MissingMethodHeaderAccepted,
    /// A GET is answered `200` with a JSON health document, neither an SSE stream nor `405`
    /// (`get-stream-or-405`).
    GetAnsweredJson,
}

const SESSION_HEADER: &str = "mcp-session-id";
const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
/// The `MCP-Protocol-Version`s a 2025-11-25 request may carry.
const LEGACY_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];
/// The HeaderMismatch error of 2026-07-28.
const HEADER_MISMATCH: i64 = -32020;

struct Server {
    flaw: Option<HttpFlaw>,
    next_id: AtomicUsize,
    live: Mutex<HashSet<String>>,
}

impl Server {
    fn has(&self, flaw: HttpFlaw) -> bool {
        self.flaw == Some(flaw)
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

pub(super) fn router(flaw: Option<HttpFlaw>) -> Router {
    let server = Arc::new(Server {
        flaw,
        next_id: AtomicUsize::new(1),
        live: Mutex::new(HashSet::new()),
    });
    Router::new().route("/mcp", any(handle)).with_state(server)
}

async fn handle(
    State(server): State<Arc<Server>>,
    method: Method,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let origin = header(&headers, "origin");
    if origin.is_some_and(|o| !local_origin(o)) && !server.has(HttpFlaw::ForeignOriginAccepted) {
        return (StatusCode::FORBIDDEN, "Forbidden: Origin not allowed").into_response();
    }
    match method {
        Method::POST => {}
        Method::DELETE => return delete(&server, &headers),
        Method::GET if server.has(HttpFlaw::GetAnsweredJson) => {
            return json_response(StatusCode::OK, &json!({"status": "ok"}));
        }
        _ => return StatusCode::METHOD_NOT_ALLOWED.into_response(),
    }
    let message = jsonrpc::classify(&body);
    let modern = match &message {
        Incoming::Request { method, params, .. } | Incoming::Notification { method, params } => {
            method == "server/discover" || params.pointer("/_meta").is_some_and(Value::is_object)
        }
        _ => false,
    };
    if modern {
        modern_post(&server, &headers, &message)
    } else {
        legacy_post(&server, &headers, &message)
    }
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// `http://127.0.0.1[:port]`, `http://localhost[:port]`, `http://[::1][:port]`.
fn local_origin(origin: &str) -> bool {
    let host = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .unwrap_or("");
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host.split(':').next().unwrap_or(""),
    };
    matches!(host, "127.0.0.1" | "localhost" | "::1")
}

/// DELETE ends the session it names (unless the flaw keeps it alive).
fn delete(server: &Server, headers: &HeaderMap) -> Response {
    let Some(session) = header(headers, SESSION_HEADER) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let known = if server.has(HttpFlaw::SessionOutlivesDelete) {
        server.live().contains(session)
    } else {
        server.live().remove(session)
    };
    if known {
        StatusCode::OK
    } else {
        StatusCode::NOT_FOUND
    }
    .into_response()
}

/// 2025-11-25: `initialize` opens a session; anything else must name a live one and carry a
/// known `MCP-Protocol-Version` (or none).
fn legacy_post(server: &Server, headers: &HeaderMap, message: &Incoming) -> Response {
    let version = header(headers, "mcp-protocol-version");
    if version.is_some_and(|v| !LEGACY_VERSIONS.contains(&v))
        && !server.has(HttpFlaw::InvalidProtocolVersionAccepted)
    {
        return (
            StatusCode::BAD_REQUEST,
            format!(
                "Bad Request: unsupported MCP-Protocol-Version {}",
                version.unwrap_or_default()
            ),
        )
            .into_response();
    }
    let (id, method, params) = match message {
        Incoming::Request { id, method, params } => (id, method, params),
        Incoming::Notification { .. } | Incoming::Other => {
            return notification_answer(server, headers);
        }
        Incoming::Unparsable => return parse_error(),
    };
    if method == "initialize" {
        return initialize(server, id, method, params);
    }
    match header(headers, SESSION_HEADER) {
        None => json_response(
            StatusCode::BAD_REQUEST,
            &jsonrpc::error(
                id,
                -32000,
                "Bad Request: Mcp-Session-Id header is required",
                None,
            ),
        ),
        Some(s) if !server.live().contains(s) => json_response(
            StatusCode::NOT_FOUND,
            &jsonrpc::error(id, -32001, "Session not found", None),
        ),
        Some(_) => json_response(StatusCode::OK, &legacy_answer(id, method, params)),
    }
}

/// A notification in a live session: 202 (or, flawed, 200), no body.
fn notification_answer(server: &Server, headers: &HeaderMap) -> Response {
    match header(headers, SESSION_HEADER) {
        Some(s) if !server.live().contains(s) => StatusCode::NOT_FOUND.into_response(),
        _ if server.has(HttpFlaw::NotificationAnswered200) => StatusCode::OK.into_response(),
        _ => StatusCode::ACCEPTED.into_response(),
    }
}

fn initialize(server: &Server, id: &Value, method: &str, params: &Value) -> Response {
    let n = server.next_id.fetch_add(1, Ordering::SeqCst);
    let session = if server.has(HttpFlaw::SessionIdNotVisibleAscii) {
        format!("conforming session {n}")
    } else {
        format!("conforming-session-{n}")
    };
    server.live().insert(session.clone());
    let mut response = json_response(StatusCode::OK, &legacy_answer(id, method, params));
    if let Ok(value) = HeaderValue::from_str(&session) {
        response.headers_mut().insert(SESSION_HEADER, value);
    }
    response
}

/// 2026-07-28: the envelope's version, then the headers against the body, then the answer.
fn modern_post(server: &Server, headers: &HeaderMap, message: &Incoming) -> Response {
    let (id, method, params) = match message {
        Incoming::Request { id, method, params } => (id.clone(), method.as_str(), params),
        _ => return StatusCode::ACCEPTED.into_response(),
    };
    let envelope = params
        .pointer("/_meta")
        .and_then(|m| m.get(PROTOCOL_VERSION_KEY))
        .and_then(Value::as_str);
    let mut response = if envelope != Some(MODERN_PROTOCOL_VERSION) {
        json_response(
            StatusCode::BAD_REQUEST,
            &jsonrpc::error(
                &id,
                UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
                Some(json!({
                    "supported": [MODERN_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSION],
                    "requested": envelope
                })),
            ),
        )
    } else if let Some(why) = header_mismatch(server, headers, method, params) {
        json_response(
            StatusCode::BAD_REQUEST,
            &jsonrpc::error(
                &id,
                HEADER_MISMATCH,
                &format!("Header mismatch: {why}"),
                None,
            ),
        )
    } else {
        modern_answer(&id, method, params)
    };
    if server.has(HttpFlaw::SessionIdMinted) {
        let n = server.next_id.fetch_add(1, Ordering::SeqCst);
        if let Ok(value) = HeaderValue::from_str(&format!("minted-{n}")) {
            response.headers_mut().insert(SESSION_HEADER, value);
        }
    }
    if server.has(HttpFlaw::SessionIdEchoed)
        && let Some(session) = headers.get(SESSION_HEADER)
    {
        response
            .headers_mut()
            .insert(SESSION_HEADER, session.clone());
    }
    response
}

/// Why the standard headers disagree with the body, if they do.
fn header_mismatch(
    server: &Server,
    headers: &HeaderMap,
    method: &str,
    params: &Value,
) -> Option<String> {
    if header(headers, "mcp-protocol-version") != Some(MODERN_PROTOCOL_VERSION) {
        return Some("MCP-Protocol-Version does not match the body's envelope".into());
    }
    match header(headers, "mcp-method") {
        None if !server.has(HttpFlaw::MissingMethodHeaderAccepted) => {
            return Some("the required Mcp-Method header is missing".into());
        }
        Some(m) if m != method && !server.has(HttpFlaw::MethodHeaderUnchecked) => {
            return Some(format!("Mcp-Method {m} but the body's method is {method}"));
        }
        _ => {}
    }
    let name = match method {
        "tools/call" | "prompts/get" => params.get("name"),
        "resources/read" => params.get("uri"),
        _ => return None,
    }
    .and_then(Value::as_str);
    let header_name = header(headers, "mcp-name");
    (header_name != name && !server.has(HttpFlaw::NameHeaderUnchecked)).then(|| {
        format!(
            "Mcp-Name {} but the body names {}",
            header_name.unwrap_or("(missing)"),
            name.unwrap_or("(nothing)")
        )
    })
}

/// `server/discover`, `tools/list` and `tools/call echo`; anything else 404 Method not found.
fn modern_answer(id: &Value, method: &str, params: &Value) -> Response {
    let complete = |body: Value| {
        let mut result = Map::new();
        result.insert("resultType".into(), json!("complete"));
        if let Value::Object(fields) = body {
            result.extend(fields);
        }
        result.insert(
            "_meta".into(),
            json!({SERVER_INFO_KEY: {"name": "mcpscope-testkit-conforming", "version": env!("CARGO_PKG_VERSION")}}),
        );
        json_response(StatusCode::OK, &jsonrpc::result(id, Value::Object(result)))
    };
    match method {
        "server/discover" => complete(json!({
            "supportedVersions": [MODERN_PROTOCOL_VERSION],
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "public"
        })),
        "tools/list" => {
            complete(json!({"tools": [echo_tool()], "ttlMs": 0, "cacheScope": "public"}))
        }
        "tools/call" if params.get("name").and_then(Value::as_str) == Some("echo") => {
            complete(call_echo(params))
        }
        "tools/call" => json_response(
            StatusCode::OK,
            &jsonrpc::error(id, INVALID_PARAMS, "Unknown tool", None),
        ),
        _ => json_response(
            StatusCode::NOT_FOUND,
            &jsonrpc::error(
                id,
                METHOD_NOT_FOUND,
                &format!("Method not found: {method}"),
                None,
            ),
        ),
    }
}
