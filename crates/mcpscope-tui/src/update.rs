//! The reducer: `update(state, msg) → effects`. The only place the state changes. It never does
//! I/O: what it wants done comes back as [`Effect`]s for the loop.

use crate::keymap::{self, Global};
use crate::modals::{self, Modal, Outcome, interaction::Dialog};
use crate::msg::{CoreEvent, Done, Effect, Msg, Route};
use crate::render::{areas, tab_spans};
use crate::state::{AppState, Focus};
use crate::tabs::{Ctx, Handled, TabId};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use serde_json::Value;

/// The eras the era key cycles through, in order.
pub const ERAS: [&str; 3] = ["auto", "2026-07-28", "2025-11-25"];

/// What a state made over servers already connected asks first: each one's capabilities
/// (later connections read theirs when their status turns `connected`).
pub fn started(s: &AppState) -> Vec<Effect> {
    s.servers
        .iter()
        .filter(|r| r.connected() && r.capabilities.is_none())
        .map(|r| Effect::ServerInfo {
            route: Route::app(&r.name, "capabilities"),
        })
        .collect()
}

/// Apply `msg` at time `now_us`; returns what to do.
pub fn update(s: &mut AppState, msg: Msg, now_us: u64) -> Vec<Effect> {
    s.now_us = now_us;
    if s.toast.as_ref().is_some_and(|t| t.until_us <= now_us) {
        s.toast = None;
    }
    let effects = match msg {
        Msg::Tick => Vec::new(),
        Msg::Resize(w, h) => {
            s.size = (w, h);
            resized(s)
        }
        Msg::Key(k) => {
            let mut e = key(s, k);
            // The server list shown again when it gets the keyboard.
            if s.zoomed && s.focus == Focus::Servers {
                s.zoomed = false;
                e.extend(resized(s));
            }
            e
        }
        Msg::Mouse(m) => mouse(s, m),
        Msg::Core(e) => core(s, e),
        Msg::Done(d) => done(s, d),
    };
    let effects = keep_app_effects(s, effects);
    s.running += effects
        .iter()
        .filter(|e| matches!(e, Effect::Call { .. }))
        .count();
    effects
}

/// Run `f` on the selected server's open tab with its context.
fn with_tab<R>(
    s: &mut AppState,
    f: impl FnOnce(&mut dyn crate::tabs::Tab, &Ctx) -> R,
) -> Option<R> {
    let row = s.servers.get(s.selected)?.clone();
    let ctx = Ctx {
        server: &row,
        now_us: s.now_us,
        color: s.color,
        focused: s.focus == Focus::Tab,
        area: areas(s).body,
    };
    let tab = s.tab;
    let tabs = s.tabs.get_mut(&row.name)?;
    Some(f(tabs.get_mut(tab), &ctx))
}

fn key(s: &mut AppState, k: KeyEvent) -> Vec<Effect> {
    if k.kind == crossterm::event::KeyEventKind::Release {
        return Vec::new();
    }
    let ctrl_c = k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl_c {
        return vec![Effect::Quit];
    }
    let height = areas(s).modal.height.saturating_sub(2) as usize;
    if let Some(m) = s.modal.as_mut() {
        return match modals::key(m, k, height) {
            Outcome::Stay(e) => e,
            Outcome::Close(e) => {
                // An answered question must not open again before the core's closed event.
                if let Some(Modal::Interaction(d)) = &s.modal {
                    let id = d.id();
                    s.interactions
                        .retain(|i| i.get("id").and_then(Value::as_u64) != Some(id));
                }
                s.modal = None;
                open_next_question(s);
                e
            }
        };
    }
    if s.focus == Focus::Tab {
        match with_tab(s, |t, ctx| t.key(ctx, k)) {
            Some(Handled::Yes(e)) => return e,
            Some(Handled::No) | None => {}
        }
        let capturing = with_tab(s, |t, _| t.captures()).unwrap_or(false);
        if capturing {
            return Vec::new();
        }
        if k.code == KeyCode::Esc || k.code == KeyCode::Left && k.modifiers.is_empty() {
            s.focus = Focus::Servers;
            return Vec::new();
        }
    }
    match keymap::global(k, s.focus == Focus::Servers) {
        Some(g) => global(s, g),
        None => Vec::new(),
    }
}

