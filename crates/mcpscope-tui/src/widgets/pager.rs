//! A text pager: a title and lines, scrolled with the arrows, PageUp/PageDown, `g`/`G`; `/` is
//! left to the owner. JSON is pretty-printed once when it is made. Bounded: at most
//! [`MAX_LINES`] lines are kept (the rest is said, not drawn) and each is cut when drawn.

use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

/// Lines kept by one pager.
pub const MAX_LINES: usize = 100_000;
/// Characters of a line drawn (a minified 10 MB body is one line).
pub const MAX_LINE_CHARS: usize = 4_096;

/// Scrollable text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pager {
    /// What it shows (the frame, the result, …).
    pub title: String,
    /// The lines.
    pub lines: Vec<String>,
    /// The first line drawn.
    pub top: usize,
    /// Lines left out past [`MAX_LINES`].
    pub omitted: usize,
}

impl Pager {
    /// A pager over `text`, pretty-printed when it is JSON.
    pub fn new(title: impl Into<String>, text: &str) -> Pager {
        let pretty = match serde_json::from_str::<serde_json::Value>(text) {
            Ok(v) if v.is_object() || v.is_array() => {
                serde_json::to_string_pretty(&v).unwrap_or_else(|_| text.to_string())
            }
            _ => text.to_string(),
        };
        let mut lines: Vec<String> = Vec::new();
        let mut omitted = 0;
        for l in pretty.lines() {
            if lines.len() < MAX_LINES {
                lines.push(cut(l));
            } else {
                omitted += 1;
            }
        }
        Pager {
            title: title.into(),
            lines,
            top: 0,
            omitted,
        }
    }

    /// Scroll by a key; false when it is not a scrolling key.
    pub fn key(&mut self, key: KeyEvent, height: usize) -> bool {
        let last = self.lines.len().saturating_sub(height.max(1));
        self.top = match key.code {
            KeyCode::Up => self.top.saturating_sub(1),
            KeyCode::Down => (self.top + 1).min(last),
            KeyCode::PageUp => self.top.saturating_sub(height.max(1)),
            KeyCode::PageDown | KeyCode::Char(' ') => (self.top + height.max(1)).min(last),
            KeyCode::Home | KeyCode::Char('g') => 0,
            KeyCode::End | KeyCode::Char('G') => last,
            _ => return false,
        };
        true
    }

    /// Draw the lines inside `area` (no border).
    pub fn render_lines(&self, f: &mut Frame, area: Rect, theme: Theme) {
        let mut shown: Vec<Line> = self
            .lines
            .iter()
            .skip(self.top)
            .take(area.height as usize)
            .map(|l| Line::styled(l.clone(), theme.plain()))
            .collect();
        if self.omitted > 0 && shown.len() < area.height as usize {
            shown.push(Line::styled(
                format!("… {} more lines not shown", self.omitted),
                theme.dim(),
            ));
        }
        f.render_widget(Paragraph::new(shown), area);
    }

    /// Draw as a bordered box over `area` (a modal).
    pub fn render_modal(&self, f: &mut Frame, area: Rect, theme: Theme) {
        f.render_widget(Clear, area);
        let block = Block::default()
            .borders(Borders::ALL)
            .title(Line::styled(format!(" {} ", self.title), theme.title()))
            .title_bottom(Line::styled(
                format!(
                    " {}/{} · ↑↓ PgUp PgDn g G · y copy · Esc close ",
                    (self.top + 1).min(self.lines.len()),
                    self.lines.len()
                ),
                theme.dim(),
            ));
        let inner = block.inner(area);
        f.render_widget(block, area);
        self.render_lines(f, inner, theme);
    }

    /// The text as a whole (for copying).
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }
}

/// `l` cut to [`MAX_LINE_CHARS`] characters (with a mark), tabs made spaces.
fn cut(l: &str) -> String {
    let mut out: String = l.chars().take(MAX_LINE_CHARS).collect();
    if out.len() < l.len() && l.chars().count() > MAX_LINE_CHARS {
        out.push_str(" …");
    }
    out.replace('\t', "    ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_prints_json_and_bounds_lines() {
        let p = Pager::new("x", r#"{"a":[1,2]}"#);
        assert_eq!(p.lines[0], "{");
        assert!(p.lines.len() > 3);
        let long = "y".repeat(MAX_LINE_CHARS * 3);
        let p = Pager::new("x", &long);
        assert!(p.lines[0].chars().count() <= MAX_LINE_CHARS + 2);
        let many = "z\n".repeat(MAX_LINES + 5);
        let p = Pager::new("x", &many);
        assert_eq!(p.lines.len(), MAX_LINES);
        assert_eq!(p.omitted, 5);
    }
}
