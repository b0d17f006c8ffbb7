//! Connections: one `mcpscope_client::Session` per connected server, and the task that turns its
//! traffic into what the web UI shows.
//!
//! The engine calls the observer on its own task, so the observer only forwards: every frame,
//! event and the connection's end go down one channel to a per-connection processor, in order.
//! The processor numbers frames per server, lints them, judges header verdicts, keeps them in the
//! window, writes them to SQLite and publishes them, and ties each to the history entry of the
//! request that caused it (by JSON-RPC id, progress token, or HTTP exchange), so a request's
//! progress, logs and server requests become children of its entry. Requests begin and finish
//! through the same channel, so an entry is complete — every frame and child in — before the
//! handler that made the request answers.

use crate::error::{Error, Result};
use crate::events::{
    Event, LogEvent, NotificationEvent, ProgressEvent, RenderedFrame, ResetEvent,
    ServerRequestEvent, WarningEvent,
};
use crate::frames::{self, FrameHead, LintFinding, VIEW_BODY_CAP, WebFrame};
use crate::interactions::{Interaction, InteractionClosed, InteractionSink, QueueResponder};
use crate::state::{InFlight, Inspector, Slot, Status};
use crate::verdicts::{self, HeaderVerdicts};
use crate::views;
use mcpscope_client::{
    ClientError, Observer, Recorded, RequestControl, RequestOptions, RequestOrigin, ServerRequest,
    Session, SessionEvent,
};
use mcpscope_proto::era::{self, Era};
use mcpscope_proto::lint::{LintContext, Revision};
use mcpscope_proto::redact::{self, Secrets};
use mcpscope_proto::{Classified, Direction, Frame, FrameKind, RequestId, now_us};
use mcpscope_store::{Child, NewEntry};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};

/// Messages larger than this are not checked by the pipeline (lint, verdicts, tool schemas):
/// the engine's parse of them is not kept, so a 100 MB result is shown and stored but neither
/// held twice nor checked against the schema (which would stall the traffic behind it).
const PARSE_CAP: usize = 4 << 20;
/// Messages larger than this are not linted.
const LINT_CAP: usize = 1 << 20;
/// Children (progress, logs, …) recorded per history entry; past it they are counted, and one
/// `omitted` child says how many (a flood of 100,000 logs must not become 100,000 rows).
const MAX_CHILDREN: usize = 1000;
/// History entries carry results cut to this many bytes (`truncated: true`).
pub const RESULT_CAP: usize = 256 << 10;

/// What a connection's processor is told, in order.
pub(crate) enum Item {
    Frame {
        frame: Frame,
        seen: Seen,
    },
    Event(SessionEvent),
    /// A server request became an interaction in the queue (`interactions.rs`).
    Opened {
        interaction: Interaction,
        origin: RequestOrigin,
    },
    /// It was answered, timed out or abandoned.
    InteractionClosed(InteractionClosed),
    Closed(String),
    Begin(Active),
    Finish {
        hist: i64,
        status: &'static str,
        result: Option<String>,
        error: Option<Value>,
        ack: oneshot::Sender<Option<Value>>,
    },
}

/// What the engine made of a frame ([`Recorded`]), owned: its one parse, classification, method
/// and the revision in force. Empty for frames no session recorded.
#[derive(Default)]
pub(crate) struct Seen {
    pub message: Option<Arc<Value>>,
    pub classified: Option<Classified>,
    pub method: Option<String>,
    pub version: Option<String>,
}

impl Seen {
    fn of(rec: &Recorded<'_>) -> Seen {
        Seen {
            // Kept only where the pipeline reads it (see PARSE_CAP).
            message: rec
                .message
                .filter(|_| rec.frame.body.len() <= PARSE_CAP)
                .cloned(),
            classified: rec.classified.cloned(),
            method: rec.method.map(str::to_string),
            version: rec.protocol_version.map(str::to_string),
        }
    }
}

/// A frame's part in a JSON-RPC exchange: its id, and whether it is a request or a response.
struct Role {
    id: Option<RequestId>,
    request: bool,
    response: bool,
}

impl Role {
    fn of(classified: Option<&Classified>) -> Role {
        let id = match classified {
            Some(
                Classified::Request { id, .. }
                | Classified::Response { id }
                | Classified::ErrorResponse { id: Some(id), .. },
            ) => Some(id.clone()),
            _ => None,
        };
        Role {
            id,
            request: matches!(classified, Some(Classified::Request { .. })),
            response: matches!(
                classified,
                Some(Classified::Response { .. } | Classified::ErrorResponse { .. })
            ),
        }
    }
}

/// A request with a history entry, while it runs.
pub(crate) struct Active {
    pub hist: i64,
    pub request_id: String,
    pub method: String,
    pub control: Arc<RequestControl>,
    pub started: Instant,
    pub frames: Vec<u64>,
    pub exchanges: Vec<u64>,
    pub children: usize,
    pub omitted: usize,
}

/// Items waiting for the processor above which the engine is asked to wait
/// ([`Observer::ready`]): a server flooding notifications then waits on its pipe.
const QUEUE_HIGH: usize = 2048;
/// The engine goes on once the processor has brought the queue down to this.
const QUEUE_LOW: usize = 512;

/// The channel to a connection's processor, with backpressure.
///
/// The engine calls the observer synchronously, so the channel itself is unbounded; its depth is
/// counted, and past [`QUEUE_HIGH`] the observer's `ready` hands the engine a future to await
/// between transport events (the engine then stops taking lines, and the stdio reader stops
/// reading). An earlier version blocked the engine's thread instead (`block_in_place`) and lost a
/// wakeup under a 100,000-notification flood; awaiting keeps every wait visible to the runtime, and
/// the wait re-checks on a short timer so no missed notification can stall it.
#[derive(Clone)]
pub(crate) struct Queue {
    tx: mpsc::UnboundedSender<Item>,
    gauge: Arc<Gauge>,
    /// The connection's secret values, kept out of results and history as well as frames.
    secrets: Arc<Secrets>,
}

/// How far behind the processor is; shared by the senders and the processor (which must not
/// hold a sender: its loop ends when the last one is dropped).
#[derive(Default)]
pub(crate) struct Gauge {
    depth: std::sync::atomic::AtomicUsize,
    drained: tokio::sync::Notify,
}

