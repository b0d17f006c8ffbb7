//! The History tab: the SQLite history shared with the web UI (`Inspector::history`), newest
//! first, searched in full text, for this server or all; one entry in detail (params, result,
//! what it caused — progress, logs, the server's questions nested by `input_required` round —
//! and its frames); pin with a label; Replay (the same method and params again, through the
//! engine, so the replay is itself a history entry). Rows follow the core's `history` events and
//! older pages load when the cursor goes past the bottom.

use super::{Binding, Ctx, Handled, Tab, TabId, text};
use crate::msg::{CoreEvent, Done, Effect, Route};
use crate::widgets::input::{Edit, Input};
use crate::widgets::list::Cursor;
use crate::widgets::pager::{MAX_LINE_CHARS, MAX_LINES, Pager};
use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent};
use mcpscope_inspect::Call;
use mcpscope_store::HistoryQuery;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;

/// Rows kept: past this the oldest go (and are paged in again when scrolled to).
pub const MAX_ROWS: usize = 2_000;
/// Entries asked for per page.
const PAGE: usize = 100;
/// Characters kept of a row's short fields (method, target, label, server).
const FIELD_CHARS: usize = 200;

/// One row of the list: what it shows of an entry (never its result: that can be 256 KB).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The entry's id.
    pub id: i64,
    /// Its server.
    pub server: String,
    /// The request's method.
    pub method: String,
    /// What it was about (the tool, the URI, the prompt).
    pub target: String,
    /// `pending`, `ok`, `error` or `cancelled`.
    pub status: String,
    /// How long it took.
    pub duration_ms: Option<u64>,
    /// When it started (µs since the epoch).
    pub started_us: u64,
    /// Pinned past retention.
    pub pinned: bool,
    /// The pin's label.
    pub label: Option<String>,
}

impl Row {
    /// A row from a `HistoryEntry` view.
    pub fn of(v: &Value) -> Option<Row> {
        Some(Row {
            id: v.get("id")?.as_i64()?,
            server: cut(text(v, "server"), FIELD_CHARS),
            method: cut(text(v, "method"), FIELD_CHARS),
            target: cut(&target(v), FIELD_CHARS),
            status: cut(text(v, "status"), 20),
            duration_ms: v
                .get("durationMs")
                .and_then(Value::as_f64)
                .map(|d| d as u64),
            started_us: v.get("startedAtUs").and_then(Value::as_u64).unwrap_or(0),
            pinned: v.get("pinned").and_then(Value::as_bool).unwrap_or(false),
            label: v
                .get("label")
                .and_then(Value::as_str)
                .map(|l| cut(l, FIELD_CHARS)),
        })
    }
}

/// What a request was about (the web's `historyTarget`).
fn target(v: &Value) -> String {
    let p = v.get("params").cloned().unwrap_or(Value::Null);
    let s = |k: &str| text(&p, k).to_string();
    match text(v, "method") {
        "tools/call" | "prompts/get" => s("name"),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => s("uri"),
        "completion/complete" => {
            let r = p.get("ref").cloned().unwrap_or(Value::Null);
            let n = text(&r, "name");
            if n.is_empty() { text(&r, "uri") } else { n }.to_string()
        }
        "logging/setLevel" => s("level"),
        _ => String::new(),
    }
}

/// The first `n` characters of `s`, with a mark when cut; control characters made visible.
pub(crate) fn cut(s: &str, n: usize) -> String {
    let mut out: String = s
        .chars()
        .take(n)
        .map(|c| if c.is_control() { '·' } else { c })
        .collect();
    if s.chars().nth(n).is_some() {
        out.push('…');
    }
    out
}

