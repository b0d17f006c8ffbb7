//! The one sender of the Streamable HTTP transport: every request (POST, the standalone GET
//! stream, a resumption, the closing DELETE) goes out here, and redirects are followed by hand so
//! each hop is a recorded exchange.
//!
//! reqwest's own redirect policy is off ([`crate::clients`]): it would follow hops silently. Here
//! a `3xx` with a `Location` is recorded with a note saying where it leads, and the same request
//! (method, body, headers) is sent there, up to [`MAX_REDIRECTS`] hops. Credentials belong to the
//! origin they were issued for: `Authorization` is dropped on a hop to another origin, as
//! browsers and curl do. All hops of one request share its exchange number.

use super::{Inner, response_meta};
use crate::error_chain;
use bytes::Bytes;
use mcpscope_proto::{Direction, Frame, FrameKind, FrameMeta};

/// Maximum redirect hops followed for one request.
pub(crate) const MAX_REDIRECTS: usize = 5;

/// One request to send.
pub(crate) struct Request {
    pub(crate) method: reqwest::Method,
    pub(crate) url: String,
    pub(crate) headers: Vec<(String, String)>,
    /// Empty for GET and DELETE.
    pub(crate) body: Bytes,
    /// The note on the first request frame (later hops say which redirect they follow).
    pub(crate) note: Option<String>,
    /// Whether the first request frame counts as sending the message in `body` (a POST sent
    /// for the first time); a hop re-sends the same message, so it never does.
    pub(crate) carries_message: bool,
}

/// The answer at the end of the redirects, not yet recorded (the caller records it the way its
/// flow reads it: a JSON body, an SSE stream).
pub(crate) struct Delivered {
    pub(crate) resp: reqwest::Response,
    /// The URL that answered, after redirects.
    pub(crate) url: String,
}

/// Why a request got no answer to hand on. Recorded frames stay as they are; the caller reports
/// the failure (a lifecycle note marked `failed`, tied to the exchange — `Inner::exchange_failed` —
/// and a [`crate::TransportError`] where a request waits).
#[derive(Debug)]
pub(crate) enum Undelivered {
    /// Nothing answered: DNS, TCP, TLS, a reset connection.
    Unreachable { url: String, reason: String },
    /// A redirect that cannot be followed (an invalid `Location`, too many hops); its response
    /// is recorded.
    Redirect(String),
}

impl Undelivered {
    /// The words recording the failure of a `method` request: "POST http://… failed: …".
    pub(crate) fn note(&self, method: &str) -> String {
        match self {
            Undelivered::Unreachable { url, reason } => format!("{method} {url} failed: {reason}"),
            Undelivered::Redirect(why) => format!("{method} failed: {why}"),
        }
    }
}

impl From<Undelivered> for crate::TransportError {
    fn from(u: Undelivered) -> Self {
        match u {
            Undelivered::Unreachable { url, reason } => {
                crate::TransportError::Unreachable { url, reason }
            }
            Undelivered::Redirect(why) => crate::TransportError::Other(why),
        }
    }
}

/// Whether a POST body is an `initialize` request: the one answer a session id comes with
/// (2025-11-25: "at initialization time … on the HTTP response containing the
/// InitializeResult"). Parsed only when an answer carries an id we do not hold yet.
fn is_initialize(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .is_some_and(|m| m.get("method").and_then(serde_json::Value::as_str) == Some("initialize"))
}

