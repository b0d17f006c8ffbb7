//! The typed event vocabulary: every event a view receives, as one enum.
//!
//! [`Event`] names each event (`status`, `frame`, `history`, …) and holds its body as a Rust
//! type; [`Event::name`] and [`Event::data`] are the one place an event becomes a name and JSON
//! text, so the web UI's SSE stream, a test and the TUI all read the same bytes. Serde's own
//! (adjacently tagged) form of the enum is what the SPA's generated TypeScript union
//! `WebEvent` describes — `{event, data}` — and a test holds `name`/`data` to it, so the
//! generated types cannot drift from the wire. `docs/web-api.md` is the human description.
//!
//! The bodies of the big views (`ServerView`, `FrameView`, `HistoryEntry`, `AuthView`) live
//! next to the code that builds them; the small ones are here.

use crate::auth::AuthView;
use crate::frames::FrameView;
use crate::interactions::{Interaction, InteractionClosed};
use crate::subscriptions::SubscriptionsView;
use crate::tasks::TasksEvent;
use crate::views::{HistoryEntry, ServerView};
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;
use ts_rs::TS;

/// Every event a view receives. Serialised by [`Event::name`] + [`Event::data`].
#[derive(Debug, Clone, Serialize, TS)]
#[serde(tag = "event", content = "data", rename_all = "camelCase")]
#[ts(rename = "WebEvent")]
pub enum Event {
    /// A server card changed (status, error, latency). Boxed: a card carries its catalog entry
    /// (roots, headers, …), several times the size of every other event.
    Status(Box<ServerView>),
    /// A traffic frame (an outgoing modern HTTP frame comes twice, same `seq`: again when its
    /// response completes the header verdicts). Rendered once by the frame pipeline.
    Frame(#[ts(as = "FrameView")] RenderedFrame),
    /// `notifications/progress` of a request.
    Progress(ProgressEvent),
    /// `notifications/message`.
    Log(LogEvent),
    /// Any other notification (list_changed, resources/updated, …).
    Notification(NotificationEvent),
    /// A server→client request and the answer it got.
    ServerRequest(ServerRequestEvent),
    /// A history entry was created (`pending`) or changed.
    History(HistoryEntry),
    /// Something odd that did not stop the session.
    Warning(WarningEvent),
    /// The protocol era changed: clear that server's screens.
    Reset(ResetEvent),
    /// The catalog changed.
    Catalog(CatalogEvent),
    /// A login started, ended, failed, or tokens were forgotten (boxed: an auth view is larger
    /// than the frequent events).
    Auth(Box<AuthView>),
    /// Events were lost between a view's last id and the ring (sent without an id).
    Resync(ResyncEvent),
    /// A server's question is waiting for an answer (`interactions.rs`).
    InteractionOpened(Interaction),
    /// It was answered, declined, cancelled, timed out or abandoned.
    InteractionClosed(InteractionClosed),
    /// A server's tasks changed (at most one per server every 100 ms; `tasks/`).
    Tasks(TasksEvent),
    /// A server's Subscriptions panel changed (a stream's transition, an update, a rejected
    /// notification), whole (`subscriptions/`).
    Subscriptions(SubscriptionsView),
}

/// A `FrameView` already rendered to JSON text (the frame pipeline renders each frame once; see
/// `frames.rs` for its typed shape). Kept as text, not re-parsed: frames are the hot path.
#[derive(Debug, Clone)]
pub struct RenderedFrame(String);

impl RenderedFrame {
    /// Wrap the JSON text the frame pipeline rendered.
    pub(crate) fn new(json: String) -> RenderedFrame {
        RenderedFrame(json)
    }
}

impl Serialize for RenderedFrame {
    /// The text as it is, through `RawValue` (only the tagged form, tests, goes this way).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let raw = RawValue::from_string(self.0.clone()).map_err(serde::ser::Error::custom)?;
        raw.serialize(s)
    }
}

/// `progress`.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProgressEvent {
    /// The server.
    pub server: String,
    /// The id the page chose for the request; null for requests no page made.
    pub request_id: Option<String>,
    /// The request's history entry.
    pub history_id: Option<i64>,
    /// The request's method.
    pub method: String,
    /// `progress`.
    pub progress: f64,
    /// `total`, if given.
    pub total: Option<f64>,
    /// `message`, if given.
    pub message: Option<String>,
}

/// `log`.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LogEvent {
    /// The server.
    pub server: String,
    /// Severity.
    pub level: String,
    /// Logger name.
    pub logger: Option<String>,
    /// Payload.
    pub data: Value,
    /// The request that caused it, when known.
    pub history_id: Option<i64>,
    /// When it arrived (µs since the Unix epoch).
    pub time_us: u64,
}

/// `notification`.
#[derive(Debug, Clone, Serialize, TS)]
pub struct NotificationEvent {
    /// The server.
    pub server: String,
    /// Its method.
    pub method: String,
    /// Its params.
    pub params: Option<Value>,
}

