//! What arrives: the engine task records every transport event (numbered, parsed, shown to the
//! observer before anything acts on it), then dispatches it — responses resolve the request
//! waiting for them, notifications become events, server→client requests go to the
//! `Responder` and their answers back on the wire, failures and the end of the connection fail
//! what was waiting.

use super::{Outcome, Pending, STDERR_TAIL, Session};
use crate::error::ClientError;
use crate::events::{Recorded, SessionEvent};
use crate::responder::{RequestOrigin, ServerRequest};
use bytes::Bytes;
use mcpscope_proto::era::{self, Era, ProbeVerdict};
use mcpscope_proto::method::Method;
use mcpscope_proto::{Classified, Direction, Frame, FrameKind, RequestId};
use mcpscope_transport::{Outgoing, TransportError, TransportEvent};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::Ordering;

impl Session {
    pub(super) fn spawn_engine(
        &self,
        mut events: mcpscope_transport::Events,
        generation: u64,
        credit: Arc<tokio::sync::Semaphore>,
    ) {
        let this = self.clone();
        tokio::spawn(async move {
            while let Some(ev) = events.recv().await {
                // A stdout line or SSE event handled gives its read-ahead credit back.
                let credited = matches!(&ev, TransportEvent::Frame(f) if mcpscope_transport::takes_read_credit(f.kind));
                if this.state().generation != generation {
                    // An abandoned connection (probe process, refused transport): record, don't act.
                    if let TransportEvent::Frame(f) = ev {
                        this.record(f, false);
                    }
                } else {
                    match ev {
                        TransportEvent::Frame(f) => this.record(f, true),
                        TransportEvent::Failed { id, error } => this.on_failed(id, error),
                        TransportEvent::Closed { reason } => this.on_closed(reason),
                    }
                }
                if let Some(wait) = this.shared.observer.ready() {
                    wait.await;
                }
                if credited {
                    credit.add_permits(1);
                }
            }
        });
    }

    /// Number the frame, parse it if it carries a message, show it to the observer, then act.
    fn record(&self, mut frame: Frame, act: bool) {
        frame.seq = self.shared.seq.fetch_add(1, Ordering::SeqCst) + 1;
        self.state().last_frame = std::time::Instant::now();
        let (message, classified) = if frame.carries_message {
            let (m, c) = mcpscope_proto::parse_and_classify(&frame.body);
            (m.map(Arc::new), Some(c))
        } else {
            (None, None)
        };
        let method = self.method_of(&frame, classified.as_ref());
        let version = {
            let st = self.state();
            st.version.clone().or_else(|| match st.era {
                Era::Modern => Some(era::MODERN_VERSION.to_string()),
                Era::Legacy => None,
            })
        };
        self.shared.observer.on_frame(&Recorded {
            frame: &frame,
            message: message.as_ref(),
            classified: classified.as_ref(),
            method: method.as_deref(),
            protocol_version: version.as_deref(),
        });
        if frame.kind == FrameKind::StderrLine {
            self.keep_stderr(&frame);
            return;
        }
        if !act {
            return;
        }
        if frame.direction == Direction::In && frame.meta.truncated {
            self.note_cut_message(&frame);
        }
        let Some(classified) = classified else { return };
        match frame.direction {
            Direction::Out => {
                if let Classified::Response { id }
                | Classified::ErrorResponse { id: Some(id), .. } = &classified
                {
                    self.state().server_requests.remove(id);
                }
            }
            Direction::In => {
                if frame.kind == FrameKind::StdoutLine {
                    if frame.body.ends_with(b"\r") {
                        self.warn(
                            "stdout line ends with CR LF; MCP stdio messages end with LF only (accepted)",
                            Some(frame.seq),
                        );
                    }
                    if let Some(note) = &frame.meta.note {
                        self.warn(format!("stdout: {note}"), Some(frame.seq));
                    }
                }
                self.dispatch(&frame, message, classified);
            }
            Direction::Local => {}
        }
    }

    /// The method a frame is about: its own for a request or notification; for a response,
    /// that of the request it answers (ours for an incoming one, the server's for our answer).
    fn method_of(&self, frame: &Frame, classified: Option<&Classified>) -> Option<String> {
        match classified? {
            Classified::Request { method, .. } | Classified::Notification { method } => {
                Some(method.clone())
            }
            Classified::Response { id } | Classified::ErrorResponse { id: Some(id), .. } => {
                let st = self.state();
                match frame.direction {
                    Direction::In => st.pending.get(id).map(|p| p.method.clone()),
                    _ => st.server_requests.get(id).cloned(),
                }
            }
            _ => None,
        }
    }

