//! The Console tab: the server's stderr.

use super::{Ctx, Tab};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

/// The Console tab's state.
#[derive(Debug, Default)]
pub struct Console {}

impl Tab for Console {
    fn render(&self, _ctx: &Ctx, f: &mut Frame, area: Rect) {
        f.render_widget(Paragraph::new("Console"), area);
    }
}
