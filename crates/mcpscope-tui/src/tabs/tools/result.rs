//! A tool call's outcome as lines the user moves through: success or `isError` (apart from a
//! protocol error or a cancel), `structuredContent` checked against the tool's `outputSchema`,
//! each content block (text; JSON as a foldable tree; images, audio and blobs described, with
//! `w` to save them to a file; resource links that Enter follows into Resources), and
//! `structuredContent` as a foldable tree. Bounded: [`MAX_LINES`] lines, each cut when made.

use crate::widgets::list::Cursor;
use crate::widgets::style::Theme;
use base64::Engine;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;
use std::collections::HashSet;

/// Lines of one outcome.
pub(crate) const MAX_LINES: usize = 20_000;
/// Lines of one text block.
const MAX_TEXT_LINES: usize = 2_000;
/// Content blocks drawn.
const MAX_BLOCKS: usize = 200;
/// A container with more children than this starts folded.
const FOLD_OVER: usize = 50;
/// Characters of a line made.
const MAX_CHARS: usize = 500;

/// How `structuredContent` compared with the tool's `outputSchema`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Check {
    /// It matches.
    Valid,
    /// It does not: the errors (pointer: message).
    Invalid(Vec<String>),
    /// The tool declares an `outputSchema` but the result has no `structuredContent`.
    Missing,
    /// The schema cannot be used to validate.
    Unusable(String),
}

/// What came back.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    /// A result (maybe `isError`).
    Result {
        result: Value,
        history_id: Option<i64>,
        check: Option<Check>,
    },
    /// A protocol or transport error (the error body: `{code, message, rpcCode?, data?}`).
    Error { error: Value },
    /// Cancelled by the user.
    Cancelled,
}

/// What Enter (or `w`) does on a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    None,
    /// Fold or unfold a node of tree `.0` at pointer `.1`.
    Fold(usize, String),
    /// Save content block `.0` to a file.
    Save(usize),
    /// Open this resource in the Resources tab.
    Open(String),
}

/// How a piece of a line is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    Plain,
    Dim,
    Title,
    Error,
    Ok,
    Warn,
}

/// One line of the outcome.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RLine {
    pub parts: Vec<(String, Tone)>,
    pub action: Action,
}

/// An outcome with its lines, folds and cursor.
#[derive(Debug, Clone)]
pub(crate) struct ResultView {
    pub outcome: Outcome,
    /// The tool it came from (names saved files).
    pub tool: String,
    /// How long it took, in µs.
    pub duration_us: u64,
    /// Nodes whose fold was flipped from the default: (tree, pointer).
    toggled: HashSet<(usize, String)>,
    pub lines: Vec<RLine>,
    pub cursor: Cursor,
}

fn cut(s: &str) -> String {
    super::cut(s, MAX_CHARS)
}

fn line(parts: Vec<(String, Tone)>) -> RLine {
    RLine {
        parts,
        action: Action::None,
    }
}

fn one(s: impl Into<String>, t: Tone) -> RLine {
    line(vec![(s.into(), t)])
}

/// A duration in words: `850 ms`, `2.4 s`.
pub(crate) fn duration(us: u64) -> String {
    if us < 1_000_000 {
        format!("{} ms", us / 1_000)
    } else {
        format!("{:.1} s", us as f64 / 1e6)
    }
}

/// A byte count in words.
fn size(n: usize) -> String {
    if n < 1024 {
        format!("{n} B")
    } else if n < 1 << 20 {
        format!("{:.1} KB", n as f64 / 1024.0)
    } else {
        format!("{:.1} MB", n as f64 / (1u64 << 20) as f64)
    }
}

impl ResultView {
    /// The view of `outcome` of a call of `tool` that took `duration_us`.
    pub(crate) fn new(outcome: Outcome, tool: &str, duration_us: u64) -> ResultView {
        let mut v = ResultView {
            outcome,
            tool: tool.to_string(),
            duration_us,
            toggled: HashSet::new(),
            lines: Vec::new(),
            cursor: Cursor::default(),
        };
        v.rebuild();
        v
    }

