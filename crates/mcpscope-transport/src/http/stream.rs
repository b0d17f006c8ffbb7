//! SSE streams of the Streamable HTTP transport: a request's response stream, its resumption
//! with `Last-Event-ID` when it ends before the answer, and the legacy standalone GET stream that
//! carries server-initiated messages. Every event is recorded as a frame; each takes one permit
//! of the connection's read-ahead credit before it is handed on.

use super::redirect::{self, Request, Undelivered};
use super::response::{is_event_stream, record_response, response_meta, status_error};
use super::{Inner, merge_headers, same_origin};
use crate::TransportError;
use crate::error_chain;
use crate::sse::{SseEvent, SseParser};
use bytes::Bytes;
use futures::StreamExt;
use mcpscope_proto::{Direction, Frame, FrameKind, RequestId};
use std::time::Duration;

/// How many times a request stream is resumed with `Last-Event-ID` before giving up.
const MAX_RESUMES: usize = 5;
/// Delay before resuming when the server gave no `retry:`.
const DEFAULT_RETRY_MS: u64 = 1000;
/// Consecutive failures to reach the server after which the standalone GET stream gives up.
const MAX_GET_FAILURES: usize = 3;

/// What reading an SSE stream ended with.
pub(crate) struct SseOutcome {
    pub(crate) answered: bool,
    pub(crate) last_id: Option<String>,
    pub(crate) retry: Option<u64>,
    pub(crate) ended: String,
}

/// Read the response stream of a POST (its head already recorded); when it ends without the
/// answer to request `id`, resume it.
pub(super) async fn read_request_stream(
    inner: &Inner,
    ex: u64,
    resp: reqwest::Response,
    id: Option<&RequestId>,
) {
    let outcome = read_sse(inner, ex, resp, id).await;
    if let Some(id) = id
        && !outcome.answered
    {
        resume(inner, ex, id, outcome).await;
    }
}