/// `HH:MM:SS` (UTC) of a time in µs since the epoch.
pub(crate) fn clock(us: u64) -> String {
    let s = us / 1_000_000 % 86_400;
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// `v` as lines of pretty JSON (a string as its lines), each cut, at most `room` of them.
pub(crate) fn json_lines(v: &Value, indent: &str, room: usize) -> Vec<String> {
    let text = match v {
        Value::String(s) => s.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    };
    let mut out: Vec<String> = text
        .lines()
        .take(room)
        .map(|l| format!("{indent}{}", cut(l, MAX_LINE_CHARS)))
        .collect();
    if text.lines().nth(room).is_some() {
        out.push(format!("{indent}… (more lines not shown)"));
    }
    out
}

/// What the search box asks for: `method:M` (a method, or a prefix ending in `/`: `tools/`),
/// `status:S` (`ok`, `error`, `pending`, `cancelled`; `m:` and `s:` for short), and the other
/// words searched in full text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// The full-text words.
    pub text: Option<String>,
    /// The method (or prefix).
    pub method: Option<String>,
    /// The status.
    pub status: Option<String>,
}

impl Filter {
    /// The filter the search text `s` asks for.
    pub fn of(s: &str) -> Filter {
        let mut f = Filter::default();
        let mut words = Vec::new();
        for w in s.split_whitespace() {
            match w.split_once(':') {
                Some(("method" | "m", v)) if !v.is_empty() => f.method = Some(v.to_string()),
                Some(("status" | "s", v)) if !v.is_empty() => f.status = Some(v.to_string()),
                _ => words.push(w),
            }
        }
        f.text = Some(words.join(" ")).filter(|t| !t.is_empty());
        f
    }
}

/// A text field open over the list.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Field {
    /// The search (`/`).
    Search(Input),
    /// The label of a pin (`b`) for the entry `id`.
    Label(i64, Input),
}

/// The History tab's state.
#[derive(Debug, Default)]
pub struct History {
    /// The entries shown, newest first.
    rows: Vec<Row>,
    /// The list's cursor.
    cursor: Cursor,
    /// Every server's entries, not only this one's.
    all: bool,
    /// The full-text search in force.
    search: String,
    /// A text field being typed into.
    field: Option<Field>,
    /// The `before` of the next older page; `None`: none (or not asked yet).
    next_before: Option<i64>,
    /// A page is on its way.
    loading: bool,
    /// Bumped by every new query, so an answer to an older one is dropped.
    generation: u64,
    /// The entry open in detail: its id and its lines.
    detail: Option<(i64, Pager)>,
    /// The whole entry open in detail (for Replay and copying).
    detail_value: Option<Value>,
    /// Why the last read failed.
    error: Option<String>,
}

const KEYS: &[Binding] = &[
    Binding {
        keys: "↑↓ PgUp PgDn",
        what: "move (past the bottom: older entries)",
    },
    Binding {
        keys: "Enter",
        what: "the entry in detail",
    },
    Binding {
        keys: "/",
        what: "filter as you type: words, method:tools/ status:error",
    },
    Binding {
        keys: "f",
        what: "this server / all servers",
    },
    Binding {
        keys: "b",
        what: "pin (with a label) / unpin",
    },
    Binding {
        keys: "x",
        what: "replay the request",
    },
    Binding {
        keys: "y",
        what: "copy the entry as JSON",
    },
    Binding {
        keys: "Esc",
        what: "close the detail / clear the search",
    },
];

impl History {
    /// The rows shown, newest first.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// The query for the first page (or, with `before`, an older one).
    fn query(&self, ctx: &Ctx, before: Option<i64>) -> HistoryQuery {
        let filter = Filter::of(&self.search);
        HistoryQuery {
            text: filter.text,
            method: filter.method,
            status: filter.status,
            server: (!self.all).then(|| ctx.server.name.clone()),
            before,
            limit: PAGE,
            ..HistoryQuery::default()
        }
    }

    /// Read the first page again (a new search or filter).
    fn reload(&mut self, ctx: &Ctx) -> Vec<Effect> {
        self.generation += 1;
        self.loading = true;
        vec![Effect::History {
            route: Route::new(
                &ctx.server.name,
                TabId::History,
                "page",
                self.generation.to_string(),
            ),
            query: self.query(ctx, None),
        }]
    }

