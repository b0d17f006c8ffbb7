//! The HTTP fixtures: [`HttpMode`], the servers behind each mode (axum on a listener the caller
//! provides), [`HttpStats`] to count what arrived, and [`HttpFixture`] to run one on loopback.
//! Small modes live here; the stateful ones have a file each.

mod conforming;
mod legacy_sse;
mod redirect_session;
mod resume;
mod sessions;

pub use conforming::HttpFlaw;

use crate::Result;
use crate::jsonrpc::{
    self, INVALID_PARAMS, Incoming, METHOD_NOT_FOUND, PARSE_ERROR, call_echo, echo_tool,
    initialize_result,
};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use serde_json::{Value, json};
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// One misbehaving HTTP server. Every mode counts requests in [`HttpStats`]; the MCP endpoint is
/// `/mcp` unless the mode says otherwise ([`HttpMode::entry_path`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpMode {
    /// Every POST gets `500 text/plain` `boom` (other methods 405). Proves an HTTP error is shown
    /// with its status and body and is not mistaken for era evidence.
    Status500,
    /// Every request gets `200 text/html` (a web server's welcome page, as when the URL points at
    /// the wrong port). Proves a 200 that is not JSON or SSE is reported as such, not parsed.
    HtmlBody,
    /// Legacy Streamable HTTP with sessions: `initialize` issues a fresh `Mcp-Session-Id`;
    /// after `requests_per_session` answered requests the session is dropped and its id gets
    /// `404` (`-32001 Session not found`), so the client must re-initialize without it. Requests
    /// without a session id get `400`. [`HttpStats::initializations`] counts the handshakes.
    /// Proves session expiry is detected and recovered from exactly once per expiry.
    SessionExpiring {
        /// Requests (not notifications) answered per session before it expires; use 1 or more.
        requests_per_session: usize,
    },
    /// Every request to `/mcp` gets `307 Temporary Redirect` to `/real/mcp` (relative
    /// `Location`), where a minimal stateless legacy server answers. Proves redirects are
    /// followed with method and body intact and recorded hop by hop.
    Redirect,
    /// Legacy Streamable HTTP with sessions that has moved: every request to `/mcp` — POST,
    /// GET, DELETE — gets `307` to `/real/mcp`. There `initialize` issues a session; any other
    /// request's SSE stream carries only a priming event (`retry: 100`) and closes, and the GET
    /// with `Last-Event-ID` delivers its answer ([`HttpStats::resumptions`]); a GET without it is
    /// the standalone stream, which sends one `notifications/message` and stays open
    /// ([`HttpStats::standalone_streams`]); `DELETE` ends the session
    /// ([`HttpStats::sessions_ended`]). Proves that every request a client makes follows
    /// redirects, not just its POSTs.
    RedirectSession,
    /// Legacy Streamable HTTP resumption: `initialize` is answered on an SSE stream normally; any
    /// other request's SSE stream carries only a priming event (`id`, `retry: 500`, empty data)
    /// and closes before the response. A GET with `Last-Event-ID: <that id>` delivers the
    /// response. [`HttpStats::resume_delays`] records how long the client waited. Proves the
    /// client reconnects, honours `retry`, and does not treat the closed stream as failure.
    SseDropThenResume,
    /// Every request gets `401` with `WWW-Authenticate: Bearer
    /// resource_metadata="http://<host>/.well-known/oauth-protected-resource"` (plus
    /// `error="invalid_token"` when a token was sent); that URL serves protected-resource
    /// metadata naming this server as the authorization server, whose own metadata is a 404.
    /// Proves a 401 starts (and visibly stops) OAuth discovery instead of being a generic error.
    AuthRequired,
    /// The deprecated HTTP+SSE transport (2024-11-05 style): `GET /sse` opens a stream whose first
    /// event is `endpoint` with `/message?sessionId=…`; `POST /message?sessionId=…` answers `202`
    /// and the response goes out on the stream. `/mcp` is `404` and `POST /sse` is `405`.
    /// `GET /` serves the same stream (and `POST /` is `405`), so the root URL exercises a
    /// client's fallback from Streamable HTTP to HTTP+SSE. Entry path: `/sse`.
    LegacySseOnly,
    /// Both eras on one endpoint, keeping every Streamable HTTP rule `mcpscope check` tests:
    /// foreign `Origin` → 403; 2025-11-25 sessions (`initialize` issues one, `DELETE` ends it, its
    /// id then gets 404), notifications → 202, an unknown `MCP-Protocol-Version` → 400; 2026-07-28
    /// requests (told by their `_meta` envelope) answered with no session id and their
    /// `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` checked against the body (400, -32020).
    /// Tools: `echo`. `flaw` breaks exactly one rule ([`HttpFlaw`]).
    Conforming {
        /// The rule broken, if any.
        flaw: Option<HttpFlaw>,
    },
    /// Accepts connections and reads requests but never sends a status line. Proves the HTTP
    /// request timeout fires (and the request is reported as timed out, not lost).
    SlowHeaders,
}