fn global(s: &mut AppState, g: Global) -> Vec<Effect> {
    let Some(row) = s.current().cloned() else {
        return match g {
            Global::Quit | Global::QuitNow => vec![Effect::Quit],
            Global::Help => {
                s.modal = Some(Modal::Help { top: 0 });
                Vec::new()
            }
            _ => Vec::new(),
        };
    };
    match g {
        Global::QuitNow => vec![Effect::Quit],
        Global::Quit if s.running > 0 => {
            s.modal = Some(Modal::Quit);
            Vec::new()
        }
        Global::Quit => vec![Effect::Quit],
        Global::Help => {
            s.modal = Some(Modal::Help { top: 0 });
            Vec::new()
        }
        Global::Connect => {
            // The tab shows the server being connected: the keyboard goes with it (else `/` and
            // the letters typed next would land on the server list).
            if !row.connected() && row.status != "connecting" {
                s.focus = Focus::Tab;
            }
            connect_toggle(&row.name, &row.status)
        }
        Global::Tab(TabId::Info) if s.focus == Focus::Servers => {
            // The list shortens a long error ("… i: whole error"): Info opens with the whole
            // of it in the pager on top (Esc leaves Info).
            let e = open_tab(s, TabId::Info);
            if crate::render::error_cut(&row, crate::render::list_inner_width(s)) {
                let text = row.error.clone().unwrap_or_default();
                let title = format!("{}: why the connection failed", row.name);
                s.modal = Some(Modal::Pager(crate::widgets::pager::Pager::new(
                    title, &text,
                )));
            }
            e
        }
        Global::Tab(t) => open_tab(s, t),
        Global::NextTab | Global::PrevTab => {
            let i = TabId::ALL.iter().position(|t| *t == s.tab).unwrap_or(0);
            let n = TabId::ALL.len();
            let next = if g == Global::NextTab {
                (i + 1) % n
            } else {
                (i + n - 1) % n
            };
            open_tab(s, TabId::ALL[next])
        }
        Global::SwitchFocus => {
            s.focus = match s.focus {
                Focus::Servers => Focus::Tab,
                Focus::Tab => Focus::Servers,
            };
            Vec::new()
        }
        Global::CycleEra => {
            let i = ERAS.iter().position(|e| *e == row.era_choice).unwrap_or(0);
            let era = ERAS[(i + 1) % ERAS.len()].to_string();
            s.toast(format!("{}: era {era} (reconnecting)", row.name), false);
            vec![Effect::SetEra {
                route: Route::app(&row.name, "era"),
                era,
            }]
        }
        Global::Zoom => {
            s.zoomed = !s.zoomed;
            s.focus = Focus::Tab;
            resized(s)
        }
        Global::Interactions => {
            open_next_question(s);
            if s.modal.is_none() {
                s.toast(crate::strings::NO_QUESTIONS, false);
            }
            Vec::new()
        }
        Global::Up => {
            s.selected = s.selected.saturating_sub(1);
            Vec::new()
        }
        Global::Down => {
            s.selected = (s.selected + 1).min(s.servers.len().saturating_sub(1));
            Vec::new()
        }
        Global::Enter => {
            s.focus = Focus::Tab;
            let mut e = Vec::new();
            if row.status == "disconnected" || row.status == "failed" {
                e = connect_toggle(&row.name, &row.status);
            }
            e.extend(with_tab(s, |t, ctx| t.entered(ctx)).unwrap_or_default());
            e
        }
    }
}

