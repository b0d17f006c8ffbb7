//! The Protocol tab as a [`Tab`]: its keys, what it makes of the core's frames and answers, and
//! how it draws (the title line, the rows on screen, the selected frame's detail).

use super::fmt::{bytes, clock, duration, pad};
use super::row::{Message, Row, SOURCES, Tone, source_short};
use super::{KEYS, Protocol, describe, parts};
use crate::msg::{CoreEvent, Done, Effect};
use crate::tabs::{Binding, Ctx, Handled, Tab};
use crate::widgets::pager::Pager;
use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;

impl Tab for Protocol {
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
        let height = parts(ctx.area).1.height as usize;
        let at_top = self.feed.window(height).start == 0 && self.feed.selected().is_some() && {
            let w = self.feed.visible(height).next();
            w.is_some_and(|(_, _, sel)| sel)
        };
        match key.code {
            KeyCode::Char('/') => self.editing = true,
            KeyCode::Char('f') => {
                self.source = match self.source {
                    None => Some(0),
                    Some(i) if i + 1 < SOURCES.len() => Some(i + 1),
                    Some(_) => None,
                };
                self.rebuild();
            }
            KeyCode::Char('j') => return Handled::Yes(self.jump(ctx)),
            KeyCode::Enter => return Handled::Yes(self.open(ctx)),
            KeyCode::Esc if self.source.is_some() || !self.query.is_empty() => {
                self.source = None;
                self.search.set("");
                self.query.clear();
                self.rebuild();
            }
            KeyCode::Up | KeyCode::PageUp | KeyCode::Home | KeyCode::Char('g') if at_top => {
                self.feed.key(key, height);
                return Handled::Yes(self.ask_older(ctx));
            }
            _ if self.feed.key(key, height) => {}
            _ => return Handled::No,
        }
        Handled::done()
    }

    fn scroll(&mut self, ctx: &Ctx, down: bool) -> Vec<Effect> {
        self.feed.scroll(down, parts(ctx.area).1.height as usize);
        Vec::new()
    }

    fn click(&mut self, ctx: &Ctx, _col: u16, row: u16) -> Vec<Effect> {
        let (_, list, _) = parts(ctx.area);
        if row >= 1 && row < 1 + list.height {
            self.feed.click(row as usize - 1, list.height as usize);
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
        match (done.route.tag, done.result) {
            ("older", Ok(v)) => {
                self.loading = false;
                self.older(v.as_array().map_or(&[], Vec::as_slice));
                Vec::new()
            }
            ("older", Err(f)) => {
                self.loading = false;
                super::toast(format!("cannot read older frames: {}", f.message))
            }
            ("body", Ok(v)) => {
                let seq = v.get("seq").and_then(Value::as_u64).unwrap_or(0);
                let title = match self.row(seq) {
                    Some(r) => format!("frame {seq} · {}", r.summary),
                    None => format!("frame {seq}"),
                };
                vec![Effect::ShowPager(Pager::new(
                    title,
                    &self.body_text(seq, &v),
                ))]
            }
            ("body", Err(f)) => vec![Effect::Toast {
                text: format!("cannot read frame {}: {}", done.route.key, f.message),
                error: true,
            }],
            _ => Vec::new(),
        }
    }

    /// A new connection numbers its requests afresh: forget the unanswered ones (the frames
    /// stay: they are the log).
    fn reset(&mut self) {
        self.pending.clear();
    }

    /// The frames kept; `N+` once the oldest were dropped past the bound.
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
        let (head, list, detail) = parts(area);
        f.render_widget(Paragraph::new(self.title(theme, head.width)), head);
        if self.feed.shown_len() == 0 {
            let why = if self.feed.is_empty() {
                if ctx.server.connected() {
                    "No frames yet."
                } else {
                    crate::strings::NOT_CONNECTED
                }
            } else {
                "No frame matches the filter (Esc clears it)."
            };
            f.render_widget(Paragraph::new(Line::styled(why, theme.dim())), list);
            return;
        }
        let w = list.width as usize;
        let lines: Vec<Line> = self
            .feed
            .visible(list.height as usize)
            .map(|(_, r, sel)| row_line(r, sel, w, theme))
            .collect();
        f.render_widget(Paragraph::new(lines), list);
        if detail.height > 0 {
            self.render_detail(f, detail, theme);
        }
    }
}

