//! Reading and recording an HTTP answer that is not a stream: its head as [`FrameMeta`], its
//! body within `--max-message-bytes`, whether it answers the request that caused it, and the
//! error to report when it does not.

use super::Inner;
use crate::TransportError;
use bytes::Bytes;
use futures::StreamExt;
use mcpscope_proto::{Direction, Frame, FrameKind, FrameMeta, RequestId};

/// The response's `Content-Type`, lowercased (empty when there is none).
pub(crate) fn content_type(resp: &reqwest::Response) -> String {
    resp.headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// True for a `2xx` SSE stream (`text/event-stream`).
pub(crate) fn is_event_stream(resp: &reqwest::Response) -> bool {
    resp.status().is_success() && content_type(resp).starts_with("text/event-stream")
}

/// Record a non-streaming response with its body. When `id` is given and the content type is JSON,
/// the body is marked as carrying a message; returns whether it answers `id`, and the body.
pub(crate) async fn record_response(
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

/// The whole body, or its first `max` bytes and `true` when it is longer.
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

/// The head of `resp` (status and headers in wire order) as frame metadata of exchange `ex`.
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

/// The error for a POST of request `id` whose recorded answer (`status`, `content_type`,
/// `body`) does not answer it.
pub(crate) fn unanswered(
    url: &str,
    id: &RequestId,
    status: u16,
    content_type: &str,
    body: &[u8],
) -> TransportError {
    if (200..300).contains(&status) && !content_type.contains("json") {
        // A web page or plain text where an MCP answer belongs: almost always the wrong URL
        // or port (a reverse proxy's welcome page, a web app's front end).
        let shown = if content_type.is_empty() {
            "no Content-Type"
        } else {
            content_type
        };
        TransportError::Other(format!(
            "POST {url} answered HTTP {status} with {shown}, not JSON or an SSE stream, so request {id} has no answer: is this URL an MCP endpoint?{}",
            body_start(body)
        ))
    } else if (200..300).contains(&status) {
        TransportError::Other(format!(
            "POST {url} answered HTTP {status} with {content_type} that does not answer request {id}{}",
            body_start(body)
        ))
    } else {
        status_error("POST", url, status, content_type, body)
    }
}

/// [`TransportError::Status`] with the start of the body as text.
pub(crate) fn status_error(
    method: &str,
    url: &str,
    status: u16,
    content_type: &str,
    body: &[u8],
) -> TransportError {
    TransportError::Status {
        method: method.into(),
        url: url.to_string(),
        status,
        body: String::from_utf8_lossy(&body[..body.len().min(2000)]).into_owned(),
        content_type: (!content_type.is_empty()).then(|| content_type.to_string()),
    }
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
