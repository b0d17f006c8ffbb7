//! Streamable HTTP transport, both eras.
//!
//! Each message is one POST with `Accept: application/json, text/event-stream`. The answer may be
//! a JSON body, an SSE stream scoped to the request (progress, logs, legacy server requests, then
//! the response), or `202 Accepted`. Legacy sessions: the `Mcp-Session-Id` the server issues is
//! sent on every later request, a `404` to it is reported as [`TransportError::SessionExpired`] so
//! the engine can re-initialize, the standalone GET stream carries unsolicited messages, a stream
//! that ends before its answer is resumed with `Last-Event-ID` after the server's `retry:` delay,
//! and the session is ended with `DELETE`. Modern: no session, the engine supplies the `Mcp-*`
//! headers, and closing the response stream is the cancellation. Redirects are followed by hand so
//! every hop is a recorded exchange.

use crate::auth::{AuthChallenge, AuthProvider};
use crate::sse::{SseEvent, SseParser};
use crate::{EventTx, Outgoing, TransportError, TransportEvent, TransportOptions};
use bytes::Bytes;
use futures::StreamExt;
use mcpscope_proto::{Direction, Frame, FrameKind, FrameMeta, RequestId};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::task::AbortHandle;

/// Maximum redirect hops followed for one message.
const MAX_REDIRECTS: usize = 5;
/// How many times a request stream is resumed with `Last-Event-ID` before giving up.
const MAX_RESUMES: usize = 5;
/// Delay before resuming when the server gave no `retry:`.
const DEFAULT_RETRY_MS: u64 = 1000;
/// How many times one message is re-sent after the auth provider answered a challenge (a fresh
/// login, then a step-up or two); the provider has its own, tighter limits.
const MAX_AUTH_ROUNDS: usize = 4;

/// A Streamable HTTP connection.
pub struct HttpTransport {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) client: reqwest::Client,
    pub(crate) url: String,
    pub(crate) headers: Vec<(String, String)>,
    session_id: Mutex<Option<String>>,
    protocol_version: Mutex<Option<String>>,
    pub(crate) exchange: Arc<AtomicU64>,
    pub(crate) events: EventTx,
    streams: Mutex<HashMap<RequestId, AbortHandle>>,
    get_stream: Mutex<Option<AbortHandle>>,
    pub(crate) max: usize,
    closed: AtomicBool,
    /// `None` when there is no provider or the user set `Authorization` with `--header`.
    pub(crate) auth: Option<Arc<dyn AuthProvider>>,
    /// Read-ahead credit shared by every SSE stream of the connection (one per event).
    pub(crate) credit: Arc<tokio::sync::Semaphore>,
}

pub(crate) fn build_client(opts: &TransportOptions) -> Result<reqwest::Client, TransportError> {
    let mut b = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none());
    if let Some(t) = opts.connect_timeout {
        b = b.connect_timeout(t);
    }
    b.build().map_err(|e| {
        TransportError::Other(format!("cannot build the HTTP client: {}", error_chain(&e)))
    })
}

impl HttpTransport {
    pub(crate) fn new(
        url: &str,
        headers: &[(String, String)],
        opts: &TransportOptions,
        events: EventTx,
    ) -> Result<HttpTransport, TransportError> {
        url::Url::parse(url)
            .map_err(|e| TransportError::Other(format!("invalid URL {url:?}: {e}")))?;
        Ok(HttpTransport {
            inner: Arc::new(Inner {
                client: build_client(opts)?,
                url: url.to_string(),
                headers: headers.to_vec(),
                session_id: Mutex::new(None),
                protocol_version: Mutex::new(None),
                exchange: opts.exchanges.clone(),
                events,
                streams: Mutex::new(HashMap::new()),
                get_stream: Mutex::new(None),
                max: opts.max_message_bytes,
                closed: AtomicBool::new(false),
                auth: opts
                    .auth
                    .clone()
                    .filter(|_| !crate::auth::user_sets_authorization(headers)),
                credit: crate::read_ahead_credit(),
            }),
        })
    }