impl HttpMode {
    /// The path a user would configure for this mode: `/sse` for [`HttpMode::LegacySseOnly`],
    /// `/mcp` otherwise.
    pub fn entry_path(&self) -> &'static str {
        match self {
            HttpMode::LegacySseOnly => "/sse",
            _ => "/mcp",
        }
    }
}

/// Counters shared between an HTTP fixture and the test that drives it. Cheap to clone; all
/// clones see the same numbers.
#[derive(Debug, Clone, Default)]
pub struct HttpStats(Arc<StatsInner>);

#[derive(Debug, Default)]
struct StatsInner {
    requests: AtomicUsize,
    initializations: AtomicUsize,
    expired_session_rejections: AtomicUsize,
    resumptions: AtomicUsize,
    resume_delays: Mutex<Vec<Duration>>,
    standalone_streams: AtomicUsize,
    sessions_ended: AtomicUsize,
}

impl HttpStats {
    /// Fresh counters, all zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// HTTP requests that reached the fixture, any method and path (counted on arrival, so a
    /// [`HttpMode::SlowHeaders`] request counts although it is never answered).
    pub fn requests(&self) -> usize {
        self.0.requests.load(Ordering::SeqCst)
    }

    /// `initialize` requests answered with a new session ([`HttpMode::SessionExpiring`],
    /// [`HttpMode::RedirectSession`]).
    pub fn initializations(&self) -> usize {
        self.0.initializations.load(Ordering::SeqCst)
    }

    /// Requests answered `404` because their session id had expired or was never issued
    /// ([`HttpMode::SessionExpiring`]).
    pub fn expired_session_rejections(&self) -> usize {
        self.0.expired_session_rejections.load(Ordering::SeqCst)
    }

    /// GETs with `Last-Event-ID` that delivered a held-back response
    /// ([`HttpMode::SseDropThenResume`], [`HttpMode::RedirectSession`]).
    pub fn resumptions(&self) -> usize {
        self.0.resumptions.load(Ordering::SeqCst)
    }

    /// Standalone GET streams opened ([`HttpMode::RedirectSession`]).
    pub fn standalone_streams(&self) -> usize {
        self.0.standalone_streams.load(Ordering::SeqCst)
    }

    /// Sessions ended by a `DELETE` ([`HttpMode::RedirectSession`]).
    pub fn sessions_ended(&self) -> usize {
        self.0.sessions_ended.load(Ordering::SeqCst)
    }

