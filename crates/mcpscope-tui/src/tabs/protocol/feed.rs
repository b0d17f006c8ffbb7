//! A bounded, filtered, followed list: what Protocol, Network, Console and Logs each show.
//!
//! Items arrive at the end (and, for Protocol, older ones at the start); past `max` the oldest
//! go. Each item has an *absolute position* that never changes while it is kept, so the filtered
//! index (the positions of the items the filter lets through, in order) is kept up to date as
//! items come and go — O(1) per item — and is rebuilt (O(n)) only when the filter changes.
//! Drawing reads the window of the index on screen and nothing else.
//!
//! Follow mode: while on, the last shown item is selected and the window sits at the bottom;
//! moving up turns it off (new items then arrive below without moving the screen); `End`/`G`,
//! or moving down past the last item, turns it back on.

use crossterm::event::{KeyCode, KeyEvent};
use std::collections::VecDeque;
use std::ops::Range;

/// The absolute position of the first item of an empty feed: room below it for older pages.
const ORIGIN: usize = usize::MAX / 2;

/// A bounded list with a filtered index, a selection and follow mode.
#[derive(Debug)]
pub struct Feed<T> {
    items: VecDeque<T>,
    /// The absolute position of `items[0]`.
    front: usize,
    /// Absolute positions of the items the filter shows, ascending.
    shown: VecDeque<usize>,
    /// The selected entry of `shown` (ignored while following).
    sel: usize,
    /// The first entry of `shown` drawn (ignored while following).
    top: usize,
    /// New items scroll in and the last one is selected.
    pub follow: bool,
    /// Items kept at most.
    pub max: usize,
    /// Items dropped past `max` so far (said in the title).
    pub dropped: u64,
}

impl<T> Feed<T> {
    /// An empty feed of at most `max` items, following.
    pub fn new(max: usize) -> Feed<T> {
        Feed {
            items: VecDeque::new(),
            front: ORIGIN,
            shown: VecDeque::new(),
            sel: 0,
            top: 0,
            follow: true,
            max: max.max(1),
            dropped: 0,
        }
    }

    /// Items kept.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Items the filter shows.
    pub fn shown_len(&self) -> usize {
        self.shown.len()
    }

