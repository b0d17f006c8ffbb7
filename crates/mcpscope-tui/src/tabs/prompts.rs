//! The Prompts tab: prompts, their arguments with completion, the messages.

use super::{Ctx, Tab};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

/// The Prompts tab's state.
#[derive(Debug, Default)]
pub struct Prompts {}

impl Tab for Prompts {
    fn render(&self, _ctx: &Ctx, f: &mut Frame, area: Rect) {
        f.render_widget(Paragraph::new("Prompts"), area);
    }
}
