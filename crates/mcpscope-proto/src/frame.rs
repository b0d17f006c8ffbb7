//! `Frame`: one unit of bytes that crossed the wire, recorded before anything parses it.
//!
//! Transports produce frames for every stdio line (both ways), every stderr line, every HTTP
//! request and response (with method, URL, status and headers) and every SSE event (with its
//! `id`, `event` and `retry` fields). The engine numbers them, hands them to its sinks (trace
//! file, lint, views) and only then parses the ones that carry a JSON-RPC message.

use bytes::Bytes;
use serde::Serialize;
use std::time::{SystemTime, UNIX_EPOCH};

/// Which way the bytes went, seen from the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "FrameDirection"))]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Client to server (stdin line, HTTP request).
    Out,
    /// Server to client (stdout line, stderr line, HTTP response, SSE event).
    In,
    /// Something the transport observed that is not bytes on the wire (process exit, retry wait).
    Local,
}

/// What kind of bytes a frame holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum FrameKind {
    /// A line written to the server's stdin.
    StdinLine,
    /// A line read from the server's stdout.
    StdoutLine,
    /// A line read from the server's stderr.
    StderrLine,
    /// An HTTP request (body = request body).
    HttpRequest,
    /// An HTTP response head and, for non-streaming bodies, the body.
    HttpResponse,
    /// One Server-Sent Event (body = its `data`).
    SseEvent,
    /// A transport lifecycle event: process spawned or exited, stream closed, reconnect scheduled.
    Lifecycle,
    /// An HTTP request of the OAuth flow (metadata discovery, registration, authorization,
    /// token): kept apart from MCP traffic so views can show the flow as its own source.
    #[serde(rename = "oauth-request")]
    OAuthRequest,
    /// The answer to an [`FrameKind::OAuthRequest`], or the authorization response that arrived
    /// on the loopback callback.
    #[serde(rename = "oauth-response")]
    OAuthResponse,
    /// A decision of the OAuth flow that is not bytes on the wire (scopes chosen, a metadata
    /// document refused and why, the browser opened); the note says what.
    #[serde(rename = "oauth-step")]
    OAuthStep,
    /// A `postMessage` between an MCP App and its host (the web UI), as the view reported it:
    /// not MCP wire traffic, so never linted or judged (source `app`).
    AppMessage,
}

/// Transport details attached to a frame. Fields are present when they apply.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
pub struct FrameMeta {
    /// HTTP exchange number this frame belongs to (request, response and its SSE events share it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exchange: Option<u64>,
    /// HTTP method.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// HTTP URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// HTTP status code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// HTTP headers in wire order, names as sent or received.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub headers: Vec<(String, String)>,
    /// SSE `id` field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sse_id: Option<String>,
    /// SSE `event` field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sse_event: Option<String>,
    /// SSE `retry` field in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sse_retry: Option<u64>,
    /// A short human note from the transport (e.g. "process exited with status 1").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Set when the body was cut short (for example a line over `--max-message-bytes`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub truncated: bool,
    /// Set on the lifecycle note that records an HTTP exchange ending without an answer (DNS,
    /// TCP, TLS, a redirect that cannot be followed): the request of `exchange` gets no response.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub failed: bool,
}

/// One recorded unit of traffic.
#[derive(Debug, Clone)]
pub struct Frame {
    /// Sequence number assigned by the engine's log (0 until recorded).
    pub seq: u64,
    /// Wall-clock time in microseconds since the Unix epoch.
    pub at_us: u64,
    /// Which way it went.
    pub direction: Direction,
    /// What it is.
    pub kind: FrameKind,
    /// The exact bytes (without the line terminator for line-based kinds).
    pub body: Bytes,
    /// Transport details.
    pub meta: FrameMeta,
    /// True when `body` is expected to hold one JSON-RPC message the engine should parse.
    pub carries_message: bool,
}

impl Frame {
    /// A frame stamped with the current time.
    pub fn new(direction: Direction, kind: FrameKind, body: impl Into<Bytes>) -> Self {
        Frame {
            seq: 0,
            at_us: now_us(),
            direction,
            kind,
            body: body.into(),
            meta: FrameMeta::default(),
            carries_message: false,
        }
    }

    /// Mark the frame as carrying one JSON-RPC message.
    pub fn message(mut self) -> Self {
        self.carries_message = true;
        self
    }

    /// Attach transport details.
    pub fn with_meta(mut self, meta: FrameMeta) -> Self {
        self.meta = meta;
        self
    }

    /// Attach a human note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.meta.note = Some(note.into());
        self
    }

    /// The body as UTF-8 text, if it is valid UTF-8.
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.body).ok()
    }
}

/// RFC 3339 UTC time with microseconds for `us` microseconds since the Unix epoch, without a date
/// library (the trace, the API and the history all print times this way).
pub fn rfc3339(us: u64) -> String {
    let secs = us / 1_000_000;
    let micros = us % 1_000_000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{micros:06}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Microseconds since the Unix epoch, now.
pub fn now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(0)
}