    /// The read-ahead credit of this connection's SSE readers.
    pub(crate) fn credit(&self) -> Arc<tokio::sync::Semaphore> {
        self.inner.credit.clone()
    }

    pub(crate) async fn send(&self, out: Outgoing) -> Result<(), TransportError> {
        if self.inner.closed.load(Ordering::SeqCst) {
            return Err(TransportError::Closed);
        }
        let inner = self.inner.clone();
        let id = out.id.clone();
        let task = tokio::spawn(async move {
            let id = out.id.clone();
            post(&inner, out).await;
            if let Some(id) = id {
                inner.streams.lock().expect("streams lock").remove(&id);
            }
        });
        match id {
            Some(id) => {
                self.inner
                    .streams
                    .lock()
                    .expect("streams lock")
                    .insert(id, task.abort_handle());
            }
            None => settle(task).await,
        }
        Ok(())
    }

    pub(crate) fn close_stream(&self, id: &RequestId) -> bool {
        let handle = self.inner.streams.lock().expect("streams lock").remove(id);
        match handle {
            Some(h) => {
                h.abort();
                self.inner.note(
                    None,
                    format!("closed the response stream of request {id} (modern-era cancellation)"),
                );
                true
            }
            None => false,
        }
    }

    pub(crate) fn set_protocol_version(&self, v: Option<String>) {
        *self.inner.protocol_version.lock().expect("version lock") = v;
    }

    pub(crate) fn session_id(&self) -> Option<String> {
        self.inner.session_id.lock().expect("session lock").clone()
    }

    pub(crate) fn reset_session(&self) {
        *self.inner.session_id.lock().expect("session lock") = None;
        if let Some(h) = self.inner.get_stream.lock().expect("get lock").take() {
            h.abort();
        }
    }

    pub(crate) fn open_get_stream(&self) -> tokio::sync::oneshot::Receiver<()> {
        let inner = self.inner.clone();
        let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
        let task = tokio::spawn(async move { get_stream_loop(&inner, ready_tx).await });
        if let Some(old) = self
            .inner
            .get_stream
            .lock()
            .expect("get lock")
            .replace(task.abort_handle())
        {
            old.abort();
        }
        ready_rx
    }

    pub(crate) async fn close(&self) {
        if self.inner.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        if let Some(h) = self.inner.get_stream.lock().expect("get lock").take() {
            h.abort();
        }
        for (_, h) in self.inner.streams.lock().expect("streams lock").drain() {
            h.abort();
        }
        let session = self.session_id();
        if let Some(sid) = session {
            let ex = self.inner.next_exchange();
            let mut headers = vec![("Mcp-Session-Id".to_string(), sid)];
            if let Some(v) = self
                .inner
                .protocol_version
                .lock()
                .expect("version lock")
                .clone()
            {
                headers.push(("MCP-Protocol-Version".to_string(), v));
            }
            if let Some(a) = self.inner.authorization().await {
                headers.push(("Authorization".to_string(), a));
            }
            headers.extend(self.inner.headers.iter().cloned());
            self.inner.frame(
                Frame::new(Direction::Out, FrameKind::HttpRequest, Bytes::new()).with_meta(
                    FrameMeta {
                        exchange: Some(ex),
                        method: Some("DELETE".into()),
                        url: Some(self.inner.url.clone()),
                        headers: headers.clone(),
                        note: Some("ending the session".into()),
                        ..Default::default()
                    },
                ),
            );
            let mut req = self.inner.client.delete(&self.inner.url);
            for (k, v) in &headers {
                req = req.header(k, v);
            }
            match tokio::time::timeout(Duration::from_secs(3), req.send()).await {
                Ok(Ok(resp)) => {
                    let meta = response_meta(ex, "DELETE", &self.inner.url, &resp);
                    let body = resp.bytes().await.unwrap_or_default();
                    self.inner.frame(
                        Frame::new(Direction::In, FrameKind::HttpResponse, body).with_meta(meta),
                    );
                }
                Ok(Err(e)) => self
                    .inner
                    .note(Some(ex), format!("DELETE failed: {}", error_chain(&e))),
                Err(_) => self
                    .inner
                    .note(Some(ex), "DELETE got no answer within 3 s".to_string()),
            }
        }
        let _ = self.inner.events.send(TransportEvent::Closed {
            reason: "connection closed by the client".into(),
        });
    }
}

