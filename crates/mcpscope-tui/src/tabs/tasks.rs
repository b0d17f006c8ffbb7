//! The Tasks tab: the tasks the core's follower knows of on this server (`Inspector::tasks`,
//! read from memory, again on every `tasks` event), with status, progress (from the `progress`
//! events of the call that made the task), created and updated; one task in detail
//! (`Inspector::task`: the task as last sent, its result or error); `tasks/list`, `tasks/get`,
//! the result and `tasks/cancel`, each one request through the core with a history entry.
//! Following a task (polling `tasks/get`) is the core's, never the tab's.

use super::history::{cut, json_lines};
use super::{Binding, Ctx, Handled, Tab, TabId, text};
use crate::msg::{CoreEvent, Done, Effect, Job, Route};
use crate::widgets::list::Cursor;
use crate::widgets::pager::{MAX_LINES, Pager};
use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent};
use mcpscope_inspect::{Error, Inspector};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Tasks kept (the core bounds its own list; this bounds what a view holds of it).
pub const MAX_TASKS: usize = 500;

/// One task as the list shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRow {
    /// `taskId`.
    pub id: String,
    /// Its status as sent.
    pub status: String,
    /// It will not change again.
    pub terminal: bool,
    /// `statusMessage`.
    pub message: String,
    /// `createdAt` as sent.
    pub created: String,
    /// `lastUpdatedAt` as sent.
    pub updated: String,
    /// The tool whose call made it.
    pub tool: String,
    /// That call's history entry (its progress events name it).
    pub history_id: Option<i64>,
    /// How the core follows it (`polling`, `done`, `stopped`, `idle`), and every how long.
    pub polling: String,
    /// Heard of on an earlier connection.
    pub stale: bool,
    /// Things wrong with what the server sent.
    pub problems: usize,
}

impl TaskRow {
    /// A row from a `TaskView`.
    pub fn of(v: &Value) -> TaskRow {
        let p = &v["polling"];
        let mut polling = text(p, "state").to_string();
        if let Some(ms) = p.get("everyMs").and_then(Value::as_u64) {
            polling.push_str(&format!(" {ms}ms"));
        }
        TaskRow {
            id: cut(text(v, "taskId"), 80),
            status: cut(text(v, "status"), 30),
            terminal: v["terminal"] == true,
            message: cut(text(v, "statusMessage"), 200),
            created: cut(text(v, "createdAt"), 40),
            updated: cut(text(v, "lastUpdatedAt"), 40),
            tool: cut(text(v, "tool"), 60),
            history_id: v.get("historyId").and_then(Value::as_i64),
            polling,
            stale: v["stale"] == true,
            problems: v["problems"].as_array().map_or(0, Vec::len),
        }
    }
}

/// The Tasks tab's state.
#[derive(Debug, Default)]
pub struct Tasks {
    /// Oldest first, as the core lists them.
    rows: Vec<TaskRow>,
    /// The list's cursor.
    cursor: Cursor,
    /// What the connection can do with tasks, in words.
    support: String,
    /// Tasks the server reported beyond what the core keeps.
    omitted: u64,
    /// The last progress of each call that made a task, by its history entry.
    progress: BTreeMap<i64, String>,
    /// The task open in detail: its id and lines.
    detail: Option<(String, Pager)>,
    /// The whole detail, for copying.
    detail_value: Option<Value>,
    /// What the last request said went wrong.
    error: Option<String>,
    /// Read at least once.
    loaded: bool,
}

const KEYS: &[Binding] = &[
    Binding {
        keys: "↑↓",
        what: "move",
    },
    Binding {
        keys: "Enter",
        what: "the task in detail",
    },
    Binding {
        keys: "f",
        what: "reload: tasks/list (ask the server)",
    },
    Binding {
        keys: "w",
        what: "tasks/get the task now",
    },
    Binding {
        keys: "v",
        what: "fetch its result",
    },
    Binding {
        keys: "x",
        what: "cancel the task (tasks/cancel)",
    },
    Binding {
        keys: "y",
        what: "copy the task in detail as JSON",
    },
    Binding {
        keys: "Esc",
        what: "close the detail",
    },
];

/// A JSON value of a core answer.
fn json(v: serde_json::Result<Value>) -> Result<Value, Error> {
    v.map_err(|e| Error::internal(e.to_string()))
}