    /// Every item kept, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> {
        self.items.iter()
    }

    /// The item at absolute position `abs`, if still kept.
    pub fn get(&self, abs: usize) -> Option<&T> {
        self.items.get(abs.checked_sub(self.front)?)
    }

    /// The item at `abs`, to change (its filter membership must not change).
    pub fn get_mut(&mut self, abs: usize) -> Option<&mut T> {
        self.items.get_mut(abs.checked_sub(self.front)?)
    }

    /// The absolute position of the `i`-th item kept.
    pub fn abs(&self, i: usize) -> usize {
        self.front + i
    }

    /// The absolute position of the newest item.
    pub fn last_abs(&self) -> Option<usize> {
        (!self.items.is_empty()).then(|| self.front + self.items.len() - 1)
    }

    /// The index of the first item kept for which `before` is false (the items ordered by it).
    pub fn partition_point(&self, before: impl FnMut(&T) -> bool) -> usize {
        self.items.partition_point(before)
    }

    /// The first item kept.
    pub fn first(&self) -> Option<&T> {
        self.items.front()
    }

    /// The newest item.
    pub fn last(&self) -> Option<&T> {
        self.items.back()
    }

    /// Append `item` (`shown`: the filter lets it through); the oldest goes past `max`.
    pub fn push(&mut self, item: T, shown: bool) {
        self.items.push_back(item);
        if shown {
            self.shown.push_back(self.front + self.items.len() - 1);
        }
        while self.items.len() > self.max {
            self.pop_front();
        }
    }

    fn pop_front(&mut self) {
        self.items.pop_front();
        self.dropped += 1;
        if self.shown.front() == Some(&self.front) {
            self.shown.pop_front();
            self.sel = self.sel.saturating_sub(1);
            self.top = self.top.saturating_sub(1);
        }
        self.front += 1;
    }

    /// Put `items` (older than every item kept, oldest first) before the first, as far as the
    /// bound allows (the newest of them win); `keep` is the filter.
    pub fn prepend(&mut self, items: Vec<T>, keep: impl Fn(&T) -> bool) {
        let room = self.max.saturating_sub(self.items.len());
        let skip = items.len().saturating_sub(room);
        let mut added = 0;
        for item in items.into_iter().skip(skip).rev() {
            self.front -= 1;
            if keep(&item) {
                self.shown.push_front(self.front);
                added += 1;
            }
            self.items.push_front(item);
        }
        self.sel += added;
        self.top += added;
    }

    /// Insert `item` at index `i` of the items kept (a frame that came late), then rebuild.
    pub fn insert(&mut self, i: usize, item: T, keep: impl Fn(&T) -> bool) {
        self.items.insert(i.min(self.items.len()), item);
        while self.items.len() > self.max {
            self.pop_front();
        }
        self.rebuild(keep);
    }

    /// The filter changed: recompute the index; the selection stays on the same item when it
    /// is still shown, else on the nearest one before it.
    pub fn rebuild(&mut self, keep: impl Fn(&T) -> bool) {
        let was = self.selected();
        self.shown = self
            .items
            .iter()
            .enumerate()
            .filter(|(_, t)| keep(t))
            .map(|(i, _)| self.front + i)
            .collect();
        if let Some(abs) = was {
            self.sel = self.shown.partition_point(|&a| a <= abs).saturating_sub(1);
        }
        self.top = self.top.min(self.sel);
    }

    /// Forget everything (the bound and the drop count stay).
    pub fn clear(&mut self) {
        self.items.clear();
        self.shown.clear();
        self.front = ORIGIN;
        self.sel = 0;
        self.top = 0;
        self.follow = true;
    }

    /// The absolute position of the selected item.
    pub fn selected(&self) -> Option<usize> {
        if self.follow {
            self.shown.back().copied()
        } else {
            self.shown
                .get(self.sel.min(self.shown.len().saturating_sub(1)))
                .copied()
        }
    }

    /// The selected item.
    pub fn selected_item(&self) -> Option<&T> {
        self.get(self.selected()?)
    }

    /// The selected entry of the index.
    fn sel_index(&self) -> usize {
        if self.follow {
            self.shown.len().saturating_sub(1)
        } else {
            self.sel.min(self.shown.len().saturating_sub(1))
        }
    }

    /// Select the item at `abs` when it is shown (following stops); false when it is not.
    pub fn select_abs(&mut self, abs: usize, height: usize) -> bool {
        match self.shown.binary_search(&abs) {
            Ok(i) => {
                self.set_sel(i, height);
                true
            }
            Err(_) => false,
        }
    }

    fn set_sel(&mut self, i: usize, height: usize) {
        let h = height.max(1);
        self.top = self.window(h).start;
        self.follow = false;
        self.sel = i;
        if self.sel < self.top {
            self.top = self.sel;
        } else if self.sel >= self.top + h {
            self.top = self.sel + 1 - h;
        }
    }

    /// Move by a navigation key with a window of `height` rows; false when not one.
    pub fn key(&mut self, key: KeyEvent, height: usize) -> bool {
        let n = self.shown.len();
        let cur = self.sel_index();
        let page = height.max(1);
        let to = match key.code {
            KeyCode::Up => cur.saturating_sub(1),
            KeyCode::Down if self.follow || cur + 1 >= n => return self.resume(),
            KeyCode::Down => cur + 1,
            KeyCode::PageUp => cur.saturating_sub(page),
            KeyCode::PageDown if cur + page >= n => return self.resume(),
            KeyCode::PageDown => cur + page,
            KeyCode::Home | KeyCode::Char('g') => 0,
            KeyCode::End | KeyCode::Char('G') => return self.resume(),
            _ => return false,
        };
        self.set_sel(to, height);
        true
    }

    /// Follow again.
    pub fn resume(&mut self) -> bool {
        self.follow = true;
        true
    }

    /// The mouse wheel: three rows.
    pub fn scroll(&mut self, down: bool, height: usize) {
        let code = if down { KeyCode::Down } else { KeyCode::Up };
        for _ in 0..3 {
            self.key(KeyEvent::from(code), height);
        }
    }

    /// A click on line `row` of the list's window of `height`.
    pub fn click(&mut self, row: usize, height: usize) {
        let w = self.window(height);
        if w.start + row < w.end {
            self.set_sel(w.start + row, height);
        }
    }

    /// The entries of the index drawn in a window of `height`: the bottom while following, else
    /// from `top`, moved only as far as the selection needs.
    pub fn window(&self, height: usize) -> Range<usize> {
        let n = self.shown.len();
        let h = height.max(1);
        if self.follow {
            return n.saturating_sub(h)..n;
        }
        let sel = self.sel_index();
        let mut top = self.top.min(n.saturating_sub(1));
        if sel < top {
            top = sel;
        } else if sel >= top + h {
            top = sel + 1 - h;
        }
        top..(top + h).min(n)
    }

    /// The shown items of the window of `height`: (absolute position, item, selected).
    pub fn visible(&self, height: usize) -> impl Iterator<Item = (usize, &T, bool)> {
        let sel = (!self.shown.is_empty()).then(|| self.sel_index());
        self.window(height).filter_map(move |i| {
            let abs = self.shown[i];
            self.get(abs).map(|t| (abs, t, Some(i) == sel))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    fn k(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn bounded_filtered_and_followed() {
        let mut f: Feed<u32> = Feed::new(5);
        for n in 0..8 {
            f.push(n, n % 2 == 0);
        }
        assert_eq!(f.len(), 5);
        assert_eq!(f.dropped, 3);
        let shown: Vec<u32> = f.visible(10).map(|(_, t, _)| *t).collect();
        assert_eq!(shown, vec![4, 6]);
        assert_eq!(f.selected_item(), Some(&6));
        f.key(k(KeyCode::Up), 10);
        assert!(!f.follow);
        assert_eq!(f.selected_item(), Some(&4));
        f.push(8, true);
        assert_eq!(
            f.selected_item(),
            Some(&4),
            "a new item does not move the selection"
        );
        f.rebuild(|_| true);
        assert_eq!(f.selected_item(), Some(&4));
        assert_eq!(f.shown_len(), 5);
        f.key(k(KeyCode::End), 10);
        assert_eq!(f.selected_item(), Some(&8));
        f.prepend(vec![1, 2], |_| true);
        assert_eq!(f.len(), 5, "no room: nothing older is taken");
    }

    #[test]
    fn the_window_moves_only_as_far_as_the_selection_needs() {
        let mut f: Feed<usize> = Feed::new(100);
        for n in 0..50 {
            f.push(n, true);
        }
        assert_eq!(f.window(10), 40..50);
        for _ in 0..15 {
            f.key(k(KeyCode::Up), 10);
        }
        assert_eq!(f.selected_item(), Some(&34));
        assert_eq!(f.window(10), 34..44);
        f.key(k(KeyCode::Down), 10);
        assert_eq!(
            f.window(10),
            34..44,
            "moving down inside the window does not scroll"
        );
        f.key(k(KeyCode::Home), 10);
        assert_eq!(f.window(10), 0..10);
        let mut g: Feed<usize> = Feed::new(100);
        g.push(10, true);
        g.prepend(vec![7, 8, 9], |t| *t != 8);
        let all: Vec<usize> = g.visible(10).map(|(_, t, _)| *t).collect();
        assert_eq!(all, vec![7, 9, 10]);
    }
}
