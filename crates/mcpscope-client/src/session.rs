//! The session: one connection to one server, its lifecycle, and every request made on it.
//!
//! A `Session` owns the transport, numbers and records every frame (observers see each one before
//! the engine acts on it), correlates responses with requests, routes server requests to the
//! [`Responder`], applies the era's rules to what we send (`_meta` envelope and `Mcp-*` headers in
//! the modern era), and drives the multi-step exchanges: `input_required` rounds, the `-32022`
//! version retry, the `-32020` header-mismatch refetch, and re-initialization after a legacy
//! session expires. Every request has a timeout that resets on progress and can be cancelled with
//! the era- and transport-correct signal.

use crate::control::RequestControl;
use crate::error::ClientError;
use crate::events::{Observer, Recorded, SessionEvent};
use crate::responder::{RequestOrigin, Responder, ServerRequest};
use bytes::Bytes;
use mcpscope_proto::era::{self, Era, EraPreference, ProbeVerdict};
use mcpscope_proto::headers::{self, ParamHeader};
use mcpscope_proto::{Classified, Direction, Frame, FrameKind, RequestId, RpcError};
use mcpscope_transport::{
    Connection, Outgoing, Target, TransportError, TransportEvent, TransportOptions,
};
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Notify, oneshot};

/// How many stderr lines a session keeps for error messages.
const STDERR_TAIL: usize = 10;

/// How long `close()` waits for answers to server requests still being prepared by the
/// responder. Long enough for any view that answers by itself (the CLI's flags); a person who
/// has not answered a dialog by the time the connection closes is not waited for.
const ANSWER_GRACE: Duration = Duration::from_secs(2);

/// How many pages [`Session::list_all`] fetches at most before it stops with
/// [`ListStop::PageLimit`]: a server that hands out fresh cursors forever must not keep a
/// one-shot client listing forever.
pub const MAX_LIST_PAGES: usize = 1_000;

/// Every page of a list, merged: what [`Session::list_all`] returns.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listing {
    /// The last page, with every page's items under the list key and no `nextCursor`.
    pub result: Value,
    /// How many pages were fetched.
    pub pages: usize,
    /// Why the walk stopped before the server said the list had ended; `None` when it did.
    /// The items of every page fetched are in `result` either way.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<ListStop>,
}

/// Why [`Session::list_all`] stopped while the server still offered a `nextCursor`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "reason",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ListStop {
    /// Page `page` handed out `cursor`, which page `first_page` had handed out already:
    /// following it would fetch the same pages again, forever.
    RepeatedCursor {
        /// The repeated cursor, as the server sent it.
        cursor: Value,
        /// The page (1-based) that repeated it.
        page: usize,
        /// The page that first handed it out.
        first_page: usize,
    },
    /// [`MAX_LIST_PAGES`] pages were fetched and the last still had a `nextCursor`.
    PageLimit {
        /// Pages fetched.
        pages: usize,
        /// The cursor not followed.
        next_cursor: Value,
    },
}

impl std::fmt::Display for ListStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ListStop::RepeatedCursor {
                cursor,
                page,
                first_page,
            } => write!(
                f,
                "the server repeated cursor {cursor} on page {page} (page {first_page} had handed it out already): following it would loop, so the list stops with the items of those {page} pages"
            ),
            ListStop::PageLimit { pages, next_cursor } => write!(
                f,
                "the server still offered a nextCursor ({next_cursor}) after {pages} pages, the limit: the list stops with the items of those pages, the rest was not fetched"
            ),
        }
    }
}

/// Options for a session.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// `--protocol-era`.
    pub era: EraPreference,
    /// Our `clientInfo` / `io.modelcontextprotocol/clientInfo`.
    pub client_info: Value,
    /// Deadline for connecting and the handshake (`None` = wait forever).
    pub connect_timeout: Option<Duration>,
    /// Deadline per request, reset by progress (`None` = wait forever).
    pub request_timeout: Option<Duration>,
    /// How long an Auto-mode probe waits before deciding "legacy" (stdio) or failing (HTTP).
    pub probe_timeout: Duration,
    /// Bound on `input_required` rounds per request.
    pub max_input_rounds: usize,
    /// Modern: `io.modelcontextprotocol/logLevel` stamped on every request.
    pub log_level: Option<String>,
    /// Extra `_meta` entries on every request (`--metadata`).
    pub metadata: Map<String, Value>,
    /// Transport knobs.
    pub transport: TransportOptions,
    /// For an HTTP target whose transport was not forced: fall back to HTTP+SSE when the
    /// Streamable HTTP POST is refused with 400/404/405.
    pub sse_fallback: bool,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            era: EraPreference::Legacy,
            client_info: json!({"name": "mcpscope", "version": env!("CARGO_PKG_VERSION")}),
            connect_timeout: Some(Duration::from_millis(15_000)),
            request_timeout: Some(Duration::from_millis(60_000)),
            probe_timeout: Duration::from_millis(3_000),
            max_input_rounds: 10,
            log_level: None,
            metadata: Map::new(),
            transport: TransportOptions::default(),
            sse_fallback: false,
        }
    }
}

/// Per-request knobs.
#[derive(Debug, Clone, Default)]
pub struct RequestOptions {
    /// Extra `_meta` entries for this request only (`--tool-metadata`).
    pub meta: Map<String, Value>,
    /// Ask for progress (adds `_meta.progressToken`).
    pub progress: bool,
    /// Override the session's request timeout (`Some(None)` = no timeout).
    pub timeout: Option<Option<Duration>>,
    /// Do not signal cancellation when the timeout fires (the Auto probe: a legacy server that
    /// never answered `server/discover` should not also receive a `notifications/cancelled`
    /// before `initialize`).
    pub quiet_timeout: bool,
    /// Lets another task cancel this request and learn its wire ids (see [`RequestControl`]).
    pub control: Option<Arc<RequestControl>>,
}

/// What the handshake established.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerInfo {
    /// The era in force.
    pub era: Era,
    /// The negotiated (legacy) or chosen (modern) protocol version.
    pub protocol_version: String,
    /// `serverInfo` (legacy) or `_meta["io.modelcontextprotocol/serverInfo"]` (modern).
    pub server_info: Value,
    /// Server capabilities.
    pub capabilities: Value,
    /// Instructions, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// Legacy Streamable HTTP session id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// How the era and transport were decided (probe verdicts, fallbacks).
    pub notes: Vec<String>,
    /// The raw `initialize` or `server/discover` result.
    pub handshake_result: Value,
}

enum Outcome {
    Result(Value),
    Error(RpcError),
    Failed(ClientError),
}

struct Pending {
    method: String,
    tx: oneshot::Sender<Outcome>,
    progress_token: Option<Value>,
    activity: Arc<Notify>,
}