    /// The next older page, when there is one and none is on its way.
    fn more(&mut self, ctx: &Ctx) -> Vec<Effect> {
        let Some(before) = self.next_before.filter(|_| !self.loading) else {
            return Vec::new();
        };
        self.loading = true;
        vec![Effect::History {
            route: Route::new(
                &ctx.server.name,
                TabId::History,
                "more",
                self.generation.to_string(),
            ),
            query: self.query(ctx, Some(before)),
        }]
    }

    fn selected(&self) -> Option<&Row> {
        self.rows.get(self.cursor.selected)
    }

    fn open(&self, ctx: &Ctx, id: i64, tag: &'static str) -> Effect {
        Effect::HistoryEntry {
            route: Route::new(&ctx.server.name, TabId::History, tag, id.to_string()),
            id,
        }
    }

    /// A row that changed or is new, put in its place (newest first).
    fn upsert(&mut self, row: Row) {
        match self.rows.iter().position(|r| r.id == row.id) {
            Some(i) => self.rows[i] = row,
            None if !self.search.is_empty() => {}
            None => {
                let at = self.rows.iter().position(|r| r.id < row.id);
                let at = at.unwrap_or(self.rows.len());
                if at == self.rows.len() && self.next_before.is_some() {
                    return; // older than what is shown: its page brings it
                }
                self.rows.insert(at, row);
                if at <= self.cursor.selected && self.cursor.selected > 0 {
                    self.cursor.selected += 1; // stay on the same entry
                }
                if self.rows.len() > MAX_ROWS {
                    self.rows.truncate(MAX_ROWS);
                    self.next_before = self.rows.last().map(|r| r.id);
                }
            }
        }
    }

    /// `b`: unpin a pinned entry; else ask for a label.
    fn pin_key(&mut self, ctx: &Ctx, id: i64, pinned: bool) -> Vec<Effect> {
        if pinned {
            return vec![Effect::Pin {
                route: Route::new(&ctx.server.name, TabId::History, "pin", id.to_string()),
                id,
                pin: None,
            }];
        }
        self.field = Some(Field::Label(id, Input::default()));
        Vec::new()
    }

    /// `x`: send the entry's method and params again. The entry in detail is replayed at once;
    /// a row of the list is read first (rows do not keep params).
    fn replay_key(&mut self, ctx: &Ctx) -> Vec<Effect> {
        if let Some(v) = &self.detail_value {
            return replay(ctx, v);
        }
        match self.selected() {
            Some(r) => vec![self.open(ctx, r.id, "replay")],
            None => Vec::new(),
        }
    }

    fn field_key(&mut self, ctx: &Ctx, key: KeyEvent) -> Vec<Effect> {
        let Some(field) = self.field.as_mut() else {
            return Vec::new();
        };
        let input = match field {
            Field::Search(i) | Field::Label(_, i) => i,
        };
        match key.code {
            KeyCode::Esc => {
                // The search box closed with Esc clears the filter it was applying.
                if matches!(self.field.take(), Some(Field::Search(_))) && !self.search.is_empty() {
                    self.search.clear();
                    self.cursor = Cursor::default();
                    return self.reload(ctx);
                }
            }
            KeyCode::Enter => match self.field.take() {
                Some(Field::Search(i)) => {
                    let text = i.text().trim().to_string();
                    if text == self.search {
                        return Vec::new(); // applied as it was typed
                    }
                    self.search = text;
                    self.cursor = Cursor::default();
                    return self.reload(ctx);
                }
                Some(Field::Label(id, i)) => {
                    return vec![Effect::Pin {
                        route: Route::new(&ctx.server.name, TabId::History, "pin", id.to_string()),
                        id,
                        pin: Some(i.text().trim().to_string()),
                    }];
                }
                None => {}
            },
            _ => {
                // The search filters as it is typed (an answer to an older text is dropped).
                if input.key(key) == Edit::Changed
                    && let Some(Field::Search(i)) = &self.field
                {
                    self.search = i.text().trim().to_string();
                    self.cursor = Cursor::default();
                    return self.reload(ctx);
                }
            }
        }
        Vec::new()
    }

