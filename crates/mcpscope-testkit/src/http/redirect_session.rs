//! [`HttpMode::RedirectSession`](super::HttpMode::RedirectSession): a legacy Streamable HTTP
//! server with sessions that has moved, so every request a client makes — the POSTs, the
//! standalone GET stream, the GET that resumes a dropped stream, the closing DELETE — first meets
//! `307 Temporary Redirect` at `/mcp` and is answered at `/real/mcp`.
//!
//! At `/real/mcp`: `initialize` issues a session and is answered on an SSE stream; any other
//! request's stream carries only a priming event (`id`, `retry: 100`) and closes, and the GET
//! with `Last-Event-ID` delivers the held-back answer; a GET without it opens the standalone
//! stream, which sends one `notifications/message` and stays open; `DELETE` ends the session.

use super::{HttpStats, legacy_answer, parse_error, redirect, sse_event, sse_headers};
use crate::jsonrpc::{self, Incoming};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

const SESSION_HEADER: &str = "mcp-session-id";
/// The `retry` the priming event asks for: short, so a CLI run stays quick.
const RETRY_MS: u64 = 100;

struct Server {
    stats: HttpStats,
    next: AtomicUsize,
    sessions: Mutex<HashSet<String>>,
    /// Stream name (`s<n>`) → the answer held back for the GET that resumes it.
    held: Mutex<HashMap<String, Value>>,
}

pub(super) fn router(stats: HttpStats) -> Router {
    let server = Arc::new(Server {
        stats,
        next: AtomicUsize::new(1),
        sessions: Mutex::new(HashSet::new()),
        held: Mutex::new(HashMap::new()),
    });
    Router::new()
        .route("/mcp", any(redirect))
        .route("/real/mcp", any(handle))
        .with_state(server)
}

async fn handle(
    State(server): State<Arc<Server>>,
    method: Method,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let session = headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let known = session
        .as_ref()
        .is_some_and(|s| server.sessions().contains(s));
    match method {
        Method::POST => post(&server, known, &body),
        _ if !known => StatusCode::NOT_FOUND.into_response(),
        Method::GET => match headers.get("last-event-id").and_then(|v| v.to_str().ok()) {
            Some(last) => resume(&server, last),
            None => standalone(&server),
        },
        Method::DELETE => {
            if let Some(s) = session {
                server.sessions().remove(&s);
            }
            HttpStats::bump(&server.stats.0.sessions_ended);
            StatusCode::OK.into_response()
        }
        _ => StatusCode::METHOD_NOT_ALLOWED.into_response(),
    }
}

fn post(server: &Server, known: bool, body: &[u8]) -> Response {
    let (id, method, params) = match jsonrpc::classify(body) {
        Incoming::Request { id, method, params } => (id, method, params),
        Incoming::Notification { .. } | Incoming::Other if known => {
            return StatusCode::ACCEPTED.into_response();
        }
        Incoming::Notification { .. } | Incoming::Other => {
            return StatusCode::NOT_FOUND.into_response();
        }
        Incoming::Unparsable => return parse_error(),
    };
    let n = server.next.fetch_add(1, Ordering::SeqCst);
    let answer = legacy_answer(&id, &method, &params);
    if method == "initialize" {
        let session = format!("redirected-session-{n}");
        server.sessions().insert(session.clone());
        HttpStats::bump(&server.stats.0.initializations);
        let mut response = (
            StatusCode::OK,
            sse_headers(),
            sse_event(None, None, &answer),
        )
            .into_response();
        if let Ok(value) = HeaderValue::from_str(&session) {
            response.headers_mut().insert(SESSION_HEADER, value);
        }
        return response;
    }
    if !known {
        return StatusCode::NOT_FOUND.into_response();
    }
    let stream = format!("s{n}");
    let priming = format!("id: {stream}-0\nretry: {RETRY_MS}\ndata:\n\n");
    server.held().insert(stream, answer);
    (StatusCode::OK, sse_headers(), priming).into_response()
}

fn resume(server: &Server, last: &str) -> Response {
    let stream = last.rsplit_once('-').map_or(last, |(stream, _)| stream);
    let Some(answer) = server.held().remove(stream) else {
        return (
            StatusCode::NOT_FOUND,
            "no held-back answer for that Last-Event-ID",
        )
            .into_response();
    };
    HttpStats::bump(&server.stats.0.resumptions);
    let event = sse_event(Some(&format!("{stream}-1")), None, &answer);
    (StatusCode::OK, sse_headers(), event).into_response()
}

/// One notification, then the stream stays open until the client goes.
fn standalone(server: &Server) -> Response {
    HttpStats::bump(&server.stats.0.standalone_streams);
    let hello = json!({
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {"level": "info", "data": "hello on the standalone stream"}
    });
    let first = futures::stream::once(async move {
        Ok::<Bytes, Infallible>(Bytes::from(sse_event(None, None, &hello)))
    });
    let body = Body::from_stream(futures::StreamExt::chain(first, futures::stream::pending()));
    (StatusCode::OK, sse_headers(), body).into_response()
}

impl Server {
    fn sessions(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<String, Value>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
