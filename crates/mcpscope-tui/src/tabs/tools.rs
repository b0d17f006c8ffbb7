//! The Tools tab: the searchable tool list, the form, the run and its result.

use super::{Ctx, Tab};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

/// The Tools tab's state.
#[derive(Debug, Default)]
pub struct Tools {}

impl Tab for Tools {
    fn render(&self, _ctx: &Ctx, f: &mut Frame, area: Rect) {
        f.render_widget(Paragraph::new("Tools"), area);
    }
}
