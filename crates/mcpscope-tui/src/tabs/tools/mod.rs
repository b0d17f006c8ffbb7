//! The Tools tab: the searchable tool list with its badges (`list.rs`), a tool's form (the
//! shared schema form, `widgets/form`), the run with its progress gauge, and the outcome
//! (`result.rs`). The list comes from `tools/list` through the core (every page, with the
//! quality lint beside it), the call is `tools/call` with a progress token and a request id the
//! tab chose, so `x` cancels it; all of it shows in Protocol and History like the web UI's.
//!
//! Where the screen is wide the list and the open tool sit side by side; on a narrow one the
//! tool replaces the list until Esc.

mod list;
mod result;
mod run;

use super::{Binding, Ctx, Handled, Tab, TabId};
use crate::msg::{CoreEvent, Done, Effect, Job, Route};
use crate::widgets::form::{Form, FormEvent};
use crate::widgets::pager::Pager;
use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use list::List;
use mcpscope_inspect::Call;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use result::{Action, ResultView};
use run::Running;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Tools whose arguments are remembered when their form closes.
const MAX_SAVED: usize = 100;
/// Tools whose last result is kept while another tool is open.
const MAX_RESULTS: usize = 20;
/// The body is wide enough for the list beside the tool at this many columns.
const WIDE: u16 = 100;
/// The list's width beside the tool, at least: a tool's name with its badges.
const LIST_W: u16 = 38;

impl Tools {
    /// The list's width beside the tool in a body `width` wide: as wide as its widest row
    /// wants (a long name whole, with its badges), at least [`LIST_W`], at most a third.
    fn list_w(&self, width: u16) -> u16 {
        let wanted = u16::try_from(self.list.widest + 1).unwrap_or(u16::MAX);
        wanted.clamp(LIST_W, (width / 3).max(LIST_W))
    }
}
/// Rows a page key moves.
const PAGE: usize = 10;
/// The `ttl` a task run with Ctrl-K asks for on 2025-11-25 (ms).
const TASK_TTL_MS: u64 = 300_000;

/// `v[key]` as text, if it is.
pub(crate) fn text_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A tool's name.
pub(crate) fn name(tool: &Value) -> &str {
    text_of(tool, "name").unwrap_or("")
}

/// `s` cut to `n` characters (with `…`), line breaks and tabs made spaces.
pub(crate) fn cut(s: &str, n: usize) -> String {
    let mut out: String = s
        .chars()
        .take(n)
        .map(|c| {
            if c == '\n' || c == '\t' || c == '\r' {
                ' '
            } else {
                c
            }
        })
        .collect();
    if s.chars().nth(n).is_some() {
        out.push('…');
    }
    out
}

/// Which side has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Pane {
    #[default]
    List,
    Tool,
}

/// Which part of the open tool has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Part {
    #[default]
    Form,
    Result,
}

/// The tool whose form is open.
#[derive(Debug, Clone)]
struct Open {
    tool: Value,
    form: Form,
}

/// The Tools tab's state.
#[derive(Debug, Default)]
pub struct Tools {
    list: List,
    /// A `tools/list` is on its way.
    loading: bool,
    /// Why the list could not be read.
    error: Option<String>,
    /// The server said its tools changed (`notifications/tools/list_changed`).
    list_changed: bool,
    pane: Pane,
    part: Part,
    open: Option<Open>,
    /// Arguments typed into forms that were closed, by tool.
    saved: BTreeMap<String, Value>,
    /// The era (`ServerRow::era`) the saved arguments were typed in: a list from another era
    /// is another catalog, and its forms start afresh.
    saved_era: Option<String>,
    run: Option<Running>,
    /// The open tool's last result (it names its tool: [`ResultView::tool`]).
    result: Option<ResultView>,
    /// The last result of each other tool, shown again when its form opens.
    results: BTreeMap<String, ResultView>,
    /// Request ids made so far (each call's id is new).
    seq: u64,
    /// A tool another tab asked for before the list came: its name and arguments.
    pending: Option<(String, Option<Value>)>,
}