impl Inner {
    pub(crate) fn next_exchange(&self) -> u64 {
        self.exchange.fetch_add(1, Ordering::SeqCst) + 1
    }

    pub(crate) fn frame(&self, f: Frame) {
        let _ = self.events.send(TransportEvent::Frame(f));
    }

    pub(crate) fn note(&self, exchange: Option<u64>, text: String) {
        self.frame(
            Frame::new(Direction::Local, FrameKind::Lifecycle, Bytes::new()).with_meta(FrameMeta {
                exchange,
                note: Some(text),
                ..Default::default()
            }),
        );
    }

    pub(crate) fn fail(&self, id: Option<RequestId>, error: TransportError) {
        let _ = self.events.send(TransportEvent::Failed { id, error });
    }

    fn session_headers(&self) -> Vec<(String, String)> {
        let mut h = vec![];
        if let Some(sid) = self.session_id.lock().expect("session lock").clone() {
            h.push(("Mcp-Session-Id".to_string(), sid));
        }
        if let Some(v) = self.protocol_version.lock().expect("version lock").clone() {
            h.push(("MCP-Protocol-Version".to_string(), v));
        }
        h
    }
}

/// Merge header lists; later lists do not repeat names an earlier list set, except that the
/// user's `--header` values replace our defaults of the same name.
pub(crate) fn merge_headers(
    ours: Vec<(String, String)>,
    user: &[(String, String)],
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = ours
        .into_iter()
        .filter(|(k, _)| !user.iter().any(|(u, _)| u.eq_ignore_ascii_case(k)))
        .collect();
    out.extend(user.iter().cloned());
    out
}

