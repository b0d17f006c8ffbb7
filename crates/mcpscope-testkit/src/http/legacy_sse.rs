//! [`HttpMode::LegacySseOnly`](super::HttpMode::LegacySseOnly): the deprecated HTTP+SSE transport
//! (protocol 2024-11-05), still served by many deployed servers — a long-lived GET stream that
//! announces where to POST, and POSTs whose answers travel back on that stream.

use super::{legacy_answer, parse_error, sse_event, sse_headers};
use crate::jsonrpc::{self, Incoming};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::mpsc;

struct Channels {
    next: AtomicUsize,
    /// Session id → the open GET stream's sender.
    open: Mutex<HashMap<String, mpsc::UnboundedSender<Bytes>>>,
}

pub(super) fn router() -> Router {
    let channels = Arc::new(Channels {
        next: AtomicUsize::new(1),
        open: Mutex::new(HashMap::new()),
    });
    Router::new()
        // Only GET: a Streamable HTTP POST here gets axum's 405, the answer that sends a client
        // to the GET fallback.
        .route("/sse", get(open_stream))
        // The same stream at the root, as servers mounted on a bare origin serve it: a URL
        // without `/sse` or `/mcp` is what sends a client down the Streamable-HTTP-then-HTTP+SSE
        // fallback, and POST `/` is a 405 here just like POST `/sse`.
        .route("/", get(open_stream))
        .route("/message", post(message))
        .route("/mcp", any(|| async { StatusCode::NOT_FOUND }))
        .with_state(channels)
}

async fn open_stream(State(channels): State<Arc<Channels>>) -> Response {
    let session = format!(
        "sse-session-{}",
        channels.next.fetch_add(1, Ordering::SeqCst)
    );
    let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
    let endpoint = format!("event: endpoint\ndata: /message?sessionId={session}\n\n");
    // Cannot fail: the receiver is still in hand.
    let _ = tx.send(Bytes::from(endpoint));
    channels.open().insert(session, tx);
    // The stream lives as long as the client keeps the connection; when it hangs up the
    // receiver is dropped and the next send fails, which is how the session ends.
    let events = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|chunk| (Ok::<_, Infallible>(chunk), rx))
    });
    (StatusCode::OK, sse_headers(), Body::from_stream(events)).into_response()
}

async fn message(
    State(channels): State<Arc<Channels>>,
    Query(query): Query<HashMap<String, String>>,
    body: Bytes,
) -> Response {
    let Some(session) = query.get("sessionId") else {
        return (
            StatusCode::BAD_REQUEST,
            "sessionId query parameter is required",
        )
            .into_response();
    };
    let Some(tx) = channels.open().get(session).cloned() else {
        return (StatusCode::NOT_FOUND, "Could not find session").into_response();
    };
    match jsonrpc::classify(&body) {
        Incoming::Request { id, method, params } => {
            let event = sse_event(None, Some("message"), &legacy_answer(&id, &method, &params));
            if tx.send(Bytes::from(event)).is_err() {
                channels.open().remove(session);
                return (StatusCode::NOT_FOUND, "Could not find session").into_response();
            }
        }
        Incoming::Notification { .. } | Incoming::Other => {}
        Incoming::Unparsable => return parse_error(),
    }
    (StatusCode::ACCEPTED, "Accepted").into_response()
}

impl Channels {
    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<String, mpsc::UnboundedSender<Bytes>>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