impl Gauge {
    /// The processor took one item.
    fn took(&self) {
        let left = self
            .depth
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst)
            .saturating_sub(1);
        if left <= QUEUE_LOW {
            self.drained.notify_waiters();
        }
    }
}

impl Queue {
    fn new(secrets: Arc<Secrets>) -> (Queue, mpsc::UnboundedReceiver<Item>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (
            Queue {
                tx,
                gauge: Arc::default(),
                secrets,
            },
            rx,
        )
    }

    /// Queue an item; false when the processor is gone.
    pub(crate) fn send(&self, item: Item) -> bool {
        if self.tx.send(item).is_err() {
            return false;
        }
        self.gauge
            .depth
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        true
    }

    /// A future that ends once the processor has caught up (or is gone), when it is behind.
    fn ready(&self) -> Option<futures::future::BoxFuture<'static, ()>> {
        use std::sync::atomic::Ordering;
        if self.gauge.depth.load(Ordering::SeqCst) <= QUEUE_HIGH {
            return None;
        }
        let gauge = self.gauge.clone();
        let tx = self.tx.clone();
        Some(Box::pin(async move {
            while gauge.depth.load(Ordering::SeqCst) > QUEUE_LOW && !tx.is_closed() {
                let _ =
                    tokio::time::timeout(Duration::from_millis(20), gauge.drained.notified()).await;
            }
        }))
    }
}

/// Forwards the engine's callbacks to the processor.
struct WebObserver {
    tx: Queue,
}

impl Observer for WebObserver {
    fn on_frame(&self, rec: &Recorded<'_>) {
        let _ = self.tx.send(Item::Frame {
            frame: rec.frame.clone(),
            seen: Seen::of(rec),
        });
    }
    fn on_event(&self, event: &SessionEvent) {
        let _ = self.tx.send(Item::Event(event.clone()));
    }
    fn on_closed(&self, reason: &str) {
        let _ = self.tx.send(Item::Closed(reason.to_string()));
    }
    fn ready(&self) -> Option<futures::future::BoxFuture<'static, ()>> {
        self.tx.ready()
    }
}

/// Tells a connection's processor about its interactions, in order (opened before closed).
struct ProcessorSink {
    tx: Queue,
}

impl InteractionSink for ProcessorSink {
    fn opened(&self, interaction: &Interaction, request: &ServerRequest) {
        let _ = self.tx.send(Item::Opened {
            interaction: interaction.clone(),
            origin: request.origin.clone(),
        });
    }
    fn closed(&self, closed: &InteractionClosed) {
        let _ = self.tx.send(Item::InteractionClosed(closed.clone()));
    }
}

/// The per-connection processor.
struct Processor {
    app: Arc<Inspector>,
    slot: Arc<Slot>,
    generation: u64,
    active: Vec<Active>,
    /// When our requests went out, by wire id (for response durations).
    sent_at: HashMap<RequestId, u64>,
    /// When the server's requests came in, by their id.
    asked_at: HashMap<RequestId, u64>,
    /// The history entry a server request belongs to, by its id.
    asked_by: HashMap<RequestId, i64>,
    /// Outgoing frames waiting for their HTTP response, by exchange.
    verdicts: HashMap<u64, (FrameHead, Vec<&'static str>, bytes::Bytes)>,
    /// The entry the last inbound frame belonged to (events follow their frame).
    current: Option<i64>,
    /// Values of this connection that never reach the view or SQLite (see [`redact`]).
    secrets: Arc<Secrets>,
    /// Open interactions: their cause's history entry, redacted params and origin in words.
    interactions: HashMap<u64, (Option<i64>, Value, String)>,
    /// This connection's number in the interaction queue.
    connection: u64,
}

impl Processor {
    async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Item>, gauge: Arc<Gauge>) {
        while let Some(item) = rx.recv().await {
            gauge.took();
            match item {
                Item::Frame { frame, seen } => self.frame(frame, seen).await,
                Item::Event(e) => self.event(e).await,
                Item::Opened {
                    interaction,
                    origin,
                } => self.opened(interaction, origin),
                Item::InteractionClosed(closed) => self.interaction_closed(closed).await,
                Item::Closed(reason) => self.closed(reason).await,
                Item::Begin(a) => self.active.push(a),
                Item::Finish {
                    hist,
                    status,
                    mut result,
                    mut error,
                    ack,
                } => {
                    if let Some(r) = result.as_mut().and_then(|r| self.secrets.text(r)) {
                        result = Some(r);
                    }
                    if let Some(e) = error.as_mut() {
                        self.secrets.value(e);
                    }
                    let frames = match self.active.iter().position(|a| a.hist == hist) {
                        Some(i) => {
                            let a = self.active.remove(i);
                            if a.omitted > 0 {
                                let child = Child {
                                    kind: "omitted".into(),
                                    offset_ms: a.started.elapsed().as_secs_f64() * 1000.0,
                                    data: json!({"count": a.omitted, "reason": format!("only the first {MAX_CHILDREN} are kept; the traffic log has every frame")}).to_string(),
                                };
                                let store = self.app.store.clone();
                                let _ = tokio::task::spawn_blocking(move || {
                                    store.add_child(hist, &child)
                                })
                                .await;
                            }
                            a.frames
                        }
                        None => Vec::new(),
                    };
                    let view = finish(&self.app, hist, status, result, error, frames).await;
                    let _ = ack.send(view);
                }
            }
        }
    }

    fn active_for_id(&self, id: &RequestId) -> Option<usize> {
        self.active.iter().position(|a| a.control.owns(id))
    }

