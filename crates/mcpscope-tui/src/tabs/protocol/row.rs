//! One frame as Protocol keeps it: a compact [`Row`] (no body; the strings cut short) made from
//! the `FrameView` JSON the core sends (`crates/mcpscope-inspect/src/frames.rs`), and, apart and
//! bounded by bytes, the [`Detail`] lines of the frames that have more to say (lint findings,
//! header verdicts, HTTP headers). The verdicts are judged by the core; this only words them,
//! as the web UI's `utils/headers.ts` does.

use super::fmt::{boxed, cut};
use crate::tabs::text;
use serde_json::Value;

/// Characters of a row's summary kept.
const SUMMARY_CHARS: usize = 120;
/// Characters of an id kept.
const ID_CHARS: usize = 24;
/// Characters of a detail line kept.
const DETAIL_CHARS: usize = 200;
/// Lines of detail kept per frame.
const DETAIL_LINES: usize = 48;

/// Which way a frame went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// Client to server.
    Out,
    /// Server to client.
    In,
    /// Seen by the transport, not on the wire.
    Local,
}

impl Dir {
    /// The arrow the web UI draws.
    pub fn arrow(self) -> &'static str {
        match self {
            Dir::Out => "→",
            Dir::In => "←",
            Dir::Local => "•",
        }
    }
}

/// The sources a frame can belong to, in the order the filter cycles them.
pub const SOURCES: [&str; 5] = ["jsonrpc", "http", "stderr", "oauth", "lifecycle"];

/// A source's short name in a row.
pub fn source_short(i: usize) -> &'static str {
    ["rpc", "http", "err", "auth", "life"]
        .get(i)
        .copied()
        .unwrap_or("?")
}

/// What JSON-RPC message a frame carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message {
    /// None (stderr, lifecycle, an HTTP head).
    None,
    /// A request.
    Request,
    /// A result.
    Response,
    /// A notification.
    Notification,
    /// An error response.
    Error,
    /// A batch.
    Batch,
    /// Not a valid message.
    Invalid,
}

impl Message {
    fn of(s: &str) -> Message {
        match s {
            "request" => Message::Request,
            "response" => Message::Response,
            "notification" => Message::Notification,
            "error" => Message::Error,
            "batch" => Message::Batch,
            "invalid" => Message::Invalid,
            _ => Message::None,
        }
    }

    /// Its short name in a row.
    pub fn short(self) -> &'static str {
        match self {
            Message::None => "",
            Message::Request => "req",
            Message::Response => "res",
            Message::Notification => "note",
            Message::Error => "err",
            Message::Batch => "batch",
            Message::Invalid => "bad",
        }
    }

    /// True for a response or an error (the half of a pair that answers).
    pub fn answers(self) -> bool {
        matches!(self, Message::Response | Message::Error)
    }
}

/// How a header-verdict summary reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// All agree.
    Ok,
    /// Some could not be checked.
    Warn,
    /// A disagreement or a failed exchange.
    Bad,
}

/// A frame, compact: what a row draws and the filter reads, and nothing of the body.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The frame's number.
    pub seq: u64,
    /// When (µs since the epoch).
    pub time_us: u64,
    /// Which way.
    pub dir: Dir,
    /// The sources it belongs to (bit `i` = `SOURCES[i]`).
    pub sources: u8,
    /// The source it is shown as (an index of `SOURCES`).
    pub source: u8,
    /// Its frame kind is `http-request`, `http-response` or `sse-event`.
    pub http: bool,
    /// The message it carries.
    pub message: Message,
    /// The method, the HTTP target, the note, or the head of the text.
    pub summary: Box<str>,
    /// The JSON-RPC id, as text.
    pub id: Option<Box<str>>,
    /// How long its request took (on a response).
    pub duration_ms: Option<f32>,
    /// Schema-lint findings.
    pub lint: u16,
    /// The header verdicts in a few words, and how they read.
    pub verdict: Option<(Tone, Box<str>)>,
    /// Drawn red: a 4xx/5xx, a transport failure, a failed lifecycle step.
    pub red: bool,
    /// The body's whole size in bytes.
    pub size: u64,
    /// The history entry it belongs to.
    pub history_id: Option<i64>,
    /// The frame it pairs with (request ↔ response), by seq.
    pub partner: Option<u64>,
    /// The summary is the JSON-RPC method the frame carries (or answers): what `method:`
    /// filters on.
    pub has_method: bool,
}