const LIST_KEYS: &[Binding] = &[
    Binding {
        keys: "↑↓ PgUp PgDn",
        what: "move",
    },
    Binding {
        keys: "/",
        what: "search (Esc clears)",
    },
    Binding {
        keys: "Enter",
        what: "open the tool's form",
    },
    Binding {
        keys: "f",
        what: "reload the list",
    },
    Binding {
        keys: "x",
        what: "cancel the run",
    },
];

const FORM_KEYS: &[Binding] = &[
    Binding {
        keys: "Ctrl-R",
        what: "run the tool",
    },
    Binding {
        keys: "↑↓ Tab",
        what: "fields",
    },
    Binding {
        keys: "type",
        what: "edit the field (Ctrl-U clears)",
    },
    Binding {
        keys: "Enter Space ←→",
        what: "choose / toggle / step",
    },
    Binding {
        keys: "+ -",
        what: "add / remove an item",
    },
    Binding {
        keys: "Del",
        what: "unset",
    },
    Binding {
        keys: "Ctrl-T",
        what: "form ↔ JSON",
    },
    Binding {
        keys: "x",
        what: "cancel the run (no field being edited)",
    },
    Binding {
        keys: "v /",
        what: "to the result, search the list (off a text field)",
    },
    Binding {
        keys: "Esc",
        what: "end the edit; again: back to the list",
    },
    Binding {
        keys: "Ctrl-K",
        what: "run as a task (the Tasks tab follows it)",
    },
];

const RESULT_KEYS: &[Binding] = &[
    Binding {
        keys: "↑↓ PgUp PgDn",
        what: "move",
    },
    Binding {
        keys: "Enter Space",
        what: "fold / open the link",
    },
    Binding {
        keys: "w",
        what: "save to a file",
    },
    Binding {
        keys: "y",
        what: "copy the result",
    },
    Binding {
        keys: "f",
        what: "the whole result",
    },
    Binding {
        keys: "←→ z",
        what: "scroll sideways, wrap every line",
    },
    Binding {
        keys: "Ctrl-R",
        what: "run again",
    },
    Binding {
        keys: "x",
        what: "cancel the run",
    },
    Binding {
        keys: "v Esc",
        what: "to the form",
    },
];

fn ctrl(key: &KeyEvent, c: char) -> bool {
    key.code == KeyCode::Char(c) && key.modifiers.contains(KeyModifiers::CONTROL)
}

fn toast(text: impl Into<String>, error: bool) -> Effect {
    Effect::Toast {
        text: text.into(),
        error,
    }
}

impl Tools {
    fn list_effect(&mut self, ctx: &Ctx) -> Vec<Effect> {
        self.loading = true;
        vec![Effect::Call {
            route: Route::new(&ctx.server.name, TabId::Tools, "list", ""),
            call: Call {
                method: "tools/list".into(),
                pages: Some("tools".into()),
                ..Default::default()
            },
        }]
    }

    /// Open the form of the selected tool (with the arguments it had, or `args`).
    fn open_selected(&mut self, args: Option<Value>) {
        let Some(tool) = self.list.selected().map(list::Row::tool) else {
            return;
        };
        self.close_form();
        let schema = tool
            .get("inputSchema")
            .cloned()
            .unwrap_or_else(|| json!({"type": "object"}));
        let args = args.or_else(|| self.saved.get(name(&tool)).cloned());
        let form = match args {
            Some(v) => Form::with_value(&schema, v),
            None => Form::new(&schema),
        }
        .direct_typing();
        // The result under the form is this tool's last one, or none: another tool's stays
        // with its own tool.
        if let Some(r) = self.result.take() {
            self.keep_result(r);
        }
        self.result = self.results.remove(name(&tool));
        self.open = Some(Open { tool, form });
        self.pane = Pane::Tool;
        self.part = Part::Form;
    }

    /// Keep `r` as its tool's last result (while another tool is open).
    fn keep_result(&mut self, r: ResultView) {
        if !self.results.contains_key(&r.tool) && self.results.len() >= MAX_RESULTS {
            self.results.pop_first();
        }
        self.results.insert(r.tool.clone(), r);
    }

