//! The Logs tab: the server's `notifications/message`, coloured by level, filtered by text (`/`)
//! and by the lowest level shown (`f`), followed; and the level the server is asked to log at
//! (`v` up, `V` down: debug … emergency), set through the core (`Inspector::set_log_level`,
//! which sends `logging/setLevel` or carries it in `_meta`, as the era says). Bounded to
//! [`MAX_ENTRIES`] entries of at most [`TEXT_CHARS`] characters.

use super::protocol::feed::Feed;
use super::protocol::fmt::{clock, cut, pad};
use super::{Binding, Ctx, Handled, Tab, TabId, text};
use crate::msg::{CoreEvent, Done, Effect, Route};
use crate::widgets::input::{Edit, Input};
use crate::widgets::pager::Pager;
use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;

/// Entries kept: past this the oldest go.
pub const MAX_ENTRIES: usize = 10_000;
/// Characters of an entry's data kept.
pub const TEXT_CHARS: usize = 2_000;

/// The levels, in RFC 5424 order (least severe first).
pub const LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// One log entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// When it arrived.
    pub time_us: u64,
    /// Its level's index in [`LEVELS`] (an unknown level counts as info).
    pub rank: u8,
    /// The level as the server wrote it.
    pub level: Box<str>,
    /// The logger.
    pub logger: Option<Box<str>>,
    /// The data as text (a string as it is, anything else as JSON), cut.
    pub text: Box<str>,
    /// The request that caused it.
    pub history_id: Option<i64>,
}

/// The Logs tab's state.
#[derive(Debug)]
pub struct Logs {
    feed: Feed<Entry>,
    search: Input,
    query: String,
    editing: bool,
    /// The lowest level shown.
    min: usize,
    /// The level the server was last asked for, and how (`logging/setLevel`, `_meta`).
    level: Option<(String, String)>,
    /// The level asked for, waiting for the core's answer.
    asking: Option<String>,
}

impl Default for Logs {
    fn default() -> Self {
        Logs {
            feed: Feed::new(MAX_ENTRIES),
            search: Input::default(),
            query: String::new(),
            editing: false,
            min: 0,
            level: None,
            asking: None,
        }
    }
}

const KEYS: &[Binding] = &[
    Binding {
        keys: "v V",
        what: "server level",
    },
    Binding {
        keys: "f",
        what: "lowest shown",
    },
    Binding {
        keys: "/",
        what: "filter",
    },
    Binding {
        keys: "Enter",
        what: "whole entry",
    },
    Binding {
        keys: "G End",
        what: "follow",
    },
    Binding {
        keys: "↑↓ PgUp PgDn Home",
        what: "move",
    },
    Binding {
        keys: "Esc",
        what: "clear the filters",
    },
];

/// The index of `level` in [`LEVELS`] (unknown: info).
pub fn rank(level: &str) -> usize {
    LEVELS
        .iter()
        .position(|l| l.eq_ignore_ascii_case(level))
        .unwrap_or(1)
}

/// How a level is drawn.
fn level_style(rank: usize, theme: Theme) -> Style {
    match rank {
        0 => theme.dim(),
        1 => theme.plain(),
        2 => theme.ok(),
        3 => theme.warn(),
        _ => theme.error(),
    }
}

impl Logs {
    /// Entries kept.
    pub fn len(&self) -> usize {
        self.feed.len()
    }

    /// True when no entry is kept.
    pub fn is_empty(&self) -> bool {
        self.feed.is_empty()
    }

    /// Entries the filters show.
    pub fn shown(&self) -> usize {
        self.feed.shown_len()
    }

    /// The level the server was last set to.
    pub fn level(&self) -> Option<&str> {
        self.level.as_ref().map(|(l, _)| l.as_str())
    }

    fn keeps(min: usize, query: &str, e: &Entry) -> bool {
        e.rank as usize >= min
            && (query.is_empty()
                || e.text.to_lowercase().contains(query)
                || e.logger
                    .as_deref()
                    .is_some_and(|l| l.to_lowercase().contains(query)))
    }

    fn rebuild(&mut self) {
        let (min, query) = (self.min, self.query.clone());
        self.feed.rebuild(|e| Logs::keeps(min, &query, e));
    }