/// Take out the effects that change the app itself (`Goto`, `Toast`, `ShowPager`), applying
/// them; the rest go to the loop. A `Goto` may bring more.
fn keep_app_effects(s: &mut AppState, effects: Vec<Effect>) -> Vec<Effect> {
    let mut out = Vec::new();
    for e in effects {
        match e {
            Effect::Goto { tab, item } => {
                let more = open_tab(s, tab);
                let more2 = with_tab(s, |t, ctx| t.goto(ctx, &item)).unwrap_or_default();
                out.extend(keep_app_effects(s, more));
                out.extend(keep_app_effects(s, more2));
            }
            Effect::Toast { text, error } => s.toast(text, error),
            Effect::ShowPager(p) => s.modal = Some(Modal::Pager(p)),
            Effect::Cancel { request_id } => {
                let dismissed = dismiss_questions_of(s, &request_id);
                out.push(Effect::Cancel { request_id });
                out.extend(dismissed);
            }
            other => out.push(other),
        }
    }
    out
}

fn connect_toggle(name: &str, status: &str) -> Vec<Effect> {
    match status {
        "connected" | "connecting" => vec![Effect::Disconnect {
            route: Route::app(name, "disconnect"),
        }],
        _ => vec![Effect::Connect {
            route: Route::app(name, "connect"),
            era: None,
        }],
    }
}

fn open_tab(s: &mut AppState, t: TabId) -> Vec<Effect> {
    s.tab = t;
    s.focus = Focus::Tab;
    with_tab(s, |t, ctx| t.entered(ctx)).unwrap_or_default()
}

/// Open the oldest waiting question when nothing else is on top.
fn open_next_question(s: &mut AppState) {
    if s.modal.is_none()
        && let Some(i) = s.interactions.first()
    {
        let d = Dialog::open(i, s);
        s.modal = Some(Modal::Interaction(Box::new(d)));
    }
}

/// A call was cancelled: the questions it caused are answered `cancel` and their dialogs close
/// (the web's Tools screen does the same), after the cancel itself (the effects run in order).
fn dismiss_questions_of(s: &mut AppState, request_id: &str) -> Vec<Effect> {
    let ids = s.causes.questions_of(request_id, &s.interactions);
    if ids.is_empty() {
        return Vec::new();
    }
    let gone = |v: &Value| {
        v.get("id")
            .and_then(Value::as_u64)
            .is_some_and(|i| ids.contains(&i))
    };
    s.interactions.retain(|i| !gone(i));
    if matches!(&s.modal, Some(Modal::Interaction(d)) if ids.contains(&d.id())) {
        s.modal = None;
        open_next_question(s);
    }
    s.toast(crate::strings::CANCELLED_WITH_CALL, false);
    ids.into_iter()
        .map(|id| Effect::Answer {
            id,
            answer: mcpscope_inspect::Answer::Cancel,
        })
        .collect()
}

