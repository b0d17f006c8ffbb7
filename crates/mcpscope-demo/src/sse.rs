//! The deprecated HTTP+SSE transport (protocol 2024-11-05), next to Streamable HTTP on the same
//! port, so clients and tests can try all three transports against one server.
//!
//! `GET /sse` opens a session: the first event is `endpoint` with `/message?sessionId=…`, every
//! server message after it is a `message` event. `POST /message?sessionId=…` hands one client
//! message to that session and answers `202 Accepted`; the answer travels on the stream.
//!
//! rmcp 3.11 no longer ships this transport, so each stream gets its own rmcp session run over
//! the stdio line pumps (`stdio::serve`): this transport is line-shaped too, one message per
//! POST in and one per event out, and the pumps already apply the legacy tasks shim. The session
//! lives exactly as long as the stream: when the client hangs up, its input channel closes and
//! rmcp ends the session as it does when stdin closes.

use std::{
    collections::HashMap,
    hash::{BuildHasher as _, Hasher as _},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
};

use axum::{
    Router,
    body::{Body, Bytes},
    extract::{Query, Request, State},
    middleware::{self, Next},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use http::{HeaderMap, StatusCode, header};
use tokio::{
    io::{AsyncBufReadExt as _, BufReader, DuplexStream},
    sync::{mpsc, watch},
};

use crate::{
    shared::{Shared, lock},
    stdio::{self, PIPE_CAPACITY, STDIN_QUEUE},
};

/// Where clients open the event stream.
pub(crate) const SSE_PATH: &str = "/sse";
/// Where clients POST their messages.
const MESSAGE_PATH: &str = "/message";

/// Lines for one session's rmcp input, as the stdio reader would deliver them.
type LineSender = mpsc::Sender<std::io::Result<Vec<u8>>>;

struct Sessions {
    shared: Arc<Shared>,
    open: Mutex<HashMap<String, LineSender>>,
    next: AtomicU64,
    /// Flips to true when the server shuts down; open streams end then, or graceful shutdown
    /// would wait for clients that never hang up.
    stop: watch::Receiver<bool>,
}

/// The `/sse` and `/message` routes, sharing `shared` with the Streamable HTTP endpoint so a
/// tool-list change is announced on every transport.
pub(crate) fn router(shared: Arc<Shared>, stop: watch::Receiver<bool>) -> Router {
    let sessions = Arc::new(Sessions {
        shared,
        open: Mutex::new(HashMap::new()),
        next: AtomicU64::new(1),
        stop,
    });
    Router::new()
        .route(SSE_PATH, get(open_stream))
        .route(MESSAGE_PATH, post(message))
        .with_state(sessions)
        .route_layer(middleware::from_fn(loopback_only))
}

/// The DNS-rebinding guard rmcp applies to `/mcp`: a loopback `Host`, and an `Origin`, when
/// there is one, on loopback too. Without it any web page could drive the demo's tools.
async fn loopback_only(request: Request, next: Next) -> Response {
    let host_ok = request
        .headers()
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .is_some_and(is_loopback_authority);
    let origin_ok = match request.headers().get(header::ORIGIN) {
        None => true,
        Some(origin) => origin.to_str().ok().is_some_and(|origin| {
            origin
                .strip_prefix("http://")
                .is_some_and(is_loopback_authority)
        }),
    };
    if !host_ok || !origin_ok {
        return (
            StatusCode::FORBIDDEN,
            "Forbidden: the demo server accepts loopback Host and Origin only",
        )
            .into_response();
    }
    next.run(request).await
}

/// Whether `authority` (`host[:port]`) names the loopback interface.
fn is_loopback_authority(authority: &str) -> bool {
    let host = match authority.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => authority.split(':').next().unwrap_or(""),
    };
    matches!(host, "localhost" | "127.0.0.1" | "::1")
}

/// A session id nobody can guess from another: a per-process counter, hashed with fresh keys.
fn new_session_id(counter: u64) -> String {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(counter);
    hasher.write_u32(std::process::id());
    format!("{:016x}{counter:04x}", hasher.finish())
}

/// Removes the session when its stream is dropped (the client hung up, or shutdown), which
/// drops the last sender of its input and so ends the rmcp session.
struct OpenSession {
    sessions: Arc<Sessions>,
    id: String,
}

impl Drop for OpenSession {
    fn drop(&mut self) {
        lock(&self.sessions.open).remove(&self.id);
    }
}