/// Send one message, and once more each time the auth provider answers a challenge.
async fn post(inner: &Inner, out: Outgoing) {
    let mut round = 0;
    loop {
        let mut challenged = None;
        post_once(inner, &out, round, &mut challenged).await;
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

/// One POST of `out` (following redirects). A `401`/`403` challenge is left in `challenged` when
/// an auth provider can answer it; otherwise every outcome is reported here.
async fn post_once(
    inner: &Inner,
    out: &Outgoing,
    round: usize,
    challenged: &mut Option<AuthChallenge>,
) {
    let authorization = inner.authorization().await;
    let ex = inner.next_exchange();
    let mut url = inner.url.clone();
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
    if let Some(a) = &authorization {
        ours.push(("Authorization".to_string(), a.clone()));
    }
    let mut headers = merge_headers(ours, &inner.headers);
    let mut hop = 0;
    let resp = loop {
        // A message re-sent after a redirect or a new authorization is the same message: only
        // its first frame counts as sending it.
        let first = hop == 0 && round == 0;
        let mut f = Frame::new(Direction::Out, FrameKind::HttpRequest, out.body.clone()).with_meta(
            FrameMeta {
                exchange: Some(ex),
                method: Some("POST".into()),
                url: Some(url.clone()),
                headers: headers.clone(),
                note: if hop > 0 {
                    Some(format!("re-sent after redirect {hop}"))
                } else if round > 0 {
                    Some(format!("re-sent with new authorization ({round})"))
                } else {
                    None
                },
                ..Default::default()
            },
        );
        // The message is the same on every hop; only the first frame counts as sending it.
        f.carries_message = first;
        inner.frame(f);
        let mut req = inner.client.post(&url).body(out.body.clone());
        for (k, v) in &headers {
            req = req.header(k, v);
        }
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) => {
                let reason = error_chain(&e);
                inner.note(Some(ex), format!("POST {url} failed: {reason}"));
                inner.fail(
                    out.id.clone(),
                    TransportError::Unreachable {
                        url: url.clone(),
                        reason,
                    },
                );
                return;
            }
        };
        if let Some(sid) = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        {
            *inner.session_id.lock().expect("session lock") = Some(sid.to_string());
        }
        let status = resp.status();
        if status.is_redirection()
            && let Some(loc) = resp
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        {
            let loc = loc.as_str();
            let next = match url::Url::parse(&url).and_then(|u| u.join(loc)) {
                Ok(u) => u.to_string(),
                Err(e) => {
                    record_response(inner, ex, "POST", &url, resp, out.id.clone(), None).await;
                    inner.fail(
                        out.id.clone(),
                        TransportError::Other(format!(
                            "redirect to an invalid Location {loc:?}: {e}"
                        )),
                    );
                    return;
                }
            };
            let meta = response_meta(ex, "POST", &url, &resp);
            let body = resp.bytes().await.unwrap_or_default();
            let note = if hop >= MAX_REDIRECTS {
                format!("redirect to {next}: not followed, {MAX_REDIRECTS} hops already")
            } else {
                format!("redirect to {next}: following it (re-sending the same POST)")
            };
            inner.frame(
                Frame::new(Direction::In, FrameKind::HttpResponse, body).with_meta(FrameMeta {
                    note: Some(note),
                    ..meta
                }),
            );
            if hop >= MAX_REDIRECTS {
                inner.fail(
                    out.id.clone(),
                    TransportError::Other(format!(
                        "too many redirects (more than {MAX_REDIRECTS}) from {}",
                        inner.url
                    )),
                );
                return;
            }
            hop += 1;
            // Credentials belong to the origin they were issued for: never forwarded to another
            // (browsers and curl drop them on such redirects too).
            if !same_origin(&url, &next)
                && headers
                    .iter()
                    .any(|(k, _)| k.eq_ignore_ascii_case("authorization"))
            {
                headers.retain(|(k, _)| !k.eq_ignore_ascii_case("authorization"));
                inner.note(
                    Some(ex),
                    format!("{next} is another origin: the Authorization header is not sent there"),
                );
            }
            url = next;
            continue;
        }
        break resp;
    };
    let status = resp.status().as_u16();
    let content_type = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if (200..300).contains(&status)
        && let (Some(provider), Some(a)) = (&inner.auth, &authorization)
    {
        provider.on_success(a);
    }
    if (200..300).contains(&status) && content_type.starts_with("text/event-stream") {
        let meta = response_meta(ex, "POST", &url, &resp);
        inner.frame(
            Frame::new(Direction::In, FrameKind::HttpResponse, Bytes::new()).with_meta(meta),
        );
        let outcome = read_sse(inner, ex, resp, out.id.as_ref()).await;
        if let Some(id) = &out.id
            && !outcome.answered
        {
            resume(inner, ex, &url, id, outcome).await;
        }
        return;
    }
    if status == 401 || status == 403 {
        let challenge = resp
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        if status == 401 || challenge.is_some() {
            record_response(inner, ex, "POST", &url, resp, None, None).await;
            // Only the server's own origin gets to ask for its credentials.
            if inner.auth.is_some() && same_origin(&url, &inner.url) {
                *challenged = Some(AuthChallenge {
                    url: url.clone(),
                    status,
                    www_authenticate: challenge,
                    sent_authorization: authorization,
                });
                return;
            }
            inner.fail(
                out.id.clone(),
                TransportError::AuthRequired {
                    url: url.clone(),
                    status,
                    challenge,
                },
            );
            return;
        }
    }
    let had_session = status == 404 && inner.session_id.lock().expect("session lock").is_some();
    // A 404 to a session id means "start a new session" whatever its body says: servers add a
    // JSON-RPC error (-32001 Session not found) with the request's id, and letting the engine
    // take that as the answer would end the request instead of re-initializing. The body is
    // still recorded, just not handed over as a message.
    let (answered, body) = record_response(
        inner,
        ex,
        "POST",
        &url,
        resp,
        out.id.clone(),
        (!had_session).then_some(content_type.as_str()),
    )
    .await;
    if had_session {
        inner.note(
            Some(ex),
            "HTTP 404 to a request with a session id: the session expired, so the body is not taken as the answer".into(),
        );
        let sid = inner
            .session_id
            .lock()
            .expect("session lock")
            .take()
            .unwrap_or_default();
        inner.fail(
            out.id.clone(),
            TransportError::SessionExpired { session_id: sid },
        );
        return;
    }
    if status == 202 {
        return;
    }
    if !answered && out.id.is_some() {
        let id = out.id.as_ref().map(|i| i.to_string()).unwrap_or_default();
        let error = if (200..300).contains(&status) && !content_type.contains("json") {
            // A web page or plain text where an MCP answer belongs: almost always the wrong URL
            // or port (a reverse proxy's welcome page, a web app's front end).
            let shown = if content_type.is_empty() {
                "no Content-Type".to_string()
            } else {
                content_type.clone()
            };
            TransportError::Other(format!(
                "POST {url} answered HTTP {status} with {shown}, not JSON or an SSE stream, so request {id} has no answer: is this URL an MCP endpoint?{}",
                body_start(&body)
            ))
        } else if (200..300).contains(&status) {
            TransportError::Other(format!(
                "POST {url} answered HTTP {status} with {content_type} that does not answer request {id}{}",
                body_start(&body)
            ))
        } else {
            TransportError::Status {
                method: "POST".into(),
                url: url.clone(),
                status,
                body: String::from_utf8_lossy(&body[..body.len().min(2000)]).into_owned(),
                content_type: (!content_type.is_empty()).then(|| content_type.clone()),
            }
        };
        inner.fail(out.id.clone(), error);
    } else if !answered && !(200..300).contains(&status) {
        // A notification or response POST was refused: say so, tied to nothing.
        inner.fail(
            None,
            TransportError::Status {
                method: "POST".into(),
                url,
                status,
                body: String::from_utf8_lossy(&body[..body.len().min(2000)]).into_owned(),
                content_type: (!content_type.is_empty()).then_some(content_type),
            },
        );
    }
}