/// An `Effect::Run` for this tab: `f(inspector, server, task id)`.
fn run<F, Fut>(ctx: &Ctx, tag: &'static str, id: &str, f: F) -> Effect
where
    F: Fn(Arc<Inspector>, String, String) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<Value, Error>> + Send + 'static,
{
    let (server, task) = (ctx.server.name.clone(), id.to_string());
    Effect::Run {
        route: Route::new(&ctx.server.name, TabId::Tasks, tag, id),
        job: Job::new(move |i| f(i, server.clone(), task.clone())),
    }
}

/// Read the core's tasks of this server (no request).
fn read(ctx: &Ctx) -> Effect {
    run(ctx, "page", "", |i, s, _| async move {
        json(serde_json::to_value(i.tasks(&s, None)))
    })
}

/// What the connection can do with tasks (the web's support line).
fn support_line(page: &Value) -> String {
    let s = &page["support"];
    let yes = |k: &str| if s[k] == true { "yes" } else { "no" };
    if s["era"].is_null() {
        return "Not connected: the tasks heard of before are shown.".into();
    }
    if s["tasks"] != true {
        return "The server declares no tasks.".into();
    }
    let bounds = format!(
        "polls every {}–{} ms as the server asks",
        page["minPollMs"], page["maxPollMs"]
    );
    if s["era"] == "legacy" {
        format!(
            "2025-11-25 tasks: tasks/list {}, tasks/cancel {}, tools/call as a task {}; {bounds}",
            yes("list"),
            yes("cancel"),
            yes("toolCall")
        )
    } else {
        format!("tasks extension (the server decides per call); {bounds}")
    }
}

/// A `TaskDetail` as lines.
fn detail_lines(v: &Value) -> Vec<String> {
    let t = &v["task"];
    let room = MAX_LINES / 4;
    let mut out = vec![
        format!("task {}", cut(text(t, "taskId"), 200)),
        format!("status     {}", cut(text(t, "status"), 60)),
    ];
    let mut field = |name: &str, value: String| {
        if !value.is_empty() {
            out.push(format!("{name:<11}{}", cut(&value, 300)));
        }
    };
    field("message", text(t, "statusMessage").into());
    field("tool", text(t, "tool").into());
    field("created", text(t, "createdAt").into());
    field("updated", text(t, "lastUpdatedAt").into());
    field(
        "ttl",
        t.get("ttlMs").map(Value::to_string).unwrap_or_default(),
    );
    let p = &t["polling"];
    field(
        "polling",
        format!(
            "{} {} ({} polls) {}",
            text(p, "state"),
            p.get("everyMs")
                .and_then(Value::as_u64)
                .map(|m| format!("every {m} ms"))
                .unwrap_or_default(),
            p["polls"],
            text(p, "reason")
        ),
    );
    field(
        "history",
        t.get("historyId")
            .and_then(Value::as_i64)
            .map(|h| format!("#{h} (History tab)"))
            .unwrap_or_default(),
    );
    for p in t["problems"].as_array().into_iter().flatten().take(50) {
        out.push(format!("problem    {}", cut(&p.to_string(), 300)));
    }
    out.push(String::new());
    out.push("As the server last sent it".into());
    out.extend(json_lines(&v["raw"], "  ", room));
    if !v["error"].is_null() {
        out.push("Error".into());
        out.extend(json_lines(&v["error"], "  ", room));
    }
    if !v["result"].is_null() {
        out.push("Result".into());
        out.extend(json_lines(&v["result"], "  ", room));
    } else if let Some(p) = v["resultPreview"].as_str() {
        out.push(format!(
            "Result (its first part; {} bytes in all)",
            t["resultBytes"]
        ));
        out.extend(json_lines(&Value::String(p.to_string()), "  ", room));
    } else if t["hasResult"] != true && t["terminal"] == true {
        out.push("No result fetched yet: v fetches it.".into());
    }
    out.truncate(MAX_LINES);
    out
}

/// `2026-01-01T12:34:56Z` → `12:34:56`; anything else cut.
fn short_time(iso: &str) -> String {
    match (iso.get(10..11), iso.get(11..19)) {
        (Some("T"), Some(t)) => t.to_string(),
        _ => cut(iso, 19),
    }
}

impl Tasks {
    /// The tasks shown, oldest first.
    pub fn rows(&self) -> &[TaskRow] {
        &self.rows
    }

    fn page_done(&mut self, v: &Value) {
        self.loaded = true;
        self.support = support_line(v);
        self.omitted = v["omitted"].as_u64().unwrap_or(0);
        let tasks = v["tasks"].as_array();
        self.rows = tasks
            .into_iter()
            .flatten()
            .rev()
            .take(MAX_TASKS)
            .map(TaskRow::of)
            .collect();
        self.rows.reverse();
        self.cursor.clamp(self.rows.len());
    }

    fn selected_id(&self) -> Option<String> {
        match &self.detail {
            Some((id, _)) => Some(id.clone()),
            None => self.rows.get(self.cursor.selected).map(|r| r.id.clone()),
        }
    }

    fn open_detail(&mut self, v: Value) {
        let id = text(&v["task"], "taskId").to_string();
        let top = match &self.detail {
            Some((old, p)) if *old == id => p.top,
            _ => 0,
        };
        let lines = detail_lines(&v);
        let top = top.min(lines.len().saturating_sub(1));
        let title = format!("task {}", cut(&id, 60));
        self.detail = Some((
            id,
            Pager {
                title,
                lines,
                top,
                ..Pager::default()
            },
        ));
        self.detail_value = Some(v);
    }

    /// The keys that act on a task (the selected one or the one in detail).
    fn task_key(&mut self, ctx: &Ctx, code: KeyCode) -> Option<Vec<Effect>> {
        let id = self.selected_id()?;
        let e = match code {
            KeyCode::Enter if self.detail.is_none() => {
                run(ctx, "detail", &id, |i, s, t| async move {
                    json(serde_json::to_value(i.task(&s, &t)?))
                })
            }
            KeyCode::Char('w') => run(ctx, "get", &id, |i, s, t| async move {
                json(serde_json::to_value(i.get_task(&s, &t).await?))
            }),
            KeyCode::Char('v') => run(ctx, "result", &id, |i, s, t| async move {
                json(serde_json::to_value(i.task_result(&s, &t).await?))
            }),
            KeyCode::Char('x') => run(ctx, "cancel", &id, |i, s, t| async move {
                json(serde_json::to_value(i.cancel_task(&s, &t).await?))
            }),
            _ => return None,
        };
        Some(vec![e])
    }
}

impl Tab for Tasks {
    fn entered(&mut self, ctx: &Ctx) -> Vec<Effect> {
        vec![read(ctx)]
    }

    fn key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        if let Some(e) = self.task_key(ctx, key.code) {
            return Handled::Yes(e);
        }
        // `f` reloads, as in the official TUI's Tasks tab and this TUI's other lists.
        if key.code == KeyCode::Char('f') {
            return Handled::Yes(vec![run(ctx, "list", "", |i, s, _| async move {
                json(serde_json::to_value(i.list_tasks(&s).await?))
            })]);
        }
        if let Some((_, pager)) = self.detail.as_mut() {
            return match key.code {
                KeyCode::Esc => {
                    self.detail = None;
                    self.detail_value = None;
                    Handled::done()
                }
                KeyCode::Char('y') => Handled::Yes(vec![Effect::Copy(
                    serde_json::to_string_pretty(&self.detail_value).unwrap_or_default(),
                )]),
                _ if pager.key(key, 10) => Handled::done(),
                _ => Handled::No,
            };
        }
        if self.cursor.key(key, self.rows.len(), 10) {
            return Handled::done();
        }
        Handled::No
    }

    fn click(&mut self, ctx: &Ctx, _col: u16, row: u16) -> Vec<Effect> {
        if self.detail.is_some() || row < LIST_TOP {
            return Vec::new();
        }
        let line = (row - LIST_TOP) as usize;
        match self
            .cursor
            .click(self.rows.len(), list_height(ctx.area), line)
        {
            Some(true) => self.task_key(ctx, KeyCode::Enter).unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    fn scroll(&mut self, _ctx: &Ctx, down: bool) -> Vec<Effect> {
        let code = if down { KeyCode::Down } else { KeyCode::Up };
        let k = KeyEvent::new(code, crossterm::event::KeyModifiers::NONE);
        match self.detail.as_mut() {
            Some((_, p)) => {
                p.key(k, 10);
            }
            None => {
                self.cursor.key(k, self.rows.len(), 10);
            }
        }
        Vec::new()
    }

    fn core(&mut self, ctx: &Ctx, event: &CoreEvent) -> Vec<Effect> {
        match event.name.as_str() {
            "tasks" => {
                let mut e = vec![read(ctx)];
                if let Some((id, _)) = &self.detail {
                    e.push(run(ctx, "detail", id, |i, s, t| async move {
                        json(serde_json::to_value(i.task(&s, &t)?))
                    }));
                }
                e
            }
            "progress" => {
                let d = &event.data;
                if let Some(h) = d.get("historyId").and_then(Value::as_i64) {
                    let mut p = d["progress"].to_string();
                    if let Some(t) = d.get("total").filter(|t| !t.is_null()) {
                        p = format!("{p}/{t}");
                    }
                    if self.progress.len() >= MAX_TASKS && !self.progress.contains_key(&h) {
                        self.progress.pop_first();
                    }
                    self.progress.insert(h, cut(&p, 30));
                }
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    fn done(&mut self, ctx: &Ctx, done: Done) -> Vec<Effect> {
        let v = match done.result {
            Ok(v) => v,
            Err(f) => {
                self.error = Some(format!("{}: {}", done.route.tag, f.message));
                return Vec::new();
            }
        };
        self.error = None;
        match done.route.tag {
            "page" | "list" => self.page_done(&v),
            "detail" => self.open_detail(v),
            "get" | "result" | "cancel" => {
                let what = match done.route.tag {
                    "cancel" => "cancel asked",
                    "result" => "result fetched",
                    _ => "read again",
                };
                let status = text(&v["task"], "status").to_string();
                if self.detail.is_some() {
                    self.open_detail(v);
                }
                return vec![
                    read(ctx),
                    Effect::Toast {
                        text: format!("task {}: {what}; {status}", cut(&done.route.key, 40)),
                        error: false,
                    },
                ];
            }
            _ => {}
        }
        Vec::new()
    }

    fn reset(&mut self) {
        // The core keeps the tasks of an earlier connection (marked stale): read them again.
        self.detail = None;
        self.detail_value = None;
    }

    fn goto(&mut self, ctx: &Ctx, item: &str) -> Vec<Effect> {
        if let Some(i) = self.rows.iter().position(|r| r.id == item) {
            self.cursor.selected = i;
        }
        vec![run(ctx, "detail", item, |i, s, t| async move {
            json(serde_json::to_value(i.task(&s, &t)?))
        })]
    }

    fn count(&self) -> Option<usize> {
        Some(self.rows.len()).filter(|n| *n > 0)
    }

    fn bindings(&self) -> &'static [Binding] {
        KEYS
    }

    fn render(&self, ctx: &Ctx, f: &mut Frame, area: Rect) {
        let theme = Theme::new(ctx.color);
        if let Some((_, pager)) = &self.detail {
            let head = Line::styled(
                format!(
                    "{} · Esc back · w tasks/get · v result · x cancel · y copy",
                    pager.title
                ),
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
        let mut lines = vec![Line::styled(
            format!("Tasks of {} · {} known", ctx.server.name, self.rows.len()),
            theme.title(),
        )];
        lines.push(match &self.error {
            Some(e) => Line::styled(cut(e, 300), theme.error()),
            None => Line::styled(self.support.clone(), theme.dim()),
        });
        lines.push(Line::styled(
            format!(
                "{:<11} {:<12} {:<9} {:<8} {:<14} {:<8} {}",
                "status", "task", "progress", "updated", "tool", "created", "polling"
            ),
            theme.dim(),
        ));
        for i in self.cursor.window(self.rows.len(), list_height(area)) {
            let sel = i == self.cursor.selected && ctx.focused;
            lines.push(self.row_line(&self.rows[i], sel, theme));
        }
        lines.push(self.foot_line(ctx, theme));
        f.render_widget(Paragraph::new(lines), area);
    }
}

/// The list's first line in the tab: under the title, the support line and the column heads.
const LIST_TOP: u16 = 3;

/// Rows of the list in the tab's `area` (a line under it says more).
fn list_height(area: Rect) -> usize {
    (area.height as usize)
        .saturating_sub(LIST_TOP as usize + 1)
        .max(1)
}

impl Tasks {
    fn row_line(&self, r: &TaskRow, selected: bool, theme: Theme) -> Line<'static> {
        let progress = r
            .history_id
            .and_then(|h| self.progress.get(&h))
            .cloned()
            .unwrap_or_else(|| "-".into());
        let style = match r.status.as_str() {
            "completed" => theme.ok(),
            "failed" => theme.error(),
            "cancelled" => theme.dim(),
            _ => theme.warn(),
        };
        let base = if selected {
            theme.selected()
        } else {
            theme.plain()
        };
        let mut rest = format!(
            " {:<12} {:<9} {:<8} {:<14} {:<8} {}",
            cut(&r.id, 12),
            progress,
            short_time(&r.updated),
            cut(&r.tool, 14),
            short_time(&r.created),
            r.polling
        );
        if r.stale {
            rest.push_str(" (earlier connection)");
        }
        if r.problems > 0 {
            rest.push_str(&format!(" ⚠ {} problems", r.problems));
        }
        if !r.message.is_empty() {
            rest.push_str(&format!(" · {}", r.message));
        }
        Line::from(vec![
            Span::styled(
                format!("{:<11}", cut(&r.status, 11)),
                if selected { base } else { style },
            ),
            Span::styled(rest, base),
        ])
    }

    fn foot_line(&self, ctx: &Ctx, theme: Theme) -> Line<'static> {
        if self.rows.is_empty() {
            let s = if !self.loaded {
                "Reading…".to_string()
            } else if ctx.server.connected() {
                "No tasks yet. Run a tool as a task (Tools tab), or f asks the server (tasks/list)."
                    .to_string()
            } else {
                crate::strings::NOT_CONNECTED.to_string()
            };
            return Line::styled(s, theme.dim());
        }
        let mut s = "Enter detail · x cancel · u tasks/list".to_string();
        if self.omitted > 0 {
            s.push_str(&format!(" · {} more not kept", self.omitted));
        }
        Line::styled(s, theme.dim())
    }
}