    fn detail_key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        let Some((id, pager)) = self.detail.as_mut() else {
            return Handled::No;
        };
        let id = *id;
        match key.code {
            KeyCode::Esc => {
                self.detail = None;
                self.detail_value = None;
                Handled::done()
            }
            KeyCode::Char('x') => Handled::Yes(self.replay_key(ctx)),
            KeyCode::Char('y') => Handled::Yes(vec![Effect::Copy(
                self.detail_value
                    .as_ref()
                    .map(|v| serde_json::to_string_pretty(v).unwrap_or_default())
                    .unwrap_or_default(),
            )]),
            KeyCode::Char('b') => {
                let pinned = self.rows.iter().any(|r| r.id == id && r.pinned)
                    || self
                        .detail_value
                        .as_ref()
                        .is_some_and(|v| v["pinned"] == true);
                Handled::Yes(self.pin_key(ctx, id, pinned))
            }
            _ if pager.key(key, 10) => Handled::done(),
            _ => Handled::No,
        }
    }

    fn list_key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        let e = match key.code {
            KeyCode::Char('/') => {
                self.field = Some(Field::Search(Input::new(self.search.clone())));
                Vec::new()
            }
            KeyCode::Char('f') => {
                self.all = !self.all;
                self.cursor = Cursor::default();
                self.reload(ctx)
            }
            KeyCode::Esc if !self.search.is_empty() => {
                self.search.clear();
                self.reload(ctx)
            }
            KeyCode::Enter => match self.selected() {
                Some(r) => vec![self.open(ctx, r.id, "detail")],
                None => Vec::new(),
            },
            KeyCode::Char('b') => match self.selected().map(|r| (r.id, r.pinned)) {
                Some((id, pinned)) => self.pin_key(ctx, id, pinned),
                None => Vec::new(),
            },
            KeyCode::Char('x') => self.replay_key(ctx),
            KeyCode::Char('y') => match self.selected() {
                Some(r) => vec![self.open(ctx, r.id, "copy")],
                None => Vec::new(),
            },
            _ => {
                let at_end = self.cursor.selected + 1 >= self.rows.len();
                if !self.cursor.key(key, self.rows.len(), 10) {
                    return Handled::No;
                }
                let down = matches!(key.code, KeyCode::Down | KeyCode::PageDown | KeyCode::End);
                if down && (at_end || self.cursor.selected + 1 >= self.rows.len()) {
                    self.more(ctx)
                } else {
                    Vec::new()
                }
            }
        };
        Handled::Yes(e)
    }

    fn page_done(&mut self, done: &Done, v: &Value) {
        if done.route.key != self.generation.to_string() {
            return; // an answer to an older search
        }
        self.loading = false;
        if done.route.tag == "page" {
            self.rows.clear();
        }
        let entries = v.get("entries").and_then(Value::as_array);
        for e in entries.into_iter().flatten() {
            if self.rows.len() >= MAX_ROWS {
                break;
            }
            if let Some(r) = Row::of(e)
                && !self.rows.iter().any(|x| x.id == r.id)
            {
                self.rows.push(r);
            }
        }
        self.next_before = v.get("nextBefore").and_then(Value::as_i64);
        if self.rows.len() >= MAX_ROWS {
            self.next_before = self.rows.last().map(|r| r.id);
        }
        self.cursor.clamp(self.rows.len());
    }
}

