//! A multi-line text editor for JSON: the fallback of a form whose schema cannot be drawn, and
//! the form's JSON mode. What is typed is the text, character for character: nothing is
//! re-escaped or re-indented, and the value is whatever that text parses to. Bounded: at most
//! [`MAX_BYTES`] of text are kept (a paste past it is refused, key by key).

use crate::widgets::input::Edit;
use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;

/// Most bytes of text an editor holds.
pub const MAX_BYTES: usize = 4 << 20;

/// Lines a page key moves.
const PAGE: usize = 10;

/// Text being edited, by lines, with a cursor (a line and a character in it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonEditor {
    lines: Vec<String>,
    /// The cursor's line.
    row: usize,
    /// The cursor's character in its line.
    col: usize,
    /// The first line drawn (kept in view of the cursor when drawn).
    top: usize,
    /// Bytes held, so the bound is checked without summing every line.
    bytes: usize,
}

impl Default for JsonEditor {
    fn default() -> Self {
        JsonEditor::new("")
    }
}

impl JsonEditor {
    /// An editor over `text`, the cursor at its start (cut at [`MAX_BYTES`]).
    pub fn new(text: &str) -> JsonEditor {
        let mut end = text.len().min(MAX_BYTES);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let lines: Vec<String> = text[..end].split('\n').map(str::to_string).collect();
        JsonEditor {
            lines,
            row: 0,
            col: 0,
            top: 0,
            bytes: end,
        }
    }

    /// An editor showing `value` pretty-printed.
    pub fn of_value(value: &Value) -> JsonEditor {
        JsonEditor::new(&serde_json::to_string_pretty(value).unwrap_or_default())
    }

    /// The whole text.
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// The cursor: (line, character), both from 0.
    pub fn cursor(&self) -> (usize, usize) {
        (self.row, self.col)
    }

    /// What the text parses to, or why it does not (with the line and column).
    pub fn parse(&self) -> Result<Value, String> {
        let text = self.text();
        if text.trim().is_empty() {
            return Err("empty: write a JSON value, e.g. {}".into());
        }
        serde_json::from_str(&text).map_err(|e| e.to_string())
    }

    fn line_len(&self, row: usize) -> usize {
        self.lines.get(row).map_or(0, |l| l.chars().count())
    }

    fn byte_at(&self, row: usize, col: usize) -> usize {
        let l = &self.lines[row];
        l.char_indices().nth(col).map_or(l.len(), |(i, _)| i)
    }