/// The lines a frame's detail area shows beyond its row, each with how it reads.
pub type Detail = Vec<(Tone, Box<str>)>;

/// The frame's kind, e.g. `stdout-line`.
pub fn kind(v: &Value) -> &str {
    text(v, "kind")
}

impl Row {
    /// The row of a `FrameView`; `None` without a seq.
    pub fn of(v: &Value) -> Option<Row> {
        let seq = v.get("seq")?.as_u64()?;
        let kind = kind(v);
        let meta = v.get("meta").unwrap_or(&Value::Null);
        let source = text(v, "source");
        let mut sources = 0u8;
        let mut add = |s: &str| {
            if let Some(i) = SOURCES.iter().position(|x| *x == s) {
                sources |= 1 << i;
            }
        };
        add(source);
        let http = matches!(kind, "http-request" | "http-response" | "sse-event");
        if http || kind == "lifecycle" && meta.get("exchange").is_some() {
            add("http");
        }
        if kind.starts_with("oauth-") {
            add("oauth");
        }
        let verdict = v.get("headers").filter(|h| visible(h)).map(|h| {
            let (tone, t) = summary(h);
            (tone, boxed(&t, SUMMARY_CHARS))
        });
        Some(Row {
            seq,
            time_us: v.get("timeUs").and_then(Value::as_u64).unwrap_or(0),
            dir: match text(v, "direction") {
                "out" => Dir::Out,
                "in" => Dir::In,
                _ => Dir::Local,
            },
            sources,
            source: SOURCES.iter().position(|x| *x == source).unwrap_or(0) as u8,
            http,
            message: Message::of(text(v, "message")),
            summary: boxed(&frame_summary(v, kind, meta), SUMMARY_CHARS),
            id: match v.get("id") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(boxed(s, ID_CHARS)),
                Some(other) => Some(boxed(&other.to_string(), ID_CHARS)),
            },
            duration_ms: v
                .get("durationMs")
                .and_then(Value::as_f64)
                .map(|d| d as f32),
            lint: v
                .get("lint")
                .and_then(Value::as_array)
                .map_or(0, |l| l.len().min(u16::MAX as usize) as u16),
            red: is_red(v, kind, meta),
            verdict,
            size: v.get("size").and_then(Value::as_u64).unwrap_or(0),
            history_id: v.get("historyId").and_then(Value::as_i64),
            partner: None,
            has_method: !kind.starts_with("oauth-") && !text(v, "method").is_empty(),
        })
    }

    /// True when it belongs to source `i` of `SOURCES`.
    pub fn is(&self, i: usize) -> bool {
        self.sources & (1 << i) != 0
    }
}

/// The row's text, as the web UI's `frameSummary` writes it.
fn frame_summary(v: &Value, kind: &str, meta: &Value) -> String {
    let target = format!("{} {}", text(meta, "method"), text(meta, "url"))
        .trim()
        .to_string();
    let note = text(meta, "note");
    let status = meta.get("status").and_then(Value::as_u64);
    match kind {
        "oauth-request" => return join_note(target, note),
        "oauth-response" => {
            let t = match status {
                Some(s) => format!("HTTP {s} ← {target}"),
                None => target,
            };
            return join_note(t, note);
        }
        "oauth-step" => {
            return if note.is_empty() {
                text(v, "text").to_string()
            } else {
                note.to_string()
            };
        }
        _ => {}
    }
    let method = text(v, "method");
    if !method.is_empty() {
        return method.to_string();
    }
    match kind {
        "http-request" => target,
        "http-response" => format!("HTTP {}", status.map(|s| s.to_string()).unwrap_or_default()),
        _ if !note.is_empty() => note.to_string(),
        _ => cut(text(v, "text"), SUMMARY_CHARS),
    }
}