/// The `Call` that replays entry `v` on its server: its method and params, without the
/// original's progress token (the engine gives the replay its own).
pub fn replay_call(v: &Value) -> Call {
    let mut params = v.get("params").cloned().filter(Value::is_object);
    if let Some(meta) = params
        .as_mut()
        .and_then(|p| p.get_mut("_meta"))
        .and_then(Value::as_object_mut)
    {
        meta.remove("progressToken");
    }
    if let Some(p) = params.as_mut().and_then(Value::as_object_mut)
        && p.get("_meta")
            .and_then(Value::as_object)
            .is_some_and(|m| m.is_empty())
    {
        p.remove("_meta");
    }
    let method = text(v, "method").to_string();
    Call {
        progress: method == "tools/call",
        method,
        params,
        ..Call::default()
    }
}

fn replay(ctx: &Ctx, v: &Value) -> Vec<Effect> {
    let server = text(v, "server");
    let server = if server.is_empty() {
        ctx.server.name.as_str()
    } else {
        server
    };
    let method = text(v, "method");
    if method.is_empty() || method == "initialize" {
        return vec![Effect::Toast {
            text: format!("{method:?} cannot be replayed"),
            error: true,
        }];
    }
    let id = v.get("id").and_then(Value::as_i64).unwrap_or(0);
    vec![
        Effect::Toast {
            text: format!("replaying #{id} {method} on {server}"),
            error: false,
        },
        Effect::Call {
            route: Route::new(server, TabId::History, "replayed", id.to_string()),
            call: replay_call(v),
        },
    ]
}

/// The entry in detail, as lines: its head, params, result or error, what it caused, frames.
pub fn detail_lines(v: &Value) -> Vec<String> {
    let room = MAX_LINES / 4;
    let mut out = vec![format!(
        "#{} {} {}  {}  {}  {} ms  era {}",
        v["id"],
        cut(text(v, "method"), FIELD_CHARS),
        cut(&target(v), FIELD_CHARS),
        text(v, "status"),
        cut(text(v, "startedAt"), 40),
        v.get("durationMs")
            .and_then(Value::as_f64)
            .map(|d| format!("{}", d as u64))
            .unwrap_or_else(|| "-".into()),
        text(v, "era"),
    )];
    out.push(format!("server {}", cut(text(v, "server"), FIELD_CHARS)));
    if v["pinned"] == true {
        out.push(format!("pinned {}", cut(text(v, "label"), FIELD_CHARS)));
    }
    out.push(String::new());
    out.push("Params".into());
    if v["params"].is_null() {
        out.push("  (none)".into());
    } else {
        out.extend(json_lines(&v["params"], "  ", room));
    }
    if !v["error"].is_null() {
        out.push("Error".into());
        out.extend(json_lines(&v["error"], "  ", room));
    } else {
        let size = v.get("resultSize").and_then(Value::as_u64).unwrap_or(0);
        out.push(if v["truncated"] == true {
            format!("Result (its first part; {size} bytes in all)")
        } else {
            "Result".into()
        });
        out.extend(json_lines(&v["result"], "  ", room));
    }
    out.extend(children_lines(v.get("children").and_then(Value::as_array)));
    if let Some(frames) = v.get("frames").and_then(Value::as_array) {
        let seqs: Vec<String> = frames.iter().take(50).map(Value::to_string).collect();
        let more = frames.len().saturating_sub(50);
        let tail = if more > 0 {
            format!(" … and {more} more")
        } else {
            String::new()
        };
        out.push(format!("Frames (Protocol tab): {}{tail}", seqs.join(" ")));
    }
    out.truncate(MAX_LINES);
    out
}

