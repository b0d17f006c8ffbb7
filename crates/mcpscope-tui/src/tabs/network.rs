//! The Network tab: the HTTP exchanges.

use super::{Ctx, Tab};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

/// The Network tab's state.
#[derive(Debug, Default)]
pub struct Network {}

impl Tab for Network {
    fn render(&self, _ctx: &Ctx, f: &mut Frame, area: Rect) {
        f.render_widget(Paragraph::new("Network"), area);
    }
}
