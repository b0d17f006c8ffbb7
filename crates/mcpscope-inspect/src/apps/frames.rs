//! App frames: every `postMessage` between an MCP App and its host, as the view that hosts it
//! reports it, kept like any frame (source `app`: the window, SQLite, `frame` events) so Traffic
//! shows the bridge beside the MCP traffic it causes, linked by `historyId`. These are not MCP
//! wire bytes: no lint, no header verdicts. The text is the app's and hostile: cut to
//! [`MAX_APP_MESSAGE`], classified without trust (malformed JSON-RPC is `invalid`, with the reason
//! in the note), and bounded in number by the server's [`super::gate`].

use super::gate::Pass;
use crate::error::{Error, Result};
use crate::events::{Event, RenderedFrame};
use crate::frames::{AppFrame, FrameHead, VIEW_BODY_CAP, WebFrame};
use crate::state::{Inspector, Slot};
use mcpscope_proto::{Classified, parse_and_classify};
use mcpscope_proto::{Direction, FrameKind, FrameMeta, RequestId, now_us};
use std::sync::Arc;
use std::time::Instant;

/// An app message longer than this is kept cut short (`meta.truncated`).
pub const MAX_APP_MESSAGE: usize = 1 << 20;

/// Which way an app message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppDirection {
    /// Host → app.
    ToApp,
    /// App → host.
    FromApp,
}

/// One `postMessage` a view reports.
#[derive(Debug, Clone)]
pub struct AppMessage {
    /// The tool whose app it is.
    pub app: String,
    /// The view's id of the running instance.
    pub instance: String,
    /// Which way.
    pub direction: AppDirection,
    /// The message as JSON text.
    pub message: String,
    /// The history entry it caused or answers, when the view knows.
    pub history_id: Option<i64>,
    /// What the view adds (a refusal it made, …).
    pub note: Option<String>,
}

/// Cut `text` to at most `max` bytes on a character boundary.
fn cut(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

/// Bound an id, tool or instance name from a view (it is the app's, in the end).
fn label(s: &str) -> String {
    cut(s, 200).0.to_string()
}

impl Inspector {
    /// Record an app message of `server` (which must be in the catalog; it need not be
    /// connected: a teardown may outlive the connection). `None`: over the flood bound, counted.
    pub async fn record_app_frame(
        self: &Arc<Self>,
        server: &str,
        m: AppMessage,
    ) -> Result<Option<u64>> {
        if self.catalog.lock().await.get(server).is_none() {
            return Err(Error::not_found(format!(
                "no server named {server:?} in the catalog"
            )));
        }
        let slot = self.slot(server).await?;
        let pass = slot.app_gate().pass(Instant::now());
        let Pass::Yes { dropped_before } = pass else {
            return Ok(None);
        };
        if dropped_before > 0 {
            let note = format!(
                "{dropped_before} app messages dropped (over {}/s)",
                super::gate::PER_SECOND
            );
            self.app_note(&slot, &m.app, &m.instance, note, None).await;
        }
        Ok(Some(self.app_message(&slot, m).await))
    }

    /// Record a note of the core about an app (a refusal, messages dropped) as an app frame.
    pub(crate) async fn app_note(
        &self,
        slot: &Slot,
        tool: &str,
        instance: &str,
        note: String,
        history_id: Option<i64>,
    ) -> u64 {
        let app = AppFrame {
            tool: label(tool),
            instance: label(instance),
            direction: "host",
            note: Some(note),
        };
        let head = head(slot, Direction::Local, app, history_id);
        let seq = head.seq;
        self.keep_app_frame(slot, &head, bytes::Bytes::new()).await;
        seq
    }

    async fn app_message(&self, slot: &Slot, m: AppMessage) -> u64 {
        let (text, truncated) = cut(&m.message, MAX_APP_MESSAGE);
        let (direction, dir) = match m.direction {
            AppDirection::ToApp => (Direction::Out, "toApp"),
            AppDirection::FromApp => (Direction::In, "fromApp"),
        };
        let mut app = AppFrame {
            tool: label(&m.app),
            instance: label(&m.instance),
            direction: dir,
            note: m.note.as_deref().map(|n| cut(n, 4096).0.to_string()),
        };
        let mut head = head(slot, direction, app.clone(), m.history_id);
        head.meta.truncated = truncated;
        if truncated {
            head.message = Some("invalid");
            add_note(
                &mut app,
                &format!("cut to {MAX_APP_MESSAGE} of {} bytes", m.message.len()),
            );
        } else {
            classify(&mut head, &mut app, text);
        }
        head.app = Some(app);
        let seq = head.seq;
        let body = bytes::Bytes::copy_from_slice(text.as_bytes());
        self.keep_app_frame(slot, &head, body).await;
        seq
    }

    /// Into the window, the event stream and SQLite, as the pipeline keeps every frame.
    async fn keep_app_frame(&self, slot: &Slot, head: &FrameHead, body: bytes::Bytes) {
        let f = Arc::new(WebFrame::new(head, vec!["app"], body));
        slot.frames().push(f.clone());
        self.events
            .publish(Event::Frame(RenderedFrame::new(f.render(VIEW_BODY_CAP))));
        let _ = self.spill.send(f.to_stored(&slot.name)).await;
    }
}

/// A fresh head of an app frame of `slot`, numbered from the server's own counter.
fn head(slot: &Slot, direction: Direction, app: AppFrame, history_id: Option<i64>) -> FrameHead {
    FrameHead {
        seq: slot.frames().take_seq(),
        server: slot.name.clone(),
        time_us: now_us(),
        direction,
        kind: FrameKind::AppMessage,
        source: "app",
        meta: FrameMeta::default(),
        message: None,
        method: None,
        id: None,
        duration_ms: None,
        lint: None,
        headers: None,
        history_id,
        app: Some(app),
    }
}

/// Method, id and kind of the message, when it is JSON-RPC; why not, in the note, when not.
fn classify(head: &mut FrameHead, app: &mut AppFrame, text: &str) {
    let (_, c) = parse_and_classify(text.as_bytes());
    head.message = Some(c.kind_name());
    match &c {
        Classified::Request { id, method } => {
            head.method = Some(label(method));
            head.id = Some(RequestId::to_value(id));
        }
        Classified::Notification { method } => head.method = Some(label(method)),
        Classified::Response { id } => head.id = Some(RequestId::to_value(id)),
        Classified::ErrorResponse { id, .. } => head.id = id.as_ref().map(RequestId::to_value),
        Classified::Batch(n) => add_note(
            app,
            &format!("a batch of {n} (the bridge sends one message at a time)"),
        ),
        Classified::Invalid(why) => add_note(app, &format!("not JSON-RPC: {why}")),
    }
    if let Some(serde_json::Value::String(s)) = head.id.as_mut() {
        *s = label(s);
    }
}

fn add_note(app: &mut AppFrame, text: &str) {
    app.note = Some(match app.note.take() {
        Some(n) => format!("{n}; {text}"),
        None => text.to_string(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_stays_on_a_character_boundary() {
        assert_eq!(cut("héllo", 2), ("h", true));
        assert_eq!(cut("abc", 3), ("abc", false));
    }
}
