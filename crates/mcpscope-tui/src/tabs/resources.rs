//! The Resources tab: resources and templates, read, subscribe.

use super::{Ctx, Tab};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

/// The Resources tab's state.
#[derive(Debug, Default)]
pub struct Resources {}

impl Tab for Resources {
    fn render(&self, _ctx: &Ctx, f: &mut Frame, area: Rect) {
        f.render_widget(Paragraph::new("Resources"), area);
    }
}