    /// Apply a key: typing, Enter (a new line), Backspace/Delete (joining lines), Tab (two
    /// spaces), the arrows, Home/End, PgUp/PgDn. Esc and Ctrl-keys are the owner's.
    pub fn key(&mut self, key: KeyEvent) -> Edit {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL)
            || key.modifiers.contains(KeyModifiers::ALT);
        let edit = match key.code {
            KeyCode::Char(_) if ctrl => Edit::Ignored,
            KeyCode::Char('\n' | '\r') => self.newline(),
            KeyCode::Char(c) => self.insert(&c.to_string()),
            KeyCode::Tab => self.insert("  "),
            KeyCode::Enter => self.newline(),
            KeyCode::Backspace => self.backspace(),
            KeyCode::Delete => self.delete(),
            _ => self.motion(key.code),
        };
        if self.row < self.top {
            self.top = self.row;
        }
        edit
    }

    fn motion(&mut self, code: KeyCode) -> Edit {
        let last = self.lines.len() - 1;
        match code {
            KeyCode::Left if self.col > 0 => self.col -= 1,
            KeyCode::Left if self.row > 0 => {
                self.row -= 1;
                self.col = self.line_len(self.row);
            }
            KeyCode::Right if self.col < self.line_len(self.row) => self.col += 1,
            KeyCode::Right if self.row < last => {
                self.row += 1;
                self.col = 0;
            }
            KeyCode::Up => self.row = self.row.saturating_sub(1),
            KeyCode::Down => self.row = (self.row + 1).min(last),
            KeyCode::PageUp => self.row = self.row.saturating_sub(PAGE),
            KeyCode::PageDown => self.row = (self.row + PAGE).min(last),
            KeyCode::Home => self.col = 0,
            KeyCode::End => self.col = self.line_len(self.row),
            KeyCode::Left | KeyCode::Right => {}
            _ => return Edit::Ignored,
        }
        self.col = self.col.min(self.line_len(self.row));
        Edit::Moved
    }

    fn insert(&mut self, s: &str) -> Edit {
        if self.bytes + s.len() > MAX_BYTES {
            return Edit::Ignored;
        }
        let at = self.byte_at(self.row, self.col);
        self.lines[self.row].insert_str(at, s);
        self.col += s.chars().count();
        self.bytes += s.len();
        Edit::Changed
    }

    fn newline(&mut self) -> Edit {
        if self.bytes + 1 > MAX_BYTES {
            return Edit::Ignored;
        }
        let at = self.byte_at(self.row, self.col);
        let rest = self.lines[self.row].split_off(at);
        self.lines.insert(self.row + 1, rest);
        self.row += 1;
        self.col = 0;
        self.bytes += 1;
        Edit::Changed
    }

    fn backspace(&mut self) -> Edit {
        if self.col > 0 {
            let at = self.byte_at(self.row, self.col - 1);
            let c = self.lines[self.row].remove(at);
            self.bytes -= c.len_utf8();
            self.col -= 1;
        } else if self.row > 0 {
            let line = self.lines.remove(self.row);
            self.row -= 1;
            self.col = self.line_len(self.row);
            self.lines[self.row].push_str(&line);
            self.bytes -= 1;
        } else {
            return Edit::Moved;
        }
        Edit::Changed
    }

    fn delete(&mut self) -> Edit {
        if self.col < self.line_len(self.row) {
            let at = self.byte_at(self.row, self.col);
            let c = self.lines[self.row].remove(at);
            self.bytes -= c.len_utf8();
        } else if self.row + 1 < self.lines.len() {
            let line = self.lines.remove(self.row + 1);
            self.lines[self.row].push_str(&line);
            self.bytes -= 1;
        } else {
            return Edit::Moved;
        }
        Edit::Changed
    }

    /// Draw the text in `area` with line numbers, scrolled so the cursor shows; the cursor is
    /// drawn (inverted) when `active`.
    pub fn render(&self, f: &mut Frame, area: Rect, theme: Theme, active: bool) {
        let height = area.height.max(1) as usize;
        let mut top = self.top.min(self.row);
        if self.row >= top + height {
            top = self.row + 1 - height;
        }
        let gutter = 5usize;
        let width = (area.width as usize).saturating_sub(gutter).max(2);
        let left = self.col.saturating_sub(width - 1);
        let shown: Vec<Line> = self
            .lines
            .iter()
            .enumerate()
            .skip(top)
            .take(height)
            .map(|(i, l)| {
                let mut spans = vec![Span::styled(format!("{:>4} ", i + 1), theme.dim())];
                let chars = l.chars().skip(left);
                if active && i == self.row {
                    spans.extend(cursor_spans(chars, self.col - left, width));
                } else {
                    spans.push(Span::raw(chars.take(width).collect::<String>()));
                }
                Line::from(spans)
            })
            .collect();
        f.render_widget(Paragraph::new(shown), area);
    }
}

/// A line's characters with the one at `at` inverted (a space past the end).
fn cursor_spans(chars: impl Iterator<Item = char>, at: usize, width: usize) -> Vec<Span<'static>> {
    let shown: Vec<char> = chars.take(width).collect();
    let before: String = shown.iter().take(at).collect();
    let under: String = shown.get(at).map_or(" ".into(), |c| c.to_string());
    let after: String = shown.iter().skip(at + 1).collect();
    vec![
        Span::raw(before),
        Span::styled(under, Style::default().add_modifier(Modifier::REVERSED)),
        Span::raw(after),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn typed(e: &mut JsonEditor, s: &str) {
        for c in s.chars() {
            let code = if c == '\n' {
                KeyCode::Enter
            } else {
                KeyCode::Char(c)
            };
            e.key(k(code));
        }
    }

    #[test]
    fn what_is_typed_is_the_text() {
        let mut e = JsonEditor::new("");
        typed(&mut e, "{\"a\": \"x\\ny\",\n\"b\": [1]}");
        assert_eq!(e.text(), "{\"a\": \"x\\ny\",\n\"b\": [1]}");
        assert_eq!(
            e.parse().unwrap(),
            serde_json::json!({"a": "x\ny", "b": [1]})
        );
        e.key(k(KeyCode::Backspace));
        assert!(e.parse().unwrap_err().contains("line 2"));
    }

    #[test]
    fn backspace_and_delete_join_lines() {
        let mut e = JsonEditor::new("ab\ncd");
        e.key(k(KeyCode::Down));
        e.key(k(KeyCode::Backspace));
        assert_eq!(e.text(), "abcd");
        assert_eq!(e.cursor(), (0, 2));
        e.key(k(KeyCode::End));
        e.key(k(KeyCode::Enter));
        e.key(k(KeyCode::Up));
        e.key(k(KeyCode::End));
        e.key(k(KeyCode::Delete));
        assert_eq!(e.text(), "abcd");
        assert_eq!(e.bytes, 4);
    }

    #[test]
    fn the_text_is_bounded() {
        let mut e = JsonEditor::new(&"x".repeat(MAX_BYTES + 10));
        assert_eq!(e.text().len(), MAX_BYTES);
        assert_eq!(e.key(k(KeyCode::Char('y'))), Edit::Ignored);
    }
}
