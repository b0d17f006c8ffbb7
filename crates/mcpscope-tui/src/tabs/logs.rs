//! The Logs tab: `notifications/message`, the level, a filter, follow.

use super::{Ctx, Tab};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

/// The Logs tab's state.
#[derive(Debug, Default)]
pub struct Logs {}

impl Tab for Logs {
    fn render(&self, _ctx: &Ctx, f: &mut Frame, area: Rect) {
        f.render_widget(Paragraph::new("Logs"), area);
    }
}