    fn rebuild(&mut self) {
        let mut out = Vec::new();
        self.head(&mut out);
        if let Outcome::Result { result, .. } = &self.outcome {
            body(result, &self.toggled, &mut out);
        }
        if out.len() > MAX_LINES {
            out.truncate(MAX_LINES);
            out.push(one(
                "… more lines not shown (f: the whole result)",
                Tone::Dim,
            ));
        }
        self.lines = out;
        self.cursor.clamp(self.lines.len());
    }

    fn head(&self, out: &mut Vec<RLine>) {
        let took = duration(self.duration_us);
        match &self.outcome {
            Outcome::Cancelled => out.push(one(format!("Cancelled after {took}."), Tone::Warn)),
            Outcome::Error { error } => {
                let code = super::text_of(error, "code").unwrap_or("error");
                let title = match error.get("rpcCode") {
                    Some(rpc) if code == "rpc_error" => {
                        format!("✗ Protocol error (JSON-RPC {rpc})")
                    }
                    _ => format!("✗ Request failed: {code}"),
                };
                out.push(line(vec![
                    (title, Tone::Error),
                    (format!(" · {took}"), Tone::Dim),
                ]));
                for l in super::text_of(error, "message")
                    .unwrap_or("")
                    .lines()
                    .take(20)
                {
                    out.push(one(cut(l), Tone::Error));
                }
                if let Some(d) = error.get("data").filter(|d| !d.is_null()) {
                    out.push(one(cut(&format!("data: {d}")), Tone::Dim));
                }
            }
            Outcome::Result {
                result,
                history_id,
                check,
            } => {
                let is_error = result.get("isError") == Some(&Value::Bool(true));
                let (s, t) = if is_error {
                    ("✗ isError: the tool reported a failure", Tone::Error)
                } else {
                    ("✓ success", Tone::Ok)
                };
                let mut meta = format!(" · {took}");
                if let Some(h) = history_id {
                    meta.push_str(&format!(" · history #{h}"));
                }
                out.push(line(vec![(s.into(), t), (meta, Tone::Dim)]));
                check_lines(check.as_ref(), out);
            }
        }
    }

    /// Enter: fold a node, follow a link (its URI returned), save a block (its index returned).
    pub(crate) fn activate(&mut self) -> Action {
        let Some(l) = self.lines.get(self.cursor.selected) else {
            return Action::None;
        };
        match l.action.clone() {
            Action::Fold(t, p) => {
                if !self.toggled.remove(&(t, p.clone())) {
                    self.toggled.insert((t, p));
                }
                self.rebuild();
                Action::None
            }
            other => other,
        }
    }

    /// The block `w` saves: the one under the cursor, else the first that can be saved.
    pub(crate) fn save_target(&self) -> Option<usize> {
        let at = self.lines.get(self.cursor.selected).map(|l| &l.action);
        if let Some(Action::Save(i)) = at {
            return Some(*i);
        }
        self.lines.iter().find_map(|l| match l.action {
            Action::Save(i) => Some(i),
            _ => None,
        })
    }

    /// The bytes of content block `i` and a file name for them (tool, history id, index).
    pub(crate) fn file_of(&self, i: usize) -> Option<(String, Vec<u8>)> {
        let Outcome::Result {
            result, history_id, ..
        } = &self.outcome
        else {
            return None;
        };
        let block = result.get("content")?.get(i)?;
        let (data, mime) = match super::text_of(block, "type")? {
            "resource" => {
                let r = block.get("resource")?;
                (
                    super::text_of(r, "blob")?,
                    super::text_of(r, "mimeType").unwrap_or(""),
                )
            }
            _ => (
                super::text_of(block, "data")?,
                super::text_of(block, "mimeType").unwrap_or(""),
            ),
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .ok()?;
        let stem: String = self
            .tool
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(60)
            .collect();
        let h = history_id.map_or("result".to_string(), |h| h.to_string());
        Some((format!("{stem}-{h}-{i}.{}", extension(mime)), bytes))
    }

    /// Draw the lines into `area`, the cursor's line marked when `focused`.
    pub(crate) fn render(&self, f: &mut Frame, area: Rect, theme: Theme, focused: bool) {
        let window = self.cursor.window(self.lines.len(), area.height as usize);
        let shown: Vec<Line> = self.lines[window.clone()]
            .iter()
            .enumerate()
            .map(|(k, l)| {
                let here = focused && window.start + k == self.cursor.selected;
                let spans: Vec<Span> = l
                    .parts
                    .iter()
                    .map(|(s, t)| {
                        let st = if here {
                            theme.selected()
                        } else {
                            tone(*t, theme)
                        };
                        Span::styled(s.clone(), st)
                    })
                    .collect();
                Line::from(spans)
            })
            .collect();
        f.render_widget(Paragraph::new(shown), area);
    }
}

fn tone(t: Tone, theme: Theme) -> Style {
    match t {
        Tone::Plain => theme.plain(),
        Tone::Dim => theme.dim(),
        Tone::Title => theme.title(),
        Tone::Error => theme.error(),
        Tone::Ok => theme.ok(),
        Tone::Warn => theme.warn(),
    }
}

fn extension(mime: &str) -> &'static str {
    match mime {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/mpeg" => "mp3",
        "audio/ogg" => "ogg",
        "application/pdf" => "pdf",
        "application/json" => "json",
        "text/plain" => "txt",
        _ => "bin",
    }
}

