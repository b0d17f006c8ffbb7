//! The frame pipeline: one processor per connection turns its engine's traffic into what the
//! views show. It drains the connection's [`Queue`](crate::queue::Queue) in order, redacts each
//! frame, times responses against their requests, lints them against the schema of their
//! revision, judges the `Mcp-*` header verdicts, keeps them in the frame window, writes them to
//! SQLite and publishes them, and ties each to the history entry of the request that caused it
//! (by JSON-RPC id, progress token, or HTTP exchange), so a request's progress, logs and server
//! requests become children of its entry. Requests begin and finish through the same channel, so
//! an entry is complete — every frame and child in — before the call that made it returns.

use crate::events::{
    Event, LogEvent, NotificationEvent, ProgressEvent, RenderedFrame, ServerRequestEvent,
    WarningEvent,
};
use crate::frames::{self, FrameHead, LintFinding, VIEW_BODY_CAP, WebFrame};
use crate::interactions::{Interaction, InteractionClosed};
use crate::queue::{Active, Gauge, Item, Seen};
use crate::request::RESULT_CAP;
use crate::state::{Inspector, Slot};
use crate::verdicts::{self, HeaderVerdicts};
use crate::views;
use crate::views::Status;
use mcpscope_client::{RequestOrigin, SessionEvent};
use mcpscope_proto::lint::{LintContext, Revision};
use mcpscope_proto::redact::{self, Secrets};
use mcpscope_proto::{Classified, Direction, Frame, FrameKind, RequestId, now_us};
use mcpscope_store::Child;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc;

/// Messages larger than this are not linted.
const LINT_CAP: usize = 1 << 20;
/// Children (progress, logs, …) recorded per history entry; past it they are counted, and one
/// `omitted` child says how many (a flood of 100,000 logs must not become 100,000 rows).
const MAX_CHILDREN: usize = 1000;

/// A `log` child of a history entry, as stored.
#[derive(serde::Serialize)]
struct LogChild<'a> {
    level: &'a str,
    logger: Option<&'a str>,
    data: &'a Value,
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

/// The per-connection processor.
pub(crate) struct Processor {
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
    /// Open interactions: their cause's history entry, redacted params, origin in words, and
    /// when they were asked (a History row is placed at the question, not the answer).
    interactions: HashMap<u64, (Option<i64>, Value, String, Instant)>,
    /// This connection's number in the interaction queue.
    connection: u64,
}

impl Processor {
    /// Start the processor of connection `generation` of `slot`, draining `rx`.
    pub(crate) fn spawn(
        app: &Arc<Inspector>,
        slot: &Arc<Slot>,
        generation: u64,
        secrets: Arc<Secrets>,
        connection: u64,
        rx: mpsc::UnboundedReceiver<Item>,
        gauge: Arc<Gauge>,
    ) {
        let processor = Processor {
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
        };
        tokio::spawn(processor.run(rx, gauge));
    }

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
        if frame.direction == Direction::Out && role.request {
            let (app, id) = (&self.app, role.id.as_ref());
            crate::subscriptions::sent(app, &self.slot.name, method, id, message.as_deref());
        }
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
            app: None,
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
        // Only what calls need is kept (`state::KnownTool`): the input schemas as compact text,
        // the visibility as two bits, whole definitions for app tools only.
        let mut known = self.slot.tools();
        known.listed = true;
        for t in tools {
            known.remember(t);
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
                .and_then(|k| serde_json::from_str::<Value>(&k.schema).ok())
                .filter(|schema| !schema.is_null())
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
                (Some(s), _) => verdicts::answered(v, s, &frame.meta.headers, &frame.body),
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

    /// `data` is serialised only when the child is kept (past [`MAX_CHILDREN`] it is counted).
    async fn child(&mut self, hist: i64, kind: &str, data: &impl serde::Serialize) {
        self.child_at(hist, kind, data, Instant::now()).await;
    }

    /// A child placed at `at`, its offset from the request's start.
    async fn child_at(&mut self, hist: i64, kind: &str, data: &impl serde::Serialize, at: Instant) {
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
            offset_ms: at.saturating_duration_since(a.started).as_secs_f64() * 1000.0,
            data: serde_json::to_string(data).unwrap_or_default(),
        };
        let store = self.app.store.clone();
        let _ = tokio::task::spawn_blocking(move || store.add_child(hist, &child)).await;
    }

