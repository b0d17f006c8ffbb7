//! The Resources tab: the server's resources and resource templates (two sections, searched
//! with `/`), a resource read (`resources/read`: text in a pager, blobs described and saved with
//! `w`), a template's form of URI variables with completion (`completion/complete` against
//! `ref/resource`) that reads the expanded URI, and subscribing to the selected resource in
//! either era through the core (`resources/subscribe` on 2025-11-25, the watched URIs of the
//! `subscriptions/listen` filter on 2026-07-28), with `notifications/resources/updated` shown as
//! an "updated" mark and its time.
//!
//! Split: this file keeps the state and what keys and answers do; `view.rs` draws;
//! `form.rs` is the argument form the Prompts tab shares; `read.rs` the read's answer;
//! `template.rs` RFC 6570 expansion.

pub mod read;
pub mod template;
mod view;

use super::{Binding, Ctx, Handled, Tab, TabId};
use crate::msg::{Done, Effect, Job, Route};
use crate::widgets::completion::{Field, Form, FormOut, MAX_TEXT, Search, clean, field_text};
use crate::widgets::input::Input;
use crate::widgets::list::Cursor;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpscope_inspect::{Call, Pages};
use ratatui::Frame;
use ratatui::layout::Rect;
use read::ReadView;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// Resources (and templates) kept of a list.
pub const MAX_ROWS: usize = 5_000;
/// URIs remembered as subscribed or updated.
pub const MAX_MARKS: usize = 2_000;
/// Rows a PgUp/PgDn moves: most of the tab's height (the heads above the list and the
/// pager take a few lines).
fn page(ctx: &Ctx) -> usize {
    (ctx.area.height as usize).saturating_sub(4).max(1)
}

/// A resource of the list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resource {
    /// Its URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// Its title (may be empty).
    pub title: String,
    /// What it is.
    pub description: String,
    /// Its MIME type.
    pub mime: String,
    /// `audience`, `priority` as text.
    pub annotations: String,
}

/// A resource template of the list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Template {
    /// The RFC 6570 template.
    pub template: String,
    /// Its name.
    pub name: String,
    /// What it is.
    pub description: String,
    /// Its MIME type.
    pub mime: String,
}

/// A row the cursor can be on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// `resources[i]`.
    Resource(usize),
    /// `templates[i]`.
    Template(usize),
}

/// Which half has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pane {
    /// The list.
    #[default]
    List,
    /// The form or the read (the only half shown on a narrow screen).
    Detail,
}

/// The Resources tab's state.
#[derive(Debug, Default)]
pub struct Resources {
    /// `None`: not loaded.
    pub resources: Option<Vec<Resource>>,
    /// `None`: not loaded.
    pub templates: Option<Vec<Template>>,
    /// Why a list could not be read, or where its pages stopped.
    pub list_errors: Vec<String>,
    /// Lists asked and not answered.
    loading: usize,
    /// The list's first line as last clicked: the list stays still under the mouse (a second
    /// click opens the same row) until a key or the wheel moves it.
    click_top: Option<usize>,
    /// The server said the list changed (`f` reloads).
    pub list_changed: bool,
    /// The `/` filter.
    pub search: Search,
    /// The cursor over the filtered items.
    pub cursor: Cursor,
    /// Which half has the keyboard.
    pub pane: Pane,
    /// The form of the template being filled in, and its template.
    pub form: Option<(String, Form)>,
    /// The form has the keyboard (else the read under it does).
    pub editing: bool,
    /// The last read.
    pub read: Option<ReadView>,
    /// The URI being read.
    pub reading: Option<String>,
    /// Subscribed (legacy) or watched (modern) URIs.
    pub subscribed: BTreeSet<String>,
    /// URIs the server said were updated, and when (µs).
    pub updated: BTreeMap<String, u64>,
    /// What the last subscribe said went wrong.
    pub sub_error: Option<String>,
    /// The file path being typed for `w`.
    pub save: Option<Input>,
    /// Forms made, so a late completion answer finds its own.
    generation: u64,
    /// The server declared `resources.subscribe` (as last seen): `b` and `u` are offered.
    pub subscribable: bool,
}

