//! The Auth tab: the OAuth state of the server, Re-authorize and Forget.

use super::{Ctx, Tab};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

/// The Auth tab's state.
#[derive(Debug, Default)]
pub struct Auth {}

impl Tab for Auth {
    fn render(&self, _ctx: &Ctx, f: &mut Frame, area: Rect) {
        f.render_widget(Paragraph::new("Auth"), area);
    }
}