    /// For each resumption, the time between the dropped stream's end and the GET that resumed
    /// it; a client honouring `retry: 500` shows values of at least 500 ms.
    pub fn resume_delays(&self) -> Vec<Duration> {
        self.0
            .resume_delays
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn bump(counter: &AtomicUsize) {
        counter.fetch_add(1, Ordering::SeqCst);
    }
}

/// Serve `mode` on `listener` until the task is dropped. Use [`serve_http_with_stats`] to read
/// counters, or [`HttpFixture::spawn`] for the usual loopback setup.
pub async fn serve_http(listener: TcpListener, mode: HttpMode) -> io::Result<()> {
    serve_http_with_stats(listener, mode, HttpStats::new()).await
}

/// [`serve_http`] that counts into `stats`.
pub async fn serve_http_with_stats(
    listener: TcpListener,
    mode: HttpMode,
    stats: HttpStats,
) -> io::Result<()> {
    axum::serve(listener, router(mode, stats)).await
}

/// An HTTP fixture running on `127.0.0.1` on a free port; stopped when dropped.
///
/// ```no_run
/// # async fn f() -> mcpscope_testkit::Result<()> {
/// use mcpscope_testkit::{HttpFixture, HttpMode};
/// let server = HttpFixture::spawn(HttpMode::Status500).await?;
/// // POST anything to server.entry_url() and expect 500 "boom".
/// assert_eq!(server.stats().requests(), 0);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct HttpFixture {
    addr: SocketAddr,
    mode: HttpMode,
    stats: HttpStats,
    task: JoinHandle<io::Result<()>>,
}

impl HttpFixture {
    /// Bind `127.0.0.1:0` (loopback only: fixtures must never be reachable from the network)
    /// and serve `mode` on a background task.
    pub async fn spawn(mode: HttpMode) -> Result<Self> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let stats = HttpStats::new();
        let task = tokio::spawn(serve_http_with_stats(listener, mode.clone(), stats.clone()));
        Ok(HttpFixture {
            addr,
            mode,
            stats,
            task,
        })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:<port>`, no trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The base URL plus `path` (which should start with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url())
    }

    /// The URL a user would configure for this mode (see [`HttpMode::entry_path`]).
    pub fn entry_url(&self) -> String {
        self.url(self.mode.entry_path())
    }

    /// The mode being served.
    pub fn mode(&self) -> &HttpMode {
        &self.mode
    }

    /// What has arrived so far.
    pub fn stats(&self) -> &HttpStats {
        &self.stats
    }
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        // Stops accepting; connections already open end with the test's runtime.
        self.task.abort();
    }
}

fn router(mode: HttpMode, stats: HttpStats) -> Router {
    let app = match mode {
        HttpMode::Status500 => Router::new().fallback(status_500),
        HttpMode::HtmlBody => Router::new().fallback(html_body),
        HttpMode::SessionExpiring {
            requests_per_session,
        } => sessions::router(requests_per_session, stats.clone()),
        HttpMode::Redirect => Router::new()
            .route("/mcp", any(redirect))
            .route("/real/mcp", any(plain_legacy)),
        HttpMode::RedirectSession => redirect_session::router(stats.clone()),
        HttpMode::SseDropThenResume => resume::router(stats.clone()),
        HttpMode::AuthRequired => Router::new()
            .route(
                "/.well-known/oauth-protected-resource",
                get(protected_resource_metadata),
            )
            // Other metadata (the authorization server's own) is missing on purpose, so
            // discovery visibly stops there instead of at a confusing 401.
            .route(
                "/.well-known/{*rest}",
                any(|| async { StatusCode::NOT_FOUND }),
            )
            .fallback(unauthorized),
        HttpMode::LegacySseOnly => legacy_sse::router(),
        HttpMode::SlowHeaders => Router::new().fallback(never_respond),
        HttpMode::Conforming { flaw } => conforming::router(flaw),
    };
    // Outermost, so requests that never get an answer are counted too.
    app.layer(middleware::from_fn_with_state(stats, count_request))
}

async fn count_request(State(stats): State<HttpStats>, request: Request, next: Next) -> Response {
    HttpStats::bump(&stats.0.requests);
    next.run(request).await
}

async fn status_500(method: Method) -> Response {
    if method == Method::POST {
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            [(header::CONTENT_TYPE, "text/plain")],
            "boom",
        )
            .into_response()
    } else {
        StatusCode::METHOD_NOT_ALLOWED.into_response()
    }
}

async fn html_body() -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        "<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head>\n\
         <body><h1>Welcome to nginx!</h1><p>If you see this page, the web server works.</p></body></html>\n",
    )
        .into_response()
}

async fn redirect() -> Response {
    (
        StatusCode::TEMPORARY_REDIRECT,
        [(header::LOCATION, "/real/mcp")],
    )
        .into_response()
}

/// The minimal stateless legacy server behind [`HttpMode::Redirect`].
async fn plain_legacy(method: Method, body: Bytes) -> Response {
    if method != Method::POST {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    match jsonrpc::classify(&body) {
        Incoming::Request { id, method, params } => {
            json_response(StatusCode::OK, &legacy_answer(&id, &method, &params))
        }
        Incoming::Notification { .. } | Incoming::Other => StatusCode::ACCEPTED.into_response(),
        Incoming::Unparsable => parse_error(),
    }
}

async fn unauthorized(headers: HeaderMap) -> Response {
    let metadata = format!(
        "{}/.well-known/oauth-protected-resource",
        origin_of(&headers)
    );
    // A client that already sent a token learns why it was refused.
    let challenge = if headers.contains_key(header::AUTHORIZATION) {
        format!(r#"Bearer error="invalid_token", resource_metadata="{metadata}""#)
    } else {
        format!(r#"Bearer resource_metadata="{metadata}""#)
    };
    let mut response = (
        StatusCode::UNAUTHORIZED,
        [(header::CONTENT_TYPE, "text/plain")],
        "Unauthorized",
    )
        .into_response();
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

async fn protected_resource_metadata(headers: HeaderMap) -> Response {
    let origin = origin_of(&headers);
    json_response(
        StatusCode::OK,
        &json!({
            "resource": format!("{origin}/mcp"),
            "authorization_servers": [origin],
            "bearer_methods_supported": ["header"]
        }),
    )
}

async fn never_respond() -> StatusCode {
    std::future::pending().await
}

/// `http://<Host>`, the origin the client used to reach us (it may say `localhost` where we
/// bound `127.0.0.1`).
fn origin_of(headers: &HeaderMap) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1");
    format!("http://{host}")
}