/// `serverRequest`: what the server asked and what it was answered.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ServerRequestEvent {
    /// The server.
    pub server: String,
    /// `sampling/createMessage`, `elicitation/create`, `roots/list`, …
    pub method: String,
    /// Its params (secret values redacted).
    pub params: Value,
    /// Where it came from, in words (`server request 5`, `input_required round 1 of …`).
    pub origin: String,
    /// `{result}` or `{error}`.
    pub answer: Value,
    /// The history entry of the request that caused it, when known.
    pub history_id: Option<i64>,
}

/// `warning`.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WarningEvent {
    /// The server.
    pub server: String,
    /// What happened.
    pub message: String,
    /// The frame it is about (its traffic `seq`).
    pub frame_seq: Option<u64>,
}

/// `reset`.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ResetEvent {
    /// The server whose screens start over.
    pub server: String,
}

/// `catalog`.
#[derive(Debug, Clone, Serialize, TS)]
pub struct CatalogEvent {
    /// Every server card, in catalog order.
    pub servers: Vec<ServerView>,
}

/// `resync`.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ResyncEvent {
    /// How many events the view missed.
    pub missed: u64,
}

impl Event {
    /// The event's name on the wire (SSE `event:`); the same as serde's tag.
    pub fn name(&self) -> &'static str {
        match self {
            Event::Status(_) => "status",
            Event::Frame(_) => "frame",
            Event::Progress(_) => "progress",
            Event::Log(_) => "log",
            Event::Notification(_) => "notification",
            Event::ServerRequest(_) => "serverRequest",
            Event::History(_) => "history",
            Event::Warning(_) => "warning",
            Event::Reset(_) => "reset",
            Event::Catalog(_) => "catalog",
            Event::Auth(_) => "auth",
            Event::Resync(_) => "resync",
            Event::InteractionOpened(_) => "interactionOpened",
            Event::InteractionClosed(_) => "interactionClosed",
            Event::Tasks(_) => "tasks",
            Event::Subscriptions(_) => "subscriptions",
        }
    }

    /// The event's body as JSON text (SSE `data:`). A frame is already text; everything else is
    /// serialised here, and nowhere else.
    pub fn data(&self) -> String {
        let r = match self {
            Event::Frame(f) => return f.0.clone(),
            Event::Status(v) => serde_json::to_string(v),
            Event::Progress(v) => serde_json::to_string(v),
            Event::Log(v) => serde_json::to_string(v),
            Event::Notification(v) => serde_json::to_string(v),
            Event::ServerRequest(v) => serde_json::to_string(v),
            Event::History(v) => serde_json::to_string(v),
            Event::Warning(v) => serde_json::to_string(v),
            Event::Reset(v) => serde_json::to_string(v),
            Event::Catalog(v) => serde_json::to_string(v),
            Event::Auth(v) => serde_json::to_string(v),
            Event::Resync(v) => serde_json::to_string(v),
            Event::InteractionOpened(v) => serde_json::to_string(v),
            Event::InteractionClosed(v) => serde_json::to_string(v),
            Event::Tasks(v) => serde_json::to_string(v),
            Event::Subscriptions(v) => serde_json::to_string(v),
        };
        // Serialising these types cannot fail (string keys, no custom serialisers).
        r.unwrap_or_else(|_| "null".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One of each variant, with the bodies the views would see.
    fn one_of_each() -> Vec<Event> {
        let server = "demo".to_string();
        vec![
            Event::Frame(RenderedFrame::new("{\"seq\":1,\"text\":\"x\"}".into())),
            Event::Progress(ProgressEvent {
                server: server.clone(),
                request_id: Some("r1".into()),
                history_id: Some(3),
                method: "tools/call".into(),
                progress: 1.0,
                total: None,
                message: None,
            }),
            Event::Warning(WarningEvent {
                server: server.clone(),
                message: "odd".into(),
                frame_seq: None,
            }),
            Event::Tasks(TasksEvent {
                server: server.clone(),
                version: 7,
            }),
            Event::Reset(ResetEvent { server }),
            Event::Resync(ResyncEvent { missed: 4 }),
        ]
    }

    #[test]
    fn name_and_data_are_what_the_generated_types_describe() {
        for e in one_of_each() {
            let tagged = serde_json::to_value(&e).unwrap();
            assert_eq!(tagged["event"], e.name(), "{e:?}");
            let data: Value = serde_json::from_str(&e.data()).unwrap();
            assert_eq!(tagged["data"], data, "{e:?}");
        }
    }

    #[test]
    fn bodies_keep_the_documented_key_order_and_nulls() {
        let e = Event::Progress(ProgressEvent {
            server: "s".into(),
            request_id: None,
            history_id: None,
            method: "tools/call".into(),
            progress: 0.5,
            total: Some(1.0),
            message: None,
        });
        assert_eq!(
            e.data(),
            r#"{"server":"s","requestId":null,"historyId":null,"method":"tools/call","progress":0.5,"total":1.0,"message":null}"#
        );
        let w = Event::Warning(WarningEvent {
            server: "s".into(),
            message: "m".into(),
            frame_seq: None,
        });
        assert_eq!(w.data(), r#"{"server":"s","message":"m","frameSeq":null}"#);
    }
}