fn mouse(s: &mut AppState, m: MouseEvent) -> Vec<Effect> {
    let a = areas(s);
    let inside = |r: ratatui::layout::Rect| {
        m.column >= r.x && m.column < r.x + r.width && m.row >= r.y && m.row < r.y + r.height
    };
    match m.kind {
        MouseEventKind::Down(MouseButton::Left) if s.modal.is_none() => {
            if inside(a.tabs) {
                for (t, x, w) in tab_spans(a.tabs.width, &crate::render::tab_counts(s), s.tab) {
                    if m.column >= x && m.column < x + w {
                        return open_tab(s, t);
                    }
                }
            } else if inside(a.servers) {
                s.focus = Focus::Servers;
                let i = s.servers_row_at(m.row.saturating_sub(a.servers.y + 1));
                if let Some(i) = i {
                    s.selected = i;
                }
            } else if inside(a.body) {
                s.focus = Focus::Tab;
                let (col, row) = (m.column - a.body.x, m.row - a.body.y);
                return with_tab(s, |t, ctx| t.click(ctx, col, row)).unwrap_or_default();
            }
            Vec::new()
        }
        MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
            let down = m.kind == MouseEventKind::ScrollDown;
            if let Some(Modal::Pager(p)) = s.modal.as_mut() {
                let code = if down { KeyCode::Down } else { KeyCode::Up };
                p.key(
                    KeyEvent::new(code, KeyModifiers::NONE),
                    a.modal.height as usize,
                );
            } else if inside(a.servers) {
                return global(s, if down { Global::Down } else { Global::Up });
            } else if inside(a.body) {
                return with_tab(s, |t, ctx| t.scroll(ctx, down)).unwrap_or_default();
            }
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Tell every tab of every server the new size (each is drawn at it when shown).
fn resized(s: &mut AppState) -> Vec<Effect> {
    let area = areas(s).body;
    let mut out = Vec::new();
    for row in s.servers.clone() {
        let ctx = Ctx {
            server: &row,
            now_us: s.now_us,
            color: s.color,
            focused: false,
            area,
        };
        if let Some(tabs) = s.tabs.get_mut(&row.name) {
            for t in TabId::ALL {
                out.extend(tabs.get_mut(t).resized(&ctx));
            }
        }
    }
    out
}

fn core(s: &mut AppState, e: CoreEvent) -> Vec<Effect> {
    match e.name.as_str() {
        "catalog" => {
            if let Some(list) = e.data.get("servers").and_then(Value::as_array) {
                s.set_servers(list);
            }
            Vec::new()
        }
        "status" => status(s, &e.data),
        "interactionOpened" => {
            s.interactions.push(e.data);
            open_next_question(s);
            Vec::new()
        }
        "interactionClosed" => {
            let id = e.data.get("id").and_then(Value::as_u64);
            s.interactions
                .retain(|i| i.get("id").and_then(Value::as_u64) != id);
            if let Some(Modal::Interaction(d)) = &s.modal
                && Some(d.id()) == id
                && !d.stays_after(&e.data)
            {
                s.modal = None;
                let outcome = crate::tabs::text(&e.data, "outcome");
                if outcome == "timedOut" || outcome == "abandoned" {
                    let reason = crate::tabs::text(&e.data, "reason");
                    s.toast(format!("question closed ({outcome}): {reason}"), true);
                }
                open_next_question(s);
            }
            to_tabs(s, &e)
        }
        "history" => {
            s.causes.history(&e.data);
            let mut out = to_tabs(s, &e);
            out.extend(history_elsewhere(s, &e));
            out
        }
        "notification" => {
            if let Some(Modal::Interaction(d)) = &s.modal
                && d.completed_by(&e.data)
            {
                s.modal = None;
                s.toast(crate::strings::URL_FLOW_COMPLETE, false);
                open_next_question(s);
            }
            to_tabs(s, &e)
        }
        "reset" => {
            let server = crate::tabs::text(&e.data, "server").to_string();
            if let Some(tabs) = s.tabs.get_mut(&server) {
                for t in TabId::ALL {
                    tabs.get_mut(t).reset();
                }
            }
            Vec::new()
        }
        _ => to_tabs(s, &e),
    }
}

/// A server card changed: update its row; on connecting, reload the open tab.
fn status(s: &mut AppState, v: &Value) -> Vec<Effect> {
    let fresh = crate::state::ServerRow::from_view(v);
    let name = fresh.name.clone();
    let Some(row) = s.row_mut(&name) else {
        return Vec::new();
    };
    let old = std::mem::replace(row, fresh.clone());
    let was = old.status;
    let mut effects = Vec::new();
    if was == "connected" && fresh.connected() {
        row.capabilities = old.capabilities;
    }
    if was != "connected" && fresh.connected() {
        // What the server declared decides what the tabs offer (completion, subscribe).
        effects.push(Effect::ServerInfo {
            route: Route::app(&name, "capabilities"),
        });
        if let Some(tabs) = s.tabs.get_mut(&name) {
            for t in TabId::ALL {
                tabs.get_mut(t).reset();
            }
        }
        if s.current().is_some_and(|r| r.name == name) {
            effects.extend(with_tab(s, |t, ctx| t.entered(ctx)).unwrap_or_default());
        }
    }
    if fresh.status == "failed" && was != "failed" {
        s.toast(
            format!(
                "{name}: connection failed: {}",
                fresh.error.as_deref().unwrap_or("no reason given")
            ),
            true,
        );
    }
    effects
}

/// Hand an event to every tab of the server it names.
fn to_tabs(s: &mut AppState, e: &CoreEvent) -> Vec<Effect> {
    let server = crate::tabs::text(&e.data, "server").to_string();
    let Some(row) = s.servers.iter().find(|r| r.name == server).cloned() else {
        return Vec::new();
    };
    let ctx = Ctx {
        server: &row,
        now_us: s.now_us,
        color: s.color,
        focused: false,
        area: areas(s).body,
    };
    let Some(tabs) = s.tabs.get_mut(&server) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for t in TabId::ALL {
        out.extend(tabs.get_mut(t).core(&ctx, e));
    }
    out
}

/// A history entry of one server also reaches the other servers' History tabs: one showing
/// every server's entries lists it (the others ignore it).
fn history_elsewhere(s: &mut AppState, e: &CoreEvent) -> Vec<Effect> {
    let server = crate::tabs::text(&e.data, "server").to_string();
    let area = areas(s).body;
    let mut out = Vec::new();
    for row in s.servers.clone().iter().filter(|r| r.name != server) {
        let ctx = Ctx {
            server: row,
            now_us: s.now_us,
            color: s.color,
            focused: false,
            area,
        };
        if let Some(tabs) = s.tabs.get_mut(&row.name) {
            out.extend(tabs.get_mut(TabId::History).core(&ctx, e));
        }
    }
    out
}

fn done(s: &mut AppState, d: Done) -> Vec<Effect> {
    if d.was_call {
        s.running = s.running.saturating_sub(1);
    }
    let Some(tab) = d.route.tab else {
        if d.route.tag == "copy" {
            copied_to_file(s, &d);
            return Vec::new();
        }
        if d.route.tag == "capabilities" {
            capabilities_read(s, &d);
            return Vec::new();
        }
        // The open question's own asks (its Testing Profile's answer) go back to its dialog.
        if let Some(Modal::Interaction(dlg)) = s.modal.as_mut()
            && dlg.answers(&d.route)
        {
            return dlg.done(d);
        }
        if let Err(f) = &d.result {
            s.toast(
                format!("{}: {}: {}", d.route.server, d.route.tag, f.message),
                true,
            );
        }
        return Vec::new();
    };
    let Some(row) = s.servers.iter().find(|r| r.name == d.route.server).cloned() else {
        return Vec::new();
    };
    let ctx = Ctx {
        server: &row,
        now_us: s.now_us,
        color: s.color,
        focused: s.focus == Focus::Tab,
        area: areas(s).body,
    };
    match s.tabs.get_mut(&row.name) {
        Some(tabs) => tabs.get_mut(tab).done(&ctx, d),
        None => Vec::new(),
    }
}

/// The server info read at connect: keep what the server declared on its row (a connection
/// gone meanwhile keeps none; one that cannot be read leaves the tabs offering nothing the
/// capabilities gate).
fn capabilities_read(s: &mut AppState, d: &Done) {
    let Ok(v) = &d.result else {
        return;
    };
    if let Some(row) = s.row_mut(&d.route.server).filter(|r| r.connected()) {
        row.capabilities = Some(v.get("capabilities").cloned().unwrap_or(Value::Null));
    }
}

/// A copy the clipboard would not have received was written to a file: say where, and why
/// (the route's key), or why the file could not be written either.
fn copied_to_file(s: &mut AppState, d: &Done) {
    match &d.result {
        Ok(v) => {
            let path = crate::tabs::text(v, "path");
            s.toast(format!("wrote {path}: {}", d.route.key), false);
        }
        Err(f) => s.toast(format!("{}; {}", d.route.key, f.message), true),
    }
}

impl AppState {
    /// The server at line `line` of the list's inside (the selected one takes extra lines).
    fn servers_row_at(&self, line: u16) -> Option<usize> {
        let width = areas(self).servers.width.saturating_sub(2) as usize;
        let mut y = 0u16;
        for (i, row) in self.servers.iter().enumerate() {
            let h = if i == self.selected {
                2 + crate::render::error_rows(row, width).len() as u16
            } else {
                1
            };
            if line < y + h {
                return Some(i);
            }
            y += h;
        }
        None
    }
}