/// How long sending a notification or response waits for the server to take it.
pub(crate) const SETTLE_WAIT: Duration = Duration::from_secs(2);

/// Wait (bounded) for the POST of a notification or response to be answered. POSTs travel on
/// separate connections with no order between them, so without this `notifications/initialized`
/// can reach the server after the request sent next, which a server may refuse (or, as with an
/// expiring session, answer for a session that is already gone). stdio keeps this order by
/// itself. The bound keeps a server that never answers from stalling us; the POST goes on.
pub(crate) async fn settle(task: tokio::task::JoinHandle<()>) {
    let _ = tokio::time::timeout(SETTLE_WAIT, task).await;
}

/// `"; the body starts: …"` with the first line-folded 200 characters of `body`, or nothing.
fn body_start(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(800)]);
    let folded: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.is_empty() {
        return String::new();
    }
    let cut: String = folded.chars().take(200).collect();
    let more = if cut.len() < folded.len() { "…" } else { "" };
    format!("; the body starts: {cut}{more}")
}

/// Record a non-streaming response with its body. When `id` is given and the content type is JSON,
/// the body is marked as carrying a message; returns whether it answers `id`, and the body.
async fn record_response(
    inner: &Inner,
    ex: u64,
    method: &str,
    url: &str,
    resp: reqwest::Response,
    id: Option<RequestId>,
    content_type: Option<&str>,
) -> (bool, Bytes) {
    let meta = response_meta(ex, method, url, &resp);
    let (body, truncated) = read_body(resp, inner.max).await;
    let mut f = Frame::new(Direction::In, FrameKind::HttpResponse, body.clone()).with_meta(meta);
    f.meta.truncated = truncated;
    let is_json = content_type.is_some_and(|c| c.contains("json"));
    let answered = match &id {
        Some(id) if is_json => answers(&body, id),
        _ => false,
    };
    // Any JSON body may hold a message (an error without id, a response on a notification POST).
    f.carries_message = is_json && !body.is_empty() && !truncated;
    inner.frame(f);
    if truncated {
        inner.fail(id, TransportError::TooLarge { limit: inner.max });
        return (true, body);
    }
    (answered, body)
}