/// What the request caused, at its offsets: the server's questions grouped under their
/// `input_required` round, progress, logs, notifications.
fn children_lines(children: Option<&Vec<Value>>) -> Vec<String> {
    let Some(children) = children.filter(|c| !c.is_empty()) else {
        return Vec::new();
    };
    let mut out = vec![String::new(), "What it caused".to_string()];
    let mut round: Option<i64> = None;
    for c in children.iter().take(2_000) {
        let d = &c["data"];
        let at = format!(
            "+{}ms",
            c.get("offsetMs").and_then(Value::as_f64).unwrap_or(0.0) as u64
        );
        let kind = text(c, "kind");
        let this_round = d.get("round").and_then(Value::as_i64);
        let nested = kind == "serverRequest" && this_round.is_some();
        if nested && this_round != round {
            out.push(format!(
                "  input_required round {}",
                this_round.unwrap_or(0)
            ));
        }
        round = if kind == "serverRequest" {
            this_round
        } else {
            None
        };
        let (label, detail) = child_summary(kind, d);
        let pad = if nested { "    " } else { "  " };
        out.push(format!("{pad}{at} {label}  {}", cut(&detail, 300)));
    }
    if children.len() > 2_000 {
        out.push(format!("  … {} more", children.len() - 2_000));
    }
    out
}

