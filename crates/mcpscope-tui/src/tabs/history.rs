//! The History tab: the SQLite history shared with the web UI.

use super::{Ctx, Tab};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

/// The History tab's state.
#[derive(Debug, Default)]
pub struct History {}

impl Tab for History {
    fn render(&self, _ctx: &Ctx, f: &mut Frame, area: Rect) {
        f.render_widget(Paragraph::new("History"), area);
    }
}