fn check_lines(check: Option<&Check>, out: &mut Vec<RLine>) {
    match check {
        None => {}
        Some(Check::Valid) => out.push(one("✓ structuredContent matches outputSchema", Tone::Ok)),
        Some(Check::Missing) => out.push(one(
            "✗ structuredContent is missing, though the tool declares an outputSchema",
            Tone::Error,
        )),
        Some(Check::Unusable(why)) => {
            out.push(one(
                cut(&format!("outputSchema cannot be used: {why}")),
                Tone::Warn,
            ));
        }
        Some(Check::Invalid(errors)) => {
            out.push(one(
                format!(
                    "✗ structuredContent does not match outputSchema ({} errors)",
                    errors.len()
                ),
                Tone::Error,
            ));
            for e in errors.iter().take(20) {
                out.push(one(cut(&format!("  {e}")), Tone::Error));
            }
        }
    }
}

/// The content blocks, then `structuredContent`.
fn body(result: &Value, toggled: &HashSet<(usize, String)>, out: &mut Vec<RLine>) {
    let blocks = result.get("content").and_then(Value::as_array);
    let n = blocks.map_or(0, Vec::len);
    out.push(one(
        format!("── content ({n} block{}) ──", if n == 1 { "" } else { "s" }),
        Tone::Title,
    ));
    for (i, b) in blocks.into_iter().flatten().enumerate().take(MAX_BLOCKS) {
        if out.len() > MAX_LINES {
            return;
        }
        block(i, b, toggled, out);
    }
    if n > MAX_BLOCKS {
        out.push(one(
            format!("… {} more blocks (f: the whole result)", n - MAX_BLOCKS),
            Tone::Dim,
        ));
    }
    if let Some(s) = result.get("structuredContent") {
        out.push(one("── structuredContent ──", Tone::Title));
        tree(0, s, None, String::new(), 0, toggled, out);
    }
}

fn block(i: usize, b: &Value, toggled: &HashSet<(usize, String)>, out: &mut Vec<RLine>) {
    let kind = super::text_of(b, "type").unwrap_or("?");
    let mime = super::text_of(b, "mimeType").unwrap_or("?");
    match kind {
        "text" => text_block(i, super::text_of(b, "text").unwrap_or(""), toggled, out),
        "image" | "audio" => {
            let bytes = super::text_of(b, "data").map_or(0, |d| d.len() / 4 * 3);
            out.push(RLine {
                parts: vec![
                    (
                        format!("[{kind}] {} · {}", cut(mime), size(bytes)),
                        Tone::Plain,
                    ),
                    ("  w: save to file".into(), Tone::Dim),
                ],
                action: Action::Save(i),
            });
        }
        "resource_link" => {
            let uri = super::text_of(b, "uri").unwrap_or("");
            let name = super::text_of(b, "name").unwrap_or("");
            out.push(RLine {
                parts: vec![
                    (format!("→ {} {}", cut(uri), cut(name)), Tone::Plain),
                    ("  Enter: open in Resources".into(), Tone::Dim),
                ],
                action: Action::Open(uri.to_string()),
            });
        }
        "resource" => resource_block(i, b.get("resource").unwrap_or(&Value::Null), out),
        other => out.push(one(cut(&format!("[{other}] {b}")), Tone::Dim)),
    }
}