    /// Take one `log` event (`LogEvent`).
    fn ingest(&mut self, v: &Value) {
        let level = text(v, "level");
        let data = match v.get("data") {
            Some(Value::String(s)) => cut(s, TEXT_CHARS),
            Some(other) => cut(&other.to_string(), TEXT_CHARS),
            None => String::new(),
        };
        let e = Entry {
            time_us: v.get("timeUs").and_then(Value::as_u64).unwrap_or(0),
            rank: rank(level) as u8,
            level: cut(level, 16).into_boxed_str(),
            logger: v
                .get("logger")
                .and_then(Value::as_str)
                .map(|l| cut(l, 64).into_boxed_str()),
            text: data.into_boxed_str(),
            history_id: v.get("historyId").and_then(Value::as_i64),
        };
        let keep = Logs::keeps(self.min, &self.query, &e);
        self.feed.push(e, keep);
    }

    /// Ask the server for the next (`up`) or previous level.
    fn cycle_level(&mut self, ctx: &Ctx, up: bool) -> Vec<Effect> {
        if !ctx.server.connected() {
            return vec![Effect::Toast {
                text: crate::strings::NOT_CONNECTED.into(),
                error: false,
            }];
        }
        let cur = self
            .asking
            .as_deref()
            .or(self.level())
            .map(rank)
            .unwrap_or(if up { LEVELS.len() - 1 } else { 0 });
        let n = LEVELS.len();
        let next = LEVELS[if up { (cur + 1) % n } else { (cur + n - 1) % n }];
        self.asking = Some(next.to_string());
        vec![Effect::SetLogLevel {
            route: Route::new(&ctx.server.name, TabId::Logs, "level", next),
            level: next.to_string(),
        }]
    }

    fn edit(&mut self, key: KeyEvent) -> Handled {
        match key.code {
            KeyCode::Enter => self.editing = false,
            KeyCode::Esc => {
                self.editing = false;
                self.search.set("");
                self.set_query();
            }
            _ => {
                if self.search.key(key) == Edit::Changed {
                    self.set_query();
                }
            }
        }
        Handled::done()
    }

    fn set_query(&mut self) {
        let q = self.search.text().trim().to_lowercase();
        if q != self.query {
            self.query = q;
            self.rebuild();
        }
    }

    fn open(&self) -> Vec<Effect> {
        let Some(e) = self.feed.selected_item() else {
            return Vec::new();
        };
        let mut title = format!("{} · {}", clock(e.time_us), e.level);
        if let Some(l) = &e.logger {
            title.push_str(&format!(" · {l}"));
        }
        if let Some(h) = e.history_id {
            title.push_str(&format!(" · history #{h}"));
        }
        vec![Effect::ShowPager(Pager::new(title, &e.text))]
    }
}

fn list_height(area: Rect) -> usize {
    area.height.saturating_sub(1) as usize
}

impl Tab for Logs {
    fn captures(&self) -> bool {
        self.editing
    }