    /// One frame through the pipeline: redact, number, time, attribute, lint, judge, keep,
    /// store, publish — each step its own function below, in that order.
    async fn frame(&mut self, mut frame: Frame, mut seen: Seen) {
        // Before anything reads the frame: lint messages and verdicts quote what they check.
        let message = self.redact(&mut frame, seen.message.take());
        // The engine's number; frames no session recorded (an OAuth flow a view started) take
        // theirs from the same counter here.
        let seq = match frame.seq {
            0 => self.slot.frames().take_seq(),
            n => n,
        };
        let role = Role::of(seen.classified.as_ref());
        let method = seen.method.as_deref();
        let duration_ms = self.time(&frame, &role);
        let history_id = self.attribute(&frame, seq, &role, method, message.as_deref());
        let lint = self.lint(&frame, message.as_deref(), &seen);
        if frame.direction == Direction::In && role.response && method == Some("tools/list") {
            self.remember_tools(message.as_deref());
        }
        let headers = self.judge_headers(&frame, message.as_deref());

        let exchange = frame.meta.exchange;
        let sources = frames::sources(frame.kind, frame.carries_message, exchange.is_some());
        let head = FrameHead {
            seq,
            server: self.slot.name.clone(),
            time_us: frame.at_us,
            direction: frame.direction,
            kind: frame.kind,
            source: sources[0],
            meta: frame.meta.clone(),
            message: seen.classified.as_ref().map(Classified::kind_name),
            method: seen.method.clone(),
            id: role.id.as_ref().map(RequestId::to_value),
            duration_ms,
            lint,
            headers,
            history_id,
        };
        if head.headers.is_some()
            && let Some(ex) = exchange
        {
            self.verdicts
                .insert(ex, (head.clone(), sources.clone(), frame.body.clone()));
        }
        self.publish_frame(&head, sources, frame.body.clone()).await;
        self.complete_verdicts(&frame).await;
    }

    /// Redact `frame` with the connection's secrets; the engine's parse of it is still the
    /// message unless a secret was in the body, and then it is redacted the same way.
    fn redact(&self, frame: &mut Frame, message: Option<Arc<Value>>) -> Option<Arc<Value>> {
        let before = frame.body.clone();
        redact::frame(frame.kind, &mut frame.meta, &mut frame.body, &self.secrets);
        // Redaction only ever replaces the body with a new buffer.
        let rewritten = before.as_ptr() != frame.body.as_ptr() || before.len() != frame.body.len();
        match message {
            Some(m) if rewritten => {
                let mut m = Arc::unwrap_or_clone(m);
                self.secrets.value(&mut m);
                Some(Arc::new(m))
            }
            m => m,
        }
    }

    /// A response's duration, timed from the request it answers (ours or the server's).
    fn time(&mut self, frame: &Frame, role: &Role) -> Option<f64> {
        let id = role.id.as_ref()?;
        let since = |t: u64| frame.at_us.saturating_sub(t) as f64 / 1000.0;
        match (frame.direction, role.request, role.response) {
            (Direction::Out, true, _) => {
                self.sent_at.insert(id.clone(), frame.at_us);
                None
            }
            (Direction::In, _, true) => self.sent_at.remove(id).map(since),
            (Direction::In, true, _) => {
                self.asked_at.insert(id.clone(), frame.at_us);
                None
            }
            (Direction::Out, _, true) => self.asked_at.remove(id).map(since),
            _ => None,
        }
    }

    /// The history entry `frame` belongs to — by JSON-RPC id, progress token, then HTTP
    /// exchange — with the frame added to it; also what later events and server requests
    /// are tied to.
    fn attribute(
        &mut self,
        frame: &Frame,
        seq: u64,
        role: &Role,
        method: Option<&str>,
        message: Option<&Value>,
    ) -> Option<i64> {
        let exchange = frame.meta.exchange;
        let ours = matches!(
            (frame.direction, role.request, role.response),
            (Direction::Out, true, _) | (Direction::In, _, true)
        );
        let mut owner = role
            .id
            .as_ref()
            .filter(|_| ours)
            .and_then(|id| self.active_for_id(id));
        if owner.is_none()
            && method == Some("notifications/progress")
            && let Some(token) = message
                .and_then(|m| m.pointer("/params/progressToken"))
                .and_then(RequestId::from_value)
        {
            owner = self.active_for_id(&token);
        }
        if owner.is_none()
            && let Some(ex) = exchange
        {
            owner = self.active.iter().position(|a| a.exchanges.contains(&ex));
        }
        if let Some(i) = owner {
            let a = &mut self.active[i];
            a.frames.push(seq);
            if let Some(ex) = exchange
                && frame.direction == Direction::Out
                && !a.exchanges.contains(&ex)
            {
                a.exchanges.push(ex);
            }
        }
        let history_id = owner.map(|i| self.active[i].hist);
        if frame.direction == Direction::In && frame.carries_message {
            self.current = history_id;
        }
        if let (Some(id), Direction::In, true) = (&role.id, frame.direction, role.request)
            && let Some(h) = history_id.or_else(|| self.sole_active())
        {
            self.asked_by.insert(id.clone(), h);
        }
        history_id
    }

    /// Lint findings against the revision in force (or the parse error of a broken message).
    fn lint(
        &self,
        frame: &Frame,
        message: Option<&Value>,
        seen: &Seen,
    ) -> Option<Vec<LintFinding>> {
        match (message, &seen.classified) {
            (Some(m), Some(_)) if frame.body.len() <= LINT_CAP => {
                let revision = seen
                    .version
                    .as_deref()
                    .map(Revision::for_version)
                    .unwrap_or(Revision::Legacy20251125);
                let context = LintContext {
                    request_method: seen.method.as_deref(),
                };
                let report = self.app.linter.lint(revision, m, context);
                (!report.findings.is_empty()).then(|| {
                    report
                        .findings
                        .into_iter()
                        .map(|f| LintFinding {
                            path: f.path,
                            message: f.message,
                        })
                        .collect()
                })
            }
            (None, Some(Classified::Invalid(reason))) => Some(vec![LintFinding {
                path: String::new(),
                message: reason.clone(),
            }]),
            _ => None,
        }
    }

    /// Keep the input schemas of a `tools/list` answer, for verdicts and argument validation.
    fn remember_tools(&self, message: Option<&Value>) {
        let Some(tools) = message
            .and_then(|m| m.pointer("/result/tools"))
            .and_then(Value::as_array)
        else {
            return;
        };
        // Only the input schemas are needed (validation, verdicts): a third of the memory.
        let mut known = self.slot.tools();
        for t in tools {
            if let Some(name) = t.get("name").and_then(Value::as_str) {
                let schema = t.get("inputSchema").cloned().unwrap_or(Value::Null);
                known.insert(name.to_string(), schema);
            }
        }
    }

