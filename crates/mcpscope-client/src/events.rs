//! What a session tells its views: every frame as recorded, and typed events derived from them.

use mcpscope_proto::{Classified, Frame, RequestId};
use serde_json::Value;
use std::sync::Arc;

/// One frame as the engine recorded it, with what it parsed out of it.
#[derive(Debug)]
pub struct Recorded<'a> {
    /// The frame (sequence number assigned).
    pub frame: &'a Frame,
    /// The parsed message, when the frame carries one and it is JSON: the one parse of the
    /// body. Shared, so an observer that works on it later keeps it without parsing again.
    pub message: Option<&'a Arc<Value>>,
    /// Its classification, when the frame carries a message.
    pub classified: Option<&'a Classified>,
    /// For responses: the method of the request answered; for requests and notifications: their method.
    pub method: Option<&'a str>,
    /// The protocol version in force when the frame was seen (for linting).
    pub protocol_version: Option<&'a str>,
}

/// A typed event derived from the traffic.
#[derive(Debug, Clone)]
pub enum SessionEvent {
    /// `notifications/progress` for one of our requests.
    Progress {
        /// The request it belongs to.
        request: RequestId,
        /// That request's method.
        method: String,
        /// The legacy task that request created, when the progress came after its answer (the
        /// token lives on until the task ends).
        task: Option<String>,
        /// `progress`.
        progress: f64,
        /// `total`, if given.
        total: Option<f64>,
        /// `message`, if given.
        message: Option<String>,
    },
    /// `notifications/message`.
    Log {
        /// Severity.
        level: String,
        /// Logger name.
        logger: Option<String>,
        /// Payload.
        data: Value,
    },
    /// Any other notification from the server.
    Notification {
        /// Method.
        method: String,
        /// Params.
        params: Option<Value>,
    },
    /// The server asked something (legacy request or an `input_required` entry).
    ServerRequest {
        /// Method.
        method: String,
        /// Where it came from, as text (e.g. `request 5` or `input_required round 2, key "login"`).
        origin: String,
    },
    /// Something odd that did not stop the session (invalid line, unknown id, CRLF, …).
    Warning {
        /// What.
        message: String,
        /// The frame it is about.
        frame_seq: Option<u64>,
    },
    /// A step worth knowing that is no problem: Auto found a legacy server and speaks
    /// 2025-11-25 with it. A view that shows the era anyway need not repeat it.
    Note {
        /// What.
        message: String,
    },
}

/// A view that wants to see traffic and events. Calls happen on the engine's task: keep them short.
pub trait Observer: Send + Sync + 'static {
    /// Every frame, in order, before the engine acts on it.
    fn on_frame(&self, _rec: &Recorded<'_>) {}
    /// Every derived event, given away: a view that keeps it (to work on it later) moves it
    /// rather than copying a payload that may be large.
    fn on_event(&self, _event: SessionEvent) {}
    /// The current connection ended (the process exited, the stream closed, or `close` was
    /// called), after its last frame. Views that show a status need it: nothing else says so
    /// until the next request fails.
    fn on_closed(&self, _reason: &str) {}
    /// Backpressure: `Some(wait)` when the view is behind. The engine awaits `wait` before it
    /// takes the next transport event, and a stdio server's reader stops reading once its
    /// read-ahead is used up, so a flood waits in the server's pipe rather than in our memory.
    /// `wait` must finish once the view has caught up or is gone.
    fn ready(&self) -> Option<futures::future::BoxFuture<'static, ()>> {
        None
    }
}

/// An observer that ignores everything.
#[derive(Debug, Default)]
pub struct NoObserver;
impl Observer for NoObserver {}