    /// Keep a stderr line for error messages, and say when the frame kept only its head.
    fn keep_stderr(&self, frame: &Frame) {
        {
            let mut st = self.state();
            if st.stderr_tail.len() == STDERR_TAIL {
                st.stderr_tail.pop_front();
            }
            st.stderr_tail.push_back(
                String::from_utf8_lossy(&frame.body)
                    .chars()
                    .take(300)
                    .collect(),
            );
        }
        // The frame keeps only the head of the line: say so, or the rest vanishes unseen.
        if frame.meta.truncated {
            let note = frame
                .meta
                .note
                .as_deref()
                .unwrap_or("stderr line cut short");
            self.warn(
                format!("server {note} (over --max-message-bytes; the trace keeps its head)"),
                Some(frame.seq),
            );
        }
    }

    /// A message cut short cannot be parsed, so it is never classified: say so, or it passes
    /// without a word, and remember it for the timeout message of the request it may have
    /// answered. The trace keeps its head.
    fn note_cut_message(&self, frame: &Frame) {
        let note = frame
            .meta
            .note
            .clone()
            .unwrap_or_else(|| "a message was cut short".into());
        let what = match frame.kind {
            FrameKind::StdoutLine => "stdout",
            FrameKind::SseEvent => "SSE event",
            _ => "HTTP body",
        };
        self.warn(format!("{what}: {note}"), Some(frame.seq));
        self.state().discarded = Some(note);
    }

    /// An answer that does not parse (nested too deep, not UTF-8) still names its request: that
    /// request fails now, saying why and which frame, instead of timing out "without an answer".
    fn fail_unreadable_answer(&self, frame: &Frame, reason: &str) {
        let Some(id) = mcpscope_proto::salvage_id(&frame.body) else {
            return;
        };
        let Some(method) = self.state().pending.get(&id).map(|p| p.method.clone()) else {
            return;
        };
        let why = format!(
            "{method} (request {id}): the server's answer is not a JSON-RPC message ({reason}); it is frame {} in Traffic, as it arrived",
            frame.seq
        );
        self.resolve(&id, Outcome::Failed(ClientError::Protocol(why)), frame.seq);
    }

    fn dispatch(&self, frame: &Frame, message: Option<Arc<Value>>, classified: Classified) {
        let where_ = match frame.kind {
            FrameKind::StdoutLine => "stdout line",
            FrameKind::SseEvent => "SSE event",
            _ => "HTTP body",
        };
        match classified {
            Classified::Invalid(reason) => {
                if frame.meta.truncated {
                    return;
                }
                let hint = if frame.kind == FrameKind::StdoutLine {
                    " (stdout must carry only MCP messages; logs belong on stderr)"
                } else {
                    ""
                };
                self.warn(
                    format!("{where_} is not a JSON-RPC message: {reason}{hint}"),
                    Some(frame.seq),
                );
                self.fail_unreadable_answer(frame, &reason);
            }
            Classified::Batch(n) => {
                self.warn(
                    format!("{where_} is a JSON-RPC batch of {n} messages; MCP forbids batching (processing each)"),
                    Some(frame.seq),
                );
                if let Some(Value::Array(items)) = message.as_deref() {
                    for item in items {
                        let c = mcpscope_proto::classify(item);
                        self.dispatch(frame, Some(Arc::new(item.clone())), c);
                    }
                }
            }
            Classified::Response { id } => {
                let Some(message) = message else { return };
                let result = take_member(message, "result").unwrap_or(Value::Null);
                self.resolve(&id, Outcome::Result(result), frame.seq);
            }
            Classified::ErrorResponse {
                id: Some(id),
                error,
            } => self.resolve(&id, Outcome::Error(error), frame.seq),
            // An HTTP 4xx/5xx body is the answer of its exchange: the request it answers fails
            // with its status and this body already (an Auto probe's fallback says why), so a
            // missing id there is no news (TypeScript SDK v1's session check answers so).
            Classified::ErrorResponse { id: None, .. }
                if frame.meta.status.is_some_and(|s| s >= 400) => {}
            Classified::ErrorResponse { id: None, error } => {
                self.warn(format!("error response without an id (the server could not read a request): {error}"), Some(frame.seq));
            }
            Classified::Notification { method } => {
                let params = message.and_then(|m| take_member(m, "params"));
                self.on_notification(method, params, frame.seq);
            }
            Classified::Request { id, method } => {
                let params = message
                    .and_then(|m| take_member(m, "params"))
                    .unwrap_or_else(|| json!({}));
                self.on_server_request(id, method, params);
            }
        }
    }

