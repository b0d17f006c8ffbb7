//! A cursor over a list that may be longer than its window: which row is selected and which is
//! drawn first, kept in view as the cursor moves. Only indices: the rows live with their tab.

use crossterm::event::{KeyCode, KeyEvent};

/// The cursor and the scroll of a list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    /// The selected row.
    pub selected: usize,
    /// The first row drawn.
    pub offset: usize,
}

impl Cursor {
    /// Move by a navigation key over `len` rows, `page` rows per screen; false when not one.
    pub fn key(&mut self, key: KeyEvent, len: usize, page: usize) -> bool {
        let last = len.saturating_sub(1);
        let page = page.max(1);
        self.selected = match key.code {
            KeyCode::Up => self.selected.saturating_sub(1),
            KeyCode::Down => (self.selected + 1).min(last),
            KeyCode::PageUp => self.selected.saturating_sub(page),
            KeyCode::PageDown => (self.selected + page).min(last),
            KeyCode::Home | KeyCode::Char('g') => 0,
            KeyCode::End | KeyCode::Char('G') => last,
            _ => return false,
        };
        true
    }

    /// Keep the selection inside `len` rows.
    pub fn clamp(&mut self, len: usize) {
        self.selected = self.selected.min(len.saturating_sub(1));
    }

    /// The rows to draw in a window of `height`: the range, scrolled so the selection shows.
    /// Pure: the offset it would use is returned, not stored (rendering takes `&self`).
    pub fn window(&self, len: usize, height: usize) -> std::ops::Range<usize> {
        if len == 0 {
            return 0..0;
        }
        let height = height.max(1);
        let selected = self.selected.min(len - 1);
        let mut offset = self.offset.min(len - 1);
        if selected < offset {
            offset = selected;
        } else if selected >= offset + height {
            offset = selected + 1 - height;
        }
        offset..(offset + height).min(len)
    }

    /// Remember the window last drawn for `height` rows (called by the reducer after a move so
    /// scrolling is stable rather than re-centred).
    pub fn follow(&mut self, len: usize, height: usize) {
        self.offset = self.window(len, height).start;
    }

    /// A click on `line` of the window (0 = its first drawn row) of `height` over `len` rows:
    /// selects the row drawn there and keeps the window where it is. `Some(true)` when that row
    /// was already selected (a second click opens it, as Enter does), `None` past the last row.
    pub fn click(&mut self, len: usize, height: usize, line: usize) -> Option<bool> {
        let window = self.window(len, height);
        let at = window.start + line;
        if at >= window.end {
            return None;
        }
        let again = self.selected == at;
        self.selected = at;
        self.offset = window.start;
        Some(again)
    }
}

/// The first line of a window that was `clicked` (its first line then), while the row `at` of
/// `len` is still inside it, `height` lines tall: a list whose window is otherwise worked out
/// from the cursor alone stays still under the mouse, so a second click finds the same row.
pub fn stay(clicked: Option<usize>, at: usize, len: usize, height: usize) -> Option<usize> {
    clicked.filter(|top| at >= *top && at < top + height.max(1) && *top < len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    #[test]
    fn the_window_follows_the_cursor() {
        let mut c = Cursor::default();
        for _ in 0..15 {
            c.key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE), 100, 10);
            c.follow(100, 10);
        }
        assert_eq!(c.selected, 15);
        assert_eq!(c.window(100, 10), 6..16);
        c.key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE), 100, 10);
        assert_eq!(c.window(100, 10), 90..100);
        assert_eq!(c.window(0, 10), 0..0);
    }
}