    /// The run of the open tool, if it is the one running (another's gauge is not drawn
    /// under this form; `x` still cancels it).
    fn run_here(&self) -> Option<&Running> {
        let open = self.open.as_ref().map(|o| name(&o.tool));
        self.run.as_ref().filter(|r| Some(r.tool.as_str()) == open)
    }

    /// Close the form, keeping what was typed for next time.
    fn close_form(&mut self) {
        if let Some(o) = self.open.take() {
            if self.saved.len() >= MAX_SAVED {
                self.saved.pop_first();
            }
            self.saved
                .insert(name(&o.tool).to_string(), o.form.value().clone());
        }
    }

    /// `/` in the open tool: back to the list, its search box taking the keyboard.
    fn search_again(&mut self) {
        self.close_form();
        self.pane = Pane::List;
        self.part = Part::Form;
        self.list.search.set("");
        self.list.refilter();
        self.list.searching = true;
    }

    fn search_key(&mut self, key: KeyEvent) -> Handled {
        match key.code {
            KeyCode::Esc => {
                self.list.search.set("");
                self.list.searching = false;
                self.list.refilter();
            }
            KeyCode::Enter => self.list.searching = false,
            KeyCode::Up | KeyCode::Down | KeyCode::PageUp | KeyCode::PageDown => {
                self.list.cursor.key(key, self.list.shown.len(), PAGE);
            }
            _ => {
                if self.list.search.key(key) == crate::widgets::input::Edit::Changed {
                    self.list.refilter();
                }
            }
        }
        Handled::done()
    }