fn join_note(t: String, note: &str) -> String {
    if note.is_empty() {
        t
    } else {
        format!("{t}  · {note}")
    }
}

/// `frameIsRed`: a 4xx/5xx response, a failed exchange, a lifecycle or OAuth step that failed.
fn is_red(v: &Value, kind: &str, meta: &Value) -> bool {
    if meta
        .get("status")
        .and_then(Value::as_u64)
        .is_some_and(|s| s >= 400)
    {
        return true;
    }
    if v.get("headers").is_some_and(failed) {
        return true;
    }
    let note = text(meta, "note").to_ascii_lowercase();
    let any = |words: &[&str]| words.iter().any(|w| note.contains(w));
    match kind {
        "lifecycle" => any(&["fail", "refused", "error", "reset", "timed out"]),
        "oauth-step" => any(&[
            "could not",
            "fail",
            "refused",
            "denied",
            "timed out",
            "no answer",
            "no authorization response",
        ]),
        _ => false,
    }
}

/// The exchange answered 4xx/5xx or failed at the transport level.
fn failed(h: &Value) -> bool {
    h.get("failed").and_then(Value::as_bool).unwrap_or(false)
        || h.get("status")
            .and_then(Value::as_u64)
            .is_some_and(|s| s >= 400)
}

fn pairs(v: Option<&Value>) -> impl Iterator<Item = (&str, &str)> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let p = p.as_array()?;
            Some((p.first()?.as_str()?, p.get(1)?.as_str()?))
        })
}

