//! A small multi-line text editor: the sampling dialog's response. Lines and a cursor (row,
//! column in characters); Enter breaks the line, Backspace at a line's start joins it to the one
//! before. Bounded: at most [`MAX_CHARS`] characters in all (a paste beyond it is cut).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

/// Characters the editor holds at most.
pub(crate) const MAX_CHARS: usize = 1_000_000;

/// Multi-line text being edited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TextArea {
    lines: Vec<String>,
    row: usize,
    col: usize,
    chars: usize,
}

impl Default for TextArea {
    fn default() -> Self {
        TextArea {
            lines: vec![String::new()],
            row: 0,
            col: 0,
            chars: 0,
        }
    }
}

fn byte_at(s: &str, chars: usize) -> usize {
    s.char_indices()
        .nth(chars)
        .map(|(i, _)| i)
        .unwrap_or(s.len())
}

impl TextArea {
    /// An editor holding `text`, the cursor at its end.
    pub(crate) fn new(text: &str) -> TextArea {
        let text: String = text.chars().take(MAX_CHARS).collect();
        let lines: Vec<String> = text.split('\n').map(str::to_string).collect();
        let row = lines.len() - 1;
        let col = lines[row].chars().count();
        TextArea {
            chars: text.chars().count(),
            lines,
            row,
            col,
        }
    }

    /// The text, lines joined by newlines.
    pub(crate) fn text(&self) -> String {
        self.lines.join("\n")
    }

    fn len(&self, row: usize) -> usize {
        self.lines[row].chars().count()
    }

    /// Apply an editing key; false when it is not one (Tab, Esc, Ctrl-letters: the dialog's).
    pub(crate) fn key(&mut self, key: KeyEvent) -> bool {
        if key.modifiers.contains(KeyModifiers::CONTROL) {
            return false;
        }
        match key.code {
            KeyCode::Char(c) => self.insert(c),
            KeyCode::Enter => self.insert('\n'),
            KeyCode::Backspace => self.backspace(),
            KeyCode::Delete => self.delete(),
            KeyCode::Left if self.col > 0 => self.col -= 1,
            KeyCode::Left if self.row > 0 => {
                self.row -= 1;
                self.col = self.len(self.row);
            }
            KeyCode::Right if self.col < self.len(self.row) => self.col += 1,
            KeyCode::Right if self.row + 1 < self.lines.len() => {
                self.row += 1;
                self.col = 0;
            }
            KeyCode::Up if self.row > 0 => {
                self.row -= 1;
                self.col = self.col.min(self.len(self.row));
            }
            KeyCode::Down if self.row + 1 < self.lines.len() => {
                self.row += 1;
                self.col = self.col.min(self.len(self.row));
            }
            KeyCode::Home => self.col = 0,
            KeyCode::End => self.col = self.len(self.row),
            KeyCode::Left | KeyCode::Right | KeyCode::Up | KeyCode::Down => {}
            _ => return false,
        }
        true
    }

    fn insert(&mut self, c: char) {
        if self.chars >= MAX_CHARS {
            return;
        }
        self.chars += 1;
        let line = &mut self.lines[self.row];
        let at = byte_at(line, self.col);
        if c == '\n' {
            let rest = line.split_off(at);
            self.row += 1;
            self.col = 0;
            self.lines.insert(self.row, rest);
        } else {
            line.insert(at, c);
            self.col += 1;
        }
    }

    fn backspace(&mut self) {
        if self.col > 0 {
            let line = &mut self.lines[self.row];
            let at = byte_at(line, self.col - 1);
            line.remove(at);
            self.col -= 1;
            self.chars -= 1;
        } else if self.row > 0 {
            let line = self.lines.remove(self.row);
            self.row -= 1;
            self.col = self.len(self.row);
            self.lines[self.row].push_str(&line);
            self.chars -= 1;
        }
    }

    fn delete(&mut self) {
        if self.col < self.len(self.row) {
            let line = &mut self.lines[self.row];
            let at = byte_at(line, self.col);
            line.remove(at);
            self.chars -= 1;
        } else if self.row + 1 < self.lines.len() {
            let next = self.lines.remove(self.row + 1);
            self.lines[self.row].push_str(&next);
            self.chars -= 1;
        }
    }

    /// `height` lines around the cursor, at most `width` columns each, the cursor shown
    /// inverted when `active`.
    pub(crate) fn view(&self, height: usize, width: usize, active: bool) -> Vec<Line<'static>> {
        let height = height.max(1);
        let width = width.max(2);
        let top = (self.row + 1).saturating_sub(height);
        let mut out = Vec::new();
        for (r, line) in self.lines.iter().enumerate().skip(top).take(height) {
            let chars: Vec<char> = line.chars().collect();
            let start = if r == self.row {
                self.col.saturating_sub(width - 1)
            } else {
                0
            };
            let shown: String = chars.iter().skip(start).take(width).collect();
            if !(active && r == self.row) {
                out.push(Line::raw(shown));
                continue;
            }
            let at = self.col - start;
            let before: String = shown.chars().take(at).collect();
            let under = shown
                .chars()
                .nth(at)
                .map(String::from)
                .unwrap_or(" ".into());
            let after: String = shown.chars().skip(at + 1).collect();
            out.push(Line::from(vec![
                Span::raw(before),
                Span::styled(under, Style::default().add_modifier(Modifier::REVERSED)),
                Span::raw(after),
            ]));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn lines_break_and_join() {
        let mut t = TextArea::default();
        for c in "héllo".chars() {
            t.key(k(KeyCode::Char(c)));
        }
        t.key(k(KeyCode::Left));
        t.key(k(KeyCode::Left));
        t.key(k(KeyCode::Enter));
        assert_eq!(t.text(), "hél\nlo");
        t.key(k(KeyCode::Backspace));
        assert_eq!(t.text(), "héllo");
        t.key(k(KeyCode::Home));
        t.key(k(KeyCode::Delete));
        assert_eq!(t.text(), "éllo");
        assert!(!t.key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL)));
        assert!(!t.key(k(KeyCode::Tab)));
        let t = TextArea::new("a\nb\nc");
        assert_eq!((t.row, t.lines.len()), (2, 3));
    }
}
