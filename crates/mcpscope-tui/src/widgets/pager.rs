//! A text pager: a title and lines, scrolled with the arrows, PageUp/PageDown, `g`/`G`; `/` is
//! left to the owner. JSON is pretty-printed once when it is made. A line longer than the
//! pager is never lost: prose wraps, JSON keeps its shape and scrolls sideways (← →), and `z`
//! switches between the two. Bounded: at most [`MAX_LINES`] lines are kept (the rest is said,
//! not drawn) and each is cut at [`MAX_LINE_CHARS`] when made.

use crate::widgets::style::Theme;
use crate::widgets::wrap;
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
    /// Long lines wrap (prose) rather than scroll sideways (JSON).
    pub wrap: bool,
    /// The first column drawn, when lines do not wrap.
    pub left: usize,
}

/// Columns ← and → scroll by.
const SIDEWAYS: usize = 8;

impl Pager {
    /// A pager over `text`, pretty-printed when it is JSON.
    pub fn new(title: impl Into<String>, text: &str) -> Pager {
        let json = match serde_json::from_str::<serde_json::Value>(text) {
            Ok(v) if v.is_object() || v.is_array() => serde_json::to_string_pretty(&v).ok(),
            _ => None,
        };
        let wrap = json.is_none();
        let pretty = json.unwrap_or_else(|| text.to_string());
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
            wrap,
            left: 0,
        }
    }

    /// Scroll by a key; false when it is not a scrolling key (← at the first column is not:
    /// its owner may go back with it).
    pub fn key(&mut self, key: KeyEvent, height: usize) -> bool {
        match key.code {
            KeyCode::Char('z') => {
                self.wrap = !self.wrap;
                self.left = 0;
                return true;
            }
            KeyCode::Right if !self.wrap => {
                self.left = (self.left + SIDEWAYS).min(self.widest().saturating_sub(1));
                return true;
            }
            KeyCode::Left if !self.wrap && self.left > 0 => {
                self.left = self.left.saturating_sub(SIDEWAYS);
                return true;
            }
            _ => {}
        }
        // Wrapped, a line may take more than one row: the last line may come to the top.
        let last = match self.wrap {
            true => self.lines.len().saturating_sub(1),
            false => self.lines.len().saturating_sub(height.max(1)),
        };
        self.top = match key.code {
            KeyCode::Up => self.top.saturating_sub(1),
            KeyCode::Down => (self.top + 1).min(last),
            KeyCode::PageUp => self.top.saturating_sub(height.max(1)),
            KeyCode::PageDown | KeyCode::Char(' ') => (self.top + height.max(1)).min(last),
            KeyCode::Home | KeyCode::Char('g') => {
                self.left = 0;
                0
            }
            KeyCode::End | KeyCode::Char('G') => last,
            _ => return false,
        };
        true
    }

    /// The longest line's length, in characters.
    fn widest(&self) -> usize {
        self.lines
            .iter()
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0)
    }

    /// Draw the lines inside `area` (no border).
    pub fn render_lines(&self, f: &mut Frame, area: Rect, theme: Theme) {
        let (height, width) = (area.height as usize, area.width as usize);
        let mut shown: Vec<Line> = Vec::new();
        for l in self.lines.iter().skip(self.top) {
            if shown.len() >= height {
                break;
            }
            let parts = [(l.clone(), theme.plain())];
            match self.wrap {
                true => shown.extend(wrap::rows(&parts, width)),
                false => shown.push(wrap::shifted(&parts, self.left, width)),
            }
        }
        shown.truncate(height);
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
                    " {}/{}{} · ↑↓ PgUp PgDn g G · {} · y copy · Esc close ",
                    (self.top + 1).min(self.lines.len()),
                    self.lines.len(),
                    if self.left > 0 {
                        format!(" col {}", self.left + 1)
                    } else {
                        String::new()
                    },
                    if self.wrap {
                        "z no wrap"
                    } else {
                        "←→ scroll · z wrap"
                    }
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

    #[test]
    fn json_scrolls_sideways_prose_wraps_and_z_switches() {
        let key = |c| KeyEvent::new(c, crossterm::event::KeyModifiers::NONE);
        let mut p = Pager::new("x", r#"{"a":"a long string value"}"#);
        assert!(!p.wrap);
        assert!(
            !p.key(key(KeyCode::Left), 10),
            "← at column 1 is the owner's"
        );
        assert!(p.key(key(KeyCode::Right), 10));
        assert_eq!(p.left, SIDEWAYS);
        assert!(p.key(key(KeyCode::Char('z')), 10));
        assert!(p.wrap && p.left == 0);
        let mut p = Pager::new("x", "one\ntwo\nthree");
        assert!(p.wrap);
        p.key(key(KeyCode::End), 10);
        assert_eq!(p.top, 2, "wrapped, End brings the last line to the top");
    }
}