    /// An engine event: a child of the entry it belongs to, and an event for the views.
    async fn event(&mut self, mut e: SessionEvent) {
        self.redact_event(&mut e);
        let server = self.slot.name.clone();
        match e {
            SessionEvent::Progress {
                request,
                method,
                task,
                progress,
                total,
                message,
            } => {
                if let Some(task) = &task {
                    let tp = crate::tasks::TaskProgress {
                        progress,
                        total,
                        message: message.clone(),
                    };
                    crate::tasks::progressed(&self.app, &server, task, tp);
                }
                let p = ProgressEvent {
                    server,
                    request_id: None,
                    history_id: None,
                    method,
                    progress,
                    total,
                    message,
                };
                self.progress(&request, p).await;
            }
            SessionEvent::Log {
                level,
                logger,
                data,
            } => {
                let hist = self.current.or_else(|| self.sole_active());
                if let Some(h) = hist {
                    // Serialised from the event's own parts: a flood's payloads are not copied.
                    let payload = LogChild {
                        level: &level,
                        logger: logger.as_deref(),
                        data: &data,
                    };
                    self.child(h, "log", &payload).await;
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
                crate::subscriptions::notified(&self.app, &server, &method, params.as_ref());
                if let Some(h) = self.current {
                    let data = json!({"method": method, "params": params});
                    self.child(h, "notification", &data).await;
                }
                let n = NotificationEvent {
                    server,
                    method,
                    params,
                };
                self.app.events.publish(Event::Notification(n));
            }
            // The responder reports each server request with its params and our answer.
            SessionEvent::ServerRequest { .. } => {}
            // Auto found a legacy server: the era every view shows says so; not a warning.
            SessionEvent::Note { .. } => {}
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

    /// A progress notification for `request`: a child of its entry, and the event with the
    /// view's request id and the entry filled in.
    async fn progress(&mut self, request: &RequestId, mut p: ProgressEvent) {
        if let Some(i) = self.active_for_id(request) {
            let hist = self.active[i].hist;
            p.history_id = Some(hist);
            p.request_id = Some(self.active[i].request_id.clone());
            let data = json!({"progress": p.progress, "total": p.total, "message": p.message});
            self.child(hist, "progress", &data).await;
        }
        self.app.events.publish(Event::Progress(p));
    }

    /// A server may echo a secret in a log or notification (an env secret printed back).
    fn redact_event(&self, e: &mut SessionEvent) {
        match e {
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
            SessionEvent::ServerRequest { .. } | SessionEvent::Note { .. } => {}
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
                Instant::now(),
            ),
        );
        self.app
            .events
            .publish(Event::InteractionOpened(interaction));
    }

    /// One row per interaction in its cause's history entry (kind `serverRequest`, with how it
    /// ended), the `serverRequest` event views already read, and `interactionClosed`.
    async fn interaction_closed(&mut self, mut closed: InteractionClosed) {
        let (hist, params, origin, asked) = self.interactions.remove(&closed.id).unwrap_or((
            None,
            Value::Null,
            String::new(),
            Instant::now(),
        ));
        closed.history_id = hist;
        let method = closed.method.clone();
        if closed.kind == crate::interactions::InteractionKind::Other {
            self.unknown_request(&method, &closed.answer);
        }
        if let Some(h) = hist {
            // Placed when it was asked; how long the answer took is said beside it.
            let answered_after = asked.elapsed().as_secs_f64() * 1000.0;
            let row = json!({"method": method, "params": params, "origin": origin,
                "answer": closed.answer, "interactionId": closed.id, "kind": closed.kind,
                "round": closed.round, "outcome": closed.outcome, "reason": closed.reason,
                "answeredAfterMs": answered_after});
            self.child_at(h, "serverRequest", &row, asked).await;
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

    /// A server request of a method no client knows: a warning row says what it was and what
    /// the server got, so it is not only a card that closed as soon as it opened.
    fn unknown_request(&self, method: &str, answer: &Value) {
        let got = match answer.get("error") {
            Some(e) => format!("error {} {}", e["code"], e["message"]),
            None => format!(
                "the result {}",
                answer.get("result").unwrap_or(&Value::Null)
            ),
        };
        let message = format!(
            "the server sent the request {method:?}, a method this client does not know; answered {got}"
        );
        self.app.events.publish(Event::Warning(WarningEvent {
            server: self.slot.name.clone(),
            message,
            frame_seq: None,
        }));
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
pub(crate) async fn finish(
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
