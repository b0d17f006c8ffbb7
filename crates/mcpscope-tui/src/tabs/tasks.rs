//! The Tasks tab: the server's tasks and their status.

use super::{Ctx, Tab};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

/// The Tasks tab's state.
#[derive(Debug, Default)]
pub struct Tasks {}

impl Tab for Tasks {
    fn render(&self, _ctx: &Ctx, f: &mut Frame, area: Rect) {
        f.render_widget(Paragraph::new("Tasks"), area);
    }
}
