//! The Subscriptions tab: the listen streams and resource subscriptions.

use super::{Ctx, Tab};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

/// The Subscriptions tab's state.
#[derive(Debug, Default)]
pub struct Subscriptions {}

impl Tab for Subscriptions {
    fn render(&self, _ctx: &Ctx, f: &mut Frame, area: Rect) {
        f.render_widget(Paragraph::new("Subscriptions"), area);
    }
}
