//! The deprecated HTTP+SSE transport (protocol 2024-11-05), still served by many servers.
//!
//! The client GETs the SSE endpoint and waits for an `endpoint` event whose data is the URL to
//! POST messages to; every server message then arrives as an SSE event on that one stream. The
//! endpoint must have the same origin as the SSE URL — a server cannot redirect our messages to
//! another host.

use crate::auth::{AuthChallenge, AuthProvider, FrameSink, user_sets_authorization};
use crate::error_chain;
use crate::http::response_meta;
use crate::sse::SseParser;
use crate::{EventTx, Exchanges, Outgoing, TransportError, TransportEvent, TransportOptions};
use bytes::Bytes;
use futures::StreamExt;
use mcpscope_proto::{Direction, Frame, FrameKind, FrameMeta};
use std::sync::Arc;
use tokio::sync::oneshot;
use tokio::task::AbortHandle;

/// How many times the GET or one POST is re-sent after the auth provider answered a challenge.
const MAX_AUTH_ROUNDS: usize = 4;

/// A legacy HTTP+SSE connection.
pub struct SseTransport {
    client: reqwest::Client,
    endpoint: String,
    headers: Vec<(String, String)>,
    events: EventTx,
    exchange: Exchanges,
    stream: AbortHandle,
    /// `None` when there is no provider or the user set `Authorization` with `--header`.
    auth: Option<Arc<dyn AuthProvider>>,
    /// Read-ahead credit of the event stream reader (one per event).
    credit: Arc<tokio::sync::Semaphore>,
}

/// Records the auth provider's exchanges in this connection's event stream.
#[derive(Clone)]
struct SseSink {
    events: EventTx,
    exchange: Exchanges,
}

impl FrameSink for SseSink {
    fn next_exchange(&self) -> u64 {
        self.exchange.next()
    }

    fn frame(&self, frame: Frame) {
        let _ = self.events.send(TransportEvent::Frame(frame));
    }
}

/// The `401`/`403` challenge in `resp`, if it is one (a `403` without `WWW-Authenticate` is a
/// plain refusal).
fn challenge_of(
    resp: &reqwest::Response,
    url: &str,
    sent: Option<String>,
) -> Option<AuthChallenge> {
    let status = resp.status().as_u16();
    let www_authenticate = resp
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    ((status == 401) || (status == 403 && www_authenticate.is_some())).then(|| AuthChallenge {
        url: url.to_string(),
        status,
        www_authenticate,
        sent_authorization: sent,
    })
}

fn auth_failed(c: &AuthChallenge, reason: String) -> TransportError {
    TransportError::AuthFailed {
        url: c.url.clone(),
        status: c.status,
        challenge: c.www_authenticate.clone(),
        reason,
    }
}

impl SseTransport {
    /// Open the event stream (answering auth challenges), then wait for its `endpoint` event.
    pub(crate) async fn connect(
        url: &str,
        headers: &[(String, String)],
        opts: &TransportOptions,
        events: EventTx,
    ) -> Result<SseTransport, TransportError> {
        let base = url::Url::parse(url)
            .map_err(|e| TransportError::Other(format!("invalid URL {url:?}: {e}")))?;
        // The endpoint shares the stream's origin, so one client serves both.
        let client = crate::HttpClients::new(opts.connect_timeout).for_url(url)?;
        let auth = opts
            .auth
            .clone()
            .filter(|_| !user_sets_authorization(headers));
        let sink = SseSink {
            events: events.clone(),
            exchange: opts.exchanges.clone(),
        };
        let (resp, ex) = open_stream(&client, &sink, url, headers, auth.as_ref()).await?;
        let resp = accept_stream(&sink, ex, url, resp).await?;
        let (endpoint_tx, endpoint_rx) = oneshot::channel();
        let credit = crate::read_ahead_credit();
        let reader = Reader {
            ex,
            base,
            max: opts.max_message_bytes,
            credit: credit.clone(),
            events: events.clone(),
        };
        let task = tokio::spawn(reader.run(resp, endpoint_tx));
        let endpoint = match endpoint_rx.await {
            Ok(Ok(e)) => e,
            Ok(Err(e)) => {
                task.abort();
                return Err(e);
            }
            Err(_) => {
                task.abort();
                return Err(TransportError::StreamEnded(
                    "the event stream ended before the endpoint event".into(),
                ));
            }
        };
        Ok(SseTransport {
            client,
            endpoint,
            headers: headers.to_vec(),
            events,
            exchange: opts.exchanges.clone(),
            stream: task.abort_handle(),
            auth,
            credit,
        })
    }

