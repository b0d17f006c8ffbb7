//! Traffic frames as the web UI sees them (`FrameView`), and the bounded in-memory window that
//! holds each server's most recent ones.
//!
//! A frame is kept as its description (every `FrameView` field but the body, serialised once)
//! plus its exact bytes. Rendering adds the body as text (UTF-8) or Base64, cut to
//! [`VIEW_BODY_CAP`] for display; `/frames/:seq/body` serves the rest. The window holds the last
//! [`WINDOW_FRAMES`] frames per server and at most [`WINDOW_BYTES`] of bodies; every frame is also
//! written to SQLite, which answers for anything older.

use crate::verdicts::HeaderVerdicts;
use base64::Engine as _;
use bytes::Bytes;
use mcpscope_proto::{Direction, FrameKind, FrameMeta};
use mcpscope_store::StoredFrame;
use serde::Serialize;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use ts_rs::TS;

/// Frames per server kept in memory.
pub const WINDOW_FRAMES: usize = 10_000;
/// Body bytes per server kept in memory (older frames are served from SQLite).
pub const WINDOW_BYTES: usize = 128 << 20;
/// Bodies longer than this are sent cut short, with `truncated: true`.
pub const VIEW_BODY_CAP: usize = 64 << 10;

/// Everything of a `FrameView` but the body.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FrameHead {
    pub seq: u64,
    pub server: String,
    pub time_us: u64,
    pub direction: Direction,
    pub kind: FrameKind,
    #[ts(type = "FrameSource")]
    pub source: &'static str,
    pub meta: FrameMeta,
    #[ts(type = "'request' | 'response' | 'notification' | 'error' | 'batch' | 'invalid' | null")]
    pub message: Option<&'static str>,
    pub method: Option<String>,
    #[ts(type = "number | string | null")]
    pub id: Option<Value>,
    pub duration_ms: Option<f64>,
    pub lint: Option<Vec<LintFinding>>,
    pub headers: Option<HeaderVerdicts>,
    /// The history entry this frame belongs to, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub history_id: Option<i64>,
    /// Source `app` only: which app sent or received the `postMessage`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub app: Option<AppFrame>,
}

/// What an `app` frame says of its app (`FrameView.app` in docs/web-api.md).
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AppFrame {
    /// The tool whose app it is.
    pub tool: String,
    /// Which running instance of it (the view's id: one tool's app may be open twice).
    pub instance: String,
    /// `toApp` (host → app), `fromApp` (app → host), or `host` (a note of the core: a refusal,
    /// messages dropped).
    #[ts(type = "'toApp' | 'fromApp' | 'host'")]
    pub direction: &'static str,
    /// What the view or the core added (why it was refused, how many were dropped).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub note: Option<String>,
}

/// One schema-lint finding of a frame.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub(crate) struct LintFinding {
    pub path: String,
    pub message: String,
}

/// `FrameView` (docs/web-api.md): a frame as a view shows it. Never built on the hot path:
/// [`render`] splices the body into the head serialised once, and a test holds the two to the
/// same JSON. This type is what the SPA's generated `FrameView` is made from.
#[derive(Debug, Clone, Serialize, TS)]
pub struct FrameView {
    #[serde(flatten)]
    head: FrameHead,
    /// The body as text (UTF-8), cut to the view cap; null when it is not UTF-8.
    text: Option<String>,
    /// The body as Base64 when it is not UTF-8.
    base64: Option<String>,
    /// The whole body's length in bytes.
    size: u64,
    /// True when `text`/`base64` hold only the head of the body.
    truncated: bool,
}

/// A frame ready to serve: its description as JSON text and its bytes.
#[derive(Debug, Clone)]
pub(crate) struct WebFrame {
    pub seq: u64,
    pub time_us: u64,
    /// The sources it belongs to (the first is `FrameView.source`).
    pub sources: Vec<&'static str>,
    /// `FrameHead` as a JSON object.
    pub view: String,
    pub body: Bytes,
}

impl WebFrame {
    pub(crate) fn new(head: &FrameHead, sources: Vec<&'static str>, body: Bytes) -> WebFrame {
        WebFrame {
            seq: head.seq,
            time_us: head.time_us,
            sources,
            view: serde_json::to_string(head).unwrap_or_else(|_| "{}".into()),
            body,
        }
    }

    /// True when the frame belongs to one of `sources` (all when empty).
    pub(crate) fn matches(&self, sources: &[String]) -> bool {
        sources.is_empty() || self.sources.iter().any(|s| sources.iter().any(|f| f == s))
    }

    /// The `FrameView` JSON: the description plus the body, cut to `cap` bytes.
    pub(crate) fn render(&self, cap: usize) -> String {
        render(&self.view, &self.body, cap)
    }

    pub(crate) fn to_stored(&self, server: &str) -> StoredFrame {
        StoredFrame {
            server: server.to_string(),
            seq: self.seq,
            time_us: self.time_us,
            sources: self.sources.iter().map(|s| s.to_string()).collect(),
            view: self.view.clone(),
            body: self.body.to_vec(),
        }
    }
}