    /// The `Mcp-*` header verdicts of an outgoing HTTP request (completed by its answer).
    fn judge_headers(&self, frame: &Frame, message: Option<&Value>) -> Option<HeaderVerdicts> {
        if frame.kind != FrameKind::HttpRequest || frame.direction != Direction::Out {
            return None;
        }
        let m = message?;
        // Only the called tool's schema matters; copying all 10,000 would cost every frame.
        let mut schemas: HashMap<String, Value> = HashMap::new();
        if let Some(name) = m.pointer("/params/name").and_then(Value::as_str)
            && m.get("method").and_then(Value::as_str) == Some("tools/call")
            && let Some(schema) = self
                .slot
                .tools()
                .get(name)
                .filter(|schema| !schema.is_null())
                .cloned()
        {
            schemas.insert(name.to_string(), schema);
        }
        verdicts::judge(&frame.meta.headers, m, &schemas)
    }

    /// The response (or failure) of an exchange completes its request frame's verdicts: the
    /// request frame is replaced in the window, published again and stored again.
    async fn complete_verdicts(&mut self, frame: &Frame) {
        let Some(ex) = frame.meta.exchange else {
            return;
        };
        if frame.direction == Direction::Out || !self.verdicts.contains_key(&ex) {
            return;
        }
        let done = match (frame.kind, frame.meta.status) {
            (FrameKind::HttpResponse, Some(status)) if !(300..400).contains(&status) => {
                Some((Some(status), None))
            }
            (FrameKind::Lifecycle, _) if frame.meta.failed => Some((None, frame.meta.note.clone())),
            _ => None,
        };
        let Some((status, error)) = done else { return };
        let Some((mut head, sources, body)) = self.verdicts.remove(&ex) else {
            return;
        };
        if let Some(v) = head.headers.as_mut() {
            match (status, error) {
                (Some(s), _) => verdicts::answered(v, s, &frame.meta.headers),
                (None, Some(e)) => verdicts::transport_failed(v, &e),
                _ => {}
            }
        }
        let updated = Arc::new(WebFrame::new(&head, sources, body));
        self.slot.frames().replace(updated.clone());
        self.app.events.publish(Event::Frame(RenderedFrame::new(
            updated.render(VIEW_BODY_CAP),
        )));
        let _ = self
            .app
            .spill
            .send(updated.to_stored(&self.slot.name))
            .await;
    }

    async fn publish_frame(
        &self,
        head: &FrameHead,
        sources: Vec<&'static str>,
        body: bytes::Bytes,
    ) {
        let f = Arc::new(WebFrame::new(head, sources, body));
        self.slot.frames().push(f.clone());
        self.app
            .events
            .publish(Event::Frame(RenderedFrame::new(f.render(VIEW_BODY_CAP))));
        // Bounded: when SQLite falls behind, the traffic waits here rather than piling up.
        let _ = self.app.spill.send(f.to_stored(&self.slot.name)).await;
    }

    /// The only request with an entry in flight, if there is exactly one: on stdio, logs and
    /// server requests carry no link to a request, and with one in flight it is that one.
    fn sole_active(&self) -> Option<i64> {
        match self.active.as_slice() {
            [one] => Some(one.hist),
            _ => None,
        }
    }

    async fn child(&mut self, hist: i64, kind: &str, data: Value) {
        let Some(a) = self.active.iter_mut().find(|a| a.hist == hist) else {
            return;
        };
        if a.children >= MAX_CHILDREN {
            a.omitted += 1;
            return;
        }
        a.children += 1;
        let child = Child {
            kind: kind.to_string(),
            offset_ms: a.started.elapsed().as_secs_f64() * 1000.0,
            data: data.to_string(),
        };
        let store = self.app.store.clone();
        let _ = tokio::task::spawn_blocking(move || store.add_child(hist, &child)).await;
    }

    async fn event(&mut self, mut e: SessionEvent) {
        let server = self.slot.name.clone();
        // A server may echo a secret in a log or notification (an env secret printed back).
        match &mut e {
            SessionEvent::Progress { message, .. } => {
                if let Some(m) = message.as_mut().and_then(|m| self.secrets.text(m)) {
                    *message = Some(m);
                }
            }
            SessionEvent::Log { data, .. } => self.secrets.value(data),
            SessionEvent::Notification { params, .. } => {
                if let Some(p) = params {
                    self.secrets.value(p);
                }
            }
            SessionEvent::Warning { message, .. } => {
                if let Some(m) = self.secrets.text(message) {
                    *message = m;
                }
            }
            SessionEvent::ServerRequest { .. } => {}
        }
        match e {
            SessionEvent::Progress {
                request,
                method,
                progress,
                total,
                message,
            } => {
                let owner = self.active_for_id(&request);
                let (hist, request_id) = match owner {
                    Some(i) => (
                        Some(self.active[i].hist),
                        Some(self.active[i].request_id.clone()),
                    ),
                    None => (None, None),
                };
                let data = json!({"progress": progress, "total": total, "message": message});
                if let Some(h) = hist {
                    self.child(h, "progress", data).await;
                }
                self.app.events.publish(Event::Progress(ProgressEvent {
                    server,
                    request_id,
                    history_id: hist,
                    method,
                    progress,
                    total,
                    message,
                }));
            }
            SessionEvent::Log {
                level,
                logger,
                data,
            } => {
                let hist = self.current.or_else(|| self.sole_active());
                let payload = json!({"level": level, "logger": logger, "data": data});
                if let Some(h) = hist {
                    self.child(h, "log", payload).await;
                }
                self.app.events.publish(Event::Log(LogEvent {
                    server,
                    level,
                    logger,
                    data,
                    history_id: hist,
                    time_us: now_us(),
                }));
            }
            SessionEvent::Notification { method, params } => {
                if method == "notifications/tools/list_changed" {
                    // The tools are about to change: stale schemas must not judge new calls.
                    self.slot.tools().clear();
                }
                if let Some(h) = self.current {
                    self.child(
                        h,
                        "notification",
                        json!({"method": method, "params": params}),
                    )
                    .await;
                }
                self.app
                    .events
                    .publish(Event::Notification(NotificationEvent {
                        server,
                        method,
                        params,
                    }));
            }
            // The responder reports each server request with its params and our answer.
            SessionEvent::ServerRequest { .. } => {}
            SessionEvent::Warning { message, frame_seq } => {
                // The engine numbers frames from the slot's counter: its number is ours.
                self.app.events.publish(Event::Warning(WarningEvent {
                    server,
                    message,
                    frame_seq,
                }));
            }
        }
    }