/// Read an SSE response body, recording each event. Stops at the end of the stream, or when the
/// read-ahead credit is closed (the connection is gone).
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
    loop {
        match stream.next().await {
            Some(Ok(chunk)) => {
                for ev in parser.feed(&chunk) {
                    let overflow = std::mem::take(&mut parser.overflow);
                    if !crate::take_credit(&inner.credit).await {
                        return outcome;
                    }
                    record_event(inner, ex, ev, None, overflow, id, &mut outcome);
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
        let note = Some("event without its closing blank line (stream ended)".into());
        let overflow = parser.overflow;
        record_event(inner, ex, ev, note, overflow, id, &mut outcome);
    }
    inner.note(Some(ex), format!("SSE stream closed: {}", outcome.ended));
    outcome
}

/// Record one event of exchange `ex`, and note in `outcome` its id, its `retry`, and whether it
/// answers request `id`.
fn record_event(
    inner: &Inner,
    ex: u64,
    ev: SseEvent,
    note: Option<String>,
    overflow: bool,
    id: Option<&RequestId>,
    outcome: &mut SseOutcome,
) {
    if let Some(i) = &ev.id {
        outcome.last_id = Some(i.clone());
    }
    if let Some(r) = ev.retry {
        outcome.retry = Some(r);
    }
    if ev.is_message()
        && let Some(id) = id
        && super::response::answers(ev.data.as_bytes(), id)
    {
        outcome.answered = true;
    }
    inner.frame(ev.into_frame(ex, note, overflow));
}

/// The headers of a GET for an SSE stream at `url`: our `Accept`, the session's, the event to
/// resume after, and `Authorization` only for the server's own origin.
async fn stream_headers(
    inner: &Inner,
    url: &str,
    last_event_id: Option<&str>,
) -> Vec<(String, String)> {
    let mut headers = vec![("Accept".to_string(), "text/event-stream".to_string())];
    headers.extend(inner.session_headers());
    if let Some(l) = last_event_id {
        headers.push(("Last-Event-ID".to_string(), l.to_string()));
    }
    if same_origin(url, &inner.url)
        && let Some(a) = inner.authorization().await
    {
        headers.push(("Authorization".to_string(), a));
    }
    merge_headers(headers, &inner.headers)
}

/// A GET for an SSE stream at `url`, with its note.
async fn stream_request(
    inner: &Inner,
    url: &str,
    last_event_id: Option<&str>,
    note: String,
) -> Request {
    Request {
        method: reqwest::Method::GET,
        url: url.to_string(),
        headers: stream_headers(inner, url, last_event_id).await,
        body: Bytes::new(),
        note: Some(note),
        carries_message: false,
    }
}

/// A request's stream ended without its answer: resume with `Last-Event-ID` if the server gave
/// event ids (legacy resumability), else report the loss. Each resumption is a GET of its own
/// exchange to the MCP endpoint, redirects followed as for the POST (a `307` is temporary: each
/// request starts again at the endpoint).
async fn resume(inner: &Inner, ex: u64, id: &RequestId, mut outcome: SseOutcome) {
    let lost = |why: String| inner.fail(Some(id.clone()), TransportError::StreamEnded(why));
    for attempt in 0.. {
        let Some(last) = outcome.last_id.clone() else {
            return lost(format!(
                "the response stream of request {id} ended before its answer ({}); the server sent no event id to resume from",
                outcome.ended
            ));
        };
        if attempt >= MAX_RESUMES {
            return lost(format!(
                "request {id}: no answer after resuming the stream {MAX_RESUMES} times"
            ));
        }
        let wait = outcome.retry.unwrap_or(DEFAULT_RETRY_MS);
        inner.note(
            Some(ex),
            format!("stream ended before the answer to request {id}; resuming with Last-Event-ID {last} after {wait} ms (retry)"),
        );
        tokio::time::sleep(Duration::from_millis(wait)).await;
        let rex = inner.next_exchange();
        let note = format!("resuming the stream of request {id}");
        let request = stream_request(inner, &inner.url, Some(&last), note).await;
        let Some(resp) = resumed(inner, rex, request, id).await else {
            return;
        };
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

/// Send one resuming GET as exchange `rex`: the stream (its head recorded), or `None` with the
/// failure of request `id` reported.
async fn resumed(
    inner: &Inner,
    rex: u64,
    request: Request,
    id: &RequestId,
) -> Option<reqwest::Response> {
    let delivered = match redirect::send(inner, rex, request).await {
        Ok(d) => d,
        Err(e) => {
            inner.exchange_failed(rex, "GET", &e);
            inner.fail(Some(id.clone()), e.into());
            return None;
        }
    };
    let (resp, url) = (delivered.resp, delivered.url);
    if !is_event_stream(&resp) {
        let status = resp.status().as_u16();
        let (_, body) = record_response(inner, rex, "GET", &url, resp, None, None).await;
        inner.fail(
            Some(id.clone()),
            status_error("GET", &url, status, "", &body),
        );
        return None;
    }
    let meta = response_meta(rex, "GET", &url, &resp);
    inner.frame(Frame::new(Direction::In, FrameKind::HttpResponse, Bytes::new()).with_meta(meta));
    Some(resp)
}

/// What became of one GET of the standalone stream.
enum Standalone {
    /// The stream was read to its end: reconnect.
    Ended(SseOutcome),
    /// The server offers none or refused it: stop.
    Refused,
}

/// The standalone GET stream: server-initiated requests and notifications (legacy). Reconnects
/// after each end, after the server's `retry:` delay, resuming after the last event id; stays at
/// the URL redirects led to; gives up after [`MAX_GET_FAILURES`] failures in a row.
pub(super) async fn get_stream_loop(inner: &Inner, ready: tokio::sync::oneshot::Sender<()>) {
    // Signalled once the first GET has an answer (any status) or failed: servers that send
    // requests only on this stream drop them until it is open, so the engine waits for it.
    let mut ready = Some(ready);
    let mut last_id: Option<String> = None;
    let mut retry = DEFAULT_RETRY_MS;
    let mut failures = 0;
    let mut url = inner.url.clone();
    loop {
        let ex = inner.next_exchange();
        let note = "standalone stream for server-initiated messages".to_string();
        let request = stream_request(inner, &url, last_id.as_deref(), note).await;
        let sent = redirect::send(inner, ex, request).await;
        if let Some(r) = ready.take() {
            let _ = r.send(());
        }
        match sent {
            Ok(delivered) => {
                url = delivered.url.clone();
                match standalone(inner, ex, delivered).await {
                    Standalone::Refused => return,
                    Standalone::Ended(outcome) => {
                        failures = 0;
                        last_id = outcome.last_id.or(last_id);
                        retry = outcome.retry.unwrap_or(retry);
                    }
                }
            }
            Err(e) => {
                failures += 1;
                inner.exchange_failed(ex, "GET", &e);
                if matches!(e, Undelivered::Redirect(_)) || failures >= MAX_GET_FAILURES {
                    return;
                }
            }
        }
        if inner.is_closed() {
            return;
        }
        inner.note(None, format!("reconnecting the GET stream in {retry} ms"));
        tokio::time::sleep(Duration::from_millis(retry)).await;
    }
}

/// Read one answer to the standalone GET: the stream to its end, or the refusal recorded.
async fn standalone(inner: &Inner, ex: u64, delivered: redirect::Delivered) -> Standalone {
    let (resp, url) = (delivered.resp, delivered.url);
    let status = resp.status().as_u16();
    if status == 405 {
        record_response(inner, ex, "GET", &url, resp, None, None).await;
        inner.note(
            Some(ex),
            "the server offers no standalone GET stream (405); that is allowed".into(),
        );
        return Standalone::Refused;
    }
    if !is_event_stream(&resp) {
        record_response(inner, ex, "GET", &url, resp, None, None).await;
        inner.note(Some(ex), format!("the GET stream was refused (HTTP {status}); server-initiated messages can only arrive on request streams"));
        return Standalone::Refused;
    }
    let meta = response_meta(ex, "GET", &url, &resp);
    inner.frame(Frame::new(Direction::In, FrameKind::HttpResponse, Bytes::new()).with_meta(meta));
    Standalone::Ended(read_sse(inner, ex, resp, None).await)
}