    /// The read-ahead credit of the event stream reader.
    pub(crate) fn credit(&self) -> Arc<tokio::sync::Semaphore> {
        self.credit.clone()
    }

    pub(crate) async fn send(&self, out: Outgoing) -> Result<(), TransportError> {
        let client = self.client.clone();
        let user_headers = self.headers.clone();
        let events = self.events.clone();
        let endpoint = self.endpoint.clone();
        let auth = self.auth.clone();
        let sink = SseSink {
            events: self.events.clone(),
            exchange: self.exchange.clone(),
        };
        let is_request = out.id.is_some();
        let task = tokio::spawn(async move {
            let mut round = 0;
            loop {
                let sent = match &auth {
                    Some(p) => p.authorization(&sink).await,
                    None => None,
                };
                let Some(challenge) = post_once(
                    &client,
                    &sink,
                    &endpoint,
                    &user_headers,
                    &out,
                    (auth.as_ref(), sent),
                    round,
                )
                .await
                else {
                    return;
                };
                let Some(p) = &auth else {
                    let _ = events.send(TransportEvent::Failed {
                        id: out.id.clone(),
                        error: TransportError::AuthRequired {
                            url: challenge.url,
                            status: challenge.status,
                            challenge: challenge.www_authenticate,
                        },
                    });
                    return;
                };
                let result = if round >= MAX_AUTH_ROUNDS {
                    Err(format!(
                        "the server still refused the request after {MAX_AUTH_ROUNDS} new authorizations"
                    ))
                } else {
                    p.on_challenge(challenge.clone(), &sink).await
                };
                if let Err(reason) = result {
                    let _ = events.send(TransportEvent::Failed {
                        id: out.id.clone(),
                        error: auth_failed(&challenge, reason),
                    });
                    return;
                }
                round += 1;
            }
        });
        // Requests are answered on the stream; a notification must have reached the server
        // before whatever we send next (see `http::settle`).
        if !is_request {
            crate::http::settle(task).await;
        }
        Ok(())
    }

    pub(crate) fn close(&self) {
        self.stream.abort();
        let _ = self.events.send(TransportEvent::Closed {
            reason: "connection closed by the client".into(),
        });
    }
}

/// GET the event stream, once more each time the auth provider answers a challenge. Returns
/// the answer (not yet recorded) and its exchange number.
async fn open_stream(
    client: &reqwest::Client,
    sink: &SseSink,
    url: &str,
    headers: &[(String, String)],
    auth: Option<&Arc<dyn AuthProvider>>,
) -> Result<(reqwest::Response, u64), TransportError> {
    let mut round = 0;
    loop {
        let ex = sink.next_exchange();
        let mut ours = vec![("Accept".to_string(), "text/event-stream".to_string())];
        let sent = match auth {
            Some(p) => p.authorization(sink).await,
            None => None,
        };
        if let Some(a) = &sent {
            ours.push(("Authorization".to_string(), a.clone()));
        }
        let req_headers = crate::http::merge_headers(ours, headers);
        sink.frame(
            Frame::new(Direction::Out, FrameKind::HttpRequest, Bytes::new()).with_meta(FrameMeta {
                exchange: Some(ex),
                method: Some("GET".into()),
                url: Some(url.to_string()),
                headers: req_headers.clone(),
                note: Some(
                    "HTTP+SSE: opening the event stream, waiting for the endpoint event".into(),
                ),
                ..Default::default()
            }),
        );
        let mut req = client.get(url);
        for (k, v) in &req_headers {
            req = req.header(k, v);
        }
        let resp = req.send().await.map_err(|e| TransportError::Unreachable {
            url: url.to_string(),
            reason: error_chain(&e),
        })?;
        let Some(challenge) = challenge_of(&resp, url, sent.clone()) else {
            if resp.status().is_success()
                && let (Some(p), Some(a)) = (auth, &sent)
            {
                p.on_success(a);
            }
            return Ok((resp, ex));
        };
        let meta = response_meta(ex, "GET", url, &resp);
        let body = resp.bytes().await.unwrap_or_default();
        sink.frame(Frame::new(Direction::In, FrameKind::HttpResponse, body).with_meta(meta));
        let Some(p) = auth else {
            return Err(TransportError::AuthRequired {
                url: url.to_string(),
                status: challenge.status,
                challenge: challenge.www_authenticate,
            });
        };
        if round >= MAX_AUTH_ROUNDS {
            return Err(auth_failed(
                &challenge,
                format!(
                    "the server still refused the stream after {MAX_AUTH_ROUNDS} new authorizations"
                ),
            ));
        }
        p.on_challenge(challenge.clone(), sink)
            .await
            .map_err(|reason| auth_failed(&challenge, reason))?;
        round += 1;
    }
}