    fn list_key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        match key.code {
            KeyCode::Char('/') => self.list.searching = true,
            KeyCode::Enter | KeyCode::Right => self.open_selected(None),
            KeyCode::Esc if !self.list.search.text().is_empty() => {
                self.list.search.set("");
                self.list.refilter();
            }
            // `f` reloads in every tab that lists (the official TUI's Tasks key).
            KeyCode::Char('f') if ctx.server.connected() => {
                return Handled::Yes(self.list_effect(ctx));
            }
            KeyCode::Char('x') if self.run.is_some() => return Handled::Yes(self.cancel()),
            _ if self.list.cursor.key(key, self.list.shown.len(), PAGE) => {}
            _ => return Handled::No,
        }
        self.list.follow(self.list_area(ctx.area).height);
        Handled::done()
    }

    /// Where the list is drawn in the tab's `area` (below the note line, if any).
    fn list_area(&self, area: Rect) -> Rect {
        let mut area = area;
        if self.note().is_some() {
            area.y += 1;
            area.height = area.height.saturating_sub(1);
        }
        if area.width >= WIDE {
            area.width = self.list_w(area.width);
        }
        area
    }

    fn form_key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        if ctrl(&key, 'r') {
            return Handled::Yes(self.start(ctx));
        }
        if ctrl(&key, 'k') {
            return Handled::Yes(self.start_task(ctx));
        }
        let Some(o) = self.open.as_mut() else {
            self.pane = Pane::List;
            return Handled::No;
        };
        // Typing edits the field at once; while a call runs and no edit is open (Ctrl-R closed
        // it), `x` is still the cancel the footer offers.
        if key.code == KeyCode::Char('x')
            && key.modifiers.is_empty()
            && self.run.is_some()
            && !o.form.is_editing()
        {
            return Handled::Yes(self.cancel());
        }
        match o.form.key(key) {
            FormEvent::Consumed | FormEvent::Changed => return Handled::done(),
            FormEvent::Ignored => {}
        }
        match key.code {
            KeyCode::Esc => {
                self.close_form();
                self.pane = Pane::List;
            }
            KeyCode::Char('x') => return Handled::Yes(self.cancel()),
            KeyCode::Char('v') if self.result.is_some() => self.part = Part::Result,
            KeyCode::Char('/') => self.search_again(),
            _ => return Handled::No,
        }
        Handled::done()
    }

    fn result_key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        if ctrl(&key, 'r') {
            return Handled::Yes(self.start(ctx));
        }
        let Some(r) = self.result.as_mut() else {
            self.part = Part::Form;
            return Handled::No;
        };
        let effects = match key.code {
            KeyCode::Enter | KeyCode::Char(' ') => match r.activate() {
                Action::Open(uri) => vec![Effect::Goto {
                    tab: TabId::Resources,
                    item: uri,
                }],
                Action::Save(i) => self.save(ctx, i),
                _ => Vec::new(),
            },
            KeyCode::Char('w') => match r.save_target() {
                Some(i) => self.save(ctx, i),
                None => {
                    let (path, bytes) = r.text_file(&raw(r));
                    vec![save_file(ctx, path, bytes)]
                }
            },
            KeyCode::Char('y') => vec![Effect::Copy(raw(r))],
            KeyCode::Char('f') => vec![Effect::ShowPager(Pager::new(
                format!("{} result", r.tool),
                &raw(r),
            ))],
            KeyCode::Char('x') => self.cancel(),
            KeyCode::Char('/') => {
                self.search_again();
                Vec::new()
            }
            KeyCode::Esc | KeyCode::Char('v') => {
                self.part = Part::Form;
                Vec::new()
            }
            _ if r.sideways(key.code) => Vec::new(),
            _ if r.cursor.key(key, r.lines.len(), PAGE) => Vec::new(),
            _ => return Handled::No,
        };
        Handled::Yes(effects)
    }

    fn save(&self, ctx: &Ctx, block: usize) -> Vec<Effect> {
        match self.result.as_ref().and_then(|r| r.file_of(block)) {
            Some((path, bytes)) => vec![save_file(ctx, path, bytes)],
            None => vec![toast("this block has no data to save (not base64?)", true)],
        }
    }

    /// Ctrl-K: run the open tool as a task (the core asks the server for one: `params.task` on
    /// 2025-11-25, the tasks extension on 2026-07-28); the Tasks tab lists and follows it.
    fn start_task(&mut self, ctx: &Ctx) -> Vec<Effect> {
        if !ctx.server.connected() {
            return vec![toast(crate::strings::NOT_CONNECTED, true)];
        }
        let Some(o) = self.open.as_mut() else {
            return Vec::new();
        };
        let args = match o.form.finish() {
            Ok(a) => a,
            Err(why) => return vec![toast(format!("cannot send yet: {why}"), true)],
        };
        let (server, tool) = (ctx.server.name.clone(), name(&o.tool).to_string());
        let route = Route::new(&server, TabId::Tools, "task", tool.clone());
        let job = Job::new(move |i| {
            let (server, tool, arguments) = (server.clone(), tool.clone(), args.clone());
            async move {
                let run = mcpscope_inspect::tasks::RunTask {
                    tool,
                    arguments,
                    ttl_ms: Some(TASK_TTL_MS),
                    request_id: None,
                };
                let out = i.run_task(&server, run).await?;
                Ok(json!({
                    "historyId": out.history_id,
                    "taskId": out.task.map(|t| t.task.task_id),
                    "error": out.result.err().map(|e| e.message),
                }))
            }
        });
        vec![Effect::Run { route, job }]
    }

    /// What Ctrl-K's task became, said in the footer.
    fn task_started(done: Done) -> Effect {
        match done.result {
            Ok(v) => match (text_of(&v, "taskId"), text_of(&v, "error")) {
                (_, Some(e)) => toast(cut(&format!("the task call failed: {e}"), 300), true),
                (Some(id), None) => toast(
                    format!("task {} started: Esc, then k shows it", cut(id, 60)),
                    false,
                ),
                (None, None) => toast(
                    "the server answered at once, without a task (see History)",
                    false,
                ),
            },
            Err(f) => toast(
                cut(&format!("the task call failed: {}", f.message), 300),
                true,
            ),
        }
    }

    /// Ctrl-R: call the open tool with the form's arguments.
    fn start(&mut self, ctx: &Ctx) -> Vec<Effect> {
        if !ctx.server.connected() {
            return vec![toast(crate::strings::NOT_CONNECTED, true)];
        }
        if self.run.is_some() {
            return vec![toast("a call is running: x cancels it", false)];
        }
        let Some(o) = self.open.as_mut() else {
            return Vec::new();
        };
        // As the web's Execute: the engine keeps an excluded tool out of its cache, so a call
        // would only be refused.
        if let Some(why) = self.list.excluded.get(name(&o.tool)) {
            return vec![toast(cut(&format!("excluded: {why}"), 300), true)];
        }
        let args = match o.form.finish() {
            Ok(a) => a,
            Err(why) => return vec![toast(format!("cannot send yet: {why}"), true)],
        };
        self.seq += 1;
        let tool = name(&o.tool).to_string();
        let request_id = format!("tui-tools-{}-{}", ctx.now_us, self.seq);
        self.run = Some(Running::new(&o.tool, &request_id, ctx.now_us));
        self.result = None;
        self.part = Part::Form;
        vec![Effect::Call {
            route: Route::new(&ctx.server.name, TabId::Tools, "call", request_id.clone()),
            call: Call {
                method: "tools/call".into(),
                params: Some(json!({"name": tool, "arguments": args})),
                request_id: Some(request_id),
                progress: true,
                ..Default::default()
            },
        }]
    }

    /// `x`: cancel the running call (its answer says it was cancelled).
    fn cancel(&mut self) -> Vec<Effect> {
        match self.run.as_mut() {
            Some(r) if !r.cancelling => {
                r.cancelling = true;
                vec![Effect::Cancel {
                    request_id: r.request_id.clone(),
                }]
            }
            Some(_) => Vec::new(),
            None => vec![toast("nothing is running", false)],
        }
    }

    fn listed(&mut self, ctx: &Ctx, done: Done) {
        self.loading = false;
        match done.result {
            Ok(v) if v.get("error").is_some() => {
                let msg = v.pointer("/error/message").and_then(Value::as_str);
                self.error = Some(format!("tools/list failed: {}", msg.unwrap_or("?")));
            }
            Ok(v) => {
                self.list.load(&v);
                self.error = None;
                if self.saved_era.as_deref() != ctx.server.era.as_deref() {
                    self.saved.clear();
                    self.saved_era = ctx.server.era.clone();
                }
                self.list_changed = false;
                if let Some((tool, args)) = self.pending.take()
                    && self.list.select_name(&tool)
                {
                    self.open_selected(args);
                }
            }
            Err(f) => self.error = Some(format!("tools/list failed: {}", f.message)),
        }
    }

    fn called(&mut self, ctx: &Ctx, done: Done) {
        let Some(run) = self.run.take_if(|r| r.request_id == done.route.key) else {
            return;
        };
        let view = run.finish(done.result, ctx.now_us);
        // Another tool opened meanwhile: the result waits with its own tool.
        if self.open.as_ref().map(|o| name(&o.tool)) != Some(view.tool.as_str()) {
            self.keep_result(view);
            return;
        }
        self.result = Some(view);
        if self.pane == Pane::Tool {
            self.part = Part::Result;
        }
    }

    /// Where the open tool's parts go in `area`: its header, the run's gauge, the form, and the
    /// result (with its border), as `render_tool` draws them.
    fn tool_areas(&self, area: Rect) -> [Rect; 4] {
        let mut y = area.y;
        let mut take = |h: u16| {
            let h = h.min(area.y + area.height - y);
            let r = Rect {
                y,
                height: h,
                ..area
            };
            y += h;
            r
        };
        let head = take(1);
        let run = take(if self.run_here().is_some() { 2 } else { 0 });
        let rest = area.height - head.height - run.height;
        let result_h = match (&self.result, self.part) {
            (None, _) => 0,
            (Some(_), Part::Result) => rest * 2 / 3,
            (Some(_), Part::Form) => (rest / 3).max(3.min(rest)),
        };
        let form = take(rest - result_h);
        [head, run, form, take(result_h)]
    }

    /// True when the result's pictures are drawn: the result has the keyboard, colours are on
    /// and the terminal draws images.
    fn pictures(&self, ctx: &Ctx) -> bool {
        self.part == Part::Result && ctx.color && crate::widgets::image::graphics().on()
    }

    /// The cells the result's picture may take, when one is drawn.
    fn image_box(&self, ctx: &Ctx) -> Option<ratatui::layout::Size> {
        if !self.pictures(ctx) {
            return None;
        }
        let mut area = ctx.area;
        if self.note().is_some() {
            area.y += 1;
            area.height = area.height.saturating_sub(1);
        }
        if area.width >= WIDE {
            let w = self.list_w(area.width);
            area.x += w + 1;
            area.width -= w + 1;
        } else if self.pane != Pane::Tool {
            return None;
        }
        let outer = self.tool_areas(area)[3];
        result::image_box(result_block().inner(outer))
    }

    /// Ask for the picture of the result's shown image at the size it is drawn, if not made.
    fn ask_image(&mut self, ctx: &Ctx) -> Vec<Effect> {
        let Some(max) = self.image_box(ctx) else {
            return Vec::new();
        };
        let Some((key, job)) = self.result.as_mut().and_then(|r| r.ask_image(max)) else {
            return Vec::new();
        };
        vec![Effect::Run {
            route: Route::new(&ctx.server.name, TabId::Tools, "image", key),
            job,
        }]
    }

    fn render_tool(&self, ctx: &Ctx, f: &mut Frame, area: Rect, theme: Theme) {
        // The list has the keyboard on another tool than the open one (or none is open): the
        // highlighted tool is previewed, its description and input schema.
        let highlighted = self.list.selected().map(|r| &*r.name);
        let open = self.open.as_ref().map(|o| name(&o.tool));
        if self.pane == Pane::List && highlighted.is_some() && highlighted != open {
            let lines = self
                .list
                .preview(theme, area.width as usize, area.height as usize);
            f.render_widget(Paragraph::new(lines), area);
            return;
        }
        let Some(o) = &self.open else {
            let hint = "Enter on a tool opens its form.";
            f.render_widget(Paragraph::new(Line::styled(hint, theme.dim())), area);
            return;
        };
        let focused = ctx.focused && self.pane == Pane::Tool;
        let [head, run, form, result] = self.tool_areas(area);
        f.render_widget(Paragraph::new(run::header(&o.tool, &o.form, theme)), head);
        if let Some(r) = self.run_here() {
            r.render(f, run, theme, ctx.now_us);
        }
        o.form
            .render(f, form, theme, focused && self.part == Part::Form);
        if let Some(r) = &self.result {
            let block = result_block().title(Line::styled(result_title(r), theme.title()));
            let inner = block.inner(result);
            f.render_widget(block.border_style(theme.dim()), result);
            let pictures = self.pictures(ctx);
            r.render(
                f,
                inner,
                theme,
                focused && self.part == Part::Result,
                pictures,
            );
        }
    }
}