fn brief(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// One child as a label and its detail (the web's `childSummary`).
fn child_summary(kind: &str, d: &Value) -> (String, String) {
    match kind {
        "progress" => {
            let total = d.get("total").filter(|t| !t.is_null());
            let mut s = brief(&d["progress"]);
            if let Some(t) = total {
                s = format!("{s}/{}", brief(t));
            }
            if !text(d, "message").is_empty() {
                s = format!("{s} {}", text(d, "message"));
            }
            ("progress".into(), s)
        }
        "log" => {
            let logger = text(d, "logger");
            let logger = if logger.is_empty() {
                String::new()
            } else {
                format!("{logger}: ")
            };
            (
                format!("log [{}]", text(d, "level")),
                format!("{logger}{}", brief(&d["data"])),
            )
        }
        "serverRequest" => {
            let a = &d["answer"];
            let verdict = if !a["error"].is_null() {
                let e = &a["error"];
                format!("refused: {}", brief(e.get("message").unwrap_or(e)))
            } else if let Some(action) = a["result"].get("action").and_then(Value::as_str) {
                format!("answered: {action}")
            } else {
                format!("answered {}", brief(&a["result"]))
            };
            let method = text(d, "method");
            let method = if method.is_empty() {
                "server request"
            } else {
                method
            };
            (method.to_string(), verdict)
        }
        "notification" => (text(d, "method").to_string(), brief(&d["params"])),
        other => (other.to_string(), brief(d)),
    }
}

impl Tab for History {
    fn captures(&self) -> bool {
        self.field.is_some()
    }

    fn entered(&mut self, ctx: &Ctx) -> Vec<Effect> {
        self.reload(ctx)
    }

    fn key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        if self.field.is_some() {
            return Handled::Yes(self.field_key(ctx, key));
        }
        if self.detail.is_some() {
            return self.detail_key(ctx, key);
        }
        self.list_key(ctx, key)
    }

    fn scroll(&mut self, ctx: &Ctx, down: bool) -> Vec<Effect> {
        let code = if down { KeyCode::Down } else { KeyCode::Up };
        let k = KeyEvent::new(code, crossterm::event::KeyModifiers::NONE);
        if let Some((_, p)) = self.detail.as_mut() {
            p.key(k, 10);
            return Vec::new();
        }
        self.cursor.key(k, self.rows.len(), 10);
        // The wheel past the last row brings the next older page, as ↓ does.
        if down && self.cursor.selected + 1 >= self.rows.len() {
            return self.more(ctx);
        }
        Vec::new()
    }

    fn click(&mut self, ctx: &Ctx, _col: u16, row: u16) -> Vec<Effect> {
        if self.field.is_some() || self.detail.is_some() || row < LIST_TOP {
            return Vec::new();
        }
        let line = (row - LIST_TOP) as usize;
        let again = self
            .cursor
            .click(self.rows.len(), list_height(ctx.area), line);
        match self
            .rows
            .get(self.cursor.selected)
            .filter(|_| again == Some(true))
        {
            Some(r) => vec![self.open(ctx, r.id, "detail")],
            None => Vec::new(),
        }
    }

    fn core(&mut self, ctx: &Ctx, event: &CoreEvent) -> Vec<Effect> {
        if event.name != "history" {
            return Vec::new();
        }
        let Some(row) = Row::of(&event.data) else {
            return Vec::new();
        };
        if !self.all && row.server != ctx.server.name {
            return Vec::new(); // another server's, heard because a tab may show all
        }
        let open = self.detail.as_ref().is_some_and(|(id, _)| *id == row.id);
        self.upsert(row.clone());
        if open {
            return vec![self.open(ctx, row.id, "detail")];
        }
        Vec::new()
    }

    fn done(&mut self, ctx: &Ctx, done: Done) -> Vec<Effect> {
        let v = match &done.result {
            Ok(v) => v.clone(),
            Err(f) => {
                if done.route.tag == "page" || done.route.tag == "more" {
                    self.loading = false;
                }
                self.error = Some(format!("{}: {}", done.route.tag, f.message));
                return Vec::new();
            }
        };
        self.error = None;
        match done.route.tag {
            "page" | "more" => self.page_done(&done, &v),
            "detail" => {
                let id = v.get("id").and_then(Value::as_i64).unwrap_or(0);
                let title = format!("history #{id}");
                let top = match &self.detail {
                    Some((old, p)) if *old == id => p.top,
                    _ => 0,
                };
                let mut pager = Pager {
                    title,
                    lines: detail_lines(&v),
                    ..Pager::default()
                };
                pager.top = top.min(pager.lines.len().saturating_sub(1));
                self.detail = Some((id, pager));
                self.detail_value = Some(v);
            }
            "replay" => return replay(ctx, &v),
            "copy" => {
                return vec![Effect::Copy(
                    serde_json::to_string_pretty(&v).unwrap_or_default(),
                )];
            }
            "pin" => {
                if let Some(r) = Row::of(&v) {
                    self.upsert(r);
                }
            }
            "replayed" => {
                let id = v.get("historyId").and_then(Value::as_i64).unwrap_or(0);
                let how = if v.get("error").is_some_and(|e| !e.is_null()) {
                    "answered an error"
                } else {
                    "answered"
                };
                return vec![Effect::Toast {
                    text: format!("replay of #{} {how}: history #{id}", done.route.key),
                    error: false,
                }];
            }
            _ => {}
        }
        Vec::new()
    }

    fn goto(&mut self, ctx: &Ctx, item: &str) -> Vec<Effect> {
        match item.parse::<i64>() {
            Ok(id) => vec![self.open(ctx, id, "detail")],
            Err(_) => Vec::new(),
        }
    }

    /// The entries listed; `N+` while older pages are left to read.
    fn count(&self) -> Option<usize> {
        Some(self.rows.len()).filter(|n| *n > 0)
    }

    fn count_partial(&self) -> bool {
        self.next_before.is_some()
    }

    fn bindings(&self) -> &'static [Binding] {
        KEYS
    }

    fn render(&self, ctx: &Ctx, f: &mut Frame, area: Rect) {
        let theme = Theme::new(ctx.color);
        if let Some((_, pager)) = &self.detail {
            let head = Line::styled(
                format!("{} · Esc back · x replay · b pin · y copy", pager.title),
                theme.title(),
            );
            f.render_widget(Paragraph::new(head), Rect { height: 1, ..area });
            let rest = Rect {
                y: area.y + 1,
                height: area.height.saturating_sub(1),
                ..area
            };
            pager.render_lines(f, rest, theme);
            return;
        }
        let mut lines = vec![self.title_line(ctx, theme), self.field_line(theme)];
        lines.push(Line::styled(
            format!(
                "{:>7} {:<8} {:<9} {:>7}  {}",
                "#", "time", "status", "ms", "method"
            ),
            theme.dim(),
        ));
        let window = self.cursor.window(self.rows.len(), list_height(area));
        for i in window.clone() {
            let sel = i == self.cursor.selected && ctx.focused;
            lines.push(self.row_line(&self.rows[i], sel, theme));
        }
        lines.push(self.foot_line(window.end, theme));
        f.render_widget(Paragraph::new(lines), area);
    }
}

