//! The Prompts tab: the server's prompts (searched with `/`); Enter opens a prompt's argument
//! form (one field per argument, required ones marked, descriptions shown) with completion
//! (`completion/complete` against `ref/prompt`), Enter there sends `prompts/get`, and the
//! messages it answers are shown (role, text; media described), bounded. The form is the one
//! the Resources tab's templates use (`resources/form.rs`).

mod messages;
mod view;

use super::resources::read::error_text;
use super::{Binding, Ctx, Handled, Tab, TabId};
use crate::msg::{CoreEvent, Done, Effect, Route};
use crate::widgets::completion::{Field, Form, FormOut, MAX_TEXT, Search, clean, field_text};
use crate::widgets::list::Cursor;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpscope_inspect::{Call, Pages};
pub use messages::Messages;
use ratatui::Frame;
use ratatui::layout::Rect;
use serde_json::{Value, json};

/// Prompts kept of a list.
pub const MAX_PROMPTS: usize = 5_000;
/// Arguments kept of a prompt.
pub const MAX_ARGS: usize = 64;
/// Rows a PgUp/PgDn moves: most of the tab's height (the heads above the list and the
/// pager take a few lines).
fn page(ctx: &Ctx) -> usize {
    (ctx.area.height as usize).saturating_sub(4).max(1)
}

/// An argument of a prompt.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Argument {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// It must be given.
    pub required: bool,
}

/// A prompt of the list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prompt {
    /// Its name.
    pub name: String,
    /// Its title (may be empty).
    pub title: String,
    /// What it does.
    pub description: String,
    /// Its arguments.
    pub arguments: Vec<Argument>,
}

/// Which half has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pane {
    /// The list.
    #[default]
    List,
    /// The form and the messages (the only half shown on a narrow screen).
    Detail,
}

/// The Prompts tab's state.
#[derive(Debug, Default)]
pub struct Prompts {
    /// `None`: not loaded.
    pub prompts: Option<Vec<Prompt>>,
    /// Why the list could not be read, or where its pages stopped.
    pub list_error: Option<String>,
    /// The list was asked and not answered.
    loading: bool,
    /// The list's first line as last clicked: the list stays still under the mouse (a second
    /// click opens the same row) until a key or the wheel moves it.
    click_top: Option<usize>,
    /// The server said the list changed (`f` reloads).
    pub list_changed: bool,
    /// The `/` filter.
    pub search: Search,
    /// The cursor over the filtered prompts.
    pub cursor: Cursor,
    /// Which half has the keyboard.
    pub pane: Pane,
    /// The form of the prompt being filled in, and the prompt's name.
    pub form: Option<(String, Form)>,
    /// The form has the keyboard (else the messages under it do).
    pub editing: bool,
    /// The prompt being got.
    pub getting: Option<String>,
    /// The last messages.
    pub messages: Option<Messages>,
    /// Forms made, so a late completion answer finds its own.
    generation: u64,
}

const KEYS: &[Binding] = &[
    Binding {
        keys: "Enter",
        what: "fill in / get",
    },
    Binding {
        keys: "/",
        what: "search",
    },
    Binding {
        keys: "f",
        what: "reload the list",
    },
    Binding {
        keys: "y",
        what: "copy the messages",
    },
    Binding {
        keys: "Tab ↓",
        what: "pick a suggestion (form)",
    },
    Binding {
        keys: "Esc",
        what: "back",
    },
];

fn route(ctx: &Ctx, tag: &'static str, key: impl Into<String>) -> Route {
    Route::new(&ctx.server.name, TabId::Prompts, tag, key)
}

impl Prompts {
    /// The indices of the prompts the search matches.
    pub fn items(&self) -> Vec<usize> {
        let all = self.prompts.iter().flatten().enumerate();
        all.filter(|(_, p)| {
            self.search
                .matches(&format!("{} {} {}", p.name, p.title, p.description))
        })
        .map(|(i, _)| i)
        .collect()
    }

    /// The prompt under the cursor.
    pub fn selected(&self) -> Option<&Prompt> {
        let i = *self.items().get(self.cursor.selected)?;
        self.prompts.as_ref()?.get(i)
    }

    fn load(&mut self, ctx: &Ctx) -> Vec<Effect> {
        if self.loading {
            return Vec::new();
        }
        self.loading = true;
        self.list_changed = false;
        let call = Call {
            method: "prompts/list".into(),
            ..Call::default()
        }
        .with_pages(Pages::All { key: None });
        vec![Effect::Call {
            route: route(ctx, "list", ""),
            call,
        }]
    }