/// What `b` / `u` say on a server without `resources.subscribe`.
pub const NO_SUBSCRIBE: &str =
    "the server does not declare resources.subscribe: it offers no subscriptions";

/// The keys without subscribe (the server does not declare it).
const KEYS_NO_SUBSCRIBE: &[Binding] = &[
    KEYS[0], KEYS[1], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7],
];

const KEYS: &[Binding] = &[
    Binding {
        keys: "Enter",
        what: "read / fill in",
    },
    Binding {
        keys: "/",
        what: "search",
    },
    Binding {
        keys: "b u",
        what: "subscribe / unsubscribe",
    },
    Binding {
        keys: "w",
        what: "save the content",
    },
    Binding {
        keys: "f",
        what: "reload the lists",
    },
    Binding {
        keys: "y",
        what: "copy the text",
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
    Route::new(&ctx.server.name, TabId::Resources, tag, key)
}

impl Resources {
    /// The rows the cursor moves over: matching resources, then matching templates.
    pub fn items(&self) -> Vec<Item> {
        let mut out = Vec::new();
        for (i, r) in self.resources.iter().flatten().enumerate() {
            let hay = format!("{} {} {} {}", r.name, r.title, r.uri, r.description);
            if self.search.matches(&hay) {
                out.push(Item::Resource(i));
            }
        }
        for (i, t) in self.templates.iter().flatten().enumerate() {
            if self
                .search
                .matches(&format!("{} {} {}", t.name, t.template, t.description))
            {
                out.push(Item::Template(i));
            }
        }
        out
    }

    /// The item under the cursor.
    pub fn selected(&self) -> Option<Item> {
        self.items().get(self.cursor.selected).copied()
    }

    /// The resource under the cursor.
    fn selected_resource(&self) -> Option<&Resource> {
        match self.selected()? {
            Item::Resource(i) => self.resources.as_ref()?.get(i),
            Item::Template(_) => None,
        }
    }

    fn load(&mut self, ctx: &Ctx) -> Vec<Effect> {
        if self.loading > 0 {
            return Vec::new();
        }
        self.loading = 2;
        self.list_changed = false;
        self.list_errors.clear();
        let list = |method: &str| {
            Call {
                method: method.into(),
                ..Call::default()
            }
            .with_pages(Pages::All { key: None })
        };
        let name = ctx.server.name.clone();
        vec![
            Effect::Call {
                route: route(ctx, "list", ""),
                call: list("resources/list"),
            },
            Effect::Call {
                route: route(ctx, "templates", ""),
                call: list("resources/templates/list"),
            },
            Effect::Run {
                route: route(ctx, "subscriptions", ""),
                job: Job::new(move |i| {
                    let v = serde_json::to_value(i.subscriptions(&name)).unwrap_or(Value::Null);
                    async move { Ok(v) }
                }),
            },
        ]
    }

    /// Read `uri` (the read view takes the keyboard).
    fn read_uri(&mut self, ctx: &Ctx, uri: &str) -> Vec<Effect> {
        self.reading = Some(uri.to_string());
        self.pane = Pane::Detail;
        self.editing = false;
        vec![Effect::Call {
            route: route(ctx, "read", uri),
            call: Call {
                method: "resources/read".into(),
                params: Some(json!({"uri": uri})),
                ..Call::default()
            },
        }]
    }

    fn open_template(&mut self, ctx: &Ctx, t: &Template) -> Vec<Effect> {
        self.generation += 1;
        let fields = template::variables(&t.template)
            .into_iter()
            .map(|name| Field {
                name,
                required: true,
                ..Field::default()
            })
            .collect();
        let reference = json!({"type": "ref/resource", "uri": t.template});
        let mut f = Form::new(reference, fields, self.generation)
            .completing(ctx.server.declares("/completions"));
        let ask = f.ask();
        self.form = Some((t.template.clone(), f));
        self.editing = true;
        self.read = None;
        self.pane = Pane::Detail;
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

    /// The URI the template form expands to.
    pub fn expanded(&self) -> Option<String> {
        let (t, f) = self.form.as_ref()?;
        Some(template::expand(t, |n| Some(f.value(n))))
    }

    /// The URI `b`/`u`/`w` act on: the read one in the detail, else the selected resource.
    fn target(&self) -> Option<String> {
        match (self.pane, &self.read) {
            (Pane::Detail, Some(r)) => Some(r.uri.clone()),
            _ => self.selected_resource().map(|r| r.uri.clone()),
        }
    }

    fn subscribe(&mut self, ctx: &Ctx, on: bool) -> Vec<Effect> {
        if !self.subscribable {
            return vec![Effect::Toast {
                text: NO_SUBSCRIBE.into(),
                error: false,
            }];
        }
        let Some(uri) = self.target() else {
            return Vec::new();
        };
        self.sub_error = None;
        let name = ctx.server.name.clone();
        let legacy = ctx.server.era.as_deref() == Some("legacy");
        let u = uri.clone();
        let job = Job::new(move |i| {
            let (name, uri) = (name.clone(), u.clone());
            async move {
                if legacy {
                    return match on {
                        true => i.subscribe_resource(&name, &uri).await,
                        false => i.unsubscribe_resource(&name, &uri).await,
                    };
                }
                // Modern: a listen filter is fixed for its stream, so watching one more URI
                // is a new desired filter (the core re-listens).
                let mut f = i.subscriptions(&name).desired;
                f.resource_subscriptions.retain(|x| *x != uri);
                if on {
                    f.resource_subscriptions.push(uri);
                }
                let v = i.set_subscription_filter(&name, f).await?;
                Ok(json!({"subscriptions": v}))
            }
        });
        vec![Effect::Run {
            route: route(ctx, if on { "subscribe" } else { "unsubscribe" }, uri),
            job,
        }]
    }

    /// The subscribed URIs of a Subscriptions panel (`SubscriptionsView`).
    fn sync_subscriptions(&mut self, view: &Value) {
        let mut subs = BTreeSet::new();
        let watched = view.pointer("/desired/resourceSubscriptions");
        for u in watched.and_then(Value::as_array).into_iter().flatten() {
            if let Some(u) = u.as_str() {
                subs.insert(clean(u, MAX_TEXT));
            }
        }
        for u in view
            .get("uris")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if u.get("subscribed").and_then(Value::as_bool) == Some(true) {
                subs.insert(field_text(u, "uri"));
            }
        }
        self.subscribed = subs.into_iter().take(MAX_MARKS).collect();
    }

    fn start_save(&mut self) -> Handled {
        match self.read.as_ref().and_then(|r| r.save.as_ref()) {
            Some((name, Some(_))) => {
                self.save = Some(Input::new(name.clone()));
                Handled::done()
            }
            Some((_, None)) => Handled::Yes(vec![Effect::Toast {
                text: "too large to keep: not saved".into(),
                error: true,
            }]),
            None => Handled::No,
        }
    }

    fn save_key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        let Some(input) = self.save.as_mut() else {
            return Handled::No;
        };
        match key.code {
            KeyCode::Esc => self.save = None,
            KeyCode::Enter => {
                let path = input.text().to_string();
                self.save = None;
                let bytes = self
                    .read
                    .as_ref()
                    .and_then(|r| r.save.as_ref())
                    .and_then(|(_, b)| b.clone());
                if let (false, Some(bytes)) = (path.is_empty(), bytes) {
                    return Handled::Yes(vec![Effect::SaveFile {
                        route: route(ctx, "save", ""),
                        path,
                        bytes,
                    }]);
                }
            }
            _ => {
                input.key(key);
            }
        }
        Handled::done()
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
            KeyCode::Enter | KeyCode::Right => Handled::Yes(self.open_selected(ctx)),
            KeyCode::Esc if !self.search.input.text().is_empty() => {
                self.search.input.set("");
                self.cursor = Cursor::default();
                Handled::done()
            }
            _ => self.common_key(ctx, key),
        }
    }

    fn open_selected(&mut self, ctx: &Ctx) -> Vec<Effect> {
        match self.selected() {
            Some(Item::Resource(i)) => {
                let uri = self.resources.as_ref().map(|r| r[i].uri.clone());
                uri.map(|u| self.read_uri(ctx, &u)).unwrap_or_default()
            }
            Some(Item::Template(i)) => {
                let t = self.templates.as_ref().map(|t| t[i].clone());
                t.map(|t| self.open_template(ctx, &t)).unwrap_or_default()
            }
            None => Vec::new(),
        }
    }

    /// Keys of both halves: subscribe, reload, save, copy.
    fn common_key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        match key.code {
            KeyCode::Char('b') => Handled::Yes(self.subscribe(ctx, true)),
            KeyCode::Char('u') => Handled::Yes(self.subscribe(ctx, false)),
            KeyCode::Char('f') if ctx.server.connected() => {
                self.loading = 0;
                Handled::Yes(self.load(ctx))
            }
            KeyCode::Char('w') => self.start_save(),
            KeyCode::Char('y') => match &self.read {
                Some(r) => Handled::Yes(vec![Effect::Copy(r.pager.text())]),
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
                FormOut::Submit => {
                    let uri = self.expanded().unwrap_or_default();
                    Handled::Yes(self.read_uri(ctx, &uri))
                }
            };
        }
        if let Some(r) = self.read.as_mut()
            && r.pager.key(key, page(ctx))
        {
            return Handled::done();
        }
        match key.code {
            // Back to the list, not into the form (its field would take the next tab letter);
            // Enter returns to the form.
            KeyCode::Esc => {
                self.pane = Pane::List;
                Handled::done()
            }
            KeyCode::Enter if self.form.is_some() => {
                self.editing = true;
                Handled::done()
            }
            _ => self.common_key(ctx, key),
        }
    }

    fn list_done(&mut self, tag: &str, result: Result<Value, String>) {
        self.loading = self.loading.saturating_sub(1);
        let key = if tag == "list" {
            "resources"
        } else {
            "resourceTemplates"
        };
        let (rows, error) = match &result {
            Ok(v) if v.get("error").is_none() => {
                let rows = v
                    .pointer(&format!("/result/{key}"))
                    .and_then(Value::as_array);
                let stop = v
                    .pointer("/pagination/stop/message")
                    .and_then(Value::as_str);
                (
                    rows.cloned().unwrap_or_default(),
                    stop.map(|s| clean(s, MAX_TEXT)),
                )
            }
            Ok(v) => (Vec::new(), Some(read::error_text(&v["error"]))),
            Err(e) => (Vec::new(), Some(e.clone())),
        };
        if let Some(e) = error {
            self.list_errors.push(format!("{key}: {e}"));
            self.list_errors.truncate(4);
        }
        let rows = rows.iter().take(MAX_ROWS);
        // The two lists answer separately: resources arriving after the templates would shift
        // the rows under the cursor, so a cursor the user moved follows its item, not its
        // index (one still on the first row stays at the top).
        let before = self
            .selected()
            .filter(|_| self.cursor.selected > 0)
            .map(|i| self.item_key(i));
        if tag == "list" {
            self.resources = Some(rows.map(resource_of).collect());
        } else {
            self.templates = Some(rows.map(template_of).collect());
        }
        let items = self.items();
        if let Some(at) = before.and_then(|k| items.iter().position(|i| self.item_key(*i) == k)) {
            self.cursor.selected = at;
        }
        self.cursor.clamp(items.len());
    }

    /// What an item is, whatever its row: a resource's URI or a template's template.
    fn item_key(&self, item: Item) -> (bool, String) {
        match item {
            Item::Resource(i) => (
                true,
                self.resources
                    .as_ref()
                    .and_then(|r| r.get(i))
                    .map(|r| r.uri.clone())
                    .unwrap_or_default(),
            ),
            Item::Template(i) => (
                false,
                self.templates
                    .as_ref()
                    .and_then(|t| t.get(i))
                    .map(|t| t.template.clone())
                    .unwrap_or_default(),
            ),
        }
    }

    fn subscribe_done(&mut self, on: bool, uri: &str, result: Result<Value, String>) {
        match result {
            Ok(v) => {
                if let Some(view) = v.get("subscriptions") {
                    self.sync_subscriptions(view);
                }
                // Legacy answers the server's own error beside the panel.
                if let Some(e) = v.get("error") {
                    self.sub_error = Some(read::error_text(e));
                } else if on {
                    self.subscribed.insert(uri.to_string());
                } else {
                    self.subscribed.remove(uri);
                }
            }
            Err(e) => self.sub_error = Some(e),
        }
    }
}

