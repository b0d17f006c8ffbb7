//! What a view chooses: options for a session and for one request, and what the handshake
//! established ([`ServerInfo`]). Plain data, no behaviour.

use crate::control::RequestControl;
use mcpscope_proto::era::{Era, EraPreference};
use mcpscope_transport::TransportOptions;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

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
    /// The counter frames are numbered from: it holds the last number given out, and each frame
    /// takes the next. `None`: the session's own, from 1. A view that numbers a server's frames
    /// across reconnections (the core's frame window) passes its counter, so the numbers the
    /// engine gives — in warnings, in [`Recorded`](crate::Recorded) — are the view's numbers.
    pub frame_numbers: Option<Arc<AtomicU64>>,
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
            frame_numbers: None,
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