fn text_block(i: usize, text: &str, toggled: &HashSet<(usize, String)>, out: &mut Vec<RLine>) {
    let t = text.trim_start();
    if (t.starts_with('{') || t.starts_with('['))
        && let Ok(v) = serde_json::from_str::<Value>(text)
    {
        out.push(one("[text: JSON] Enter folds", Tone::Dim));
        return tree(i + 1, &v, None, String::new(), 0, toggled, out);
    }
    let lines: Vec<&str> = text.lines().collect();
    for l in lines.iter().take(MAX_TEXT_LINES) {
        out.push(one(cut(l), Tone::Plain));
    }
    if lines.len() > MAX_TEXT_LINES {
        out.push(one(
            format!(
                "… {} more lines (f: the whole result)",
                lines.len() - MAX_TEXT_LINES
            ),
            Tone::Dim,
        ));
    }
}

fn resource_block(i: usize, r: &Value, out: &mut Vec<RLine>) {
    let uri = super::text_of(r, "uri").unwrap_or("");
    let mime = super::text_of(r, "mimeType").unwrap_or("");
    out.push(RLine {
        parts: vec![
            (
                format!("[resource] {} {}", cut(uri), cut(mime)),
                Tone::Plain,
            ),
            ("  Enter: open in Resources".into(), Tone::Dim),
        ],
        action: Action::Open(uri.to_string()),
    });
    if let Some(text) = super::text_of(r, "text") {
        for l in text.lines().take(MAX_TEXT_LINES) {
            out.push(one(cut(&format!("  {l}")), Tone::Plain));
        }
    } else if let Some(blob) = super::text_of(r, "blob") {
        out.push(RLine {
            parts: vec![
                (
                    format!("  [blob] {}", size(blob.len() / 4 * 3)),
                    Tone::Plain,
                ),
                ("  w: save to file".into(), Tone::Dim),
            ],
            action: Action::Save(i),
        });
    }
}

/// A JSON value as foldable lines: containers open unless large (or flipped by the user).
fn tree(
    id: usize,
    v: &Value,
    key: Option<&str>,
    pointer: String,
    depth: usize,
    toggled: &HashSet<(usize, String)>,
    out: &mut Vec<RLine>,
) {
    if out.len() > MAX_LINES {
        return;
    }
    let indent = "  ".repeat(depth.min(40));
    let label = key.map_or(String::new(), |k| format!("{}: ", cut(k)));
    let (n, open_s, close_s) = match v {
        Value::Object(m) => (m.len(), "{", "}"),
        Value::Array(a) => (a.len(), "[", "]"),
        scalar => {
            let t = if scalar.is_string() {
                Tone::Ok
            } else {
                Tone::Plain
            };
            out.push(line(vec![
                (format!("{indent}  {label}"), Tone::Dim),
                (cut(&scalar.to_string()), t),
            ]));
            return;
        }
    };
    if n == 0 {
        out.push(one(
            format!("{indent}  {label}{open_s}{close_s}"),
            Tone::Plain,
        ));
        return;
    }
    let open = (n <= FOLD_OVER && depth < 8) != toggled.contains(&(id, pointer.clone()));
    let fold = Action::Fold(id, pointer.clone());
    if !open {
        let what = if v.is_object() { "keys" } else { "items" };
        out.push(RLine {
            parts: vec![(
                format!("{indent}▸ {label}{open_s}…{close_s} {n} {what}"),
                Tone::Plain,
            )],
            action: fold,
        });
        return;
    }
    out.push(RLine {
        parts: vec![(format!("{indent}▾ {label}{open_s}"), Tone::Plain)],
        action: fold,
    });
    let child = |k: &str| format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1"));
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                tree(id, x, Some(k), child(k), depth + 1, toggled, out);
            }
        }
        Value::Array(a) => {
            for (j, x) in a.iter().enumerate() {
                tree(id, x, None, child(&j.to_string()), depth + 1, toggled, out);
            }
        }
        _ => {}
    }
    out.push(one(format!("{indent}  {close_s}"), Tone::Plain));
}