impl Protocol {
    fn title(&self, theme: Theme, width: u16) -> Line<'static> {
        let src = match self.source {
            None => "all sources".to_string(),
            Some(i) => SOURCES[i].to_string(),
        };
        let mut spans = vec![
            Span::styled(format!("[{src}]"), theme.key()),
            Span::raw(format!(
                " {} of {} frames",
                self.feed.shown_len(),
                self.feed.len()
            )),
        ];
        if self.feed.dropped > 0 {
            spans.push(Span::styled(
                format!(" ({} oldest dropped)", self.feed.dropped),
                theme.dim(),
            ));
        }
        if self.loading {
            spans.push(Span::styled(" · reading older…", theme.dim()));
        }
        spans.push(Span::raw(" · "));
        if self.editing || !self.query.is_empty() {
            spans.push(Span::styled("/", theme.key()));
            let room = (width as usize).saturating_sub(48).max(16);
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

    fn render_detail(&self, f: &mut Frame, area: Rect, theme: Theme) {
        let Some(r) = self.selected() else {
            return;
        };
        let w = area.width as usize;
        let mut lines = vec![
            Line::styled("─".repeat(w), theme.dim()),
            Line::styled(pad(&describe(r), w), theme.title()),
        ];
        match self.details.get(&r.seq) {
            Some(d) => lines.extend(d.iter().map(|(tone, l)| {
                let style = match tone {
                    Tone::Ok => theme.plain(),
                    Tone::Warn => theme.warn(),
                    Tone::Bad => theme.error(),
                };
                Line::styled(pad(l, w), style)
            })),
            None if r.lint > 0 || r.verdict.is_some() => lines.push(Line::styled(
                "(its details are no longer kept: Enter shows the body)",
                theme.dim(),
            )),
            None => {}
        }
        lines.truncate(area.height as usize);
        f.render_widget(Paragraph::new(lines), area);
    }
}

/// One row: time, arrow, source, message, summary and id, then duration, lint and size.
fn row_line(r: &Row, selected: bool, w: usize, theme: Theme) -> Line<'static> {
    let base = if selected {
        theme.selected()
    } else {
        Style::default()
    };
    let time = clock(r.time_us);
    let time = if w >= 90 { time } else { time[3..].to_string() };
    let left = format!(
        "{time} {} {:<4} {:<5} ",
        r.dir.arrow(),
        source_short(r.source as usize),
        r.message.short()
    );
    let lint = if r.lint > 0 {
        format!(" ⚠{}", r.lint)
    } else {
        String::new()
    };
    let dur = r
        .duration_ms
        .map(|d| duration(d as f64))
        .unwrap_or_default();
    let right = if w >= 64 {
        format!("{lint} {dur:>8} {:>9}", bytes(r.size))
    } else {
        format!("{lint} {dur:>8}")
    };
    let mut mid = r.summary.to_string();
    if let Some(id) = &r.id {
        mid.push_str(&format!(" #{id}"));
    }
    if let Some((Tone::Bad, v)) = &r.verdict {
        mid.push_str(&format!("  ✗ {v}"));
    }
    let room = w.saturating_sub(left.chars().count() + right.chars().count());
    let bad = r.red || matches!(r.message, Message::Error | Message::Invalid);
    let pick = |s: Style| if selected { base } else { s };
    Line::from(vec![
        Span::styled(left, pick(theme.dim())),
        Span::styled(
            pad(&mid, room),
            pick(if bad { theme.error() } else { base }),
        ),
        Span::styled(
            right,
            pick(if r.lint > 0 {
                theme.warn()
            } else {
                theme.dim()
            }),
        ),
    ])
}
