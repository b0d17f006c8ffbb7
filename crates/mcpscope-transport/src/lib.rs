//! mcpscope-transport: move MCP messages over stdio, Streamable HTTP and legacy HTTP+SSE, and record
//! every byte as a [`Frame`] before anything parses it.
//!
//! A transport knows bytes, framing and connections; it does not know MCP. It emits one ordered
//! stream of [`TransportEvent`]s: frames (stdin/stdout/stderr lines, HTTP requests and responses
//! with headers, SSE events), transport-level failures tied to the request that caused them, and
//! the end of the connection with its reason. The session engine (`mcpscope-client`) parses the
//! frames that carry messages and owns everything above.
//!
//! ```no_run
//! # async fn f() -> Result<(), mcpscope_transport::TransportError> {
//! use mcpscope_transport::{Connection, Target, TransportOptions};
//! let target = Target::Stdio { command: "node".into(), args: vec!["server.js".into()], env: vec![], cwd: None };
//! let (conn, mut events) = Connection::open(&target, &TransportOptions::default()).await?;
//! # Ok(()) }
//! ```

pub mod auth;
mod clients;
mod http;
mod legacy_sse;
mod lines;
pub mod sse;
mod stdio;
// Property tests of the stdio line splitter and the SSE parser.
#[cfg(test)]
mod fuzz;

pub use auth::{AuthChallenge, AuthProvider, FrameSink};
pub use clients::{EXTRA_CA_CERTS_ENV, HttpClients, network_settings};
use mcpscope_proto::RequestId;
pub use mcpscope_proto::{Direction, Frame, FrameKind, FrameMeta};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// Messages a connection's readers may queue ahead of the engine (stdout lines, SSE events). Past
/// it they stop reading, so a server flooding us blocks on its full pipe or TCP window instead
/// of filling our memory; the engine gives one back for each it has handled.
pub const READ_AHEAD: usize = 4096;

/// A fresh read-ahead credit of [`READ_AHEAD`] permits.
pub(crate) fn read_ahead_credit() -> Arc<tokio::sync::Semaphore> {
    Arc::new(tokio::sync::Semaphore::new(READ_AHEAD))
}

/// Take one permit for good (the engine adds it back). False once the credit is closed.
pub(crate) async fn take_credit(credit: &tokio::sync::Semaphore) -> bool {
    match credit.acquire().await {
        Ok(p) => {
            p.forget();
            true
        }
        Err(_) => false,
    }
}

/// True for the frames a reader took read-ahead credit for: whoever handles them must add one
/// permit back to [`Connection::read_credit`].
pub fn takes_read_credit(kind: FrameKind) -> bool {
    matches!(kind, FrameKind::StdoutLine | FrameKind::SseEvent)
}

