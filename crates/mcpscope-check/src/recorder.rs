//! The run's observer: every frame of one era's session kept as a short excerpt (for evidence),
//! every frame from the server linted against the schema of its revision (`wire-schema-valid`),
//! stdout lines that are not MCP messages counted (`stdout-only-mcp`), and the ids we sent kept
//! so a response to an id we never used is caught (`response-ids-correlated`). What the modern and
//! frame checks read off the traffic is kept too (`checks/modern.rs`, `checks/conduct.rs`): modern
//! results without `resultType`, responses without an id, progress and log notifications, and
//! stderr lines that are JSON-RPC messages. Bounded: a server that floods gets its first frames
//! remembered, not all of them.

use crate::verdict::Evidence;
use mcpscope_client::{Observer, Recorded, SessionEvent};
use mcpscope_proto::lint::{LintContext, Linter, Revision};
use mcpscope_proto::{Classified, Direction, Frame, FrameKind, RequestId};
use serde_json::Value;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// Frames kept for evidence; later ones are counted, not kept.
const MAX_FRAMES: usize = 20_000;
/// Bytes of a frame's body kept for its excerpt.
const EXCERPT_BYTES: usize = 400;
/// Findings kept of each kind.
const MAX_FINDINGS: usize = 200;

/// A schema finding tied to its frame.
#[derive(Debug, Clone)]
pub(crate) struct SchemaFinding {
    /// The frame.
    pub(crate) frame: u64,
    /// The method the message is (or answers).
    pub(crate) method: String,
    /// Where in the message, and what.
    pub(crate) message: String,
}

/// What the recorder has seen.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// Excerpts of the frames, in order.
    pub(crate) frames: Vec<Evidence>,
    /// Frames past the bound.
    pub(crate) dropped: usize,
    /// Schema findings on the server's messages.
    pub(crate) schema: Vec<SchemaFinding>,
    /// Server messages linted.
    pub(crate) linted: usize,
    /// Stdout lines that are not a JSON-RPC message: (frame, why).
    pub(crate) junk: Vec<(u64, String)>,
    /// Responses to ids we never sent: (frame, id).
    pub(crate) stray: Vec<(u64, String)>,
    /// The engine's warnings about the traffic.
    pub(crate) warnings: Vec<String>,
    /// Modern results without a `resultType` string: (frame, the method answered).
    pub(crate) untyped: Vec<(u64, String)>,
    /// Modern results seen (what `result-type-present` judged).
    pub(crate) modern_results: usize,
    /// Responses without an id (or with `id: null`): what answers a notification looks like.
    pub(crate) idless: Vec<u64>,
    /// `notifications/progress` from the server: (frame, its progressToken as JSON).
    pub(crate) progress: Vec<(u64, String)>,
    /// `notifications/message` from the server: (frame, its level).
    pub(crate) logs: Vec<(u64, String)>,
    /// Stderr lines that are JSON-RPC messages: (frame, what the message was).
    pub(crate) stderr_rpc: Vec<(u64, String)>,
    /// Progress tokens our requests carried (as JSON text).
    pub(crate) tokens: HashSet<String>,
    /// Ids whose answers are watched for (`cancellation-honoured`).
    watched: HashSet<RequestId>,
    /// Answers to watched ids: (frame, id).
    pub(crate) watched_answers: Vec<(u64, String)>,
    /// Ids of requests we sent.
    sent: HashSet<RequestId>,
}

/// The observer of one era's session (and its probes).
pub(crate) struct Recorder {
    seen: Mutex<Seen>,
    linter: Arc<Linter>,
}

impl Recorder {
    /// A recorder linting with `linter` (shared: it compiles schemas once per run).
    pub(crate) fn new(linter: Arc<Linter>) -> Arc<Recorder> {
        Arc::new(Recorder {
            seen: Mutex::new(Seen::default()),
            linter,
        })
    }

    /// The run's linter.
    pub(crate) fn linter(&self) -> &Linter {
        &self.linter
    }