async fn read_body(resp: reqwest::Response, max: usize) -> (Bytes, bool) {
    let mut stream = resp.bytes_stream();
    let mut buf = Vec::new();
    while let Some(chunk) = stream.next().await {
        match chunk {
            Ok(c) => {
                if buf.len() + c.len() > max {
                    let room = max - buf.len();
                    buf.extend_from_slice(&c[..room]);
                    return (Bytes::from(buf), true);
                }
                buf.extend_from_slice(&c);
            }
            Err(_) => break,
        }
    }
    (Bytes::from(buf), false)
}

pub(crate) fn response_meta(
    ex: u64,
    method: &str,
    url: &str,
    resp: &reqwest::Response,
) -> FrameMeta {
    FrameMeta {
        exchange: Some(ex),
        method: Some(method.to_string()),
        url: Some(url.to_string()),
        status: Some(resp.status().as_u16()),
        headers: resp
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        ..Default::default()
    }
}

/// Does this JSON body answer request `id`? Reads only the envelope (the rest is skipped, not built).
pub(crate) fn answers(body: &[u8], id: &RequestId) -> bool {
    #[derive(serde::Deserialize)]
    struct Peek {
        id: Option<serde_json::Value>,
        result: Option<serde::de::IgnoredAny>,
        error: Option<serde::de::IgnoredAny>,
    }
    match serde_json::from_slice::<Peek>(body) {
        Ok(p) => {
            (p.result.is_some() || p.error.is_some())
                && p.id.as_ref().and_then(RequestId::from_value).as_ref() == Some(id)
        }
        Err(_) => false,
    }
}

/// What reading an SSE stream ended with.
pub(crate) struct SseOutcome {
    pub(crate) answered: bool,
    pub(crate) last_id: Option<String>,
    pub(crate) retry: Option<u64>,
    pub(crate) ended: String,
}

/// Read an SSE response body, recording each event. Stops at the end of the stream.
pub(crate) async fn read_sse(
    inner: &Inner,
    ex: u64,
    resp: reqwest::Response,
    id: Option<&RequestId>,
) -> SseOutcome {
    let mut parser = SseParser::with_max(inner.max);
    let mut stream = resp.bytes_stream();
    let mut outcome = SseOutcome {
        answered: false,
        last_id: None,
        retry: None,
        ended: "the server ended the stream".into(),
    };
    let handle =
        |ev: SseEvent, note: Option<String>, outcome: &mut SseOutcome, parser_overflow: bool| {
            if let Some(i) = &ev.id {
                outcome.last_id = Some(i.clone());
            }
            if let Some(r) = ev.retry {
                outcome.retry = Some(r);
            }
            let is_message =
                !ev.data.is_empty() && ev.event.as_deref().is_none_or(|e| e == "message");
            if is_message
                && let Some(id) = id
                && answers(ev.data.as_bytes(), id)
            {
                outcome.answered = true;
            }
            let mut f = Frame::new(Direction::In, FrameKind::SseEvent, Bytes::from(ev.data))
                .with_meta(FrameMeta {
                    exchange: Some(ex),
                    sse_id: ev.id,
                    sse_event: ev.event,
                    sse_retry: ev.retry,
                    note,
                    truncated: parser_overflow,
                    ..Default::default()
                });
            f.carries_message = is_message && !parser_overflow;
            inner.frame(f);
        };
    loop {
        match stream.next().await {
            Some(Ok(chunk)) => {
                for ev in parser.feed(&chunk) {
                    let over = std::mem::take(&mut parser.overflow);
                    if !crate::take_credit(&inner.credit).await {
                        return outcome;
                    }
                    handle(ev, None, &mut outcome, over);
                }
            }
            Some(Err(e)) => {
                outcome.ended = format!("the stream broke: {}", error_chain(&e));
                break;
            }
            None => break,
        }
    }
    if let Some(ev) = parser.finish()
        && crate::take_credit(&inner.credit).await
    {
        let over = parser.overflow;
        handle(
            ev,
            Some("event without its closing blank line (stream ended)".into()),
            &mut outcome,
            over,
        );
    }
    inner.note(Some(ex), format!("SSE stream closed: {}", outcome.ended));
    outcome
}