impl Tools {
    /// A click at (`x`, `y`) on the screen: on a line of the result, select it.
    fn click_result(&mut self, ctx: &Ctx, x: u16, y: u16) {
        let mut area = ctx.area;
        if self.note().is_some() {
            area.y += 1;
            area.height = area.height.saturating_sub(1);
        }
        if area.width >= WIDE {
            let w = self.list_w(area.width);
            area.x += w + 1;
            area.width -= w + 1;
        } else if self.pane != Pane::Tool {
            return;
        }
        let inner = result_block().inner(self.tool_areas(area)[3]);
        let pictures = self.pictures(ctx);
        let Some(r) = self.result.as_mut() else {
            return;
        };
        let inner = r.lines_area(inner, pictures);
        let inside = x >= inner.x && x < inner.x + inner.width && y >= inner.y;
        if inside
            && y < inner.y + inner.height
            && let Some(at) = r.line_at(inner, y - inner.y)
        {
            r.cursor.selected = at;
            self.pane = Pane::Tool;
            self.part = Part::Result;
        }
    }
}

/// Write `bytes` to `path` (in the working directory); the answer comes back as `save`.
fn save_file(ctx: &Ctx, path: String, bytes: Vec<u8>) -> Effect {
    Effect::SaveFile {
        route: Route::new(&ctx.server.name, TabId::Tools, "save", path.clone()),
        path,
        bytes,
    }
}