struct State {
    pending: HashMap<RequestId, Pending>,
    /// Server request id → method, until our answer has been recorded.
    server_requests: HashMap<RequestId, String>,
    /// Server requests whose answer is still being prepared or sent (id → method): the count
    /// `close()` waits to reach zero, so a one-shot client does not close before answering.
    answering: HashMap<RequestId, String>,
    era: Era,
    version: Option<String>,
    info: Option<ServerInfo>,
    /// Tool name → its `x-mcp-header` headers, or why the tool is excluded.
    tool_headers: HashMap<String, Result<Vec<ParamHeader>, String>>,
    stderr_tail: VecDeque<String>,
    /// When the last frame was recorded (for [`Session::settle`]).
    last_frame: std::time::Instant,
    /// Requests that timed out (id → method, timeout), so a late answer is named, not "unknown".
    timed_out: HashMap<RequestId, (String, Duration)>,
    /// Why a message was thrown away (over-long line), for timeout messages.
    discarded: Option<String>,
    /// A legacy HTTP session that expired on a message that was not a request (a notification's
    /// 404): the next request must start a new session first.
    session_lost: Option<String>,
    /// A modern `server/discover` result that arrived after the Auto probe had timed out: if the
    /// legacy handshake it fell back to is then refused, the server is modern after all.
    late_modern: Option<Value>,
    /// Connection generation; events of older connections are ignored.
    generation: u64,
    closed: Option<String>,
    stage: String,
}

struct Shared {
    target: Mutex<Target>,
    conn: Mutex<Arc<Connection>>,
    opts: ClientOptions,
    responder: Arc<dyn Responder>,
    observer: Arc<dyn Observer>,
    state: Mutex<State>,
    next_id: AtomicI64,
    seq: AtomicU64,
    /// Woken when the engine has recorded the end of the current connection (see `close`).
    closed_seen: Notify,
    /// Woken whenever an answer to a server request has been handed to the transport (or could
    /// not be): `close()` waits on it while `State::answering` is not empty.
    answered: Notify,
}

/// A connection to one MCP server.
#[derive(Clone)]
pub struct Session {
    shared: Arc<Shared>,
}

impl Session {
    /// Connect and run the handshake the era calls for (`initialize`, `server/discover`, or the
    /// Auto probe), within the connect timeout. On failure the connection is closed.
    pub async fn connect(
        target: Target,
        opts: ClientOptions,
        responder: Arc<dyn Responder>,
        observer: Arc<dyn Observer>,
    ) -> Result<Session, ClientError> {
        let (conn, events) = Connection::open(&target, &opts.transport).await?;
        let credit = conn.read_credit();
        let era0 = match opts.era {
            EraPreference::Legacy => Era::Legacy,
            _ => Era::Modern,
        };
        let session = Session {
            shared: Arc::new(Shared {
                target: Mutex::new(target),
                conn: Mutex::new(Arc::new(conn)),
                opts,
                responder,
                observer,
                state: Mutex::new(State {
                    pending: HashMap::new(),
                    server_requests: HashMap::new(),
                    answering: HashMap::new(),
                    era: era0,
                    version: None,
                    info: None,
                    tool_headers: HashMap::new(),
                    timed_out: HashMap::new(),
                    last_frame: std::time::Instant::now(),
                    stderr_tail: VecDeque::new(),
                    discarded: None,
                    session_lost: None,
                    late_modern: None,
                    generation: 0,
                    closed: None,
                    stage: "starting".into(),
                }),
                next_id: AtomicI64::new(1),
                seq: AtomicU64::new(0),
                closed_seen: Notify::new(),
                answered: Notify::new(),
            }),
        };
        session.spawn_engine(events, 0, credit);
        let handshake = session.handshake();
        let result = match session.shared.opts.connect_timeout {
            Some(t) => {
                let mut handshake = std::pin::pin!(handshake);
                loop {
                    match tokio::time::timeout(t, &mut handshake).await {
                        Ok(r) => break r,
                        // An authorization is in progress (a login waits on a person): the
                        // server is not the one being slow.
                        Err(_) if session.authorizing() => continue,
                        Err(_) => {
                            // Read the stage in its own statement: a guard temporary inside the
                            // struct literal would still be held when `stderr_hint` locks the
                            // state again.
                            let stage = session.state().stage.clone();
                            break Err(ClientError::ConnectTimeout {
                                stage,
                                after: t,
                                detail: session.stderr_hint(),
                            });
                        }
                    }
                }
            }
            None => handshake.await,
        };
        match result {
            Ok(()) => Ok(session),
            Err(e) => {
                session.cancel_all("connection attempt failed");
                session.close().await;
                Err(e)
            }
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.shared.state.lock().expect("session state lock")
    }

    /// True while the auth provider is authorizing (a login may wait on a person); timeouts
    /// wait with it.
    fn authorizing(&self) -> bool {
        self.shared
            .opts
            .transport
            .auth
            .as_ref()
            .is_some_and(|a| a.authorizing())
    }

    fn conn(&self) -> Arc<Connection> {
        self.shared.conn.lock().expect("conn lock").clone()
    }

    fn set_stage(&self, stage: impl Into<String>) {
        self.state().stage = stage.into();
    }

    /// What the handshake established.
    pub fn server_info(&self) -> Option<ServerInfo> {
        self.state().info.clone()
    }

    /// The era in force.
    pub fn era(&self) -> Era {
        self.state().era
    }

    /// The protocol version in force.
    pub fn protocol_version(&self) -> Option<String> {
        self.state().version.clone()
    }

    /// Tools excluded from calls because of invalid `x-mcp-header` annotations (modern HTTP), with
    /// the reason, as of the last `tools/list`.
    pub fn excluded_tools(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = self
            .state()
            .tool_headers
            .iter()
            .filter_map(|(name, r)| r.as_ref().err().map(|e| (name.clone(), e.clone())))
            .collect();
        v.sort();
        v
    }

    /// Whether `x-mcp-header` rules apply (modern era over Streamable HTTP).
    pub fn mirrors_param_headers(&self) -> bool {
        self.era() == Era::Modern && matches!(*self.conn(), Connection::Http(_))
    }

    /// The server's last stderr lines.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.state().stderr_tail.iter().cloned().collect()
    }

    fn stderr_hint(&self) -> Option<String> {
        let tail = self.stderr_tail();
        if tail.is_empty() {
            return None;
        }
        Some(format!(
            "server stderr (last lines):\n  {}",
            tail.join("\n  ")
        ))
    }

    // ----- the engine: recording and dispatching transport events -----

