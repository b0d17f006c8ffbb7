//! Sending one message: a POST, its answer read the way it came (a JSON body, an SSE stream
//! scoped to the request, `202 Accepted`), and the outcomes that are not an answer — a challenge
//! for the auth provider, an expired session, an HTTP error, a web page where MCP belongs.
//!
//! [`post`] sends a message once more each time the auth provider answers a challenge;
//! [`post_once`] is one attempt, in named steps: the headers ([`post_headers`]), the send (the
//! one redirect-following sender), then the answer ([`take_challenge`], [`session_expired`],
//! [`judge`]).

use super::redirect::{self, Request};
use super::response::{
    content_type, is_event_stream, record_response, response_meta, status_error, unanswered,
};
use super::{Inner, merge_headers, same_origin, stream};
use crate::auth::AuthChallenge;
use crate::{Outgoing, TransportError};
use bytes::Bytes;
use mcpscope_proto::{Direction, Frame, FrameKind};

/// How many times one message is re-sent after the auth provider answered a challenge (a fresh
/// login, then a step-up or two); the provider has its own, tighter limits.
const MAX_AUTH_ROUNDS: usize = 4;

/// Send one message, and once more each time the auth provider answers a challenge.
pub(super) async fn post(inner: &Inner, out: Outgoing) {
    let mut round = 0;
    loop {
        let challenged = post_once(inner, &out, round).await;
        let (Some(challenge), Some(provider)) = (challenged, &inner.auth) else {
            return;
        };
        let failed = |reason: String| TransportError::AuthFailed {
            url: challenge.url.clone(),
            status: challenge.status,
            challenge: challenge.www_authenticate.clone(),
            reason,
        };
        if round >= MAX_AUTH_ROUNDS {
            inner.fail(
                out.id.clone(),
                failed(format!(
                    "the server still refused the request after {MAX_AUTH_ROUNDS} new authorizations"
                )),
            );
            return;
        }
        match provider.on_challenge(challenge.clone(), inner).await {
            Ok(()) => round += 1,
            Err(reason) => {
                inner.fail(out.id.clone(), failed(reason));
                return;
            }
        }
    }
}

/// One POST of `out` (following redirects). Returns the `401`/`403` challenge when an auth
/// provider can answer it; every other outcome is reported here.
async fn post_once(inner: &Inner, out: &Outgoing, round: usize) -> Option<AuthChallenge> {
    let authorization = inner.authorization().await;
    let ex = inner.next_exchange();
    let request = Request {
        method: reqwest::Method::POST,
        url: inner.url.clone(),
        headers: post_headers(inner, out, authorization.as_deref()),
        body: out.body.clone(),
        note: (round > 0).then(|| format!("re-sent with new authorization ({round})")),
        // A message re-sent after a new authorization is the same message: only its first
        // frame counts as sending it.
        carries_message: round == 0,
    };
    let delivered = match redirect::send(inner, ex, request).await {
        Ok(d) => d,
        Err(e) => {
            inner.exchange_failed(ex, "POST", &e);
            inner.fail(out.id.clone(), e.into());
            return None;
        }
    };
    let (resp, url) = (delivered.resp, delivered.url);
    if resp.status().is_success()
        && let (Some(provider), Some(a)) = (&inner.auth, &authorization)
    {
        provider.on_success(a);
    }
    if is_event_stream(&resp) {
        let meta = response_meta(ex, "POST", &url, &resp);
        inner.frame(
            Frame::new(Direction::In, FrameKind::HttpResponse, Bytes::new()).with_meta(meta),
        );
        stream::read_request_stream(inner, ex, resp, out.id.as_ref()).await;
        return None;
    }
    let resp = match take_challenge(inner, ex, &url, resp, out, authorization).await {
        Ok(resp) => resp,
        Err(challenge) => return challenge,
    };
    if session_expired(&resp, inner) {
        record_response(inner, ex, "POST", &url, resp, out.id.clone(), None).await;
        report_expired_session(inner, ex, out);
        return None;
    }
    judge(inner, ex, &url, resp, out).await;
    None
}

