//! The Console tab: the server's stderr, line by line as the core's `stderr-line` frames bring
//! it, with the transport's lifecycle notes (spawned, exited with status 1) between them, dimmed:
//! a stack trace reads next to the exit it caused. Bounded to [`MAX_LINES`] lines of at most
//! [`LINE_CHARS`] characters; followed; `/` filters; `Enter` opens the whole line (the frame's
//! body, from the core) in the pager.

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
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;

/// Lines kept: past this the oldest go.
pub const MAX_LINES: usize = 10_000;
/// Characters of a line kept (the whole line is the frame's body: `Enter`).
pub const LINE_CHARS: usize = 1_000;

/// One line of the console.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsoleLine {
    /// The frame it came in.
    pub seq: u64,
    /// When.
    pub time_us: u64,
    /// The text, cut to [`LINE_CHARS`].
    pub text: Box<str>,
    /// A lifecycle note of the transport, not the server's own words.
    pub note: bool,
}

/// The Console tab's state.
#[derive(Debug)]
pub struct Console {
    feed: Feed<ConsoleLine>,
    search: Input,
    query: String,
    editing: bool,
}

impl Default for Console {
    fn default() -> Self {
        Console {
            feed: Feed::new(MAX_LINES),
            search: Input::default(),
            query: String::new(),
            editing: false,
        }
    }
}

const KEYS: &[Binding] = &[
    Binding {
        keys: "/",
        what: "filter",
    },
    Binding {
        keys: "Enter",
        what: "whole line",
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
        what: "clear the filter",
    },
];

impl Console {
    /// Lines kept.
    pub fn len(&self) -> usize {
        self.feed.len()
    }

    /// True when no line is kept.
    pub fn is_empty(&self) -> bool {
        self.feed.is_empty()
    }

    /// Lines the filter shows.
    pub fn shown(&self) -> usize {
        self.feed.shown_len()
    }

    /// The selected line.
    pub fn selected(&self) -> Option<&ConsoleLine> {
        self.feed.selected_item()
    }

    fn keeps(query: &str, l: &ConsoleLine) -> bool {
        query.is_empty() || l.text.to_lowercase().contains(query)
    }

    /// Take one frame: a stderr line, or a lifecycle note (others are not the console's).
    fn ingest(&mut self, v: &Value) {
        let kind = text(v, "kind");
        let note = match kind {
            "stderr-line" => false,
            "lifecycle" if v.pointer("/meta/exchange").is_none() => true,
            _ => return,
        };
        let Some(seq) = v.get("seq").and_then(Value::as_u64) else {
            return;
        };
        if self.feed.last().is_some_and(|l| l.seq >= seq) {
            return; // a frame already shown (lines never change)
        }
        let said = if note {
            text(v.get("meta").unwrap_or(&Value::Null), "note")
        } else {
            text(v, "text")
        };
        let line = ConsoleLine {
            seq,
            time_us: v.get("timeUs").and_then(Value::as_u64).unwrap_or(0),
            text: cut(said, LINE_CHARS).into_boxed_str(),
            note,
        };
        let keep = Console::keeps(&self.query, &line);
        self.feed.push(line, keep);
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
            let query = self.query.clone();
            self.feed.rebuild(|l| Console::keeps(&query, l));
        }
    }

    fn title(&self, theme: Theme, width: u16) -> Line<'static> {
        let mut spans = vec![Span::raw(format!(
            "{} of {} stderr lines",
            self.feed.shown_len(),
            self.feed.len()
        ))];
        if self.feed.dropped > 0 {
            spans.push(Span::styled(
                format!(" ({} oldest dropped)", self.feed.dropped),
                theme.dim(),
            ));
        }
        spans.push(Span::raw(" · "));
        if self.editing || !self.query.is_empty() {
            spans.push(Span::styled("/", theme.key()));
            let room = (width as usize).saturating_sub(40).max(16);
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

fn list_height(area: Rect) -> usize {
    area.height.saturating_sub(1) as usize
}

impl Tab for Console {
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
            KeyCode::Enter => {
                let Some(l) = self.selected() else {
                    return Handled::done();
                };
                return Handled::Yes(vec![Effect::FrameBody {
                    route: Route::new(&ctx.server.name, TabId::Console, "line", ""),
                    seq: l.seq,
                }]);
            }
            KeyCode::Esc if !self.query.is_empty() => {
                self.search.set("");
                self.set_query();
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
        if event.name == "frame" {
            self.ingest(&event.data);
        }
        Vec::new()
    }

    fn done(&mut self, _ctx: &Ctx, done: Done) -> Vec<Effect> {
        match done.result {
            Ok(v) => {
                let seq = v.get("seq").and_then(Value::as_u64).unwrap_or(0);
                let body = text(&v, "text");
                vec![Effect::ShowPager(Pager::new(
                    format!("stderr · frame {seq}"),
                    body,
                ))]
            }
            Err(f) => vec![Effect::Toast {
                text: format!("cannot read the line: {}", f.message),
                error: true,
            }],
        }
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
            let why = match (self.feed.is_empty(), ctx.server.transport == "stdio") {
                (false, _) => "No line matches the filter (Esc clears it).",
                (true, true) => "Nothing on stderr yet.",
                (true, false) => {
                    "Nothing on stderr: only a server run as a command (stdio) has one."
                }
            };
            f.render_widget(Paragraph::new(Line::styled(why, theme.dim())), list);
            return;
        }
        let w = list.width as usize;
        let lines: Vec<Line> = self
            .feed
            .visible(list.height as usize)
            .map(|(_, l, sel)| {
                let time = clock(l.time_us);
                let body = pad(&l.text, w.saturating_sub(time.len() + 1));
                let style = match (sel, l.note) {
                    (true, _) => theme.selected(),
                    (false, true) => theme.dim(),
                    (false, false) => theme.plain(),
                };
                Line::from(vec![
                    Span::styled(format!("{time} "), if sel { style } else { theme.dim() }),
                    Span::styled(body, style),
                ])
            })
            .collect();
        f.render_widget(Paragraph::new(lines), list);
    }
}
