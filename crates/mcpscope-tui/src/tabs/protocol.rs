//! The Protocol tab: every frame, filterable, with the full body in a pager.

use super::{Ctx, Tab};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

/// The Protocol tab's state.
#[derive(Debug, Default)]
pub struct Protocol {}

impl Tab for Protocol {
    fn render(&self, _ctx: &Ctx, f: &mut Frame, area: Rect) {
        f.render_widget(Paragraph::new("Protocol"), area);
    }
}
