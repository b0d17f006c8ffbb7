//! [`HttpMode::SseDropThenResume`](super::HttpMode::SseDropThenResume): the legacy Streamable
//! HTTP "polling" pattern, where a server ends a request's SSE stream right after the priming
//! event and hands the response to the GET that resumes it with `Last-Event-ID`.

use super::{HttpStats, legacy_answer, parse_error, sse_event, sse_headers};
use crate::jsonrpc::{self, Incoming};
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// The `retry` the priming event asks for; clients MUST wait at least this long.
const RETRY_MS: u64 = 500;

struct Streams {
    stats: HttpStats,
    next: AtomicUsize,
    /// Stream name (`s<n>`) → the response held back and when its stream was closed.
    held: Mutex<HashMap<String, (Value, Instant)>>,
}

pub(super) fn router(stats: HttpStats) -> Router {
    let streams = Arc::new(Streams {
        stats,
        next: AtomicUsize::new(0),
        held: Mutex::new(HashMap::new()),
    });
    Router::new().route("/mcp", any(handle)).with_state(streams)
}

async fn handle(
    State(streams): State<Arc<Streams>>,
    method: Method,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match method {
        Method::POST => post(&streams, &body),
        Method::GET => resume(&streams, &headers),
        _ => StatusCode::METHOD_NOT_ALLOWED.into_response(),
    }
}

fn post(streams: &Streams, body: &[u8]) -> Response {
    let (id, method, params) = match jsonrpc::classify(body) {
        Incoming::Request { id, method, params } => (id, method, params),
        Incoming::Notification { .. } | Incoming::Other => {
            return StatusCode::ACCEPTED.into_response();
        }
        Incoming::Unparsable => return parse_error(),
    };
    let stream = format!("s{}", streams.next.fetch_add(1, Ordering::SeqCst));
    // Event ids are `<stream>-<n>`, so a Last-Event-ID names the stream to resume.
    let priming = format!("id: {stream}-0\nretry: {RETRY_MS}\ndata:\n\n");
    let answer = legacy_answer(&id, &method, &params);
    let body = if method == "initialize" {
        // The handshake goes through untouched, so every client reaches the interesting part.
        priming + &sse_event(Some(&format!("{stream}-1")), None, &answer)
    } else {
        streams.held().insert(stream, (answer, Instant::now()));
        priming
    };
    (StatusCode::OK, sse_headers(), body).into_response()
}

fn resume(streams: &Streams, headers: &HeaderMap) -> Response {
    let Some(last) = headers.get("last-event-id").and_then(|v| v.to_str().ok()) else {
        // No standalone GET stream: the spec lets a server answer 405.
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    };
    let stream = last.rsplit_once('-').map_or(last, |(stream, _)| stream);
    let Some((answer, closed_at)) = streams.held().remove(stream) else {
        return (
            StatusCode::NOT_FOUND,
            "no held-back response for that Last-Event-ID",
        )
            .into_response();
    };
    HttpStats::bump(&streams.stats.0.resumptions);
    streams
        .stats
        .0
        .resume_delays
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(closed_at.elapsed());
    let event = sse_event(Some(&format!("{stream}-1")), None, &answer);
    (StatusCode::OK, sse_headers(), event).into_response()
}

impl Streams {
    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Value, Instant)>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