/// Record the head of the stream's answer; anything but a `2xx` event stream is refused with
/// its body recorded.
async fn accept_stream(
    sink: &SseSink,
    ex: u64,
    url: &str,
    resp: reqwest::Response,
) -> Result<reqwest::Response, TransportError> {
    let status = resp.status().as_u16();
    let meta = response_meta(ex, "GET", url, &resp);
    let ctype = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if !(200..300).contains(&status) || !ctype.starts_with("text/event-stream") {
        let body = resp.bytes().await.unwrap_or_default();
        let text = String::from_utf8_lossy(&body[..body.len().min(2000)]).into_owned();
        sink.frame(Frame::new(Direction::In, FrameKind::HttpResponse, body).with_meta(meta));
        return Err(TransportError::Status {
            method: "GET".into(),
            url: url.to_string(),
            status,
            body: text,
            content_type: (!ctype.is_empty()).then_some(ctype),
        });
    }
    sink.frame(Frame::new(Direction::In, FrameKind::HttpResponse, Bytes::new()).with_meta(meta));
    Ok(resp)
}

/// The reader of the one event stream: every server message arrives here.
struct Reader {
    ex: u64,
    /// The SSE URL, which the `endpoint` event is resolved against.
    base: url::Url,
    max: usize,
    credit: Arc<tokio::sync::Semaphore>,
    events: EventTx,
}

/// Where the endpoint (or why there is none) goes, once.
type EndpointTx = oneshot::Sender<Result<String, TransportError>>;

impl Reader {
    /// Read to the end of the stream, recording each event; the first `endpoint` event goes to
    /// `endpoint`. The end of the stream is the end of the connection.
    async fn run(self, resp: reqwest::Response, endpoint: EndpointTx) {
        let mut endpoint = Some(endpoint);
        let mut parser = SseParser::with_max(self.max);
        let mut stream = resp.bytes_stream();
        let mut ended = "the server ended the event stream".to_string();
        loop {
            let chunk = match stream.next().await {
                Some(Ok(c)) => c,
                Some(Err(e)) => {
                    ended = format!("the event stream broke: {}", error_chain(&e));
                    break;
                }
                None => break,
            };
            for ev in parser.feed(&chunk) {
                let overflow = std::mem::take(&mut parser.overflow);
                if !crate::take_credit(&self.credit).await {
                    return;
                }
                self.event(ev, overflow, &mut endpoint);
            }
        }
        if let Some(tx) = endpoint.take() {
            let _ = tx.send(Err(TransportError::StreamEnded(format!(
                "{ended} before sending the endpoint event: is this an HTTP+SSE server?"
            ))));
        }
        let _ = self.events.send(TransportEvent::Frame(
            Frame::new(Direction::Local, FrameKind::Lifecycle, Bytes::new())
                .with_note(ended.clone()),
        ));
        let _ = self.events.send(TransportEvent::Closed { reason: ended });
    }

    /// Record one event; an `endpoint` event is resolved and, the first time, handed on.
    fn event(&self, ev: crate::sse::SseEvent, overflow: bool, endpoint: &mut Option<EndpointTx>) {
        let is_endpoint = ev.event.as_deref() == Some("endpoint");
        let mut note = None;
        if is_endpoint {
            let resolved = resolve_endpoint(&self.base, ev.data.trim());
            note = Some(match &resolved {
                Ok(u) => format!("endpoint: POST messages to {u}"),
                Err(e) => e.to_string(),
            });
            if let Some(tx) = endpoint.take() {
                let _ = tx.send(resolved);
            }
        }
        let frame = ev.into_frame(self.ex, note, overflow);
        let _ = self.events.send(TransportEvent::Frame(frame));
    }
}