fn rows(h: &Value) -> &[Value] {
    h.get("rows")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// `headersSectionVisible`: verdict rows, mirrored headers, or an `Mcp-*` request header other
/// than the protocol version and the session id.
fn visible(h: &Value) -> bool {
    if !h.is_object() {
        return false;
    }
    !rows(h).is_empty()
        || h.get("mirrored")
            .and_then(Value::as_array)
            .is_some_and(|m| !m.is_empty())
        || pairs(h.get("request")).any(|(k, _)| {
            let k = k.to_ascii_lowercase();
            k.starts_with("mcp-") && k != "mcp-protocol-version" && k != "mcp-session-id"
        })
}

/// A verdict's symbol, tone and words (`verdictDisplay`).
fn verdict_words(row: &Value) -> (&'static str, Tone, String) {
    let note = text(row, "note");
    let or = |d: &str| {
        if note.is_empty() {
            d.to_string()
        } else {
            note.to_string()
        }
    };
    match text(row, "verdict") {
        "ok" => ("✓", Tone::Ok, or("matches the body")),
        "mismatch" => ("✗", Tone::Bad, or("disagrees with the body")),
        "missing" => ("✗", Tone::Bad, or("never sent")),
        "undeclared" => (
            "✗",
            Tone::Bad,
            or("names a parameter the tool never declared"),
        ),
        _ => ("?", Tone::Warn, or("unchecked — tool schema unavailable")),
    }
}

/// What the server answered (`answerStatus`): its status (a 4xx is an answer, not a transport
/// failure), the transport failure when there was no answer, or none yet.
fn answer_status(h: &Value) -> String {
    match h.get("status").and_then(Value::as_u64) {
        Some(s) => format!("HTTP {s}"),
        None if h.get("failed").and_then(Value::as_bool).unwrap_or(false) => {
            "transport failure".to_string()
        }
        None => "no response".to_string(),
    }
}

/// The collapsed headers line (`collapsedSummary`): the first disagreement named, else a tally.
fn summary(h: &Value) -> (Tone, String) {
    let status = answer_status(h);
    let first = text(h, "firstDisagreement");
    if !first.is_empty() {
        return (Tone::Bad, format!("{status} · {first}"));
    }
    let rows = rows(h);
    if let Some(bad) = rows
        .iter()
        .find(|r| !matches!(text(r, "verdict"), "ok" | "unchecked"))
    {
        let (_, _, words) = verdict_words(bad);
        return (
            Tone::Bad,
            format!("{status} · {} {words}", text(bad, "header")),
        );
    }
    if failed(h) {
        // What the server said with its failed answer, or why there was none (`answerDetail`).
        let detail = [text(h, "responseExcerpt"), text(h, "transportError")]
            .into_iter()
            .find(|d| !d.is_empty());
        return match detail {
            Some(d) => (Tone::Bad, format!("{status} · {d}")),
            None => (Tone::Bad, status),
        };
    }
    let count = |v: &str| rows.iter().filter(|r| text(r, "verdict") == v).count();
    let (ok, unchecked) = (count("ok"), count("unchecked"));
    let mut parts = vec![status];
    if ok > 0 {
        parts.push(format!("{ok} ✓"));
    }
    if unchecked > 0 {
        parts.push(format!("{unchecked} unchecked"));
    }
    if rows.is_empty() {
        let n = h
            .get("mirrored")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        parts.push(format!("{n} Mcp-* mirrored"));
    }
    let tone = if unchecked > 0 { Tone::Warn } else { Tone::Ok };
    (tone, parts.join(" · "))
}

/// The detail lines of a frame beyond its row (empty when it has nothing more to say): the
/// HTTP target, the note, the header verdicts, the headers, the lint findings.
pub fn detail(v: &Value) -> Detail {
    let mut out: Detail = Vec::new();
    let mut line = |tone: Tone, s: String| {
        if out.len() < DETAIL_LINES {
            out.push((tone, boxed(&s, DETAIL_CHARS)));
        }
    };
    let meta = v.get("meta").unwrap_or(&Value::Null);
    let target = format!("{} {}", text(meta, "method"), text(meta, "url"));
    if !target.trim().is_empty() {
        let status = meta.get("status").and_then(Value::as_u64);
        let status = status.map(|s| format!("  → HTTP {s}")).unwrap_or_default();
        line(Tone::Ok, format!("{}{status}", target.trim()));
    }
    if !text(meta, "note").is_empty() {
        line(Tone::Ok, format!("note: {}", text(meta, "note")));
    }
    for l in v
        .get("lint")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let path = text(l, "path");
        let path = if path.is_empty() { "(root)" } else { path };
        line(Tone::Warn, format!("⚠ {path}: {}", text(l, "message")));
    }
    match v.get("headers").filter(|h| visible(h)) {
        Some(h) => verdict_lines(h, &mut line),
        None => {
            let mut first = true;
            for (k, val) in pairs(meta.get("headers")) {
                if std::mem::take(&mut first) {
                    line(Tone::Ok, "Headers".into());
                }
                line(Tone::Ok, format!("  {k}: {val}"));
            }
        }
    }
    out
}

/// The verdict section: the summary, each judged header, the request headers, what came back.
fn verdict_lines(h: &Value, line: &mut impl FnMut(Tone, String)) {
    let (tone, s) = summary(h);
    line(tone, format!("HTTP headers: {s}"));
    for r in rows(h) {
        let (sym, tone, words) = verdict_words(r);
        let opt = |k: &str| match r.get(k).and_then(Value::as_str) {
            Some(s) => s.to_string(),
            None => "—".into(),
        };
        line(
            tone,
            format!(
                "  {sym} {}: body says {}, sent {} — {words}",
                text(r, "header"),
                opt("expected"),
                opt("sent")
            ),
        );
    }
    if let Some(e) = h.get("transportError").and_then(Value::as_str) {
        line(Tone::Bad, format!("  transport error: {e}"));
    }
    line(Tone::Ok, "Request headers".into());
    for (k, val) in pairs(h.get("request")) {
        line(Tone::Ok, format!("  {k}: {val}"));
    }
    let mut first = true;
    for (k, val) in pairs(h.get("mirrored")) {
        if std::mem::take(&mut first) {
            line(Tone::Ok, "Mcp-* headers mirrored back".into());
        }
        line(Tone::Ok, format!("  {k}: {val}"));
    }
}

/// Bytes a detail holds (for the tab's byte budget).
pub fn detail_bytes(d: &Detail) -> usize {
    d.iter().map(|(_, s)| s.len() + 24).sum::<usize>() + 24
}