    fn spawn_engine(
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
            (m, Some(c))
        } else {
            (None, None)
        };
        let method = match &classified {
            Some(Classified::Request { method, .. } | Classified::Notification { method }) => {
                Some(method.clone())
            }
            Some(Classified::Response { id } | Classified::ErrorResponse { id: Some(id), .. }) => {
                let st = self.state();
                match frame.direction {
                    Direction::In => st.pending.get(id).map(|p| p.method.clone()),
                    _ => st.server_requests.get(id).cloned(),
                }
            }
            _ => None,
        };
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
            return;
        }
        if !act {
            return;
        }
        if frame.direction == Direction::In && frame.meta.truncated {
            // A message cut short cannot be parsed, so it is never classified below: say so
            // here, or it passes without a word. The trace keeps its head.
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

    fn warn(&self, message: impl Into<String>, frame_seq: Option<u64>) {
        self.shared.observer.on_event(&SessionEvent::Warning {
            message: message.into(),
            frame_seq,
        });
    }

    fn dispatch(&self, frame: &Frame, message: Option<Value>, classified: Classified) {
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
            }
            Classified::Batch(n) => {
                self.warn(
                    format!("{where_} is a JSON-RPC batch of {n} messages; MCP forbids batching (processing each)"),
                    Some(frame.seq),
                );
                if let Some(Value::Array(items)) = message {
                    for item in items {
                        let c = mcpscope_proto::classify(&item);
                        self.dispatch(frame, Some(item), c);
                    }
                }
            }
            Classified::Response { id } => {
                let Some(mut message) = message else { return };
                let result = message
                    .as_object_mut()
                    .and_then(|o| o.remove("result"))
                    .unwrap_or(Value::Null);
                self.resolve(&id, Outcome::Result(result), frame.seq);
            }
            Classified::ErrorResponse {
                id: Some(id),
                error,
            } => self.resolve(&id, Outcome::Error(error), frame.seq),
            Classified::ErrorResponse { id: None, error } => {
                self.warn(format!("error response without an id (the server could not read a request): {error}"), Some(frame.seq));
            }
            Classified::Notification { method } => {
                let params =
                    message.and_then(|mut m| m.as_object_mut().and_then(|o| o.remove("params")));
                self.on_notification(method, params, frame.seq);
            }
            Classified::Request { id, method } => {
                let params = message
                    .and_then(|mut m| m.as_object_mut().and_then(|o| o.remove("params")))
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
                let _ = p.tx.send(outcome);
            }
            (None, Some((method, after))) => {
                let mut msg = format!(
                    "late answer to {method} (request {id}), which had timed out after {} ms",
                    after.as_millis()
                );
                if method == "server/discover"
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
        match method.as_str() {
            "notifications/progress" => {
                let p = params.unwrap_or_default();
                let token = p.get("progressToken").cloned().unwrap_or(Value::Null);
                let found = {
                    let st = self.state();
                    st.pending
                        .iter()
                        .find(|(_, pd)| pd.progress_token.as_ref() == Some(&token))
                        .map(|(id, pd)| (id.clone(), pd.method.clone(), pd.activity.clone()))
                };
                match found {
                    Some((id, m, activity)) => {
                        activity.notify_one();
                        self.shared.observer.on_event(&SessionEvent::Progress {
                            request: id,
                            method: m,
                            progress: p.get("progress").and_then(Value::as_f64).unwrap_or(0.0),
                            total: p.get("total").and_then(Value::as_f64),
                            message: p.get("message").and_then(Value::as_str).map(str::to_string),
                        });
                    }
                    None => self.warn(format!("progress for unknown token {token}"), Some(seq)),
                }
            }
            "notifications/message" => {
                let p = params.unwrap_or_default();
                self.shared.observer.on_event(&SessionEvent::Log {
                    level: p
                        .get("level")
                        .and_then(Value::as_str)
                        .unwrap_or("info")
                        .to_string(),
                    logger: p.get("logger").and_then(Value::as_str).map(str::to_string),
                    data: p.get("data").cloned().unwrap_or(Value::Null),
                });
                // Logs about a running request show it is alive (a modern server sends them on
                // that request's stream only); they do not reset timeouts, progress does.
            }
            "notifications/cancelled" => {
                // 2026-07-28: a server sends it (on stdio) solely to end a subscriptions/listen
                // of ours; fail that request now rather than wait forever. 2025-11-25: its id
                // names one of the server's own requests (ids overlap with ours), so it withdraws
                // that request and never touches ours.
                let id = params
                    .as_ref()
                    .and_then(|p| p.get("requestId"))
                    .and_then(RequestId::from_value);
                let pending = id.and_then(|id| {
                    let mut st = self.state();
                    let listens = st.era == Era::Modern
                        && st
                            .pending
                            .get(&id)
                            .is_some_and(|p| p.method == "subscriptions/listen");
                    if listens {
                        st.pending.remove(&id)
                    } else {
                        None
                    }
                });
                if let Some(p) = pending {
                    let reason = params
                        .as_ref()
                        .and_then(|p| p.get("reason"))
                        .and_then(Value::as_str)
                        .unwrap_or("no reason given")
                        .to_string();
                    let _ = p.tx.send(Outcome::Failed(ClientError::ServerCancelled {
                        method: p.method,
                        reason,
                    }));
                }
                self.shared
                    .observer
                    .on_event(&SessionEvent::Notification { method, params });
            }
            _ => self
                .shared
                .observer
                .on_event(&SessionEvent::Notification { method, params }),
        }
    }

    fn on_server_request(&self, id: RequestId, method: String, params: Value) {
        {
            let mut st = self.state();
            st.server_requests.insert(id.clone(), method.clone());
            st.answering.insert(id.clone(), method.clone());
        }
        self.shared.observer.on_event(&SessionEvent::ServerRequest {
            method: method.clone(),
            origin: format!("server request {id}"),
        });
        let this = self.clone();
        tokio::spawn(async move {
            let answer = if method == "ping" {
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
                this.warn(format!("could not answer server request {id}: {e}"), None);
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

    // ----- sending -----

    fn next_id(&self) -> RequestId {
        RequestId::Number(self.shared.next_id.fetch_add(1, Ordering::SeqCst))
    }

    /// Apply the era's envelope to `params`.
    fn envelope(
        &self,
        method: &str,
        params: Option<Value>,
        extra_meta: &Map<String, Value>,
        progress: Option<&Value>,
    ) -> Option<Value> {
        let (era, version) = {
            let st = self.state();
            (
                st.era,
                st.version
                    .clone()
                    .unwrap_or_else(|| era::MODERN_VERSION.to_string()),
            )
        };
        let mut meta = self.shared.opts.metadata.clone();
        meta.extend(extra_meta.iter().map(|(k, v)| (k.clone(), v.clone())));
        if let Some(t) = progress {
            meta.insert("progressToken".into(), t.clone());
        }
        let merge = |params: Option<Value>, meta: &Map<String, Value>| -> Option<Value> {
            if meta.is_empty() {
                return params;
            }
            let mut p = match params {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            let m = p
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(m) = m.as_object_mut() {
                for (k, v) in meta {
                    m.insert(k.clone(), v.clone());
                }
            }
            Some(Value::Object(p))
        };
        match era {
            Era::Legacy => merge(params, &meta),
            Era::Modern => {
                let caps = self.shared.responder.capabilities(Era::Modern);
                let _ = method;
                let stamped = era::stamp_modern_meta(
                    merge(params, &meta),
                    &version,
                    &caps,
                    &self.shared.opts.client_info,
                    self.shared.opts.log_level.as_deref(),
                );
                Some(stamped)
            }
        }
    }

    fn http_headers(&self, method: &str, params: Option<&Value>) -> Vec<(String, String)> {
        let (era, version) = {
            let st = self.state();
            (
                st.era,
                st.version
                    .clone()
                    .unwrap_or_else(|| era::MODERN_VERSION.to_string()),
            )
        };
        if era != Era::Modern || !matches!(*self.conn(), Connection::Http(_)) {
            return vec![];
        }
        let mut h = headers::standard_headers(&version, method, params);
        if method == "tools/call"
            && let Some(p) = params
            && let Some(name) = p.get("name").and_then(Value::as_str)
            && let Some(Ok(hs)) = self.state().tool_headers.get(name)
        {
            h.extend(headers::param_header_values(
                hs,
                p.get("arguments").unwrap_or(&Value::Null),
            ));
        }
        h
    }

    /// Send one request and wait for its outcome (no retries, no rounds).
    async fn send_once(
        &self,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
    ) -> Result<Value, ClientError> {
        if let Some(reason) = self.state().closed.clone() {
            return Err(ClientError::Closed(reason));
        }
        if let Some(reason) = opts.control.as_ref().and_then(|c| c.cancelled()) {
            return Err(ClientError::Cancelled {
                method: method.to_string(),
                reason,
            });
        }
        let id = self.next_id();
        let token = opts.progress.then(|| id.to_value());
        let params = self.envelope(method, params, &opts.meta, token.as_ref());
        let headers = self.http_headers(method, params.as_ref());
        let body = Bytes::from(
            serde_json::to_vec(&mcpscope_proto::request(&id, method, params))
                .expect("serializable"),
        );
        let (tx, rx) = oneshot::channel();
        let activity = Arc::new(Notify::new());
        self.state().pending.insert(
            id.clone(),
            Pending {
                method: method.to_string(),
                tx,
                progress_token: token,
                activity: activity.clone(),
            },
        );
        // Before the send: progress for this id may arrive before `send` returns.
        if let Some(c) = &opts.control {
            c.push_id(id.clone());
        }
        if let Err(e) = self
            .conn()
            .send(Outgoing {
                body,
                id: Some(id.clone()),
                headers,
            })
            .await
        {
            self.state().pending.remove(&id);
            return Err(e.into());
        }
        let timeout = opts.timeout.unwrap_or(self.shared.opts.request_timeout);
        let mut rx = rx;
        let cancel = async {
            match &opts.control {
                Some(c) => c.wait_cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(cancel);
        loop {
            let outcome = match timeout {
                None => tokio::select! {
                    o = &mut rx => o.ok(),
                    reason = &mut cancel => match self.cancel_one(&id, method, &reason).await {
                        Some(e) => return Err(e),
                        None => (&mut rx).await.ok(),
                    },
                },
                Some(t) => {
                    tokio::select! {
                        o = &mut rx => o.ok(),
                        reason = &mut cancel => match self.cancel_one(&id, method, &reason).await {
                            Some(e) => return Err(e),
                            None => (&mut rx).await.ok(),
                        },
                        _ = activity.notified() => continue,
                        _ = tokio::time::sleep(t) => {
                            if self.authorizing() {
                                continue;
                            }
                            let removed = {
                                let mut st = self.state();
                                let removed = st.pending.remove(&id).is_some();
                                if removed {
                                    // Bounded: a flood of timeouts must not grow memory forever.
                                    if st.timed_out.len() >= 1000 {
                                        st.timed_out.clear();
                                    }
                                    st.timed_out.insert(id.clone(), (method.to_string(), t));
                                }
                                removed
                            };
                            if removed {
                                if !opts.quiet_timeout {
                                    self.cancel_on_wire(&id, method, "request timed out").await;
                                }
                                // Two statements: the guard of the first must be gone before
                                // `stderr_hint` locks the state (same-thread deadlock otherwise).
                                let discarded = self.state().discarded.clone();
                                let detail = discarded.or_else(|| self.stderr_hint());
                                return Err(ClientError::Timeout { method: method.to_string(), after: t, detail });
                            }
                            // Answered while we were timing out: take the answer.
                            (&mut rx).await.ok()
                        }
                    }
                }
            };
            return match outcome {
                Some(Outcome::Result(v)) => Ok(v),
                Some(Outcome::Error(e)) => Err(ClientError::Rpc {
                    method: method.to_string(),
                    error: e,
                }),
                Some(Outcome::Failed(e)) => Err(e),
                None => Err(ClientError::Cancelled {
                    method: method.to_string(),
                    reason: "the request was dropped".into(),
                }),
            };
        }
    }

    /// Send a notification.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), ClientError> {
        let body = Bytes::from(
            serde_json::to_vec(&mcpscope_proto::notification(method, params))
                .expect("serializable"),
        );
        self.conn()
            .send(Outgoing {
                body,
                id: None,
                headers: vec![],
            })
            .await?;
        Ok(())
    }

    /// Signal cancellation of request `id` the way the era and transport call for: closing the
    /// response stream on modern HTTP, `notifications/cancelled` everywhere else. `initialize` is
    /// never cancelled (the spec forbids it).
    async fn cancel_on_wire(&self, id: &RequestId, method: &str, reason: &str) {
        if method == "initialize" {
            return;
        }
        let conn = self.conn();
        if self.era() == Era::Modern && conn.close_stream(id) {
            return;
        }
        let _ = self
            .notify(
                "notifications/cancelled",
                Some(json!({"requestId": id.to_value(), "reason": reason})),
            )
            .await;
    }

    /// Cancel one pending request (its [`RequestControl`] fired): signal it on the wire and give
    /// the error to return, or `None` when the answer won the race and should be taken instead.
    async fn cancel_one(&self, id: &RequestId, method: &str, reason: &str) -> Option<ClientError> {
        let removed = self.state().pending.remove(id).is_some();
        if !removed {
            return None;
        }
        self.cancel_on_wire(id, method, reason).await;
        Some(ClientError::Cancelled {
            method: method.to_string(),
            reason: reason.to_string(),
        })
    }

    /// Cancel every request in flight (Ctrl-C): each is signalled on the wire and fails with
    /// `Cancelled`. Returns how many were cancelled.
    pub fn cancel_all(&self, reason: &str) -> usize {
        let pending: Vec<(RequestId, Pending)> = self.state().pending.drain().collect();
        let n = pending.len();
        for (id, p) in pending {
            let this = self.clone();
            let reason2 = reason.to_string();
            let method = p.method.clone();
            let _ = p.tx.send(Outcome::Failed(ClientError::Cancelled {
                method: p.method,
                reason: reason.to_string(),
            }));
            // Fire and forget, but the CLI awaits `cancel_all_on_wire` before exiting.
            tokio::spawn(async move { this.cancel_on_wire(&id, &method, &reason2).await });
        }
        n
    }

    /// Like [`Session::cancel_all`], but waits until each cancellation has been handed to the wire.
    pub async fn cancel_all_on_wire(&self, reason: &str) -> usize {
        let pending: Vec<(RequestId, Pending)> = self.state().pending.drain().collect();
        let n = pending.len();
        for (id, p) in pending {
            self.cancel_on_wire(&id, &p.method, reason).await;
            let _ = p.tx.send(Outcome::Failed(ClientError::Cancelled {
                method: p.method,
                reason: reason.to_string(),
            }));
        }
        n
    }

    /// Send a request and drive it to completion: `input_required` rounds (modern), the `-32022`
    /// version retry, the `-32020` header refetch, and re-initialization after an expired legacy
    /// session. A modern `resultType: "task"` result is returned as is (see [`Session::await_task`]).
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, ClientError> {
        self.request_with(method, params, &RequestOptions::default())
            .await
    }

    /// [`Session::request`] with per-request options.
    pub async fn request_with(
        &self,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
    ) -> Result<Value, ClientError> {
        if method == "tools/call" && self.mirrors_param_headers() {
            self.ensure_tool_schema(params.as_ref()).await?;
        }
        let original = params.clone();
        let mut params = params;
        let mut rounds = 0;
        let mut retried_version = false;
        let mut retried_headers = false;
        let mut reinitialized = false;
        loop {
            // The transport already forgot the dead session id; a request sent now would go
            // without one and be refused as "session id required" instead of being retried.
            let lost = self.state().session_lost.take();
            if let Some(session_id) = lost
                && self.era() == Era::Legacy
            {
                reinitialized = true;
                self.warn(format!("session {session_id} expired (HTTP 404 to a notification); initializing a new session before {method}"), None);
                self.initialize(&mut Vec::new()).await?;
            }
            match self.send_once(method, params.clone(), opts).await {
                Ok(result) => {
                    if method == "tools/list" {
                        self.learn_tools(&result);
                    }
                    if self.era() != Era::Modern {
                        return Ok(result);
                    }
                    match era::result_type(&result) {
                        "complete" | "task" => return Ok(result),
                        "input_required" if era::may_require_input(method) => {
                            rounds += 1;
                            if rounds > self.shared.opts.max_input_rounds {
                                return Err(ClientError::TooManyRounds {
                                    method: method.to_string(),
                                    rounds: rounds - 1,
                                    last: result,
                                });
                            }
                            let responses = self
                                .fulfil(method, rounds, result.get("inputRequests"))
                                .await?;
                            let mut next = match original.clone() {
                                Some(Value::Object(m)) => m,
                                _ => Map::new(),
                            };
                            if !responses.is_empty() {
                                next.insert("inputResponses".into(), Value::Object(responses));
                            }
                            if let Some(state) = result.get("requestState") {
                                next.insert("requestState".into(), state.clone());
                            }
                            params = Some(Value::Object(next));
                            continue;
                        }
                        other => {
                            return Err(ClientError::Protocol(format!(
                                "{method} returned resultType {other:?}, which this request cannot have; the result is invalid"
                            )));
                        }
                    }
                }
                Err(ClientError::Rpc { error, .. })
                    if error.code == era::UNSUPPORTED_PROTOCOL_VERSION
                        && self.era() == Era::Modern
                        && !retried_version =>
                {
                    retried_version = true;
                    let current = self
                        .protocol_version()
                        .unwrap_or_else(|| era::MODERN_VERSION.to_string());
                    let supported = era::supported_versions(&error);
                    match era::MODERN_VERSIONS
                        .iter()
                        .find(|v| supported.iter().any(|s| s == *v))
                    {
                        Some(v) if *v != current => {
                            self.warn(
                                format!(
                                    "{method}: server does not support {current}; retrying with {v}"
                                ),
                                None,
                            );
                            self.state().version = Some(v.to_string());
                        }
                        Some(_) => {
                            // The server claims to support the version it just rejected: retry once as is.
                        }
                        None => {
                            return Err(ClientError::Rpc {
                                method: method.to_string(),
                                error,
                            });
                        }
                    }
                }
                Err(ClientError::Rpc { error, .. })
                    if error.code == era::HEADER_MISMATCH
                        && method == "tools/call"
                        && !retried_headers =>
                {
                    retried_headers = true;
                    self.warn(
                        format!("tools/call: server reports a header mismatch ({}); refetching tools/list and retrying once", error.message),
                        None,
                    );
                    self.refresh_tools().await?;
                }
                Err(ClientError::Transport(TransportError::SessionExpired { session_id }))
                    if self.era() == Era::Legacy && method != "initialize" && !reinitialized =>
                {
                    reinitialized = true;
                    self.warn(format!("session {session_id} expired (HTTP 404); initializing a new session and retrying {method}"), None);
                    self.conn().reset_session();
                    self.initialize(&mut Vec::new()).await?;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Answer every entry of an `inputRequests` map through the responder.
    async fn fulfil(
        &self,
        method: &str,
        round: usize,
        requests: Option<&Value>,
    ) -> Result<Map<String, Value>, ClientError> {
        let mut out = Map::new();
        let Some(map) = requests.and_then(Value::as_object) else {
            return Ok(out);
        };
        for (key, req) in map {
            let inner = req
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            self.shared.observer.on_event(&SessionEvent::ServerRequest {
                method: inner.clone(),
                origin: format!("input_required round {round} of {method}, key {key:?}"),
            });
            let answer = self
                .shared
                .responder
                .respond(ServerRequest {
                    method: inner.clone(),
                    params: req.get("params").cloned().unwrap_or_else(|| json!({})),
                    origin: RequestOrigin::InputRequired {
                        key: key.clone(),
                        round,
                        for_method: method.to_string(),
                    },
                })
                .await;
            match answer {
                Ok(v) => {
                    out.insert(key.clone(), v);
                }
                Err(e) => {
                    return Err(ClientError::InputRefused {
                        method: method.to_string(),
                        input_method: inner,
                        key: key.clone(),
                        reason: e.message,
                    });
                }
            }
        }
        Ok(out)
    }

    /// Remember each tool's `x-mcp-header` headers (or why it is excluded).
    fn learn_tools(&self, result: &Value) {
        let Some(tools) = result.get("tools").and_then(Value::as_array) else {
            return;
        };
        let mut st = self.state();
        for t in tools {
            let Some(name) = t.get("name").and_then(Value::as_str) else {
                continue;
            };
            let schema = t.get("inputSchema").cloned().unwrap_or(Value::Null);
            st.tool_headers
                .insert(name.to_string(), headers::param_headers(&schema));
        }
    }

    async fn ensure_tool_schema(&self, params: Option<&Value>) -> Result<(), ClientError> {
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            return Ok(());
        };
        let known = self.state().tool_headers.get(name).cloned();
        match known {
            Some(Err(reason)) => Err(ClientError::Protocol(format!(
                "tool {name:?} is excluded: {reason}; a modern client must not call a tool whose x-mcp-header annotations are invalid"
            ))),
            Some(Ok(_)) => Ok(()),
            None => {
                // Mirror headers from the current schema rather than sending none.
                self.refresh_tools().await?;
                match self.state().tool_headers.get(name) {
                    Some(Err(reason)) => Err(ClientError::Protocol(format!(
                        "tool {name:?} is excluded: {reason}; a modern client must not call a tool whose x-mcp-header annotations are invalid"
                    ))),
                    _ => Ok(()),
                }
            }
        }
    }

    /// Fetch every page of `tools/list` to refresh the header cache. Boxed: it is reached from
    /// inside `request_with`, which it calls again.
    fn refresh_tools(&self) -> futures::future::BoxFuture<'_, Result<(), ClientError>> {
        Box::pin(async move {
            let listing = self.list_all("tools/list", "tools", None).await?;
            // No view asked for this list, so no view would say it was cut short.
            if let Some(stop) = listing.stop {
                self.warn(
                    format!("tools/list (refreshing the tool cache): {stop}"),
                    None,
                );
            }
            Ok(())
        })
    }

    /// Fetch every page of a list method (`tools/list`, `resources/list`, …) and merge the
    /// pages' arrays under `key` (`tools`, `resources`, …). The one owner of pagination: every
    /// view lists through it.
    ///
    /// An empty-string cursor is a valid cursor (only its absence ends the list). The walk never
    /// stops silently: a cursor the server hands back a second time, or more than
    /// [`MAX_LIST_PAGES`] pages, ends it with the items gathered so far kept and the reason in
    /// [`Listing::stop`] for the caller to show. A failed page fails the whole list.
    ///
    /// ```no_run
    /// # async fn f(session: mcpscope_client::Session) -> Result<(), mcpscope_client::ClientError> {
    /// let listing = session.list_all("tools/list", "tools", None).await?;
    /// if let Some(stop) = &listing.stop {
    ///     eprintln!("warning: tools/list: {stop}");
    /// }
    /// println!("{} tools in {} pages", listing.result["tools"].as_array().map_or(0, Vec::len), listing.pages);
    /// # Ok(()) }
    /// ```
    pub async fn list_all(
        &self,
        method: &str,
        key: &str,
        params: Option<Value>,
    ) -> Result<Listing, ClientError> {
        self.list_all_with(method, key, params, &RequestOptions::default())
            .await
    }

    /// [`Session::list_all`] with per-request options, applied to every page: pass one
    /// [`RequestControl`] to cancel the whole walk or follow its wire ids.
    pub async fn list_all_with(
        &self,
        method: &str,
        key: &str,
        params: Option<Value>,
        opts: &RequestOptions,
    ) -> Result<Listing, ClientError> {
        let mut cursor: Option<Value> = None;
        let mut items: Vec<Value> = Vec::new();
        // Each cursor handed out so far, with the page that handed it out.
        let mut seen: Vec<(Value, usize)> = Vec::new();
        let mut pages = 0usize;
        let (mut last, stop) = loop {
            let mut p = match params.clone() {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            if let Some(c) = &cursor {
                p.insert("cursor".into(), c.clone());
            }
            let mut page = self
                .request_with(method, Some(Value::Object(p)), opts)
                .await?;
            pages += 1;
            if let Some(Value::Array(a)) = page.get_mut(key).map(std::mem::take) {
                items.extend(a);
            }
            let Some(next) = page.get("nextCursor").filter(|c| !c.is_null()).cloned() else {
                break (page, None);
            };
            if let Some((_, first_page)) = seen.iter().find(|(c, _)| *c == next) {
                let stop = ListStop::RepeatedCursor {
                    cursor: next,
                    page: pages,
                    first_page: *first_page,
                };
                break (page, Some(stop));
            }
            if pages >= MAX_LIST_PAGES {
                let stop = ListStop::PageLimit {
                    pages,
                    next_cursor: next,
                };
                break (page, Some(stop));
            }
            seen.push((next.clone(), pages));
            cursor = Some(next);
        };
        if let Some(o) = last.as_object_mut() {
            o.insert(key.to_string(), Value::Array(items));
            o.remove("nextCursor");
        }
        Ok(Listing {
            result: last,
            pages,
            stop,
        })
    }

    // ----- lifecycle -----

    async fn handshake(&self) -> Result<(), ClientError> {
        let mut notes = Vec::new();
        match self.shared.opts.era {
            EraPreference::Legacy => self.initialize_with_fallback(&mut notes).await,
            EraPreference::Modern => {
                notes.push("protocol era pinned to modern (--protocol-era modern)".into());
                self.discover(&mut notes).await
            }
            EraPreference::Auto => self.probe(&mut notes).await,
        }
    }

    /// Legacy `initialize`; on an HTTP target that refuses Streamable HTTP, fall back to HTTP+SSE.
    async fn initialize_with_fallback(&self, notes: &mut Vec<String>) -> Result<(), ClientError> {
        match self.initialize(notes).await {
            Err(ClientError::Transport(TransportError::Status { status, .. }))
                if self.shared.opts.sse_fallback && matches!(status, 400 | 404 | 405) =>
            {
                let url = match &*self.shared.target.lock().expect("target lock") {
                    Target::Http { url, headers } => Some((url.clone(), headers.clone())),
                    _ => None,
                };
                let Some((url, headers)) = url else {
                    unreachable!("sse_fallback only for HTTP")
                };
                notes.push(format!(
                    "Streamable HTTP POST answered {status}: falling back to the deprecated HTTP+SSE transport (GET {url})"
                ));
                self.warn(notes.last().cloned().unwrap_or_default(), None);
                self.set_stage(format!("waiting for the endpoint event from GET {url}"));
                self.replace_connection(Target::Sse { url, headers })
                    .await?;
                self.initialize(notes).await
            }
            other => other,
        }
    }

    async fn replace_connection(&self, target: Target) -> Result<(), ClientError> {
        let old = self.conn();
        let (conn, events) = Connection::open(&target, &self.shared.opts.transport).await?;
        let credit = conn.read_credit();
        let generation = {
            let mut st = self.state();
            st.generation += 1;
            st.closed = None;
            st.generation
        };
        *self.shared.conn.lock().expect("conn lock") = Arc::new(conn);
        *self.shared.target.lock().expect("target lock") = target;
        self.spawn_engine(events, generation, credit);
        old.close().await;
        Ok(())
    }

    /// The legacy handshake: `initialize`, check the version, `notifications/initialized`.
    async fn initialize(&self, notes: &mut Vec<String>) -> Result<(), ClientError> {
        {
            let mut st = self.state();
            st.era = Era::Legacy;
            st.version = None;
        }
        self.conn().set_protocol_version(None);
        let mut version = era::LEGACY_VERSION.to_string();
        let mut retried = false;
        let result = loop {
            self.set_stage(format!(
                "waiting for the answer to initialize (protocolVersion {version})"
            ));
            let params = json!({
                "protocolVersion": version,
                "capabilities": self.shared.responder.capabilities(Era::Legacy),
                "clientInfo": self.shared.opts.client_info,
            });
            match self
                .send_once(
                    "initialize",
                    Some(params),
                    &RequestOptions {
                        timeout: Some(None),
                        ..Default::default()
                    },
                )
                .await
            {
                Ok(r) => break r,
                Err(ClientError::Rpc { error, .. }) if !retried => {
                    let supported = era::supported_versions(&error);
                    match era::LEGACY_VERSIONS
                        .iter()
                        .find(|v| supported.iter().any(|s| s == *v) && **v != version)
                    {
                        Some(v) => {
                            notes.push(format!(
                                "initialize at {version} refused ({error}); retrying at {v}"
                            ));
                            version = v.to_string();
                            retried = true;
                        }
                        None => {
                            return Err(ClientError::Rpc {
                                method: "initialize".into(),
                                error,
                            });
                        }
                    }
                }
                Err(e) => return Err(e),
            }
        };
        let negotiated = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if !era::LEGACY_VERSIONS.contains(&negotiated.as_str()) {
            return Err(ClientError::Protocol(format!(
                "the server answered initialize with protocolVersion {negotiated:?}, which mcpscope does not speak (it speaks {}); per the spec the client disconnects",
                era::LEGACY_VERSIONS.join(", ")
            )));
        }
        if negotiated != version {
            notes.push(format!(
                "server chose protocol version {negotiated} (we offered {version})"
            ));
        }
        self.state().version = Some(negotiated.clone());
        let conn = self.conn();
        conn.set_protocol_version(Some(negotiated.clone()));
        self.set_stage("sending notifications/initialized");
        self.notify("notifications/initialized", None).await?;
        self.set_stage("opening the standalone GET stream");
        conn.open_get_stream(Duration::from_secs(2)).await;
        let info = ServerInfo {
            era: Era::Legacy,
            protocol_version: negotiated,
            server_info: result.get("serverInfo").cloned().unwrap_or(Value::Null),
            capabilities: result
                .get("capabilities")
                .cloned()
                .unwrap_or_else(|| json!({})),
            instructions: result
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_string),
            transport: self
                .shared
                .target
                .lock()
                .expect("target lock")
                .transport_name()
                .to_string(),
            session_id: conn.session_id(),
            notes: notes.clone(),
            handshake_result: result,
        };
        self.state().info = Some(info);
        self.set_stage("connected");
        Ok(())
    }

    /// The modern handshake: `server/discover` (with the `-32022` retry inside `request`).
    async fn discover(&self, notes: &mut [String]) -> Result<(), ClientError> {
        {
            let mut st = self.state();
            st.era = Era::Modern;
            st.version = Some(era::MODERN_VERSION.to_string());
        }
        self.set_stage("waiting for the answer to server/discover");
        // The handshake is the connect timeout's, as `initialize` is: a slow-starting server
        // must not fail `--request-timeout`, which is for the request the user asked for.
        let handshake = RequestOptions {
            timeout: Some(None),
            ..Default::default()
        };
        let result = match self.request_with("server/discover", None, &handshake).await {
            Ok(r) => r,
            Err(ClientError::Rpc { error, .. }) if error.code == era::METHOD_NOT_FOUND => {
                return Err(ClientError::Protocol(format!(
                    "the server does not implement server/discover ({error}): it is probably a legacy server; try --protocol-era legacy or auto"
                )));
            }
            Err(e) => return Err(e),
        };
        let version = self
            .protocol_version()
            .unwrap_or_else(|| era::MODERN_VERSION.to_string());
        if let ProbeVerdict::Legacy { reason } = era::classify_probe(Ok(&result), &version) {
            return Err(ClientError::Protocol(format!(
                "{reason}; try --protocol-era legacy or auto"
            )));
        }
        self.finish_modern(result, notes);
        Ok(())
    }

    fn finish_modern(&self, result: Value, notes: &[String]) {
        let version = self
            .protocol_version()
            .unwrap_or_else(|| era::MODERN_VERSION.to_string());
        let server_info = result
            .get("_meta")
            .and_then(|m| m.get(era::META_SERVER_INFO))
            .or_else(|| result.get("serverInfo"))
            .cloned()
            .unwrap_or(Value::Null);
        let info = ServerInfo {
            era: Era::Modern,
            protocol_version: version,
            server_info,
            capabilities: result
                .get("capabilities")
                .cloned()
                .unwrap_or_else(|| json!({})),
            instructions: result
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_string),
            transport: self
                .shared
                .target
                .lock()
                .expect("target lock")
                .transport_name()
                .to_string(),
            session_id: None,
            notes: notes.to_vec(),
            handshake_result: result,
        };
        self.state().info = Some(info);
        self.set_stage("connected");
    }

    /// Auto: probe with `server/discover` and decide (wire reference §2.6).
    async fn probe(&self, notes: &mut Vec<String>) -> Result<(), ClientError> {
        {
            let mut st = self.state();
            st.era = Era::Modern;
            st.version = Some(era::MODERN_VERSION.to_string());
        }
        let is_stdio = matches!(*self.conn(), Connection::Stdio(_));
        let probe_timeout = self.shared.opts.probe_timeout;
        let mut version = era::MODERN_VERSION.to_string();
        let mut reprobed = false;
        loop {
            self.set_stage(format!(
                "probing with server/discover at {version} (Auto mode)"
            ));
            let opts = RequestOptions {
                timeout: Some(Some(probe_timeout)),
                quiet_timeout: true,
                ..Default::default()
            };
            let outcome = self.send_once("server/discover", None, &opts).await;
            let verdict = match &outcome {
                Ok(result) => era::classify_probe(Ok(result), &version),
                Err(ClientError::Rpc { error, .. }) => era::classify_probe(Err(error), &version),
                Err(ClientError::Timeout { .. }) if is_stdio => ProbeVerdict::Legacy {
                    reason: format!(
                        "no answer to server/discover within {} ms (--probe-timeout)",
                        probe_timeout.as_millis()
                    ),
                },
                Err(ClientError::Closed(reason)) if is_stdio => ProbeVerdict::Legacy {
                    reason: format!("the server exited on server/discover ({reason})"),
                },
                Err(ClientError::Transport(TransportError::Status { status, .. }))
                    if (400..500).contains(status) =>
                {
                    ProbeVerdict::Legacy {
                        reason: format!(
                            "server/discover answered HTTP {status} without a modern JSON-RPC error"
                        ),
                    }
                }
                Err(e) => ProbeVerdict::NotEvidence {
                    reason: e.to_string(),
                },
            };
            match verdict {
                ProbeVerdict::Modern { version: v } => {
                    notes.push(format!(
                        "Auto: server/discover succeeded; speaking modern {v}"
                    ));
                    self.state().version = Some(v);
                    match outcome {
                        Ok(result) => {
                            self.finish_modern(result, notes);
                            return Ok(());
                        }
                        // A recognised modern error (-32020/-32021): modern, but discover must be redone right.
                        Err(_) => return self.discover(notes).await,
                    }
                }
                ProbeVerdict::RetryAt { version: v } if !reprobed => {
                    notes.push(format!(
                        "Auto: server rejected {version} but supports {v}; probing again"
                    ));
                    reprobed = true;
                    version = v.clone();
                    self.state().version = Some(v);
                }
                ProbeVerdict::RetryAt { version: v } => {
                    return Err(ClientError::Protocol(format!(
                        "server rejected protocol version {v} twice during the Auto probe"
                    )));
                }
                ProbeVerdict::Legacy { reason } => {
                    notes.push(format!(
                        "Auto: legacy server ({reason}); falling back to initialize"
                    ));
                    self.warn(notes.last().cloned().unwrap_or_default(), None);
                    if is_stdio && self.state().closed.is_some() {
                        // The probe killed the server (rmcp-based servers exit on a pre-initialize
                        // request): start it again for the legacy handshake.
                        let target = self.shared.target.lock().expect("target lock").clone();
                        notes.push("restarted the server process after the probe".into());
                        self.replace_connection(target).await?;
                    }
                    let legacy = self.initialize_with_fallback(notes).await;
                    let late = self.state().late_modern.take();
                    return match (legacy, late) {
                        // A slow-starting modern server (npx, a loaded machine): it answered the
                        // probe late and refuses initialize, so the probe's verdict was wrong.
                        (Err(e @ ClientError::Rpc { .. }), Some(result)) => {
                            notes.push(format!(
                                "Auto: initialize was refused ({e}) and the server had answered server/discover as a modern server after the probe timeout: speaking modern"
                            ));
                            self.warn(notes.last().cloned().unwrap_or_default(), None);
                            {
                                let mut st = self.state();
                                st.era = Era::Modern;
                                st.version = Some(era::MODERN_VERSION.to_string());
                            }
                            self.finish_modern(result, notes);
                            Ok(())
                        }
                        (legacy, _) => legacy,
                    };
                }
                ProbeVerdict::NotEvidence { .. } => {
                    return Err(outcome
                        .err()
                        .unwrap_or_else(|| ClientError::Protocol("probe failed".into())));
                }
            }
        }
    }

    /// Wait until the wire has been quiet for `quiet` (at most `max`). On legacy HTTP a server
    /// may send a request's logs on the GET stream, which can arrive after the response on the
    /// POST stream; a one-shot client that closes at once would lose them.
    pub async fn settle(&self, quiet: Duration, max: Duration) {
        let deadline = std::time::Instant::now() + max;
        loop {
            let since = self.state().last_frame.elapsed();
            if since >= quiet || std::time::Instant::now() >= deadline {
                return;
            }
            tokio::time::sleep(quiet - since).await;
        }
    }

    /// Close the connection (stdin, SIGTERM, SIGKILL for stdio; DELETE for a legacy HTTP session).
    ///
    /// Answers to server requests that the responder is still preparing are waited for first
    /// (at most 2 s), so a server that asked something just before the caller's last result —
    /// `roots/list` on `initialized`, say — gets its answer; what is still unanswered after that
    /// is named in a warning.
    pub async fn close(&self) {
        self.await_answers(ANSWER_GRACE).await;
        self.conn().close().await;
        // The connection's last events (the exit status, the final stderr lines) may still be
        // queued for the engine task. Wait until it has recorded the end of the connection, so
        // observers have seen every frame when the caller tears down. Bounded: a transport that
        // never reports its end must not hang the caller.
        let drained = async {
            loop {
                let notified = self.shared.closed_seen.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if self.state().closed.is_some() {
                    return;
                }
                notified.await;
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(2), drained).await;
    }

    /// Wait until every answer to a server request has been handed to the transport, at most
    /// `grace`; then warn about each one still unanswered.
    async fn await_answers(&self, grace: Duration) {
        let all_sent = async {
            loop {
                let notified = self.shared.answered.notified();
                tokio::pin!(notified);
                // Registered before the check: an answer sent in between still wakes us.
                notified.as_mut().enable();
                if self.state().answering.is_empty() {
                    return;
                }
                notified.await;
            }
        };
        if tokio::time::timeout(grace, all_sent).await.is_ok() {
            return;
        }
        let mut left: Vec<String> = self
            .state()
            .answering
            .iter()
            .map(|(id, method)| format!("{method} (server request {id})"))
            .collect();
        left.sort();
        self.warn(
            format!(
                "closing the connection with {} still unanswered after {} ms: {}",
                if left.len() == 1 {
                    "a server request".to_string()
                } else {
                    format!("{} server requests", left.len())
                },
                grace.as_millis(),
                left.join(", ")
            ),
            None,
        );
    }

    /// Wait for a task to finish and return the final result.
    ///
    /// Modern (`io.modelcontextprotocol/tasks`): poll `tasks/get` (honouring `pollIntervalMs`),
    /// answer `inputRequests` with `tasks/update`, and return the `DetailedTask` at a terminal
    /// status. Legacy (2025-11-25 core tasks): poll `tasks/get` (honouring `pollInterval`) until
    /// terminal, then fetch the payload with `tasks/result`.
    pub async fn await_task(&self, task_id: &str) -> Result<Value, ClientError> {
        let mut answered: Vec<String> = Vec::new();
        let mut round = 0;
        loop {
            let task = self
                .request("tasks/get", Some(json!({"taskId": task_id})))
                .await?;
            let status = task
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            match (self.era(), status.as_str()) {
                (Era::Modern, "completed" | "failed" | "cancelled") => return Ok(task),
                (Era::Legacy, "completed" | "failed" | "cancelled") => {
                    return self
                        .request("tasks/result", Some(json!({"taskId": task_id})))
                        .await;
                }
                (Era::Modern, "input_required") => {
                    // Keys are unique for the task's lifetime: answer each once.
                    let pending: Map<String, Value> = task
                        .get("inputRequests")
                        .and_then(Value::as_object)
                        .map(|m| {
                            m.iter()
                                .filter(|(k, _)| !answered.contains(k))
                                .map(|(k, v)| (k.clone(), v.clone()))
                                .collect()
                        })
                        .unwrap_or_default();
                    if !pending.is_empty() {
                        round += 1;
                        let responses = self
                            .fulfil("tasks/get", round, Some(&Value::Object(pending)))
                            .await?;
                        answered.extend(responses.keys().cloned());
                        self.request(
                            "tasks/update",
                            Some(json!({"taskId": task_id, "inputResponses": responses})),
                        )
                        .await?;
                        continue;
                    }
                }
                _ => {}
            }
            let interval = task
                .get("pollIntervalMs")
                .or_else(|| task.get("pollInterval"))
                .and_then(Value::as_u64)
                .unwrap_or(500)
                .clamp(50, 10_000);
            tokio::time::sleep(Duration::from_millis(interval)).await;
        }
    }
}