/// Our headers for a POST of `out`, merged with the user's `--header` values.
fn post_headers(
    inner: &Inner,
    out: &Outgoing,
    authorization: Option<&str>,
) -> Vec<(String, String)> {
    let mut ours = vec![
        ("Content-Type".to_string(), "application/json".to_string()),
        (
            "Accept".to_string(),
            "application/json, text/event-stream".to_string(),
        ),
    ];
    // Modern requests carry their own MCP-Protocol-Version; legacy ones get the negotiated one.
    let engine_sets_version = out
        .headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("mcp-protocol-version"));
    for (k, v) in inner.session_headers() {
        if engine_sets_version && k.eq_ignore_ascii_case("mcp-protocol-version") {
            continue;
        }
        ours.push((k, v));
    }
    ours.extend(out.headers.iter().cloned());
    if let Some(a) = authorization {
        ours.push(("Authorization".to_string(), a.to_string()));
    }
    merge_headers(ours, &inner.headers)
}

/// A `401` (or a `403` with `WWW-Authenticate`) is recorded and either handed to the auth
/// provider (`Err(Some(challenge))`) or reported (`Err(None)`); any other answer comes back.
async fn take_challenge(
    inner: &Inner,
    ex: u64,
    url: &str,
    resp: reqwest::Response,
    out: &Outgoing,
    sent_authorization: Option<String>,
) -> Result<reqwest::Response, Option<AuthChallenge>> {
    let status = resp.status().as_u16();
    let challenge = resp
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    if !(status == 401 || status == 403 && challenge.is_some()) {
        return Ok(resp);
    }
    record_response(inner, ex, "POST", url, resp, None, None).await;
    // Only the server's own origin gets to ask for its credentials.
    if inner.auth.is_some() && same_origin(url, &inner.url) {
        return Err(Some(AuthChallenge {
            url: url.to_string(),
            status,
            www_authenticate: challenge,
            sent_authorization,
        }));
    }
    inner.fail(
        out.id.clone(),
        TransportError::AuthRequired {
            url: url.to_string(),
            status,
            challenge,
        },
    );
    Err(None)
}

/// A `404` to a request carrying a session id means "start a new session" whatever its body
/// says: servers add a JSON-RPC error (-32001 Session not found) with the request's id, and
/// taking that as the answer would end the request instead of re-initializing. The body is
/// still recorded, just not handed over as a message.
fn session_expired(resp: &reqwest::Response, inner: &Inner) -> bool {
    resp.status().as_u16() == 404 && inner.has_session()
}

fn report_expired_session(inner: &Inner, ex: u64, out: &Outgoing) {
    inner.note(
        Some(ex),
        "HTTP 404 to a request with a session id: the session expired, so the body is not taken as the answer".into(),
    );
    let session_id = inner.take_session_id().unwrap_or_default();
    inner.fail(
        out.id.clone(),
        TransportError::SessionExpired { session_id },
    );
}

/// Record a non-streaming answer and report it when it is not the one `out` waits for: a
/// request gets an error naming what came instead; a refused notification or response is
/// reported tied to nothing. `202 Accepted` is the expected answer to those.
async fn judge(inner: &Inner, ex: u64, url: &str, resp: reqwest::Response, out: &Outgoing) {
    let status = resp.status().as_u16();
    let ctype = content_type(&resp);
    let (answered, body) =
        record_response(inner, ex, "POST", url, resp, out.id.clone(), Some(&ctype)).await;
    if status == 202 || answered {
        return;
    }
    match &out.id {
        Some(id) => inner.fail(out.id.clone(), unanswered(url, id, status, &ctype, &body)),
        None if !(200..300).contains(&status) => {
            inner.fail(None, status_error("POST", url, status, &ctype, &body));
        }
        None => {}
    }
}