    fn resolve(&self, id: &RequestId, outcome: Outcome, seq: u64) {
        let (pending, timed_out) = {
            let mut st = self.state();
            let p = st.pending.remove(id);
            let t = if p.is_none() {
                st.timed_out.remove(id)
            } else {
                None
            };
            (p, t)
        };
        match (pending, timed_out) {
            (Some(p), _) => {
                self.state().keep_task_token(id, &p, &outcome);
                let _ = p.tx.send(outcome);
            }
            (None, Some((method, after))) => {
                let mut msg = format!(
                    "late answer to {method} (request {id}), which had timed out after {} ms",
                    after.as_millis()
                );
                if method == Method::ServerDiscover
                    && let Outcome::Result(r) = &outcome
                    && matches!(
                        era::classify_probe(Ok(r), era::MODERN_VERSION),
                        ProbeVerdict::Modern { .. }
                    )
                {
                    msg.push_str(
                        ": the server speaks the modern era but answered the Auto probe too slowly; \
                         rerun with --protocol-era modern or a larger --probe-timeout",
                    );
                    self.state().late_modern = Some(r.clone());
                }
                self.warn(msg, Some(seq));
            }
            (None, None) => self.warn(
                format!("response to unknown request id {id} (never sent or already answered)"),
                Some(seq),
            ),
        }
    }

    fn on_notification(&self, method: String, params: Option<Value>, seq: u64) {
        match Method::from_name(&method) {
            Some(Method::NotificationsProgress) => self.on_progress(params, seq),
            Some(Method::NotificationsMessage) => {
                let mut p = params.unwrap_or_default();
                let data = take_member_of(&mut p, "data").unwrap_or(Value::Null);
                self.shared.observer.on_event(SessionEvent::Log {
                    level: p
                        .get("level")
                        .and_then(Value::as_str)
                        .unwrap_or("info")
                        .to_string(),
                    logger: p.get("logger").and_then(Value::as_str).map(str::to_string),
                    data,
                });
                // Logs about a running request show it is alive (a modern server sends them on
                // that request's stream only); they do not reset timeouts, progress does.
            }
            Some(Method::NotificationsCancelled) => {
                self.on_cancelled(params.as_ref());
                self.shared
                    .observer
                    .on_event(SessionEvent::Notification { method, params });
            }
            _ => self
                .shared
                .observer
                .on_event(SessionEvent::Notification { method, params }),
        }
    }

    /// `notifications/progress`: restart the timeout of the request it is for and tell the view.
    fn on_progress(&self, params: Option<Value>, seq: u64) {
        let p = params.unwrap_or_default();
        let token = p.get("progressToken").cloned().unwrap_or(Value::Null);
        let found = {
            let st = self.state();
            let pending = st
                .pending
                .iter()
                .find(|(_, pd)| pd.progress_token.as_ref() == Some(&token))
                .map(|(id, pd)| {
                    (
                        id.clone(),
                        pd.method.clone(),
                        Some(pd.activity.clone()),
                        None,
                    )
                });
            // A legacy task's progress, after its request was answered with the task.
            pending.or_else(|| {
                st.task_tokens
                    .iter()
                    .rev()
                    .find(|t| t.token == token)
                    .map(|t| {
                        (
                            t.request.clone(),
                            t.method.clone(),
                            None,
                            Some(t.task.clone()),
                        )
                    })
            })
        };
        match found {
            Some((id, m, activity, task)) => {
                if let Some(a) = activity {
                    a.notify_one();
                }
                self.shared.observer.on_event(SessionEvent::Progress {
                    request: id,
                    method: m,
                    task,
                    progress: p.get("progress").and_then(Value::as_f64).unwrap_or(0.0),
                    total: p.get("total").and_then(Value::as_f64),
                    message: p.get("message").and_then(Value::as_str).map(str::to_string),
                });
            }
            // Progress already under way when our cancellation (or timeout) reached the server.
            None if self.state().ended_tokens.contains(&token) => {}
            None => self.warn(format!("progress for unknown token {token}"), Some(seq)),
        }
    }