/// Send `req` as exchange `ex`, following redirects; each hop's request and redirect response
/// are recorded. A POST's `Mcp-Session-Id` is taken from the answer to `initialize` when it is
/// not an error, a redirect's included (whatever hop gives that answer); an id stamped on the
/// answer to anything else is not adopted (a 2026-07-28 server that mints ids on every answer
/// would otherwise turn its own 404 + -32601 into "session expired"). Not from a 4xx/5xx: the Python SDK's session transport stamps the id of a
/// session it is about to discard on the 400 it answers a `server/discover` probe with, and
/// keeping that id made Auto's fallback `initialize` meet 404 (the gateway stand-in showed it).
pub(crate) async fn send(inner: &Inner, ex: u64, req: Request) -> Result<Delivered, Undelivered> {
    let Request {
        method,
        mut url,
        mut headers,
        body,
        note,
        carries_message,
    } = req;
    let mut hop = 0;
    loop {
        let mut f =
            Frame::new(Direction::Out, FrameKind::HttpRequest, body.clone()).with_meta(FrameMeta {
                exchange: Some(ex),
                method: Some(method.to_string()),
                url: Some(url.clone()),
                headers: headers.clone(),
                note: if hop > 0 {
                    Some(format!("re-sent after redirect {hop}"))
                } else {
                    note.clone()
                },
                ..Default::default()
            });
        f.carries_message = carries_message && hop == 0;
        inner.frame(f);
        let resp = send_one(inner, &method, &url, &headers, &body).await?;
        if method == reqwest::Method::POST
            && resp.status().as_u16() < 400
            && let Some(sid) = resp
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
            && inner.session_id.lock().expect("session lock").as_deref() != Some(sid)
            && is_initialize(&body)
        {
            inner.set_session_id(sid);
        }
        let Some(location) = location(&resp) else {
            return Ok(Delivered { resp, url });
        };
        let next = follow(inner, ex, &method, &url, resp, &location, hop).await?;
        hop += 1;
        let has_authorization = headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("authorization"));
        if has_authorization && !same_origin(&url, &next) {
            headers.retain(|(k, _)| !k.eq_ignore_ascii_case("authorization"));
            inner.note(
                Some(ex),
                format!("{next} is another origin: the Authorization header is not sent there"),
            );
        }
        url = next;
    }
}

/// One hop on the wire.
async fn send_one(
    inner: &Inner,
    method: &reqwest::Method,
    url: &str,
    headers: &[(String, String)],
    body: &Bytes,
) -> Result<reqwest::Response, Undelivered> {
    let unreachable = |reason: String| Undelivered::Unreachable {
        url: url.to_string(),
        reason,
    };
    let client = inner
        .clients
        .for_url(url)
        .map_err(|e| unreachable(e.to_string()))?;
    let mut rb = client.request(method.clone(), url);
    if !body.is_empty() {
        rb = rb.body(body.clone());
    }
    for (k, v) in headers {
        rb = rb.header(k, v);
    }
    rb.send().await.map_err(|e| unreachable(error_chain(&e)))
}

/// The `Location` of a redirect answer; `None` for any other answer (a `3xx` without one is an
/// answer like any other).
fn location(resp: &reqwest::Response) -> Option<String> {
    if !resp.status().is_redirection() {
        return None;
    }
    resp.headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// Record the redirect `resp` (hop `hop` of exchange `ex`) and return the URL it leads to, or
/// why it is not followed.
async fn follow(
    inner: &Inner,
    ex: u64,
    method: &reqwest::Method,
    url: &str,
    resp: reqwest::Response,
    location: &str,
    hop: usize,
) -> Result<String, Undelivered> {
    let meta = response_meta(ex, method.as_str(), url, &resp);
    let next = url::Url::parse(url).and_then(|u| u.join(location));
    let body = resp.bytes().await.unwrap_or_default();
    let (note, outcome) = match next {
        Err(e) => {
            let why = format!("redirect to an invalid Location {location:?}: {e}");
            (why.clone(), Err(Undelivered::Redirect(why)))
        }
        Ok(next) if hop >= MAX_REDIRECTS => (
            format!("redirect to {next}: not followed, {MAX_REDIRECTS} hops already"),
            Err(Undelivered::Redirect(format!(
                "too many redirects (more than {MAX_REDIRECTS}) from {}",
                inner.url
            ))),
        ),
        Ok(next) => (
            format!("redirect to {next}: following it (re-sending the same {method})"),
            Ok(next.to_string()),
        ),
    };
    inner.frame(
        Frame::new(Direction::In, FrameKind::HttpResponse, body).with_meta(FrameMeta {
            note: Some(note),
            ..meta
        }),
    );
    outcome
}

/// Same scheme, host and port.
pub(crate) fn same_origin(a: &str, b: &str) -> bool {
    match (url::Url::parse(a), url::Url::parse(b)) {
        (Ok(a), Ok(b)) => a.origin() == b.origin(),
        _ => false,
    }
}