/// A request's stream ended without its answer: resume with `Last-Event-ID` if the server gave
/// event ids (legacy resumability), else report the loss.
async fn resume(inner: &Inner, ex: u64, url: &str, id: &RequestId, mut outcome: SseOutcome) {
    let mut attempts = 0;
    loop {
        let Some(last) = outcome.last_id.clone() else {
            inner.fail(
                Some(id.clone()),
                TransportError::StreamEnded(format!(
                    "the response stream of request {id} ended before its answer ({}); the server sent no event id to resume from",
                    outcome.ended
                )),
            );
            return;
        };
        if attempts >= MAX_RESUMES {
            inner.fail(
                Some(id.clone()),
                TransportError::StreamEnded(format!(
                    "request {id}: no answer after resuming the stream {MAX_RESUMES} times"
                )),
            );
            return;
        }
        attempts += 1;
        let wait = outcome.retry.unwrap_or(DEFAULT_RETRY_MS);
        inner.note(
            Some(ex),
            format!("stream ended before the answer to request {id}; resuming with Last-Event-ID {last} after {wait} ms (retry)"),
        );
        tokio::time::sleep(Duration::from_millis(wait)).await;
        let mut headers = vec![("Accept".to_string(), "text/event-stream".to_string())];
        headers.extend(inner.session_headers());
        headers.push(("Last-Event-ID".to_string(), last.clone()));
        if let Some(a) = inner.authorization().await {
            headers.push(("Authorization".to_string(), a));
        }
        let headers = merge_headers(headers, &inner.headers);
        let rex = inner.next_exchange();
        inner.frame(
            Frame::new(Direction::Out, FrameKind::HttpRequest, Bytes::new()).with_meta(FrameMeta {
                exchange: Some(rex),
                method: Some("GET".into()),
                url: Some(url.to_string()),
                headers: headers.clone(),
                note: Some(format!("resuming the stream of request {id}")),
                ..Default::default()
            }),
        );
        let mut req = inner.client.get(url);
        for (k, v) in &headers {
            req = req.header(k, v);
        }
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) => {
                inner.fail(
                    Some(id.clone()),
                    TransportError::Unreachable {
                        url: url.to_string(),
                        reason: error_chain(&e),
                    },
                );
                return;
            }
        };
        let status = resp.status().as_u16();
        let is_sse = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|c| c.to_ascii_lowercase().starts_with("text/event-stream"));
        if !(200..300).contains(&status) || !is_sse {
            let (_, body) = record_response(inner, rex, "GET", url, resp, None, None).await;
            inner.fail(
                Some(id.clone()),
                TransportError::Status {
                    method: "GET".into(),
                    url: url.to_string(),
                    status,
                    body: String::from_utf8_lossy(&body[..body.len().min(2000)]).into_owned(),
                    content_type: None,
                },
            );
            return;
        }
        let meta = response_meta(rex, "GET", url, &resp);
        inner.frame(
            Frame::new(Direction::In, FrameKind::HttpResponse, Bytes::new()).with_meta(meta),
        );
        let next = read_sse(inner, rex, resp, Some(id)).await;
        if next.answered {
            return;
        }
        outcome = SseOutcome {
            answered: false,
            last_id: next.last_id.or(outcome.last_id),
            retry: next.retry.or(outcome.retry),
            ended: next.ended,
        };
    }
}