/// One POST of `out` to the endpoint. Returns the challenge when the answer is one an auth
/// provider can take up (`auth` is set); every other outcome is reported here.
async fn post_once(
    client: &reqwest::Client,
    sink: &SseSink,
    endpoint: &str,
    user_headers: &[(String, String)],
    out: &Outgoing,
    (auth, sent): (Option<&Arc<dyn AuthProvider>>, Option<String>),
    round: usize,
) -> Option<AuthChallenge> {
    let ex = sink.next_exchange();
    let mut ours = vec![("Content-Type".to_string(), "application/json".to_string())];
    if let Some(a) = &sent {
        ours.push(("Authorization".to_string(), a.clone()));
    }
    let headers = crate::http::merge_headers(ours, user_headers);
    let mut f =
        Frame::new(Direction::Out, FrameKind::HttpRequest, out.body.clone()).with_meta(FrameMeta {
            exchange: Some(ex),
            method: Some("POST".into()),
            url: Some(endpoint.to_string()),
            headers: headers.clone(),
            note: (round > 0).then(|| format!("re-sent with new authorization ({round})")),
            ..Default::default()
        });
    // A re-sent message is the same message: only the first frame counts as sending it.
    f.carries_message = round == 0;
    sink.frame(f);
    let mut req = client.post(endpoint).body(out.body.clone());
    for (k, v) in &headers {
        req = req.header(k, v);
    }
    let fail = |error: TransportError| {
        let _ = sink.events.send(TransportEvent::Failed {
            id: out.id.clone(),
            error,
        });
    };
    let resp = match req.send().await {
        Ok(r) => r,
        Err(e) => {
            fail(TransportError::Unreachable {
                url: endpoint.to_string(),
                reason: error_chain(&e),
            });
            return None;
        }
    };
    let status = resp.status().as_u16();
    let challenge = challenge_of(&resp, endpoint, sent.clone());
    let meta = response_meta(ex, "POST", endpoint, &resp);
    let is_json = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.contains("json"));
    let body = resp.bytes().await.unwrap_or_default();
    let text = String::from_utf8_lossy(&body[..body.len().min(2000)]).into_owned();
    let mut f = Frame::new(Direction::In, FrameKind::HttpResponse, body.clone()).with_meta(meta);
    // Some servers answer on the POST itself rather than on the stream.
    f.carries_message = is_json && !body.is_empty() && challenge.is_none();
    sink.frame(f);
    if let Some(c) = challenge {
        return Some(c);
    }
    if (200..300).contains(&status)
        && let (Some(p), Some(a)) = (auth, &sent)
    {
        p.on_success(a);
    }
    if !(200..300).contains(&status) {
        fail(TransportError::Status {
            method: "POST".into(),
            url: endpoint.to_string(),
            status,
            body: text,
            content_type: None,
        });
    }
    None
}

/// Resolve the `endpoint` event's data against the SSE URL and refuse another origin.
fn resolve_endpoint(base: &url::Url, data: &str) -> Result<String, TransportError> {
    let u = base.join(data).map_err(|e| {
        TransportError::Other(format!("endpoint event {data:?} is not a valid URL: {e}"))
    })?;
    if u.origin() != base.origin() {
        return Err(TransportError::Other(format!(
            "endpoint event points to {}, a different origin from {}: refusing to send messages there",
            u.origin().ascii_serialization(),
            base.origin().ascii_serialization()
        )));
    }
    Ok(u.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_must_share_the_origin() {
        let base = url::Url::parse("http://127.0.0.1:3000/sse").unwrap();
        assert_eq!(
            resolve_endpoint(&base, "/message?sessionId=1").unwrap(),
            "http://127.0.0.1:3000/message?sessionId=1"
        );
        assert!(resolve_endpoint(&base, "http://evil.example/x").is_err());
        assert!(resolve_endpoint(&base, "http://127.0.0.1:3001/x").is_err());
    }
}