    fn open(&mut self, ctx: &Ctx) -> Vec<Effect> {
        let Some(p) = self.selected().cloned() else {
            return Vec::new();
        };
        self.generation += 1;
        let fields: Vec<Field> = p
            .arguments
            .iter()
            .map(|a| Field {
                name: a.name.clone(),
                description: a.description.clone(),
                required: a.required,
                ..Field::default()
            })
            .collect();
        let reference = json!({"type": "ref/prompt", "name": p.name});
        let mut form = Form::new(reference, fields, self.generation)
            .completing(ctx.server.declares("/completions"));
        let ask = form.ask();
        let empty = form.fields.is_empty();
        self.form = Some((p.name.clone(), form));
        self.messages = None;
        self.pane = Pane::Detail;
        self.editing = true;
        if empty {
            // Nothing to fill in: get it at once.
            return self.get(ctx);
        }
        self.ask(ctx, ask)
    }

    fn ask(&self, ctx: &Ctx, call: Option<Call>) -> Vec<Effect> {
        let Some((_, f)) = &self.form else {
            return Vec::new();
        };
        call.map(|call| Effect::Call {
            route: route(ctx, "complete", f.generation.to_string()),
            call,
        })
        .into_iter()
        .collect()
    }

    fn get(&mut self, ctx: &Ctx) -> Vec<Effect> {
        let Some((name, f)) = &self.form else {
            return Vec::new();
        };
        let name = name.clone();
        let params = json!({"name": name, "arguments": f.values()});
        self.getting = Some(name.clone());
        self.editing = false;
        vec![Effect::Call {
            route: route(ctx, "get", name),
            call: Call {
                method: "prompts/get".into(),
                params: Some(params),
                ..Call::default()
            },
        }]
    }

    fn list_key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        let len = self.items().len();
        if self.cursor.key(key, len, page(ctx)) {
            return Handled::done();
        }
        match key.code {
            KeyCode::Char('/') => {
                self.search.typing = true;
                Handled::done()
            }
            KeyCode::Enter | KeyCode::Right => Handled::Yes(self.open(ctx)),
            KeyCode::Esc if !self.search.input.text().is_empty() => {
                self.search.input.set("");
                self.cursor = Cursor::default();
                Handled::done()
            }
            _ => self.common_key(ctx, key),
        }
    }

    fn common_key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        match key.code {
            KeyCode::Char('f') if ctx.server.connected() => {
                self.loading = false;
                Handled::Yes(self.load(ctx))
            }
            KeyCode::Char('y') => match &self.messages {
                Some(m) => Handled::Yes(vec![Effect::Copy(m.pager.text())]),
                None => Handled::No,
            },
            _ => Handled::No,
        }
    }

    fn detail_key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        if self.editing
            && let Some((_, f)) = self.form.as_mut()
        {
            return match f.key(key) {
                FormOut::Nothing => Handled::done(),
                FormOut::Ask(call) => Handled::Yes(self.ask(ctx, Some(*call))),
                FormOut::Close => {
                    self.form = None;
                    self.editing = false;
                    self.pane = Pane::List;
                    Handled::done()
                }
                FormOut::Submit => Handled::Yes(self.get(ctx)),
            };
        }
        if let Some(m) = self.messages.as_mut()
            && m.pager.key(key, page(ctx))
        {
            return Handled::done();
        }
        let has_fields = self
            .form
            .as_ref()
            .is_some_and(|(_, f)| !f.fields.is_empty());
        match key.code {
            KeyCode::Esc | KeyCode::Enter if has_fields => {
                self.editing = true;
                Handled::done()
            }
            KeyCode::Esc => {
                self.form = None;
                self.pane = Pane::List;
                Handled::done()
            }
            KeyCode::Enter => Handled::Yes(self.get(ctx)),
            _ => self.common_key(ctx, key),
        }
    }

    fn list_done(&mut self, result: Result<Value, String>) {
        self.loading = false;
        self.list_error = None;
        let rows = match &result {
            Ok(v) if v.get("error").is_none() => {
                let stop = v
                    .pointer("/pagination/stop/message")
                    .and_then(Value::as_str);
                self.list_error = stop.map(|s| clean(s, MAX_TEXT));
                v.pointer("/result/prompts")
                    .and_then(Value::as_array)
                    .cloned()
            }
            Ok(v) => {
                self.list_error = Some(error_text(&v["error"]));
                None
            }
            Err(e) => {
                self.list_error = Some(e.clone());
                None
            }
        };
        let rows = rows.unwrap_or_default();
        self.prompts = Some(rows.iter().take(MAX_PROMPTS).map(prompt_of).collect());
        self.cursor.clamp(self.items().len());
    }

    fn complete_done(
        &mut self,
        ctx: &Ctx,
        key: &str,
        result: Result<Value, String>,
    ) -> Vec<Effect> {
        let Some((_, f)) = self
            .form
            .as_mut()
            .filter(|(_, f)| f.generation.to_string() == key)
        else {
            return Vec::new();
        };
        let ask = match &result {
            Ok(v) if v.get("error").is_none() => f.answer(Ok(&v["result"])),
            Ok(v) => f.answer(Err(error_text(&v["error"]))),
            Err(e) => f.answer(Err(e.clone())),
        };
        self.ask(ctx, ask)
    }
}