    /// The request that caused a server request: the legacy request's entry (its frame came
    /// first), or the one request in flight with the method an `input_required` round is for.
    fn cause(&mut self, origin: &RequestOrigin) -> Option<i64> {
        match origin {
            RequestOrigin::Legacy { id } => self.asked_by.remove(id),
            RequestOrigin::InputRequired { for_method, .. } => {
                let matching: Vec<i64> = self
                    .active
                    .iter()
                    .filter(|a| &a.method == for_method)
                    .map(|a| a.hist)
                    .collect();
                match matching.as_slice() {
                    [one] => Some(*one),
                    _ => None,
                }
            }
        }
    }

    fn opened(&mut self, mut interaction: Interaction, origin: RequestOrigin) {
        self.secrets.value(&mut interaction.payload);
        let hist = self.cause(&origin);
        interaction.history_id = hist;
        self.app
            .interactions
            .describe(interaction.id, hist, interaction.payload.clone());
        self.interactions.insert(
            interaction.id,
            (
                hist,
                interaction.payload.clone(),
                interaction.origin.clone(),
            ),
        );
        self.app
            .events
            .publish(Event::InteractionOpened(interaction));
    }

    /// One row per interaction in its cause's history entry (kind `serverRequest`, with how it
    /// ended), the `serverRequest` event views already read, and `interactionClosed`.
    async fn interaction_closed(&mut self, mut closed: InteractionClosed) {
        let (hist, params, origin) =
            self.interactions
                .remove(&closed.id)
                .unwrap_or((None, Value::Null, String::new()));
        closed.history_id = hist;
        let method = closed.method.clone();
        if let Some(h) = hist {
            let row = json!({"method": method, "params": params, "origin": origin,
                "answer": closed.answer, "interactionId": closed.id, "kind": closed.kind,
                "round": closed.round, "outcome": closed.outcome, "reason": closed.reason});
            self.child(h, "serverRequest", row).await;
        }
        self.app
            .events
            .publish(Event::ServerRequest(ServerRequestEvent {
                server: self.slot.name.clone(),
                method,
                params,
                origin,
                answer: closed.answer.clone(),
                history_id: hist,
            }));
        self.app.events.publish(Event::InteractionClosed(closed));
    }

    async fn closed(&mut self, reason: String) {
        self.app
            .interactions
            .abandon(self.connection, &format!("the connection ended: {reason}"));
        let changed = {
            let mut st = self.slot.st();
            if st.generation == self.generation
                && st.status == Some(Status::Connected)
                && !st.closing
            {
                st.status = Some(Status::Failed);
                st.session = None;
                st.processor = None;
                st.error = Some(json!({
                    "code": "unreachable",
                    "message": format!("the connection ended: {reason}; connect again to retry"),
                    "retries": st.retries,
                }));
                true
            } else {
                false
            }
        };
        if changed {
            self.app.publish_status(&self.slot.name).await;
        }
    }
}

/// Write how a request ended, publish the entry, and return its view.
async fn finish(
    app: &Arc<Inspector>,
    hist: i64,
    status: &'static str,
    result: Option<String>,
    error: Option<Value>,
    frames: Vec<u64>,
) -> Option<Value> {
    let store = app.store.clone();
    let error_text = error.map(|e| e.to_string());
    let r = tokio::task::spawn_blocking(move || {
        let started = store.get(hist, 0)?.map(|e| e.started_at_us).unwrap_or(0);
        let duration = now_us().saturating_sub(started) as f64 / 1000.0;
        store.finish(
            hist,
            status,
            result.as_deref(),
            error_text.as_deref(),
            duration,
            &frames,
        )?;
        store.get(hist, RESULT_CAP)
    })
    .await;
    match r {
        Ok(Ok(Some(e))) => {
            let v = views::history_entry(&e);
            let out = v.to_value();
            app.events.publish(Event::History(v));
            Some(out)
        }
        Ok(Err(e)) => {
            eprintln!("mcpscope: history entry {hist} not saved: {e}");
            None
        }
        _ => None,
    }
}

/// Connect `name` (from the catalog), with an era chosen for this connection.
pub(crate) async fn connect(
    app: &Arc<Inspector>,
    name: &str,
    era_override: Option<String>,
) -> Result<Value> {
    let entry = app
        .catalog
        .lock()
        .await
        .get(name)
        .cloned()
        .ok_or_else(|| Error::not_found(format!("no server named {name:?} in the catalog")))?;
    let slot = app.slot(name).await?;
    let _guard = slot.connect_lock.lock().await;
    let stored_override = slot.st().era_override.clone();
    let era_override = era_override.or(stored_override);
    {
        let st = slot.st();
        if era_override.is_none()
            && st.status == Some(Status::Connected)
            && let Some(info) = &st.info
        {
            return Ok(views::server_info(info));
        }
    }
    disconnect_locked(app, &slot).await;
    // Secret env and header values come from the secret store, for this connection only; the
    // values it resolved are redacted from everything this connection shows and stores.
    let (entry, secrets) = crate::secrets::unseal(app, &entry).await?;
    let secrets = Arc::new(secrets);
    let (target, mut opts) = entry.connection(era_override.as_deref())?;
    opts.frame_numbers = Some(slot.frames().numbers());
    if let Some(auth) = crate::auth::provider_for(app, &slot, &entry, &target)? {
        opts.transport.auth = Some(auth as Arc<dyn mcpscope_transport::AuthProvider>);
    }
    let (tx, rx) = Queue::new(secrets.clone());
    let generation = {
        let mut st = slot.st();
        st.generation += 1;
        st.status = Some(Status::Connecting);
        st.closing = false;
        st.latency_ms = None;
        st.info = None;
        st.generation
    };
    slot.tools().clear();
    app.publish_status(name).await;
    let connection = app.interactions.connection_id();
    slot.st().interaction_connection = connection;
    tokio::spawn(
        Processor {
            app: app.clone(),
            slot: slot.clone(),
            generation,
            active: Vec::new(),
            sent_at: HashMap::new(),
            asked_at: HashMap::new(),
            asked_by: HashMap::new(),
            verdicts: HashMap::new(),
            current: None,
            secrets,
            interactions: HashMap::new(),
            connection,
        }
        .run(rx, tx.gauge.clone()),
    );
    let observer = Arc::new(WebObserver { tx: tx.clone() });
    let responder = Arc::new(QueueResponder {
        queue: app.interactions.clone(),
        server: name.to_string(),
        connection,
        policy: app.options.interaction_policy.clone(),
        timeout: app.options.interaction_timeout,
        sink: Arc::new(ProcessorSink { tx: tx.clone() }),
    });
    match Session::connect(target, opts, responder, observer).await {
        Ok(session) => {
            let info = session.server_info();
            {
                let mut st = slot.st();
                st.status = Some(Status::Connected);
                st.error = None;
                st.retries = 0;
                st.session = Some(session.clone());
                st.info = info.clone();
                st.processor = Some(tx);
            }
            app.publish_status(name).await;
            if session.era() == Era::Modern {
                tokio::spawn(listener(
                    app.clone(),
                    slot.clone(),
                    session.clone(),
                    generation,
                ));
            }
            if let Some(every) = app.options.ping_interval {
                tokio::spawn(pinger(
                    app.clone(),
                    slot.clone(),
                    session,
                    generation,
                    every,
                ));
            }
            Ok(info.as_ref().map(views::server_info).unwrap_or(Value::Null))
        }
        Err(e) => {
            let err = {
                let mut st = slot.st();
                st.retries += 1;
                let err = Error::from_client(&e).with("retries", st.retries);
                st.status = Some(Status::Failed);
                st.error = Some(err.body());
                err
            };
            app.publish_status(name).await;
            Err(err)
        }
    }
}