async fn open_stream(State(sessions): State<Arc<Sessions>>) -> Response {
    let id = new_session_id(sessions.next.fetch_add(1, Ordering::Relaxed));
    let (lines, input) = mpsc::channel(STDIN_QUEUE);
    let (output, from_rmcp) = tokio::io::duplex(PIPE_CAPACITY);
    let shared = sessions.shared.clone();
    tokio::spawn(async move {
        // A session ends with an error when the client hangs up mid-write; nobody is left to
        // tell, and each session is independent of the others.
        let _ended = stdio::serve(shared, input, output).await;
    });
    lock(&sessions.open).insert(id.clone(), lines);
    let endpoint = format!("event: endpoint\ndata: {MESSAGE_PATH}?sessionId={id}\n\n");
    let state = StreamState {
        endpoint: Some(Bytes::from(endpoint)),
        from_rmcp: BufReader::new(from_rmcp),
        stop: sessions.stop.clone(),
        _session: OpenSession { sessions, id },
    };
    let events = futures::stream::unfold(state, |mut state| async move {
        let event = state.next_event().await?;
        Some((Ok::<_, std::io::Error>(event), state))
    });
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        http::HeaderValue::from_static("no-cache"),
    );
    (StatusCode::OK, headers, Body::from_stream(events)).into_response()
}

/// One SSE stream: the endpoint event, then one `message` event per line rmcp writes.
struct StreamState {
    endpoint: Option<Bytes>,
    from_rmcp: BufReader<DuplexStream>,
    stop: watch::Receiver<bool>,
    _session: OpenSession,
}

impl StreamState {
    async fn next_event(&mut self) -> Option<Bytes> {
        if let Some(endpoint) = self.endpoint.take() {
            return Some(endpoint);
        }
        let mut line = Vec::new();
        let read = tokio::select! {
            read = self.from_rmcp.read_until(b'\n', &mut line) => read,
            _ = self.stop.wait_for(|stopped| *stopped) => return None,
        };
        match read {
            // rmcp ended the session (or its pipe broke): end the stream with it.
            Ok(0) | Err(_) => None,
            Ok(_) => {
                let json = line.strip_suffix(b"\n").unwrap_or(&line);
                // rmcp writes compact JSON, so the message is one line and one `data:` field.
                let mut event = Vec::with_capacity(json.len() + 24);
                event.extend_from_slice(b"event: message\ndata: ");
                event.extend_from_slice(json);
                event.extend_from_slice(b"\n\n");
                Some(Bytes::from(event))
            }
        }
    }
}

async fn message(
    State(sessions): State<Arc<Sessions>>,
    Query(query): Query<HashMap<String, String>>,
    body: Bytes,
) -> Response {
    let Some(id) = query.get("sessionId") else {
        return (
            StatusCode::BAD_REQUEST,
            "Bad Request: the sessionId query parameter is required",
        )
            .into_response();
    };
    let Some(lines) = lock(&sessions.open).get(id).cloned() else {
        return (
            StatusCode::NOT_FOUND,
            "Not Found: no open SSE stream has this sessionId",
        )
            .into_response();
    };
    if serde_json::from_slice::<serde::de::IgnoredAny>(&body).is_err() {
        return (
            StatusCode::BAD_REQUEST,
            "Bad Request: the body is not one JSON document",
        )
            .into_response();
    }
    // Valid JSON has no raw line breaks inside strings, so turning the ones between tokens into
    // spaces keeps the message intact and makes it the single line rmcp's reader expects.
    let mut line: Vec<u8> = body
        .iter()
        .map(|byte| match byte {
            b'\n' | b'\r' => b' ',
            other => *other,
        })
        .collect();
    line.push(b'\n');
    if lines.send(Ok(line)).await.is_err() {
        return (
            StatusCode::NOT_FOUND,
            "Not Found: the session behind this sessionId has ended",
        )
            .into_response();
    }
    (StatusCode::ACCEPTED, "Accepted").into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_authorities() {
        for ok in ["127.0.0.1:8080", "localhost", "localhost:1", "[::1]:3000"] {
            assert!(is_loopback_authority(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "127.0.0.2:80",
            "localhost.evil.example",
            "[::2]:1",
        ] {
            assert!(!is_loopback_authority(bad), "{bad}");
        }
    }

    #[test]
    fn session_ids_differ() {
        assert_ne!(new_session_id(1), new_session_id(2));
    }
}