/// The list's first line in the tab: under the title, the search and the column heads.
const LIST_TOP: u16 = 3;

/// Rows of the list in the tab's `area` (a line under it says what is left).
fn list_height(area: Rect) -> usize {
    (area.height as usize)
        .saturating_sub(LIST_TOP as usize + 1)
        .max(1)
}

impl History {
    fn title_line(&self, ctx: &Ctx, theme: Theme) -> Line<'static> {
        let whose = if self.all {
            "all servers".to_string()
        } else {
            ctx.server.name.clone()
        };
        let mut s = format!("History of {whose} · {} shown", self.rows.len());
        if !self.search.is_empty() {
            s.push_str(&format!(" · filter \"{}\"", cut(&self.search, 60)));
        }
        if self.loading {
            s.push_str(" · loading…");
        }
        Line::styled(s, theme.title())
    }

    fn field_line(&self, theme: Theme) -> Line<'static> {
        match &self.field {
            Some(Field::Search(i)) => {
                let mut l = i.spans(true, 60);
                l.spans.insert(0, Span::styled("filter: ", theme.key()));
                l.spans.push(Span::styled(
                    "  words · method:tools/ · status:error · Enter keep · Esc clear",
                    theme.dim(),
                ));
                l
            }
            Some(Field::Label(id, i)) => {
                let mut l = i.spans(true, 40);
                l.spans
                    .insert(0, Span::styled(format!("pin #{id} label: "), theme.key()));
                l.spans.push(Span::styled(
                    "  Enter pin (empty: no label) · Esc cancel",
                    theme.dim(),
                ));
                l
            }
            None => match &self.error {
                Some(e) => Line::styled(cut(e, 300), theme.error()),
                None => Line::styled(
                    "Enter detail · / filter · f this/all · b pin · x replay",
                    theme.dim(),
                ),
            },
        }
    }

    fn row_line(&self, r: &Row, selected: bool, theme: Theme) -> Line<'static> {
        let dur = r
            .duration_ms
            .map(|d| d.to_string())
            .unwrap_or_else(|| "-".into());
        let pin = if r.pinned { "★" } else { " " };
        let server = if self.all {
            format!("{}  ", r.server)
        } else {
            String::new()
        };
        let label = r
            .label
            .as_ref()
            .map(|l| format!("  [{l}]"))
            .unwrap_or_default();
        let status_style = match r.status.as_str() {
            "ok" => theme.ok(),
            "error" => theme.error(),
            "pending" => theme.warn(),
            _ => theme.dim(),
        };
        let base = if selected {
            theme.selected()
        } else {
            theme.plain()
        };
        Line::from(vec![
            Span::styled(format!("{pin}{:>6} {} ", r.id, clock(r.started_us)), base),
            Span::styled(
                format!("{:<9}", r.status),
                if selected { base } else { status_style },
            ),
            Span::styled(
                format!(" {dur:>7}  {server}{} {}{label}", r.method, r.target),
                base,
            ),
        ])
    }

    fn foot_line(&self, shown_to: usize, theme: Theme) -> Line<'static> {
        if self.rows.is_empty() && !self.loading {
            let s = if self.search.is_empty() {
                "No requests yet."
            } else {
                "Nothing matches the search."
            };
            return Line::styled(s, theme.dim());
        }
        if self.next_before.is_some() && shown_to >= self.rows.len() {
            return Line::styled("… older entries: ↓ past the last loads them", theme.dim());
        }
        Line::raw("")
    }
}