/// Where to connect.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// Spawn a process and speak newline-delimited JSON-RPC over its stdin/stdout.
    Stdio {
        /// Program to run (looked up on the allowlisted `PATH`).
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment on top of the allowlist (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`).
        env: Vec<(String, String)>,
        /// Working directory.
        cwd: Option<PathBuf>,
    },
    /// Streamable HTTP (both eras).
    Http {
        /// The MCP endpoint.
        url: String,
        /// Extra request headers (`--header`).
        headers: Vec<(String, String)>,
    },
    /// The deprecated HTTP+SSE transport (2024-11-05): GET an `endpoint` event, POST to it.
    Sse {
        /// The SSE endpoint.
        url: String,
        /// Extra request headers (`--header`).
        headers: Vec<(String, String)>,
    },
}

impl Target {
    /// Short transport name: `stdio`, `http` or `sse`.
    pub fn transport_name(&self) -> &'static str {
        match self {
            Target::Stdio { .. } => "stdio",
            Target::Http { .. } => "http",
            Target::Sse { .. } => "sse",
        }
    }
}

/// Knobs shared by all transports.
#[derive(Debug, Clone)]
pub struct TransportOptions {
    /// Largest single message (stdio line, HTTP body, SSE event) accepted; bigger ones are cut
    /// short with a clear error and the session goes on. Default 256 MiB.
    pub max_message_bytes: usize,
    /// How long to wait between closing stdin, SIGTERM and SIGKILL when shutting a process down.
    pub shutdown_grace: Duration,
    /// TCP connect timeout for HTTP transports.
    pub connect_timeout: Option<Duration>,
    /// Supplies `Authorization` headers and answers `401`/`403` challenges (OAuth) on the HTTP
    /// transports. `None`: a challenge ends the request with [`TransportError::AuthRequired`].
    pub auth: Option<Arc<dyn AuthProvider>>,
    /// The HTTP exchange numbers. Shared by every connection opened with these options, so a
    /// connection that replaces another (the HTTP+SSE fallback, a restart after the Auto probe)
    /// goes on numbering instead of repeating exchange 1, 2, … in the trace.
    pub exchanges: Exchanges,
    /// Legacy Streamable HTTP: open the standalone GET stream when the engine asks for it
    /// (default). A one-shot that only awaits the answers to its own requests — they arrive on
    /// the response streams of its POSTs — sets `false` and saves the GET and the wait for its
    /// answer; the trace then says the stream was not opened.
    pub standalone_stream: bool,
}

/// The one counter of HTTP exchanges: every request the HTTP transports and the auth provider
/// send (a POST with its redirect hops, a GET stream, a resumption, a DELETE, an OAuth request)
/// takes the next number, and each of its frames carries it. Clones share the count.
#[derive(Debug, Clone, Default)]
pub struct Exchanges(Arc<std::sync::atomic::AtomicU64>);

impl Exchanges {
    /// The next exchange number, starting at 1.
    pub fn next(&self) -> u64 {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1
    }
}

impl Default for TransportOptions {
    fn default() -> Self {
        TransportOptions {
            max_message_bytes: 256 * 1024 * 1024,
            shutdown_grace: Duration::from_millis(2000),
            connect_timeout: Some(Duration::from_secs(15)),
            auth: None,
            exchanges: Exchanges::default(),
            standalone_stream: true,
        }
    }
}

/// One message to send.
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// The serialized JSON-RPC message (one line, no newline).
    pub body: bytes::Bytes,
    /// The request id when the message is a request (so failures can name it).
    pub id: Option<RequestId>,
    /// Per-message HTTP headers computed by the engine (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`,
    /// `MCP-Protocol-Version`). Ignored on stdio.
    pub headers: Vec<(String, String)>,
}

/// What a transport reports, in order.
#[derive(Debug)]
pub enum TransportEvent {
    /// Bytes that crossed the wire (or a lifecycle note).
    Frame(Frame),
    /// Sending a message failed without a JSON-RPC answer. `id` names the request, if it was one.
    Failed {
        /// The request that failed.
        id: Option<RequestId>,
        /// Why.
        error: TransportError,
    },
    /// The connection is over (process exited, stream closed for good).
    Closed {
        /// A human explanation: exit status, signal, last stderr lines.
        reason: String,
    },
}

/// Transport-level errors. Messages say what happened and, where it helps, what to do next.
#[derive(Debug, Clone, thiserror::Error)]
pub enum TransportError {
    /// The process could not be started.
    #[error("could not start `{command}`: {reason}")]
    Spawn {
        /// The program.
        command: String,
        /// The OS error.
        reason: String,
    },
    /// TCP/TLS/DNS failure.
    #[error("cannot reach {url}: {reason}")]
    Unreachable {
        /// The URL.
        url: String,
        /// The underlying error.
        reason: String,
    },
    /// The server wants authorization (401/403 with `WWW-Authenticate`).
    #[error("{url} requires authorization (HTTP {status}){}", challenge.as_ref().map(|c| format!(": WWW-Authenticate: {c}")).unwrap_or_default())]
    AuthRequired {
        /// The URL.
        url: String,
        /// 401 or 403.
        status: u16,
        /// The `WWW-Authenticate` header, if any.
        challenge: Option<String>,
    },
    /// The server wants authorization and the auth provider could not obtain it (discovery,
    /// registration, the login or the token request failed, or a check refused what the
    /// authorization server sent).
    #[error("{url} requires authorization (HTTP {status}{}) and it could not be obtained: {reason}", challenge.as_ref().map(|c| format!("; WWW-Authenticate: {c}")).unwrap_or_default())]
    AuthFailed {
        /// The URL.
        url: String,
        /// 401 or 403.
        status: u16,
        /// The `WWW-Authenticate` header, if any.
        challenge: Option<String>,
        /// What failed, and what to do.
        reason: String,
    },
    /// An HTTP status that carries no JSON-RPC answer.
    #[error("{method} {url} answered HTTP {status}{}", body_excerpt(body))]
    Status {
        /// HTTP method.
        method: String,
        /// The URL.
        url: String,
        /// Status code.
        status: u16,
        /// The start of the body, as text.
        body: String,
        /// `Content-Type` of the response.
        content_type: Option<String>,
    },
    /// The legacy session is gone (HTTP 404 to a request carrying `Mcp-Session-Id`).
    #[error("the server no longer knows session {session_id} (HTTP 404)")]
    SessionExpired {
        /// The expired session id.
        session_id: String,
    },
    /// A stream ended before it delivered the response.
    #[error("{0}")]
    StreamEnded(String),
    /// A message was larger than `--max-message-bytes`.
    #[error("a message of more than {limit} bytes was cut short (raise --max-message-bytes)")]
    TooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// The connection is closed; nothing can be sent.
    #[error("the connection is closed")]
    Closed,
    /// Anything else, described.
    #[error("{0}")]
    Other(String),
}

fn body_excerpt(body: &str) -> String {
    let t = body.trim();
    if t.is_empty() {
        return String::new();
    }
    let cut: String = t.chars().take(300).collect();
    format!(": {cut}{}", if t.chars().count() > 300 { "…" } else { "" })
}

/// The receiving side of a connection's events.
pub type Events = mpsc::UnboundedReceiver<TransportEvent>;
type EventTx = mpsc::UnboundedSender<TransportEvent>;

/// An open connection over one of the transports.
pub enum Connection {
    /// A child process.
    Stdio(stdio::StdioTransport),
    /// Streamable HTTP.
    Http(http::HttpTransport),
    /// Legacy HTTP+SSE.
    Sse(legacy_sse::SseTransport),
}

impl Connection {
    /// Open a connection. For stdio this spawns the process; for Streamable HTTP it only prepares
    /// the client (nothing is sent until the first message); for HTTP+SSE it opens the GET stream
    /// and waits for the `endpoint` event.
    pub async fn open(
        target: &Target,
        opts: &TransportOptions,
    ) -> Result<(Connection, Events), TransportError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let conn = match target {
            Target::Stdio {
                command,
                args,
                env,
                cwd,
            } => Connection::Stdio(stdio::StdioTransport::spawn(
                command,
                args,
                env,
                cwd.as_deref(),
                opts,
                tx,
            )?),
            Target::Http { url, headers } => {
                Connection::Http(http::HttpTransport::new(url, headers, opts, tx)?)
            }
            Target::Sse { url, headers } => {
                Connection::Sse(legacy_sse::SseTransport::connect(url, headers, opts, tx).await?)
            }
        };
        Ok((conn, rx))
    }

    /// Send one message. Returns once it is handed to the wire (HTTP responses arrive as events);
    /// over HTTP a notification or response waits (bounded) for its POST to be answered, so
    /// messages reach the server in the order they were sent.
    pub async fn send(&self, out: Outgoing) -> Result<(), TransportError> {
        match self {
            Connection::Stdio(t) => t.send(out),
            Connection::Http(t) => t.send(out).await,
            Connection::Sse(t) => t.send(out).await,
        }
    }

    /// The read-ahead credit of this connection's readers: each stdout line (stdio) and each SSE
    /// event (HTTP, HTTP+SSE) takes one before it is handed on, the engine adds one back for each
    /// it has handled ([`takes_read_credit`]), and a reader with none left stops
    /// reading — backpressure down to the server's pipe or TCP window.
    pub fn read_credit(&self) -> Arc<tokio::sync::Semaphore> {
        match self {
            Connection::Stdio(t) => t.credit(),
            Connection::Http(t) => t.credit(),
            Connection::Sse(t) => t.credit(),
        }
    }

    /// Modern-era HTTP cancellation: close the response stream of request `id`. Returns whether a
    /// stream was open. Other transports return false (they cancel with `notifications/cancelled`).
    pub fn close_stream(&self, id: &RequestId) -> bool {
        match self {
            Connection::Http(t) => t.close_stream(id),
            _ => false,
        }
    }

    /// Legacy Streamable HTTP: remember the negotiated version for the `MCP-Protocol-Version` header.
    pub fn set_protocol_version(&self, version: Option<String>) {
        if let Connection::Http(t) = self {
            t.set_protocol_version(version);
        }
    }

    /// Legacy Streamable HTTP: open the standalone GET stream for server-initiated messages.
    /// Resolves once the server has answered the GET (with any status) or it failed, or after
    /// `wait` at most; at once when [`TransportOptions::standalone_stream`] is off (a note says
    /// so) and on other transports.
    pub async fn open_get_stream(&self, wait: Duration) {
        if let Connection::Http(t) = self {
            let ready = t.open_get_stream();
            let _ = tokio::time::timeout(wait, ready).await;
        }
    }

    /// Legacy Streamable HTTP: forget the session (after a 404, before re-initializing).
    pub fn reset_session(&self) {
        if let Connection::Http(t) = self {
            t.reset_session();
        }
    }

    /// The legacy session id, if the server issued one.
    pub fn session_id(&self) -> Option<String> {
        match self {
            Connection::Http(t) => t.session_id(),
            _ => None,
        }
    }

    /// Close: stdio closes stdin, then SIGTERM, then SIGKILL after the grace period; HTTP sends
    /// DELETE for a legacy session; SSE drops the stream. Waits until done.
    pub async fn close(&self) {
        match self {
            Connection::Stdio(t) => t.close().await,
            Connection::Http(t) => t.close().await,
            Connection::Sse(t) => t.close(),
        }
    }

    /// A closing stdio server asked something it can no longer be answered: stop waiting for it
    /// to exit by itself (`why` is noted in the traffic). Nothing to do for HTTP, whose close
    /// does not wait on the server.
    pub fn hurry_close(&self, why: &str) {
        if let Connection::Stdio(t) = self {
            t.hurry(why);
        }
    }
}

/// An error with its causes, e.g. "error sending request: connection refused".
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let t = c.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        cur = c.source();
    }
    s
}