/// Splice `text`/`base64`/`size`/`truncated` into a description object.
pub(crate) fn render(view: &str, body: &[u8], cap: usize) -> String {
    let (shown, truncated) = if body.len() > cap {
        let mut end = cap;
        // Cut on a character boundary when the body is text, so the head stays valid UTF-8.
        if let Err(e) = std::str::from_utf8(&body[..end])
            && e.error_len().is_none()
        {
            end = e.valid_up_to();
        }
        (&body[..end], true)
    } else {
        (body, false)
    };
    let (text, b64) = match std::str::from_utf8(shown) {
        Ok(t) => (
            serde_json::to_string(t).unwrap_or_else(|_| "null".into()),
            "null".to_string(),
        ),
        Err(_) => (
            "null".to_string(),
            format!(
                "\"{}\"",
                base64::engine::general_purpose::STANDARD.encode(shown)
            ),
        ),
    };
    let head = view.strip_suffix('}').unwrap_or(view);
    let sep = if head.ends_with('{') { "" } else { "," };
    format!(
        "{head}{sep}\"text\":{text},\"base64\":{b64},\"size\":{},\"truncated\":{truncated}}}",
        body.len()
    )
}

/// Which sources a frame belongs to. A message carried over HTTP belongs to both `jsonrpc` and
/// `http`, so the HTTP filter shows every exchange and the JSON-RPC filter every message.
pub(crate) fn sources(kind: FrameKind, carries_message: bool, exchange: bool) -> Vec<&'static str> {
    match kind {
        FrameKind::StdinLine | FrameKind::StdoutLine => vec!["jsonrpc"],
        FrameKind::StderrLine => vec!["stderr"],
        FrameKind::HttpRequest | FrameKind::HttpResponse | FrameKind::SseEvent => {
            if carries_message {
                vec!["jsonrpc", "http"]
            } else {
                vec!["http"]
            }
        }
        FrameKind::Lifecycle if exchange => vec!["lifecycle", "http"],
        FrameKind::Lifecycle => vec!["lifecycle"],
        FrameKind::OAuthRequest | FrameKind::OAuthResponse | FrameKind::OAuthStep => vec!["oauth"],
        FrameKind::AppMessage => vec!["app"],
    }
}

/// The last frames of one server, oldest first.
#[derive(Debug)]
pub(crate) struct FrameWindow {
    frames: VecDeque<Arc<WebFrame>>,
    bytes: usize,
    max_frames: usize,
    max_bytes: usize,
    /// The server's frame numbers: the last one given out. Every session of the server numbers
    /// its frames from it (`ClientOptions::frame_numbers`), so the engine's number of a frame is
    /// the one the view shows, stores and links warnings to.
    numbers: Arc<AtomicU64>,
}

impl FrameWindow {
    /// An empty window whose next frame is numbered `next_seq`.
    pub(crate) fn new(next_seq: u64, max_frames: usize, max_bytes: usize) -> FrameWindow {
        FrameWindow {
            frames: VecDeque::new(),
            bytes: 0,
            max_frames: max_frames.max(1),
            max_bytes,
            numbers: Arc::new(AtomicU64::new(next_seq.saturating_sub(1))),
        }
    }

    /// The counter the server's sessions number their frames from.
    pub(crate) fn numbers(&self) -> Arc<AtomicU64> {
        self.numbers.clone()
    }

