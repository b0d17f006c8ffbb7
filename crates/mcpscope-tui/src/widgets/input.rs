//! A one-line text input: the search boxes and the form's text fields. Keeps the text and the
//! cursor (in characters); draws itself as a line with the cursor shown inverted.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

/// A line of text being edited.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Input {
    text: String,
    /// The cursor, in characters from the start.
    cursor: usize,
}

/// What a key did to an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    /// The text changed.
    Changed,
    /// Only the cursor moved.
    Moved,
    /// Not an editing key (Enter, Esc, Tab, arrows up/down, …): the caller decides.
    Ignored,
}

impl Input {
    /// An input holding `text`, the cursor at its end.
    pub fn new(text: impl Into<String>) -> Input {
        let text = text.into();
        let cursor = text.chars().count();
        Input { text, cursor }
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Replace the text, the cursor at its end.
    pub fn set(&mut self, text: impl Into<String>) {
        *self = Input::new(text);
    }

    fn byte_at(&self, chars: usize) -> usize {
        self.text
            .char_indices()
            .nth(chars)
            .map(|(i, _)| i)
            .unwrap_or(self.text.len())
    }

    /// Apply an editing key.
    pub fn key(&mut self, key: KeyEvent) -> Edit {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let len = self.text.chars().count();
        match key.code {
            KeyCode::Char('u') if ctrl => {
                let at = self.byte_at(self.cursor);
                self.text.replace_range(..at, "");
                self.cursor = 0;
                Edit::Changed
            }
            KeyCode::Char('a') if ctrl => {
                self.cursor = 0;
                Edit::Moved
            }
            KeyCode::Char('e') if ctrl => {
                self.cursor = len;
                Edit::Moved
            }
            KeyCode::Char(_) if ctrl => Edit::Ignored,
            KeyCode::Char(c) => {
                let at = self.byte_at(self.cursor);
                self.text.insert(at, c);
                self.cursor += 1;
                Edit::Changed
            }
            KeyCode::Backspace if self.cursor > 0 => {
                let at = self.byte_at(self.cursor - 1);
                self.text.remove(at);
                self.cursor -= 1;
                Edit::Changed
            }
            KeyCode::Delete if self.cursor < len => {
                let at = self.byte_at(self.cursor);
                self.text.remove(at);
                Edit::Changed
            }
            KeyCode::Left if self.cursor > 0 => {
                self.cursor -= 1;
                Edit::Moved
            }
            KeyCode::Right if self.cursor < len => {
                self.cursor += 1;
                Edit::Moved
            }
            KeyCode::Home => {
                self.cursor = 0;
                Edit::Moved
            }
            KeyCode::End => {
                self.cursor = len;
                Edit::Moved
            }
            KeyCode::Backspace | KeyCode::Delete | KeyCode::Left | KeyCode::Right => Edit::Moved,
            _ => Edit::Ignored,
        }
    }

    /// The text as spans, the cursor drawn (inverted) when `active`; at most `width` columns,
    /// scrolled so the cursor stays in view.
    pub fn spans(&self, active: bool, width: usize) -> Line<'static> {
        let chars: Vec<char> = self.text.chars().collect();
        let width = width.max(2);
        let start = self.cursor.saturating_sub(width - 1);
        let shown: String = chars.iter().skip(start).take(width).collect();
        if !active {
            return Line::from(shown);
        }
        let at = self.cursor - start;
        let before: String = shown.chars().take(at).collect();
        let under: String = shown
            .chars()
            .nth(at)
            .map(String::from)
            .unwrap_or(" ".into());
        let after: String = shown.chars().skip(at + 1).collect();
        Line::from(vec![
            Span::raw(before),
            Span::styled(under, Style::default().add_modifier(Modifier::REVERSED)),
            Span::raw(after),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn edits_in_the_middle_of_multibyte_text() {
        let mut i = Input::new("héllo");
        i.key(k(KeyCode::Left));
        i.key(k(KeyCode::Left));
        i.key(k(KeyCode::Backspace));
        assert_eq!(i.text(), "hélo");
        i.key(k(KeyCode::Char('ß')));
        assert_eq!(i.text(), "héßlo");
        i.key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
        assert_eq!(i.text(), "lo");
        assert_eq!(i.key(k(KeyCode::Enter)), Edit::Ignored);
    }
}
