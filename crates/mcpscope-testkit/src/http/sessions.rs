//! [`HttpMode::SessionExpiring`](super::HttpMode::SessionExpiring): legacy Streamable HTTP whose
//! sessions die after a fixed number of requests, the way a server restart or an idle timeout
//! kills them in production.

use super::{HttpStats, json_response, legacy_answer, parse_error};
use crate::jsonrpc::{self, Incoming};
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

const SESSION_HEADER: &str = "mcp-session-id";

struct Sessions {
    requests_per_session: usize,
    stats: HttpStats,
    next_id: AtomicUsize,
    /// Live session id → requests answered in it.
    live: Mutex<HashMap<String, usize>>,
}

pub(super) fn router(requests_per_session: usize, stats: HttpStats) -> Router {
    let sessions = Arc::new(Sessions {
        requests_per_session,
        stats,
        next_id: AtomicUsize::new(1),
        live: Mutex::new(HashMap::new()),
    });
    Router::new()
        .route("/mcp", any(handle))
        .with_state(sessions)
}

/// `POST /mcp` (initialize opens a session, anything else must name a live one) and `DELETE`
/// (ends a session); no GET stream.
async fn handle(
    State(sessions): State<Arc<Sessions>>,
    method: Method,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let session = headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    match method {
        Method::POST => {}
        Method::DELETE => {
            let removed = session.is_some_and(|id| sessions.live().remove(&id).is_some());
            return if removed {
                StatusCode::OK
            } else {
                StatusCode::NOT_FOUND
            }
            .into_response();
        }
        // No standalone GET stream: the spec lets a server answer 405.
        _ => return StatusCode::METHOD_NOT_ALLOWED.into_response(),
    }
    let message = jsonrpc::classify(&body);
    if let Incoming::Request { id, method, params } = &message
        && method == "initialize"
    {
        return sessions.initialize(id, method, params);
    }
    let id = match &message {
        Incoming::Request { id, .. } => id.clone(),
        _ => Value::Null,
    };
    let Some(session) = session else {
        // The bodies and codes are those of the TypeScript SDK's legacy server.
        return json_response(
            StatusCode::BAD_REQUEST,
            &jsonrpc::error(
                &id,
                -32000,
                "Bad Request: Mcp-Session-Id header is required",
                None,
            ),
        );
    };
    sessions.answer_in(&session, &id, &message)
}

impl Sessions {
    /// Open a session: a fresh id in `Mcp-Session-Id` on the `initialize` answer.
    fn initialize(&self, id: &Value, method: &str, params: &Value) -> Response {
        let session = format!(
            "expiring-session-{}",
            self.next_id.fetch_add(1, Ordering::SeqCst)
        );
        self.live().insert(session.clone(), 0);
        HttpStats::bump(&self.stats.0.initializations);
        let mut response = json_response(StatusCode::OK, &legacy_answer(id, method, params));
        if let Ok(value) = HeaderValue::from_str(&session) {
            response.headers_mut().insert(SESSION_HEADER, value);
        }
        response
    }

    /// Answer a message in `session`: `404 Session not found` once it has expired; a request is
    /// counted, and the one that reaches the limit expires the session.
    fn answer_in(&self, session: &str, id: &Value, message: &Incoming) -> Response {
        let answer = {
            let mut live = self.live();
            let Some(answered) = live.get_mut(session) else {
                drop(live);
                HttpStats::bump(&self.stats.0.expired_session_rejections);
                return json_response(
                    StatusCode::NOT_FOUND,
                    &jsonrpc::error(id, -32001, "Session not found", None),
                );
            };
            match message {
                Incoming::Request { id, method, params } => {
                    *answered += 1;
                    // Expire right after the last allowed answer, so the next message of any
                    // kind on this id meets the 404.
                    if *answered >= self.requests_per_session {
                        live.remove(session);
                    }
                    Some(legacy_answer(id, method, params))
                }
                Incoming::Notification { .. } | Incoming::Other => None,
                Incoming::Unparsable => return parse_error(),
            }
        };
        match answer {
            Some(answer) => json_response(StatusCode::OK, &answer),
            None => StatusCode::ACCEPTED.into_response(),
        }
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