fn resource_of(v: &Value) -> Resource {
    let ann = v.get("annotations");
    let mut annotations = Vec::new();
    if let Some(a) = ann
        .and_then(|a| a.get("audience"))
        .and_then(Value::as_array)
    {
        let who: Vec<String> = a
            .iter()
            .filter_map(Value::as_str)
            .take(8)
            .map(|s| clean(s, 32))
            .collect();
        annotations.push(format!("audience: {}", who.join(", ")));
    }
    if let Some(p) = ann.and_then(|a| a.get("priority")).and_then(Value::as_f64) {
        annotations.push(format!("priority: {p}"));
    }
    Resource {
        uri: field_text(v, "uri"),
        name: field_text(v, "name"),
        title: field_text(v, "title"),
        description: field_text(v, "description"),
        mime: field_text(v, "mimeType"),
        annotations: annotations.join(" · "),
    }
}

fn template_of(v: &Value) -> Template {
    Template {
        template: field_text(v, "uriTemplate"),
        name: field_text(v, "name"),
        description: field_text(v, "description"),
        mime: field_text(v, "mimeType"),
    }
}

/// A call's answer as its value, or the failure in words.
pub fn answer(done: Done) -> Result<Value, String> {
    done.result.map_err(|f| f.message)
}

impl Tab for Resources {
    fn captures(&self) -> bool {
        self.search.typing || self.save.is_some() || (self.pane == Pane::Detail && self.editing)
    }