fn prompt_of(v: &Value) -> Prompt {
    let args = v.get("arguments").and_then(Value::as_array);
    Prompt {
        name: field_text(v, "name"),
        title: field_text(v, "title"),
        description: field_text(v, "description"),
        arguments: args
            .into_iter()
            .flatten()
            .take(MAX_ARGS)
            .map(|a| Argument {
                name: field_text(a, "name"),
                description: field_text(a, "description"),
                required: a.get("required").and_then(Value::as_bool) == Some(true),
            })
            .collect(),
    }
}

impl Tab for Prompts {
    fn captures(&self) -> bool {
        self.search.typing || (self.pane == Pane::Detail && self.editing)
    }

    fn key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        self.click_top = None;
        if self.search.typing {
            if self.search.key(key) {
                self.cursor = Cursor::default();
            }
            return Handled::done();
        }
        match self.pane {
            Pane::List => self.list_key(ctx, key),
            Pane::Detail => self.detail_key(ctx, key),
        }
    }

    fn scroll(&mut self, ctx: &Ctx, down: bool) -> Vec<Effect> {
        let code = if down { KeyCode::Down } else { KeyCode::Up };
        let k = KeyEvent::new(code, KeyModifiers::NONE);
        self.click_top = None;
        match (self.pane, self.messages.as_mut()) {
            (Pane::Detail, Some(m)) => {
                m.pager.key(k, page(ctx));
            }
            _ => {
                let len = self.items().len();
                self.cursor.key(k, len, page(ctx));
            }
        }
        Vec::new()
    }

    fn click(&mut self, ctx: &Ctx, col: u16, row: u16) -> Vec<Effect> {
        let Some(list) = view::list_area(self, ctx.area) else {
            return Vec::new();
        };
        let (hh, top) = view::list_lines(self, list);
        let n = top + row.saturating_sub(hh) as usize;
        if row < hh || col >= list.width || n >= self.items().len() {
            return Vec::new();
        }
        // A click on the row already selected opens it, as Enter does.
        let again = self.cursor.selected == n && self.pane == Pane::List;
        self.cursor.selected = n;
        self.click_top = Some(top);
        self.pane = Pane::List;
        self.search.typing = false;
        if again {
            return self.open(ctx);
        }
        Vec::new()
    }

    fn entered(&mut self, ctx: &Ctx) -> Vec<Effect> {
        if !ctx.server.connected() || self.prompts.is_some() {
            return Vec::new();
        }
        self.load(ctx)
    }

    fn core(&mut self, _ctx: &Ctx, event: &CoreEvent) -> Vec<Effect> {
        if event.name == "notification"
            && super::text(&event.data, "method") == "notifications/prompts/list_changed"
        {
            self.list_changed = true;
        }
        Vec::new()
    }

    fn done(&mut self, ctx: &Ctx, done: Done) -> Vec<Effect> {
        let (tag, key) = (done.route.tag, done.route.key.clone());
        let result = done.result.map_err(|f| f.message);
        match tag {
            "list" => self.list_done(result),
            "complete" => return self.complete_done(ctx, &key, result),
            "get" => {
                if self.getting.as_deref() == Some(key.as_str()) {
                    self.getting = None;
                }
                let call = result.unwrap_or_else(|e| json!({"error": {"message": e}}));
                self.messages = Some(Messages::of(&key, &call));
            }
            _ => {}
        }
        Vec::new()
    }

    fn goto(&mut self, ctx: &Ctx, item: &str) -> Vec<Effect> {
        self.search = Search::default();
        let i = self
            .items()
            .into_iter()
            .position(|i| self.prompts.as_ref().is_some_and(|p| p[i].name == item));
        match i {
            Some(i) => {
                self.cursor.selected = i;
                self.open(ctx)
            }
            None => Vec::new(),
        }
    }

    fn reset(&mut self) {
        *self = Prompts {
            generation: self.generation,
            ..Prompts::default()
        };
    }

    fn count(&self) -> Option<usize> {
        self.prompts.as_ref().map(Vec::len)
    }

    fn bindings(&self) -> &'static [Binding] {
        crate::tabs::or_search_keys(self.search.typing, KEYS)
    }

    fn render(&self, ctx: &Ctx, f: &mut Frame, area: Rect) {
        view::render(self, ctx, f, area);
    }
}