/// Disconnect (taking the connect lock).
pub(crate) async fn disconnect(app: &Arc<Inspector>, slot: &Arc<Slot>) {
    let _guard = slot.connect_lock.lock().await;
    disconnect_locked(app, slot).await;
}

async fn disconnect_locked(app: &Arc<Inspector>, slot: &Arc<Slot>) {
    let session = {
        let mut st = slot.st();
        st.closing = true;
        st.processor = None;
        let s = st.session.take();
        if s.is_some() || st.status == Some(Status::Connected) {
            st.status = Some(Status::Disconnected);
            st.latency_ms = None;
        }
        s
    };
    let connection = slot.st().interaction_connection;
    app.interactions
        .abandon(connection, "the connection was closed (disconnect)");
    if let Some(s) = session {
        s.cancel_all("disconnected");
        s.close().await;
        slot.st().info = None;
        app.publish_status(&slot.name).await;
    }
}

/// Measure latency while the connection lasts: `ping` on legacy; on modern, where `ping` no
/// longer exists, `server/discover` (the cheapest round trip the era has).
async fn pinger(
    app: Arc<Inspector>,
    slot: Arc<Slot>,
    session: Session,
    generation: u64,
    every: Duration,
) {
    loop {
        let method = match session.era() {
            Era::Legacy => "ping",
            Era::Modern => "server/discover",
        };
        let opts = RequestOptions {
            timeout: Some(Some(Duration::from_secs(10))),
            ..Default::default()
        };
        let t = Instant::now();
        let r = session.request_with(method, None, &opts).await;
        let ms = t.elapsed().as_millis() as u64;
        let alive = {
            let mut st = slot.st();
            if st.generation != generation || st.status != Some(Status::Connected) {
                return;
            }
            match &r {
                // An error answer is still a round trip.
                Ok(_) | Err(ClientError::Rpc { .. }) => {
                    st.latency_ms = Some(ms);
                    true
                }
                Err(e) if e.is_connection_failure() => false,
                Err(_) => true,
            }
        };
        if alive {
            app.publish_status(&slot.name).await;
        }
        tokio::time::sleep(every).await;
    }
}

/// How many times in a row a modern server may end the list-changed subscription quickly
/// before we stop asking again (a server that ends every listen at once must not be flooded
/// with new ones).
const LISTEN_RESTARTS: u32 = 5;
/// A subscription that ends sooner than this counts towards [`LISTEN_RESTARTS`].
const LISTEN_QUICK_END: Duration = Duration::from_secs(10);

/// The `subscriptions/listen` filter that asks for every list change `capabilities` promises.
fn list_changed_filter(capabilities: &Value) -> Map<String, Value> {
    let mut filter = Map::new();
    for (capability, key) in [
        ("tools", "toolsListChanged"),
        ("prompts", "promptsListChanged"),
        ("resources", "resourcesListChanged"),
    ] {
        if capabilities[capability]["listChanged"] == json!(true) {
            filter.insert(key.into(), json!(true));
        }
    }
    filter
}

/// Modern servers send `list_changed` only on a `subscriptions/listen` stream (legacy ones send
/// them unsolicited), so the list-changed indicators of the Tools, Resources and Prompts screens
/// need one open for as long as the connection lasts. Its notifications reach the processor like
/// any other; the disconnect cancels it with everything else in flight.
async fn listener(app: Arc<Inspector>, slot: Arc<Slot>, session: Session, generation: u64) {
    let Some(info) = session.server_info() else {
        return;
    };
    let filter = list_changed_filter(&info.capabilities);
    if filter.is_empty() {
        return;
    }
    let still_ours = || {
        let st = slot.st();
        st.generation == generation && st.status == Some(Status::Connected)
    };
    let warn = |message: String| {
        app.events.publish(Event::Warning(WarningEvent {
            server: slot.name.clone(),
            message,
            frame_seq: None,
        }));
    };
    let mut quick_ends = 0u32;
    loop {
        let opts = RequestOptions {
            timeout: Some(None),
            ..Default::default()
        };
        let params = json!({"notifications": filter});
        let started = Instant::now();
        let r = session
            .request_with("subscriptions/listen", Some(params), &opts)
            .await;
        if !still_ours() {
            return;
        }
        let why = match r {
            // A result or a notifications/cancelled: the server ended the subscription.
            Ok(_) | Err(ClientError::ServerCancelled { .. }) => {
                "the server ended the list-changed subscription (subscriptions/listen)".to_string()
            }
            // The connection itself is going: the disconnect says so.
            Err(ClientError::Closed(_) | ClientError::Cancelled { .. }) => return,
            // On modern HTTP the listen has a stream of its own, which a proxy or a 5xx can end
            // while the connection lives on.
            Err(e) if e.is_connection_failure() => {
                format!("the list-changed subscription (subscriptions/listen) broke: {e}")
            }
            Err(e) => {
                warn(format!(
                    "subscriptions/listen failed, so list changes will not be shown: {e}"
                ));
                return;
            }
        };
        // Only ends in quick succession count: a subscription that lived a while is not a
        // server refusing to keep one.
        if started.elapsed() >= LISTEN_QUICK_END {
            quick_ends = 0;
        }
        quick_ends += 1;
        if quick_ends >= LISTEN_RESTARTS {
            warn(format!(
                "{why} {LISTEN_RESTARTS} times in a row within {} s each; list changes will not be shown until you reconnect",
                LISTEN_QUICK_END.as_secs()
            ));
            return;
        }
        warn(format!("{why}; listening again"));
        tokio::time::sleep(Duration::from_secs(u64::from(quick_ends))).await;
        if !still_ours() {
            return;
        }
    }
}