/// The answer a minimal legacy server gives to one request: `initialize`, `ping`,
/// `tools/list` with `echo`, `tools/call echo`.
fn legacy_answer(id: &Value, method: &str, params: &Value) -> Value {
    match method {
        "initialize" => jsonrpc::result(
            id,
            initialize_result(
                crate::LEGACY_PROTOCOL_VERSION,
                json!({"tools": {}}),
                "mcpscope-testkit-http",
            ),
        ),
        "ping" => jsonrpc::result(id, json!({})),
        "tools/list" => jsonrpc::result(id, json!({"tools": [echo_tool()]})),
        "tools/call" => match params.get("name").and_then(Value::as_str) {
            Some("echo") => jsonrpc::result(id, call_echo(params)),
            name => jsonrpc::error(
                id,
                INVALID_PARAMS,
                &format!("Unknown tool: {}", name.unwrap_or("")),
                None,
            ),
        },
        _ => jsonrpc::error(
            id,
            METHOD_NOT_FOUND,
            &format!("Method not found: {method}"),
            None,
        ),
    }
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn parse_error() -> Response {
    json_response(
        StatusCode::BAD_REQUEST,
        &jsonrpc::error(&Value::Null, PARSE_ERROR, "Parse error", None),
    )
}

/// One SSE event carrying a JSON-RPC message, with an id when the stream is resumable.
fn sse_event(id: Option<&str>, event: Option<&str>, message: &Value) -> String {
    let mut text = String::new();
    if let Some(id) = id {
        text.push_str(&format!("id: {id}\n"));
    }
    if let Some(event) = event {
        text.push_str(&format!("event: {event}\n"));
    }
    text.push_str(&format!("data: {message}\n\n"));
    text
}

fn sse_headers() -> [(header::HeaderName, &'static str); 2] {
    [
        (header::CONTENT_TYPE, "text/event-stream"),
        (header::CACHE_CONTROL, "no-cache"),
    ]
}
