//! Streamable HTTP transport, both eras: the connection and its lifecycle.
//!
//! Each message is one POST with `Accept: application/json, text/event-stream` ([`post`]). The
//! answer may be a JSON body ([`response`]), an SSE stream scoped to the request (progress, logs,
//! legacy server requests, then the response), or `202 Accepted`. Legacy sessions: the
//! `Mcp-Session-Id` the server issues is sent on every later request, a `404` to it is reported
//! as [`TransportError::SessionExpired`] so the engine can re-initialize, the standalone GET
//! stream carries unsolicited messages, a stream that ends before its answer is resumed with
//! `Last-Event-ID` after the server's `retry:` delay ([`stream`]), and the session is ended with
//! `DELETE` (here). Modern: no session, the engine supplies the `Mcp-*` headers, and closing the
//! response stream is the cancellation. Every request — POST, GET stream, resumption, DELETE —
//! goes through the one sender of [`redirect`], which follows redirects by hand so every hop is a
//! recorded exchange.

mod post;
mod redirect;
mod response;
mod stream;

pub(crate) use redirect::same_origin;
pub(crate) use response::response_meta;

use crate::auth::{AuthProvider, FrameSink};
use crate::clients::HttpClients;
use crate::{EventTx, Exchanges, Outgoing, TransportError, TransportEvent, TransportOptions};
use bytes::Bytes;
use mcpscope_proto::{Direction, Frame, FrameKind, FrameMeta, RequestId};
use redirect::{Request, Undelivered};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::task::AbortHandle;

/// How long the closing `DELETE` (with its redirects) may take before the connection is closed
/// without its answer.
const DELETE_WAIT: Duration = Duration::from_secs(3);

/// A Streamable HTTP connection.
pub struct HttpTransport {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) clients: HttpClients,
    pub(crate) url: String,
    pub(crate) headers: Vec<(String, String)>,
    session_id: Mutex<Option<String>>,
    protocol_version: Mutex<Option<String>>,
    pub(crate) exchanges: Exchanges,
    pub(crate) events: EventTx,
    streams: Mutex<HashMap<RequestId, AbortHandle>>,
    get_stream: Mutex<Option<AbortHandle>>,
    /// False when the standalone GET stream is not wanted (a one-shot): see
    /// [`TransportOptions::standalone_stream`].
    standalone_stream: bool,
    pub(crate) max: usize,
    closed: AtomicBool,
    /// `None` when there is no provider or the user set `Authorization` with `--header`.
    pub(crate) auth: Option<Arc<dyn AuthProvider>>,
    /// Read-ahead credit shared by every SSE stream of the connection (one per event).
    pub(crate) credit: Arc<tokio::sync::Semaphore>,
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
                clients: HttpClients::new(opts.connect_timeout),
                url: url.to_string(),
                headers: headers.to_vec(),
                session_id: Mutex::new(None),
                protocol_version: Mutex::new(None),
                exchanges: opts.exchanges.clone(),
                events,
                streams: Mutex::new(HashMap::new()),
                get_stream: Mutex::new(None),
                standalone_stream: opts.standalone_stream,
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
            post::post(&inner, out).await;
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

    /// Open the standalone GET stream; the receiver fires once the server has answered it. When
    /// the stream is not wanted ([`TransportOptions::standalone_stream`]), a note says so and the
    /// receiver fires at once.
    pub(crate) fn open_get_stream(&self) -> tokio::sync::oneshot::Receiver<()> {
        let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
        if !self.inner.standalone_stream {
            self.inner.note(
                None,
                "standalone GET stream not opened: this connection only awaits the answers to its own requests".into(),
            );
            let _ = ready_tx.send(());
            return ready_rx;
        }
        let inner = self.inner.clone();
        let task = tokio::spawn(async move { stream::get_stream_loop(&inner, ready_tx).await });
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
        if let Some(sid) = self.session_id() {
            self.end_session(sid).await;
        }
        let _ = self.inner.events.send(TransportEvent::Closed {
            reason: "connection closed by the client".into(),
        });
    }

    /// `DELETE` the legacy session (following redirects like every request), bounded by
    /// [`DELETE_WAIT`] so a silent server cannot hold the close up.
    async fn end_session(&self, sid: String) {
        let inner = &self.inner;
        let ex = inner.exchanges.next();
        let mut headers = vec![("Mcp-Session-Id".to_string(), sid)];
        if let Some(v) = inner.protocol_version.lock().expect("version lock").clone() {
            headers.push(("MCP-Protocol-Version".to_string(), v));
        }
        if let Some(a) = inner.authorization().await {
            headers.push(("Authorization".to_string(), a));
        }
        headers.extend(inner.headers.iter().cloned());
        let request = Request {
            method: reqwest::Method::DELETE,
            url: inner.url.clone(),
            headers,
            body: Bytes::new(),
            note: Some("ending the session".into()),
            carries_message: false,
        };
        let sent = tokio::time::timeout(DELETE_WAIT, async {
            let delivered = redirect::send(inner, ex, request).await?;
            let meta = response_meta(ex, "DELETE", &delivered.url, &delivered.resp);
            let body = delivered.resp.bytes().await.unwrap_or_default();
            inner.frame(Frame::new(Direction::In, FrameKind::HttpResponse, body).with_meta(meta));
            Ok::<(), Undelivered>(())
        })
        .await;
        match sent {
            Ok(Ok(())) => {}
            Ok(Err(e)) => inner.exchange_failed(ex, "DELETE", &e),
            Err(_) => inner.note(
                Some(ex),
                format!("DELETE got no answer within {} s", DELETE_WAIT.as_secs()),
            ),
        }
    }
}

impl Inner {
    pub(crate) fn next_exchange(&self) -> u64 {
        self.exchanges.next()
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

    /// Record that exchange `ex` (a `method` request) ended without an answer: a lifecycle note
    /// marked `failed`, which is how a view tells a failed exchange from one still waiting.
    pub(crate) fn exchange_failed(&self, ex: u64, method: &str, why: &Undelivered) {
        self.frame(
            Frame::new(Direction::Local, FrameKind::Lifecycle, Bytes::new()).with_meta(FrameMeta {
                exchange: Some(ex),
                note: Some(why.note(method)),
                failed: true,
                ..Default::default()
            }),
        );
    }

    pub(crate) fn fail(&self, id: Option<RequestId>, error: TransportError) {
        let _ = self.events.send(TransportEvent::Failed { id, error });
    }

    /// `Mcp-Session-Id` and `MCP-Protocol-Version` of the legacy session, when there is one.
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

    /// Remember the session id a server issued (on the answer to `initialize`).
    fn set_session_id(&self, sid: &str) {
        *self.session_id.lock().expect("session lock") = Some(sid.to_string());
    }

    /// Forget the session id after the server said it no longer knows it; returns it.
    fn take_session_id(&self) -> Option<String> {
        self.session_id.lock().expect("session lock").take()
    }

    fn has_session(&self) -> bool {
        self.session_id.lock().expect("session lock").is_some()
    }

    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
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

// The Streamable HTTP transport records the provider's exchanges in its own event stream, with
// exchange numbers from its own counter.
impl FrameSink for Inner {
    fn next_exchange(&self) -> u64 {
        Inner::next_exchange(self)
    }

    fn frame(&self, frame: Frame) {
        Inner::frame(self, frame)
    }
}

impl Inner {
    /// The `Authorization` header the provider wants on the next request, if any.
    pub(crate) async fn authorization(&self) -> Option<String> {
        match &self.auth {
            Some(p) => p.authorization(self).await,
            None => None,
        }
    }
}