    /// Read what was seen.
    pub(crate) fn with<T>(&self, f: impl FnOnce(&Seen) -> T) -> T {
        f(&self
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    /// The number of the last frame seen: evidence of an exchange is every frame after it.
    pub(crate) fn mark(&self) -> u64 {
        self.with(|s| s.frames.last().map_or(0, |e| e.frame))
    }

    /// The message frames after `mark`, at most `max` of them.
    pub(crate) fn since(&self, mark: u64, max: usize) -> Vec<Evidence> {
        self.with(|s| {
            s.frames
                .iter()
                .filter(|e| {
                    e.frame > mark && e.direction != "local" && !e.kind.starts_with("stderr")
                })
                .take(max)
                .cloned()
                .collect()
        })
    }

    /// The frames with these numbers.
    pub(crate) fn frames(&self, numbers: &[u64]) -> Vec<Evidence> {
        self.with(|s| {
            s.frames
                .iter()
                .filter(|e| numbers.contains(&e.frame))
                .cloned()
                .collect()
        })
    }

    /// Keep every answer to `id` from now on (a request cancelled in flight).
    pub(crate) fn watch(&self, id: RequestId) {
        self.seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .watched
            .insert(id);
    }

    /// Record a frame that did not go through a session (a probe's).
    pub(crate) fn keep(&self, frame: &Frame) {
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        push_frame(&mut seen, frame);
    }
}

/// A frame as evidence: its number, direction, kind (with the HTTP status) and first bytes.
pub(crate) fn excerpt(frame: &Frame) -> Evidence {
    let cut = frame.body.len().min(EXCERPT_BYTES);
    let mut text = String::from_utf8_lossy(&frame.body[..cut]).into_owned();
    if frame.body.len() > cut {
        text.push('…');
    }
    if text.is_empty() {
        text = frame.meta.note.clone().unwrap_or_default();
    }
    let kind = serde_json::to_value(frame.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let kind = match (frame.meta.status, &frame.meta.method) {
        (Some(s), _) => format!("{kind} {s}"),
        (None, Some(m)) => format!("{kind} {m}"),
        _ => kind,
    };
    Evidence {
        frame: frame.seq,
        direction: match frame.direction {
            Direction::Out => "out",
            Direction::In => "in",
            Direction::Local => "local",
        },
        kind,
        excerpt: text,
    }
}

fn push_frame(seen: &mut Seen, frame: &Frame) {
    if seen.frames.len() < MAX_FRAMES {
        seen.frames.push(excerpt(frame));
    } else {
        seen.dropped += 1;
    }
}

/// A finding kept while fewer than [`MAX_FINDINGS`] of its kind are.
fn keep_finding<T>(list: &mut Vec<T>, item: T) {
    if list.len() < MAX_FINDINGS {
        list.push(item);
    }
}

/// What the modern and conduct checks need from one server message: a modern result's
/// `resultType`, a response without an id, a progress or log notification.
fn note_conduct(seen: &mut Seen, seq: u64, classified: &Classified, rec: &Recorded<'_>) {
    let message = rec.message.map(|m| m.as_ref());
    match classified {
        Classified::Response { .. }
            if rec.protocol_version.is_some_and(|v| v.starts_with("2026")) =>
        {
            seen.modern_results += 1;
            let typed = message
                .and_then(|m| m.pointer("/result/resultType"))
                .is_some_and(Value::is_string);
            if !typed {
                let method = rec.method.unwrap_or("?").to_string();
                keep_finding(&mut seen.untyped, (seq, method));
            }
        }
        Classified::ErrorResponse { id: None, .. } => keep_finding(&mut seen.idless, seq),
        Classified::Notification { method } if method == "notifications/progress" => {
            let token = message
                .and_then(|m| m.pointer("/params/progressToken"))
                .map_or_else(|| "(none)".to_string(), Value::to_string);
            keep_finding(&mut seen.progress, (seq, token));
        }
        Classified::Notification { method } if method == "notifications/message" => {
            let level = message
                .and_then(|m| m.pointer("/params/level"))
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string();
            keep_finding(&mut seen.logs, (seq, level));
        }
        _ => {}
    }
}

/// A stderr line that parses as a JSON-RPC message (an object with `jsonrpc` and a method, a
/// result or an error): a message the client never reads as one.
fn stderr_message(seen: &mut Seen, frame: &Frame) {
    let Ok(Value::Object(m)) = serde_json::from_slice::<Value>(frame.body.trim_ascii()) else {
        return;
    };
    if m.get("jsonrpc").is_none() {
        return;
    }
    let what = match (m.get("method").and_then(Value::as_str), m.get("id")) {
        (Some(method), Some(_)) => format!("a {method} request"),
        (Some(method), None) => format!("a {method} notification"),
        (None, _) => "a response".to_string(),
    };
    keep_finding(&mut seen.stderr_rpc, (frame.seq, what));
}

impl Observer for Recorder {
    fn on_frame(&self, rec: &Recorded<'_>) {
        let frame = rec.frame;
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        push_frame(&mut seen, frame);
        if frame.kind == FrameKind::StderrLine {
            stderr_message(&mut seen, frame);
            return;
        }
        let Some(classified) = rec.classified else {
            return;
        };
        if frame.direction == Direction::Out {
            if let Classified::Request { id, .. } = classified {
                seen.sent.insert(id.clone());
                if let Some(token) = rec
                    .message
                    .and_then(|m| m.pointer("/params/_meta/progressToken"))
                {
                    seen.tokens.insert(token.to_string());
                }
            }
            return;
        }
        if frame.direction != Direction::In {
            return;
        }
        if let Classified::Invalid(why) = classified {
            if frame.kind == FrameKind::StdoutLine && seen.junk.len() < MAX_FINDINGS {
                seen.junk.push((frame.seq, why.clone()));
            }
            return;
        }
        note_conduct(&mut seen, frame.seq, classified, rec);
        let answered = match classified {
            Classified::Response { id } => Some(id.clone()),
            Classified::ErrorResponse { id, .. } => id.clone(),
            _ => None,
        };
        if let Some(id) = &answered
            && seen.watched.contains(id)
        {
            let item = (frame.seq, id.to_string());
            keep_finding(&mut seen.watched_answers, item);
        }
        if let Some(id) = answered
            && !seen.sent.contains(&id)
            && seen.stray.len() < MAX_FINDINGS
        {
            seen.stray.push((frame.seq, id.to_string()));
        }
        let Some(message) = rec.message else {
            return;
        };
        let revision = rec
            .protocol_version
            .map(Revision::for_version)
            .unwrap_or(Revision::Legacy20251125);
        let report = self.linter.lint(
            revision,
            message,
            LintContext {
                request_method: rec.method,
            },
        );
        seen.linted += 1;
        for f in report.findings {
            if seen.schema.len() >= MAX_FINDINGS {
                break;
            }
            seen.schema.push(SchemaFinding {
                frame: frame.seq,
                method: rec.method.unwrap_or("?").to_string(),
                message: format!("{} {}: {}", report.definition, f.path, f.message),
            });
        }
    }

    fn on_event(&self, event: SessionEvent) {
        if let SessionEvent::Warning { message, .. } = event {
            let mut seen = self
                .seen
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if seen.warnings.len() < MAX_FINDINGS {
                seen.warnings.push(message);
            }
        }
    }
}