    fn key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        self.click_top = None;
        self.subscribable = ctx.server.declares("/resources/subscribe");
        if self.save.is_some() {
            return self.save_key(ctx, key);
        }
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
        match (self.pane, self.read.as_mut()) {
            (Pane::Detail, Some(r)) => {
                r.pager.key(k, page(ctx));
            }
            _ => {
                let len = self.items().len();
                self.cursor.key(k, len, page(ctx));
            }
        }
        Vec::new()
    }

    fn click(&mut self, ctx: &Ctx, col: u16, row: u16) -> Vec<Effect> {
        let Some(list) = view::list_area(self, ctx.area).filter(|_| self.save.is_none()) else {
            return Vec::new();
        };
        let (hh, map, top) = view::list_lines(self, list);
        let line = (row >= hh && col < list.width).then(|| top + (row - hh) as usize);
        let Some(&Some(n)) = line.and_then(|l| map.get(l)) else {
            return Vec::new();
        };
        // A click on the row already selected opens it, as Enter does.
        let again = self.cursor.selected == n && self.pane == Pane::List;
        self.cursor.selected = n;
        self.click_top = Some(top);
        self.pane = Pane::List;
        self.search.typing = false;
        if again {
            return self.open_selected(ctx);
        }
        Vec::new()
    }

    fn entered(&mut self, ctx: &Ctx) -> Vec<Effect> {
        self.subscribable = ctx.server.declares("/resources/subscribe");
        if !ctx.server.connected() || self.resources.is_some() {
            return Vec::new();
        }
        self.load(ctx)
    }

    fn core(&mut self, ctx: &Ctx, event: &crate::msg::CoreEvent) -> Vec<Effect> {
        match event.name.as_str() {
            "notification" => {
                let method = super::text(&event.data, "method");
                if method == "notifications/resources/list_changed" {
                    self.list_changed = true;
                } else if method == "notifications/resources/updated"
                    && let Some(uri) = event.data.pointer("/params/uri").and_then(Value::as_str)
                {
                    let uri = clean(uri, MAX_TEXT);
                    if self.updated.len() < MAX_MARKS || self.updated.contains_key(&uri) {
                        self.updated.insert(uri, ctx.now_us);
                    }
                }
            }
            "subscriptions" => self.sync_subscriptions(&event.data),
            _ => {}
        }
        Vec::new()
    }

    fn done(&mut self, ctx: &Ctx, done: Done) -> Vec<Effect> {
        self.subscribable = ctx.server.declares("/resources/subscribe");
        let (tag, key) = (done.route.tag, done.route.key.clone());
        let result = answer(done);
        match tag {
            "list" | "templates" => self.list_done(tag, result),
            "subscriptions" => {
                if let Ok(v) = result {
                    self.sync_subscriptions(&v);
                }
            }
            "read" => {
                if self.reading.as_deref() == Some(key.as_str()) {
                    self.reading = None;
                }
                let call = result.unwrap_or_else(|e| json!({"error": {"message": e}}));
                self.read = Some(ReadView::of(&key, &call));
            }
            "complete" => {
                let Some((_, f)) = self
                    .form
                    .as_mut()
                    .filter(|(_, f)| f.generation.to_string() == key)
                else {
                    return Vec::new();
                };
                let ask = match &result {
                    Ok(v) if v.get("error").is_none() => f.answer(Ok(&v["result"])),
                    Ok(v) => f.answer(Err(read::error_text(&v["error"]))),
                    Err(e) => f.answer(Err(e.clone())),
                };
                return self.ask(ctx, ask);
            }
            "subscribe" | "unsubscribe" => self.subscribe_done(tag == "subscribe", &key, result),
            "save" => {
                return vec![match result {
                    Ok(v) => Effect::Toast {
                        text: format!("saved {} bytes to {}", v["bytes"], super::text(&v, "path")),
                        error: false,
                    },
                    Err(e) => Effect::Toast {
                        text: e,
                        error: true,
                    },
                }];
            }
            _ => {}
        }
        Vec::new()
    }

    fn goto(&mut self, ctx: &Ctx, item: &str) -> Vec<Effect> {
        self.search = Search::default();
        self.form = None;
        if let Some(i) = self.items().iter().position(|it| match it {
            Item::Resource(r) => self.resources.as_ref().is_some_and(|l| l[*r].uri == item),
            Item::Template(_) => false,
        }) {
            self.cursor.selected = i;
        }
        self.read_uri(ctx, item)
    }

    fn reset(&mut self) {
        *self = Resources {
            generation: self.generation,
            ..Resources::default()
        };
    }

    fn count(&self) -> Option<usize> {
        let (r, t) = (self.resources.as_ref(), self.templates.as_ref());
        (r.is_some() || t.is_some()).then(|| r.map_or(0, Vec::len) + t.map_or(0, Vec::len))
    }

    fn bindings(&self) -> &'static [Binding] {
        let keys = if self.subscribable {
            KEYS
        } else {
            KEYS_NO_SUBSCRIBE
        };
        crate::tabs::or_search_keys(self.search.typing, keys)
    }

    fn render(&self, ctx: &Ctx, f: &mut Frame, area: Rect) {
        view::render(self, ctx, f, area);
    }
}