/// The connected session of `slot` and its processor, or `not_found`.
fn connected(slot: &Slot) -> Result<(Session, Queue, Option<String>)> {
    let st = slot.st();
    match (&st.session, &st.processor, st.status) {
        (Some(s), Some(p), Some(Status::Connected)) => {
            Ok((s.clone(), p.clone(), st.log_level.clone()))
        }
        _ => Err(Error::not_found(format!(
            "server {:?} is not connected; connect it first",
            slot.name
        ))),
    }
}

/// What a view asks to send.
#[derive(Debug, Clone, Default)]
pub struct Call {
    /// The JSON-RPC method.
    pub method: String,
    /// Its params (an object).
    pub params: Option<Value>,
    /// The view's id for the request (to cancel it); `None`: a fresh one.
    pub request_id: Option<String>,
    /// Ask for progress notifications (a `progressToken`).
    pub progress: bool,
    /// Extra `_meta` fields.
    pub meta: Map<String, Value>,
    /// `None`: the server's default timeout; `Some(None)`: none; `Some(Some(d))`: `d`.
    pub timeout: Option<Option<Duration>>,
    /// List calls: walk every page, merging the arrays under this key.
    pub pages: Option<String>,
}

/// The outcome of a call: the history entry and the result or the error.
#[derive(Debug)]
pub struct CallOutcome {
    /// The history entry of the request.
    pub history_id: i64,
    /// The result (secrets redacted), or why there is none.
    pub result: Result<Value, Error>,
    /// `tools/list` only: the tools the engine left out of its tool cache, with the reason.
    pub excluded_tools: Option<Vec<(String, String)>>,
    /// A list walked page by page that stopped before the server said it had ended (a repeated
    /// cursor, the page limit): `{pages, stop: {reason, …, message}}`, as the CLI's
    /// `--format json` says it. `None` when the list ended, or was not walked.
    pub pagination: Option<Value>,
}

/// Make a request with a history entry, tying everything it causes to that entry.
pub(crate) async fn call(app: &Arc<Inspector>, name: &str, c: Call) -> Result<CallOutcome> {
    let slot = app.slots().get(name).cloned().ok_or_else(|| {
        Error::not_found(format!(
            "server {name:?} is not connected; connect it first"
        ))
    })?;
    let (session, tx, log_level) = connected(&slot)?;
    let request_id = c.request_id.clone().unwrap_or_else(new_request_id);
    let control = Arc::new(RequestControl::new());
    {
        let mut reqs = app.requests();
        if reqs.contains_key(&request_id) {
            return Err(Error::conflict(format!(
                "request id {request_id:?} is already in flight; choose a fresh id (a UUID)"
            )));
        }
        reqs.insert(
            request_id.clone(),
            InFlight {
                control: control.clone(),
            },
        );
    }
    let _cleanup = RemoveOnDrop {
        app: app.clone(),
        id: request_id.clone(),
    };
    let era = session.era();
    let started_us = now_us();
    let new = NewEntry {
        server: name.to_string(),
        method: c.method.clone(),
        params: c.params.as_ref().map(|p| {
            let mut p = p.clone();
            tx.secrets.value(&mut p);
            p.to_string()
        }),
        started_at_us: started_us,
        era: Some(era.to_string()),
        parent_id: None,
        request_id: Some(request_id.clone()),
    };
    let store = app.store.clone();
    let new2 = new.clone();
    let hist = tokio::task::spawn_blocking(move || store.insert(&new2)).await??;
    app.events
        .publish(Event::History(views::pending_entry(hist, &new)));
    let _ = tx.send(Item::Begin(Active {
        hist,
        request_id: request_id.clone(),
        method: c.method.clone(),
        control: control.clone(),
        started: Instant::now(),
        frames: Vec::new(),
        exchanges: Vec::new(),
        children: 0,
        omitted: 0,
    }));
    let mut meta = c.meta.clone();
    if era == Era::Modern
        && let Some(level) = &log_level
        && !meta.contains_key(era::META_LOG_LEVEL)
    {
        meta.insert(era::META_LOG_LEVEL.into(), json!(level));
    }
    let opts = RequestOptions {
        meta,
        progress: c.progress,
        timeout: c.timeout,
        control: Some(control.clone()),
        ..Default::default()
    };
    let (outcome, pagination) = match &c.pages {
        Some(key) => crate::listing::all_pages(&session, &c, key, &opts, &tx).await,
        None => (
            session
                .request_with(&c.method, c.params.clone(), &opts)
                .await,
            None,
        ),
    };
    let excluded_tools = (c.method == "tools/list").then(|| session.excluded_tools());
    let (status, result_text, error, result) = match outcome {
        Ok(mut v) => {
            // The view gets the result as SQLite keeps it: without the connection's secrets.
            tx.secrets.value(&mut v);
            ("ok", Some(v.to_string()), None, Ok(v))
        }
        Err(e) => {
            let mut err = Error::from_client(&e).with("historyId", hist);
            if let Some(m) = tx.secrets.text(&err.message) {
                err.message = m;
            }
            for x in err.extra.values_mut() {
                tx.secrets.value(x);
            }
            let status = if err.code == mcpscope_proto::error_code::ErrorCode::Cancelled {
                "cancelled"
            } else {
                "error"
            };
            (status, None, Some(err.body()), Err(err))
        }
    };
    let (ack, done) = oneshot::channel();
    let sent = tx.send(Item::Finish {
        hist,
        status,
        result: result_text.clone(),
        error: error.clone(),
        ack,
    });
    if sent {
        let _ = done.await;
    } else {
        // The connection's processor is gone (the server went away): record it here.
        finish(app, hist, status, result_text, error, Vec::new()).await;
    }
    Ok(CallOutcome {
        history_id: hist,
        result,
        excluded_tools,
        pagination,
    })
}