    /// `notifications/cancelled` from the server.
    fn on_cancelled(&self, params: Option<&Value>) {
        // 2026-07-28: a server sends it (on stdio) solely to end a subscriptions/listen
        // of ours; fail that request now rather than wait forever. 2025-11-25: its id
        // names one of the server's own requests (ids overlap with ours), so it withdraws
        // that request and never touches ours.
        let id = params
            .and_then(|p| p.get("requestId"))
            .and_then(RequestId::from_value);
        let pending = id.and_then(|id| {
            let mut st = self.state();
            let listens = st.era == Era::Modern
                && st
                    .pending
                    .get(&id)
                    .is_some_and(|p| p.method == Method::SubscriptionsListen);
            if listens {
                st.pending.remove(&id)
            } else {
                None
            }
        });
        if let Some(p) = pending {
            let reason = params
                .and_then(|p| p.get("reason"))
                .and_then(Value::as_str)
                .unwrap_or("no reason given")
                .to_string();
            let _ = p.tx.send(Outcome::Failed(ClientError::ServerCancelled {
                method: p.method,
                reason,
            }));
        }
    }

    fn on_server_request(&self, id: RequestId, method: String, params: Value) {
        {
            let mut st = self.state();
            st.server_requests.insert(id.clone(), method.clone());
            st.answering.insert(id.clone(), method.clone());
        }
        self.shared.observer.on_event(SessionEvent::ServerRequest {
            method: method.clone(),
            origin: format!("server request {id}"),
        });
        let this = self.clone();
        tokio::spawn(async move {
            let asked = method.clone();
            let answer = if method == Method::Ping {
                Ok(json!({}))
            } else {
                this.shared
                    .responder
                    .respond(ServerRequest {
                        method,
                        params,
                        origin: RequestOrigin::Legacy { id: id.clone() },
                    })
                    .await
            };
            let msg = match answer {
                Ok(result) => mcpscope_proto::response(&id, result),
                Err(e) => mcpscope_proto::error_response(&id, &e),
            };
            let body = Bytes::from(serde_json::to_vec(&msg).expect("serializable"));
            if let Err(e) = this
                .conn()
                .send(Outgoing {
                    body,
                    id: None,
                    headers: vec![],
                })
                .await
            {
                match e {
                    // We closed the connection (a one-shot is done) before the server asked, so
                    // the answer can never reach it: not a fault, and no reason to wait out the
                    // exit grace for a server that waits on it.
                    TransportError::Closed => this.conn().hurry_close(&format!(
                        "the server asked {asked} (request {id}) after its input was closed; it cannot be answered now"
                    )),
                    e => this.warn(format!("could not answer server request {id}: {e}"), None),
                }
            }
            this.state().answering.remove(&id);
            this.shared.answered.notify_waiters();
        });
    }

    fn on_failed(&self, id: Option<RequestId>, error: TransportError) {
        let id = match id {
            Some(id) => Some(id),
            None => {
                if let TransportError::TooLarge { .. } = error {
                    // Which request the over-long message answered is unknowable; if only one is
                    // waiting, it is that one.
                    let st = self.state();
                    if st.pending.len() == 1 {
                        st.pending.keys().next().cloned()
                    } else {
                        None
                    }
                } else {
                    None
                }
            }
        };
        match id {
            Some(id) => {
                let pending = self.state().pending.remove(&id);
                if let Some(p) = pending {
                    let _ = p.tx.send(Outcome::Failed(ClientError::Transport(error)));
                }
            }
            None => {
                if let TransportError::SessionExpired { session_id } = &error {
                    self.state().session_lost = Some(session_id.clone());
                }
                self.warn(error.to_string(), None)
            }
        }
    }

    fn on_closed(&self, reason: String) {
        let pending: Vec<Pending> = {
            let mut st = self.state();
            st.closed = Some(reason.clone());
            st.pending.drain().map(|(_, p)| p).collect()
        };
        for p in pending {
            let _ =
                p.tx.send(Outcome::Failed(ClientError::Closed(reason.clone())));
        }
        self.shared.observer.on_closed(&reason);
        self.shared.closed_seen.notify_waiters();
    }
}

/// One member of a parsed message, moved out when the engine holds the only reference and
/// copied (that member alone) when a view kept the message: the pipeline holds it for the
/// traffic, and a deep copy of the whole message cost more than the parse it saves
/// (bench/RESULTS-web.md).
fn take_member(message: Arc<Value>, key: &str) -> Option<Value> {
    match Arc::try_unwrap(message) {
        Ok(mut owned) => take_member_of(&mut owned, key),
        Err(shared) => shared.get(key).cloned(),
    }
}

/// `key` moved out of an owned object (`None` when absent or not an object).
fn take_member_of(value: &mut Value, key: &str) -> Option<Value> {
    value.as_object_mut().and_then(|o| o.remove(key))
}
