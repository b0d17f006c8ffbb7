//! The session: one connection to one server, its lifecycle, and every request made on it.
//!
//! A [`Session`] owns the transport, numbers and records every frame (observers see each one
//! before the engine acts on it), correlates responses with requests, routes server requests to
//! the [`Responder`], applies the era's rules to what we send (`_meta` envelope and `Mcp-*`
//! headers in the modern era), and drives the multi-step exchanges: `input_required` rounds, the
//! `-32022` version retry, the `-32020` header-mismatch refetch, and re-initialization after a
//! legacy session expires. Every request has a timeout that resets on progress and can be
//! cancelled with the era- and transport-correct signal.
//!
//! The files follow a request's flow. This one holds the `Session` type, its shared state and
//! its small accessors; every other file adds one flow to `impl Session`:
//!
//! - `lifecycle`: connect (within the connect timeout), replace the connection, settle, close.
//! - `handshake`: legacy `initialize`, modern `server/discover`, the Auto probe, the HTTP+SSE
//!   fallback.
//! - `outbound`: what we send — the era's envelope and headers, one request and its wait,
//!   notifications, cancellation.
//! - `inbound`: what arrives — recording each frame, dispatching it, resolving the request it
//!   answers, notifications, server→client requests answered through the `Responder`.
//! - `rounds`: one logical request driven to its end — `input_required` rounds and the retries.
//! - `tools`: the tool cache behind `x-mcp-header` (learn, ensure, refresh).
//! - `list`: pagination, its one owner.
//! - `tasks`: waiting for a task to finish.
//! - `raw`: one message sent by hand (the raw tester), enveloped by the engine or as typed.
//!
//! The files import only from this one (and the crate), never from each other. Their methods do
//! call each other — `rounds` refreshes the tool cache through `list`, which sends its pages
//! through `rounds` again; `refresh_tools` is boxed for that recursion.

mod handshake;
mod inbound;
mod lifecycle;
mod list;
mod options;
mod outbound;
mod raw;
mod rounds;
mod tasks;
mod tools;

pub use list::{ListStop, Listing, MAX_LIST_PAGES};
pub use options::{ClientOptions, RequestOptions, ServerInfo};
pub use raw::Exchanged;

use crate::error::ClientError;
use crate::events::{Observer, SessionEvent};
use crate::responder::Responder;
use mcpscope_proto::era::Era;
use mcpscope_proto::headers::ParamHeader;
use mcpscope_proto::{RequestId, RpcError};
use mcpscope_transport::{Connection, Target};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicI64, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Notify, oneshot};

/// How many stderr lines a session keeps for error messages.
const STDERR_TAIL: usize = 10;

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

/// Progress tokens kept for legacy tasks at most (the oldest forgotten first).
const TASK_TOKENS: usize = 256;

/// The progress token of a legacy task-augmented request that was answered with a task: the
/// server keeps using it until the task ends (2025-11-25 `progress.mdx`: "MUST continue to be
/// used … even after the CreateTaskResult has been returned").
struct TaskToken {
    token: Value,
    request: RequestId,
    method: String,
    task: String,
}

struct State {
    pending: HashMap<RequestId, Pending>,
    /// See [`TaskToken`]; at most [`TASK_TOKENS`].
    task_tokens: VecDeque<TaskToken>,
    /// Progress tokens of requests we gave up on (cancelled, timed out), at most
    /// [`TASK_TOKENS`]: a server may still be sending progress it had under way when the
    /// cancellation reached it (server-everything does, for seconds), which is expected, not a
    /// token it made up.
    ended_tokens: VecDeque<Value>,
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

impl State {
    /// Request `p` was given up on: its later progress is expected (see `ended_tokens`).
    fn remember_ended(&mut self, p: &Pending) {
        let Some(token) = &p.progress_token else {
            return;
        };
        if self.ended_tokens.len() >= TASK_TOKENS {
            self.ended_tokens.pop_front();
        }
        self.ended_tokens.push_back(token.clone());
    }

    /// A request given up after `t`, remembered (boundedly: a flood of timeouts must not grow
    /// memory forever) so that its late answer is named.
    fn remember_timed_out(&mut self, id: RequestId, method: String, t: Duration) {
        if self.timed_out.len() >= 1000 {
            self.timed_out.clear();
        }
        self.timed_out.insert(id, (method, t));
    }

    /// Keep the progress token of request `id` when its answer created a legacy task
    /// (`{task: {taskId}}`), so the task's later progress is still its own.
    fn keep_task_token(&mut self, id: &RequestId, p: &Pending, outcome: &Outcome) {
        let (Some(token), Outcome::Result(r)) = (&p.progress_token, outcome) else {
            return;
        };
        let Some(task) = r.pointer("/task/taskId").and_then(Value::as_str) else {
            return;
        };
        if self.task_tokens.len() >= TASK_TOKENS {
            self.task_tokens.pop_front();
        }
        self.task_tokens.push_back(TaskToken {
            token: token.clone(),
            request: id.clone(),
            method: p.method.clone(),
            task: task.to_string(),
        });
    }
}

struct Shared {
    target: Mutex<Target>,
    conn: Mutex<Arc<Connection>>,
    opts: ClientOptions,
    responder: Arc<dyn Responder>,
    observer: Arc<dyn Observer>,
    state: Mutex<State>,
    next_id: AtomicI64,
    /// Frame numbers (`ClientOptions::frame_numbers`, else the session's own).
    seq: Arc<AtomicU64>,
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

    fn warn(&self, message: impl Into<String>, frame_seq: Option<u64>) {
        self.shared.observer.on_event(SessionEvent::Warning {
            message: message.into(),
            frame_seq,
        });
    }

    fn note(&self, message: impl Into<String>) {
        self.shared.observer.on_event(SessionEvent::Note {
            message: message.into(),
        });
    }
}