/// The result's title: which tool's call it is, and its History entry.
fn result_title(r: &ResultView) -> String {
    let entry = match &r.outcome {
        result::Outcome::Result {
            history_id: Some(h),
            ..
        } => format!(" · History #{h}"),
        _ => String::new(),
    };
    format!(" Result of {}{entry} (v) ", cut(&r.tool, 40))
}

/// The result's frame: a line over it.
fn result_block() -> ratatui::widgets::Block<'static> {
    ratatui::widgets::Block::default().borders(ratatui::widgets::Borders::TOP)
}

/// The whole result as JSON (copied, or in the pager).
fn raw(r: &ResultView) -> String {
    let v = match &r.outcome {
        result::Outcome::Result { result, .. } => result.clone(),
        result::Outcome::Error { error } => error.clone(),
        result::Outcome::Cancelled => json!({"cancelled": true}),
    };
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

impl Tab for Tools {
    fn captures(&self) -> bool {
        self.list.searching
            || self.pane == Pane::Tool
                && self.part == Part::Form
                && self.open.as_ref().is_some_and(|o| o.form.captures())
    }

    fn key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        if self.list.searching {
            return self.search_key(key);
        }
        let handled = match (self.pane, self.part) {
            (Pane::List, _) => self.list_key(ctx, key),
            (Pane::Tool, Part::Form) => self.form_key(ctx, key),
            (Pane::Tool, Part::Result) => self.result_key(ctx, key),
        };
        // A key may show another image, or the result with room for its picture.
        match handled {
            Handled::Yes(mut e) => {
                e.extend(self.ask_image(ctx));
                Handled::Yes(e)
            }
            Handled::No => Handled::No,
        }
    }

    fn scroll(&mut self, ctx: &Ctx, down: bool) -> Vec<Effect> {
        let code = if down { KeyCode::Down } else { KeyCode::Up };
        let k = KeyEvent::new(code, KeyModifiers::NONE);
        match (self.pane, self.part, self.result.as_mut()) {
            (Pane::Tool, Part::Result, Some(r)) => {
                r.cursor.key(k, r.lines.len(), PAGE);
            }
            (Pane::Tool, _, _) => {
                if let Some(o) = self.open.as_mut() {
                    o.form.key(k);
                }
            }
            (Pane::List, _, _) => {
                self.list.cursor.key(k, self.list.shown.len(), PAGE);
            }
        }
        self.ask_image(ctx)
    }

    fn click(&mut self, ctx: &Ctx, col: u16, row: u16) -> Vec<Effect> {
        let area = self.list_area(ctx.area);
        let wide = ctx.area.width >= WIDE;
        let (x, y) = (ctx.area.x + col, ctx.area.y + row);
        let on_list = x < area.x + area.width && (self.pane == Pane::List || wide);
        if on_list && y > area.y {
            let window = self.list.window(area.height);
            let at = window.start + (y - area.y) as usize - 1;
            if at < window.end {
                self.list.cursor.selected = at;
                self.pane = Pane::List;
            }
            return Vec::new();
        }
        self.click_result(ctx, x, y);
        self.ask_image(ctx)
    }

    fn resized(&mut self, ctx: &Ctx) -> Vec<Effect> {
        self.ask_image(ctx)
    }

    fn entered(&mut self, ctx: &Ctx) -> Vec<Effect> {
        if ctx.server.connected() && self.list.tools.is_none() && !self.loading {
            return self.list_effect(ctx);
        }
        Vec::new()
    }

    fn core(&mut self, _ctx: &Ctx, event: &CoreEvent) -> Vec<Effect> {
        match event.name.as_str() {
            "progress" => {
                let id = text_of(&event.data, "requestId");
                if let Some(r) = self
                    .run
                    .as_mut()
                    .filter(|r| Some(r.request_id.as_str()) == id)
                {
                    r.progress(&event.data);
                }
            }
            "notification"
                if text_of(&event.data, "method") == Some("notifications/tools/list_changed") =>
            {
                self.list_changed = true;
            }
            _ => {}
        }
        Vec::new()
    }

    fn done(&mut self, ctx: &Ctx, done: Done) -> Vec<Effect> {
        match done.route.tag {
            "list" => self.listed(ctx, done),
            "call" => {
                self.called(ctx, done);
                return self.ask_image(ctx);
            }
            "task" => return vec![Tools::task_started(done)],
            "image" => {
                if let Some(r) = self.result.as_mut() {
                    r.image_done(&done.route.key);
                }
                return self.ask_image(ctx);
            }
            "save" => {
                return vec![match done.result {
                    Ok(v) => toast(
                        format!(
                            "saved {} ({} bytes)",
                            text_of(&v, "path").unwrap_or("?"),
                            v.get("bytes").and_then(Value::as_u64).unwrap_or(0)
                        ),
                        false,
                    ),
                    Err(f) => toast(f.message, true),
                }];
            }
            _ => {}
        }
        Vec::new()
    }

    fn goto(&mut self, ctx: &Ctx, item: &str) -> Vec<Effect> {
        let (tool, args) = match serde_json::from_str::<Value>(item) {
            Ok(v) if v.is_object() => (name(&v).to_string(), v.get("arguments").cloned()),
            _ => (item.to_string(), None),
        };
        self.list.search.set("");
        self.list.searching = false;
        self.list.refilter();
        if self.list.tools.is_some() && self.list.select_name(&tool) {
            self.open_selected(args);
            return Vec::new();
        }
        self.pending = Some((tool, args));
        self.entered(ctx)
    }

    fn reset(&mut self) {
        // What was typed survives a reconnect in the same era (the next list says which).
        let (saved, saved_era) = (std::mem::take(&mut self.saved), self.saved_era.take());
        *self = Tools {
            saved,
            saved_era,
            ..Tools::default()
        };
    }

    fn count(&self) -> Option<usize> {
        self.list.tools.as_ref().map(Vec::len)
    }

    fn bindings(&self) -> &'static [Binding] {
        match (self.pane, self.part) {
            (Pane::List, _) if self.list.searching => crate::tabs::SEARCH_KEYS,
            (Pane::List, _) => LIST_KEYS,
            (Pane::Tool, Part::Form) => FORM_KEYS,
            (Pane::Tool, Part::Result) => RESULT_KEYS,
        }
    }

    fn render(&self, ctx: &Ctx, f: &mut Frame, area: Rect) {
        let theme = Theme::new(ctx.color);
        if !ctx.server.connected() && self.list.tools.is_none() {
            let msg = Line::styled(crate::strings::NOT_CONNECTED, theme.dim());
            f.render_widget(Paragraph::new(msg), area);
            return;
        }
        let mut area = area;
        if let Some(note) = self.note() {
            let style = if self.error.is_some() {
                theme.error()
            } else {
                theme.warn()
            };
            f.render_widget(
                Paragraph::new(Line::styled(note, style)),
                Rect { height: 1, ..area },
            );
            area.y += 1;
            area.height = area.height.saturating_sub(1);
        }
        let list_focused = ctx.focused && self.pane == Pane::List;
        if area.width >= WIDE {
            let w = self.list_w(area.width);
            let left = Rect { width: w, ..area };
            let right = Rect {
                x: area.x + w + 1,
                width: area.width - w - 1,
                ..area
            };
            self.list.render(f, left, theme, list_focused);
            let bar = ratatui::widgets::Block::default()
                .borders(ratatui::widgets::Borders::LEFT)
                .border_style(theme.dim());
            f.render_widget(
                bar,
                Rect {
                    x: area.x + w,
                    width: 1,
                    ..area
                },
            );
            self.render_tool(ctx, f, right, theme);
        } else if self.pane == Pane::Tool && self.open.is_some() {
            self.render_tool(ctx, f, area, theme);
        } else {
            self.list.render(f, area, theme, list_focused);
        }
    }
}

impl Tools {
    /// The line over the tab, if something needs saying: an error, a stale list, tools cut.
    fn note(&self) -> Option<String> {
        if let Some(e) = &self.error {
            return Some(cut(e, 300));
        }
        if self.list_changed {
            return Some("The server's tools changed: f reloads.".into());
        }
        if self.list.omitted > 0 {
            return Some(format!(
                "{} more tools not kept (the list is cut)",
                self.list.omitted
            ));
        }
        self.list
            .lint_incomplete
            .as_ref()
            .map(|i| cut(&format!("lint incomplete: {i}"), 300))
    }
}