struct RemoveOnDrop {
    app: Arc<Inspector>,
    id: String,
}

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        self.app.requests().remove(&self.id);
    }
}

/// A fresh id for a request whose page chose none: 128 random bits in hex.
pub(crate) fn new_request_id() -> String {
    crate::random_hex(16)
}

/// Cancel a request by the id its page chose. False when it is not in flight.
pub(crate) fn cancel(app: &Inspector, request_id: &str) -> bool {
    let control = app.requests().get(request_id).map(|f| f.control.clone());
    match control {
        Some(c) => c.cancel("cancelled by the user"),
        None => false,
    }
}

impl Inspector {
    /// Connect `name` (from the catalog), with an era chosen for this connection (`legacy`,
    /// `modern`, `auto`; `None`: the entry's). Returns `ServerInfo`; an already connected server
    /// is not connected again unless an era is given.
    pub async fn connect(self: &Arc<Self>, name: &str, era: Option<String>) -> Result<Value> {
        connect(self, name, era).await
    }

    /// Disconnect `name` (a stdio server is stopped).
    pub async fn disconnect(self: &Arc<Self>, name: &str) -> Result<()> {
        if self.catalog.lock().await.get(name).is_none() {
            return Err(Error::not_found(format!(
                "no server named {name:?} in the catalog"
            )));
        }
        let slot = self.slots().get(name).cloned();
        if let Some(slot) = slot {
            disconnect(self, &slot).await;
            self.publish_status(name).await;
        }
        Ok(())
    }

    /// Close every connection (stdio servers are stopped), for a clean shutdown.
    pub async fn shutdown(self: &Arc<Self>) {
        let slots: Vec<Arc<Slot>> = self.slots().values().cloned().collect();
        for slot in slots {
            disconnect(self, &slot).await;
        }
    }

    /// `ServerInfo` of the connected server `name`.
    pub fn server_info(&self, name: &str) -> Result<Value> {
        let slot = self.slots().get(name).cloned();
        let info = slot.and_then(|sl| {
            let st = sl.st();
            (st.status == Some(Status::Connected))
                .then(|| st.info.clone())
                .flatten()
        });
        info.map(|i| views::server_info(&i)).ok_or_else(|| {
            Error::not_found(format!(
                "server {name:?} is not connected; connect it first"
            ))
        })
    }

    /// Choose `name`'s protocol era (`legacy`, `modern`, `auto`) and reconnect with it. The
    /// choice is saved in the catalog; a read-only catalog keeps it for this run only. Views are
    /// told to forget what they showed of the old connection (`reset`).
    pub async fn set_protocol_era(self: &Arc<Self>, name: &str, era: &str) -> Result<Value> {
        era.parse::<mcpscope_proto::era::EraPreference>()
            .map_err(Error::usage)?;
        let entry = self
            .catalog
            .lock()
            .await
            .get(name)
            .cloned()
            .ok_or_else(|| Error::not_found(format!("no server named {name:?} in the catalog")))?;
        let mut changed = entry.clone();
        changed.protocol_era = Some(era.to_string());
        let saved = self.catalog.lock().await.update(name, name, changed);
        let slot = self.slot(name).await?;
        disconnect(self, &slot).await;
        {
            let mut st = slot.st();
            // A read-only catalog (--config) cannot keep the choice: remember it for this run.
            st.era_override = match &saved {
                Ok(()) => None,
                Err(_) => Some(era.to_string()),
            };
            st.latency_ms = None;
        }
        slot.tools().clear();
        self.events.publish(Event::Reset(ResetEvent {
            server: name.to_string(),
        }));
        if saved.is_ok() {
            self.publish_catalog().await;
        }
        connect(self, name, None).await
    }

    /// Choose the log level of `name`'s server. Legacy servers are told now
    /// (`logging/setLevel`, with a history entry); on modern, where the level travels with each
    /// request, it goes into the `_meta` of every request from now on.
    pub async fn set_log_level(self: &Arc<Self>, name: &str, level: &str) -> Result<Value> {
        let slot = self.slot(name).await?;
        let (era, connected) = {
            let mut st = slot.st();
            st.log_level = Some(level.to_string());
            (
                st.info.as_ref().map(|i| i.era),
                st.status == Some(Status::Connected),
            )
        };
        if connected && era == Some(Era::Legacy) {
            let out = call(
                self,
                name,
                Call {
                    method: "logging/setLevel".into(),
                    params: Some(json!({"level": level})),
                    ..Call::default()
                },
            )
            .await?;
            let result = out.result?;
            return Ok(json!({"level": level, "applied": "logging/setLevel",
                             "historyId": out.history_id, "result": result}));
        }
        Ok(json!({"level": level, "applied": "meta"}))
    }

    /// Make a request on `name`'s connection with a history entry, tying everything it causes
    /// (progress, logs, server requests, frames) to that entry.
    pub async fn call(self: &Arc<Self>, name: &str, c: Call) -> Result<CallOutcome> {
        call(self, name, c).await
    }

    /// Cancel a request by the id its view chose. False when it is not in flight.
    pub fn cancel(&self, request_id: &str) -> bool {
        cancel(self, request_id)
    }

    /// The `inputSchema` of `tool` from the last `tools/list` answer on `name`'s connection.
    pub fn tool_schema(&self, name: &str, tool: &str) -> Result<Value> {
        let slot = self.slots().get(name).cloned();
        slot.and_then(|sl| {
            sl.tools()
                .get(tool)
                .filter(|schema| !schema.is_null())
                .cloned()
        })
        .ok_or_else(|| {
            Error::not_found(format!(
                "tool {tool:?} is not in the last tools/list of {name:?}; list the tools first"
            ))
        })
    }
}