/// The standalone GET stream: server-initiated requests and notifications (legacy).
async fn get_stream_loop(inner: &Inner, ready: tokio::sync::oneshot::Sender<()>) {
    // Signalled once the first GET has an answer (any status) or failed: servers that send
    // requests only on this stream drop them until it is open, so the engine waits for it.
    let mut ready = Some(ready);
    let mut last_id: Option<String> = None;
    let mut retry = DEFAULT_RETRY_MS;
    let mut failures = 0;
    // Redirects are followed as for POSTs, each hop a recorded exchange; the stream then stays
    // at the URL they led to.
    let mut url = inner.url.clone();
    let mut hops = 0;
    loop {
        let mut headers = vec![("Accept".to_string(), "text/event-stream".to_string())];
        headers.extend(inner.session_headers());
        if let Some(l) = &last_id {
            headers.push(("Last-Event-ID".to_string(), l.clone()));
        }
        if same_origin(&url, &inner.url)
            && let Some(a) = inner.authorization().await
        {
            headers.push(("Authorization".to_string(), a));
        }
        let headers = merge_headers(headers, &inner.headers);
        let ex = inner.next_exchange();
        inner.frame(
            Frame::new(Direction::Out, FrameKind::HttpRequest, Bytes::new()).with_meta(FrameMeta {
                exchange: Some(ex),
                method: Some("GET".into()),
                url: Some(url.clone()),
                headers: headers.clone(),
                note: Some("standalone stream for server-initiated messages".into()),
                ..Default::default()
            }),
        );
        let mut req = inner.client.get(&url);
        for (k, v) in &headers {
            req = req.header(k, v);
        }
        let sent = req.send().await;
        if let Ok(resp) = &sent
            && resp.status().is_redirection()
            && hops < MAX_REDIRECTS
            && let Some(next) = resp
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .and_then(|loc| url::Url::parse(&url).and_then(|u| u.join(loc)).ok())
        {
            let resp = sent.expect("checked Ok");
            let meta = response_meta(ex, "GET", &url, &resp);
            let body = resp.bytes().await.unwrap_or_default();
            inner.frame(
                Frame::new(Direction::In, FrameKind::HttpResponse, body).with_meta(FrameMeta {
                    note: Some(format!("redirect to {next}: following it")),
                    ..meta
                }),
            );
            hops += 1;
            url = next.to_string();
            continue;
        }
        if let Some(r) = ready.take() {
            let _ = r.send(());
        }
        match sent {
            Ok(resp) => {
                let status = resp.status().as_u16();
                let is_sse = resp
                    .headers()
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .is_some_and(|c| c.to_ascii_lowercase().starts_with("text/event-stream"));
                if status == 405 {
                    record_response(inner, ex, "GET", &url, resp, None, None).await;
                    inner.note(
                        Some(ex),
                        "the server offers no standalone GET stream (405); that is allowed".into(),
                    );
                    return;
                }
                if !(200..300).contains(&status) || !is_sse {
                    record_response(inner, ex, "GET", &url, resp, None, None).await;
                    inner.note(Some(ex), format!("the GET stream was refused (HTTP {status}); server-initiated messages can only arrive on request streams"));
                    return;
                }
                failures = 0;
                let meta = response_meta(ex, "GET", &url, &resp);
                inner.frame(
                    Frame::new(Direction::In, FrameKind::HttpResponse, Bytes::new())
                        .with_meta(meta),
                );
                let outcome = read_sse(inner, ex, resp, None).await;
                if outcome.last_id.is_some() {
                    last_id = outcome.last_id;
                }
                if let Some(r) = outcome.retry {
                    retry = r;
                }
            }
            Err(e) => {
                failures += 1;
                inner.note(Some(ex), format!("GET stream failed: {}", error_chain(&e)));
                if failures >= 3 {
                    return;
                }
            }
        }
        if inner.closed.load(Ordering::SeqCst) {
            return;
        }
        inner.note(None, format!("reconnecting the GET stream in {retry} ms"));
        tokio::time::sleep(Duration::from_millis(retry)).await;
    }
}

/// Same scheme, host and port.
pub(crate) fn same_origin(a: &str, b: &str) -> bool {
    match (url::Url::parse(a), url::Url::parse(b)) {
        (Ok(a), Ok(b)) => a.origin() == b.origin(),
        _ => false,
    }
}

/// An error with its causes, e.g. "error sending request: connection refused".
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let t = c.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        cur = c.source();
    }
    s
}