    /// A number for a frame no session recorded (an OAuth flow a view started).
    pub(crate) fn take_seq(&self) -> u64 {
        self.numbers.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The oldest seq held in memory; everything below it is in SQLite only.
    pub(crate) fn first_seq(&self) -> u64 {
        self.frames
            .front()
            .map(|f| f.seq)
            .unwrap_or_else(|| self.numbers.load(Ordering::SeqCst) + 1)
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.frames.len()
    }

    /// Keep `f`. Frames stay in seq order: the numbers come from the engine and may have gaps
    /// (frames of a connection whose processor had gone), and two connections' processors may
    /// push a moment out of order (a reconnect), so a late one is inserted in its place.
    pub(crate) fn push(&mut self, f: Arc<WebFrame>) {
        self.bytes += f.body.len();
        match self.frames.back() {
            Some(last) if last.seq > f.seq => {
                let at = self.frames.partition_point(|g| g.seq < f.seq);
                self.frames.insert(at, f);
            }
            _ => self.frames.push_back(f),
        }
        while self.frames.len() > self.max_frames
            || (self.bytes > self.max_bytes && self.frames.len() > 1)
        {
            if let Some(old) = self.frames.pop_front() {
                self.bytes -= old.body.len();
            }
        }
    }

    /// Replace a frame still in the window (its verdicts were completed).
    pub(crate) fn replace(&mut self, f: Arc<WebFrame>) {
        if let Some(i) = self.index(f.seq) {
            self.frames[i] = f;
        }
    }

    pub(crate) fn get(&self, seq: u64) -> Option<Arc<WebFrame>> {
        self.index(seq).map(|i| self.frames[i].clone())
    }

    /// Where frame `seq` is held, if it still is.
    fn index(&self, seq: u64) -> Option<usize> {
        let i = self.frames.partition_point(|f| f.seq < seq);
        (self.frames.get(i)?.seq == seq).then_some(i)
    }

    /// Frames with seq > `after`, oldest first, at most `limit`.
    pub(crate) fn after(&self, after: u64, limit: usize, sources: &[String]) -> Vec<Arc<WebFrame>> {
        let skip = self.frames.partition_point(|f| f.seq <= after);
        self.frames
            .iter()
            .skip(skip)
            .filter(|f| f.matches(sources))
            .take(limit)
            .cloned()
            .collect()
    }

    /// Frames with seq < `before`, the newest `limit` of them, oldest first.
    pub(crate) fn before(
        &self,
        before: u64,
        limit: usize,
        sources: &[String],
    ) -> Vec<Arc<WebFrame>> {
        let end = self.frames.partition_point(|f| f.seq < before);
        let mut out: Vec<Arc<WebFrame>> = self
            .frames
            .range(..end)
            .rev()
            .filter(|f| f.matches(sources))
            .take(limit)
            .cloned()
            .collect();
        out.reverse();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(seq: u64, body: &str, src: &'static str) -> Arc<WebFrame> {
        Arc::new(WebFrame {
            seq,
            time_us: seq,
            sources: vec![src],
            view: format!("{{\"seq\":{seq}}}"),
            body: Bytes::from(body.to_string()),
        })
    }

    #[test]
    fn bodies_are_spliced_in_and_cut_on_a_character_boundary() {
        let r = render("{\"seq\":1}", "héllo".as_bytes(), 2);
        let v: Value = serde_json::from_str(&r).unwrap();
        assert_eq!(v["text"], "h");
        assert_eq!(v["truncated"], true);
        assert_eq!(v["size"], 6);
        let b: Value = serde_json::from_str(&render("{}", &[0xff, 0], 10)).unwrap();
        assert_eq!(b["base64"], "/wA=");
        assert_eq!(b["text"], Value::Null);
    }

    #[test]
    fn the_spliced_rendering_is_the_typed_frame_view() {
        let head = FrameHead {
            seq: 7,
            server: "demo".into(),
            time_us: 1,
            direction: Direction::In,
            kind: FrameKind::StdoutLine,
            source: "jsonrpc",
            meta: FrameMeta::default(),
            message: Some("response"),
            method: None,
            id: Some(Value::from(1)),
            duration_ms: Some(2.5),
            lint: Some(vec![]),
            headers: None,
            history_id: Some(3),
            app: None,
        };
        let body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}";
        let web = WebFrame::new(&head, vec!["jsonrpc"], Bytes::from(body));
        let typed = FrameView {
            head,
            text: Some(body.into()),
            base64: None,
            size: body.len() as u64,
            truncated: false,
        };
        assert_eq!(
            web.render(VIEW_BODY_CAP),
            serde_json::to_string(&typed).unwrap()
        );
    }

    #[test]
    fn the_window_is_bounded_and_pages_both_ways() {
        let mut w = FrameWindow::new(1, 5, 1 << 20);
        for _ in 0..8 {
            let s = w.take_seq();
            w.push(frame(
                s,
                "x",
                if s.is_multiple_of(2) {
                    "jsonrpc"
                } else {
                    "stderr"
                },
            ));
        }
        assert_eq!(w.len(), 5);
        assert_eq!(w.first_seq(), 4);
        let seqs = |v: Vec<Arc<WebFrame>>| v.iter().map(|f| f.seq).collect::<Vec<_>>();
        assert_eq!(seqs(w.after(5, 2, &[])), vec![6, 7]);
        assert_eq!(seqs(w.after(0, 100, &["jsonrpc".into()])), vec![4, 6, 8]);
        assert_eq!(seqs(w.before(8, 2, &[])), vec![6, 7]);
        assert!(w.get(3).is_none());
        assert_eq!(w.get(7).unwrap().seq, 7);
        let mut by_bytes = FrameWindow::new(1, 100, 10);
        for _ in 0..4 {
            let s = by_bytes.take_seq();
            by_bytes.push(frame(s, "abcd", "http"));
        }
        assert_eq!(by_bytes.len(), 2);
    }

    /// The engine numbers frames, so the window sees gaps (a gone connection's frames) and, on a
    /// reconnect, a late frame of the old connection after the new one's first.
    #[test]
    fn gaps_and_a_late_frame_keep_the_window_in_order() {
        let mut w = FrameWindow::new(1, 100, 1 << 20);
        for s in [1, 2, 5, 9, 7, 10] {
            w.push(frame(s, "x", "jsonrpc"));
        }
        let seqs = |v: Vec<Arc<WebFrame>>| v.iter().map(|f| f.seq).collect::<Vec<_>>();
        assert_eq!(seqs(w.after(0, 100, &[])), vec![1, 2, 5, 7, 9, 10]);
        assert_eq!(seqs(w.after(2, 2, &[])), vec![5, 7]);
        assert_eq!(seqs(w.before(9, 2, &[])), vec![5, 7]);
        assert_eq!(w.get(7).unwrap().seq, 7);
        assert!(w.get(6).is_none());
        assert_eq!(w.first_seq(), 1);
    }
}