    fn key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        if self.editing {
            return self.edit(key);
        }
        if key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        {
            return Handled::No;
        }
        match key.code {
            KeyCode::Char('/') => self.editing = true,
            KeyCode::Char('v') => return Handled::Yes(self.cycle_level(ctx, true)),
            KeyCode::Char('V') => return Handled::Yes(self.cycle_level(ctx, false)),
            KeyCode::Char('f') => {
                self.min = (self.min + 1) % LEVELS.len();
                self.rebuild();
            }
            KeyCode::Enter => return Handled::Yes(self.open()),
            KeyCode::Esc if self.min > 0 || !self.query.is_empty() => {
                self.min = 0;
                self.search.set("");
                self.query.clear();
                self.rebuild();
            }
            _ if self.feed.key(key, list_height(ctx.area)) => {}
            _ => return Handled::No,
        }
        Handled::done()
    }

    fn scroll(&mut self, ctx: &Ctx, down: bool) -> Vec<Effect> {
        self.feed.scroll(down, list_height(ctx.area));
        Vec::new()
    }

    fn click(&mut self, ctx: &Ctx, _col: u16, row: u16) -> Vec<Effect> {
        if row >= 1 {
            self.feed.click(row as usize - 1, list_height(ctx.area));
        }
        Vec::new()
    }

    fn core(&mut self, _ctx: &Ctx, event: &CoreEvent) -> Vec<Effect> {
        if event.name == "log" {
            self.ingest(&event.data);
        }
        Vec::new()
    }

    fn done(&mut self, _ctx: &Ctx, done: Done) -> Vec<Effect> {
        let asked = std::mem::take(&mut self.asking).unwrap_or(done.route.key.clone());
        match done.result {
            Ok(v) => {
                let level = Some(text(&v, "level"))
                    .filter(|l| !l.is_empty())
                    .unwrap_or(&asked)
                    .to_string();
                let how = text(&v, "applied").to_string();
                let said = if how.is_empty() {
                    format!("log level: {level}")
                } else {
                    format!("log level: {level} (by {how})")
                };
                self.level = Some((level, how));
                vec![Effect::Toast {
                    text: said,
                    error: false,
                }]
            }
            Err(f) => vec![Effect::Toast {
                text: format!("cannot set the log level to {asked}: {}", f.message),
                error: true,
            }],
        }
    }

    /// The log lines kept (as the Tools label counts its tools).
    fn count(&self) -> Option<usize> {
        Some(self.feed.len()).filter(|n| *n > 0)
    }

    fn count_partial(&self) -> bool {
        self.feed.dropped > 0
    }

    fn bindings(&self) -> &'static [Binding] {
        crate::tabs::or_search_keys(self.editing, KEYS)
    }

    fn render(&self, ctx: &Ctx, f: &mut Frame, area: Rect) {
        let theme = Theme::new(ctx.color);
        let head = Rect {
            height: area.height.min(1),
            ..area
        };
        let list = Rect {
            y: area.y + head.height,
            height: area.height - head.height,
            ..area
        };
        f.render_widget(Paragraph::new(self.title(theme, area.width)), head);
        if self.feed.shown_len() == 0 {
            let why = if !self.feed.is_empty() {
                "No entry matches the filters (Esc clears them)."
            } else if ctx.server.connected() {
                "No log messages yet. v asks the server for more (its level)."
            } else {
                crate::strings::NOT_CONNECTED
            };
            f.render_widget(Paragraph::new(Line::styled(why, theme.dim())), list);
            return;
        }
        let w = list.width as usize;
        let lines: Vec<Line> = self
            .feed
            .visible(list.height as usize)
            .map(|(_, e, sel)| entry_line(e, sel, w, theme))
            .collect();
        f.render_widget(Paragraph::new(lines), list);
    }
}

impl Logs {
    fn title(&self, theme: Theme, width: u16) -> Line<'static> {
        let level = match (&self.asking, &self.level) {
            (Some(a), _) => format!("{a}…"),
            (None, Some((l, _))) => l.clone(),
            (None, None) => "not set".into(),
        };
        let mut spans = vec![
            Span::raw("level "),
            Span::styled(level, theme.key()),
            Span::raw(format!(
                " · {} of {} entries",
                self.feed.shown_len(),
                self.feed.len()
            )),
        ];
        if self.min > 0 {
            spans.push(Span::raw(format!(" · {}+", LEVELS[self.min])));
        }
        if self.feed.dropped > 0 {
            spans.push(Span::styled(
                format!(" ({} oldest dropped)", self.feed.dropped),
                theme.dim(),
            ));
        }
        spans.push(Span::raw(" · "));
        if self.editing || !self.query.is_empty() {
            spans.push(Span::styled("/", theme.key()));
            let room = (width as usize).saturating_sub(56).max(16);
            spans.extend(self.search.spans(self.editing, room).spans);
            spans.push(Span::raw(" · "));
        }
        spans.push(if self.feed.follow {
            Span::styled("following", theme.ok())
        } else {
            Span::styled("paused (G follows)", theme.warn())
        });
        Line::from(spans)
    }
}

/// One entry: time, level, logger, the data, the request it came from.
fn entry_line(e: &Entry, selected: bool, w: usize, theme: Theme) -> Line<'static> {
    let style = |s: Style| if selected { theme.selected() } else { s };
    let time = clock(e.time_us);
    let time = if w >= 80 { time } else { time[3..].to_string() };
    let level = format!("{:<10}", e.level.to_uppercase());
    let mut tail = String::new();
    if let Some(h) = e.history_id {
        tail = format!(" #{h}");
    }
    let mut mid = String::new();
    if let Some(l) = &e.logger {
        mid.push_str(l);
        mid.push_str(": ");
    }
    mid.push_str(&e.text);
    let room = w.saturating_sub(time.len() + 1 + level.len() + tail.chars().count());
    Line::from(vec![
        Span::styled(format!("{time} "), style(theme.dim())),
        Span::styled(level, style(level_style(e.rank as usize, theme))),
        Span::styled(pad(&mid, room), style(theme.plain())),
        Span::styled(tail, style(theme.dim())),
    ])
}
