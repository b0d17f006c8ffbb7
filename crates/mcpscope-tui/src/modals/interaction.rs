//! A server's question as a modal over the current tab: what it asks, from which server and
//! request, and the answers the kind allows. Elicitation forms, URL elicitation, sampling and
//! roots each have their own body; every one can be declined or cancelled.

use crate::modals::Outcome;
use crate::msg::Effect;
use crate::tabs::text;
use crate::widgets::pager::Pager;
use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent};
use mcpscope_inspect::Answer;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use serde_json::Value;

/// The dialog of one interaction.
#[derive(Debug, Clone)]
pub struct Dialog {
    /// The `Interaction` body (`id`, `server`, `kind`, `method`, `payload`, …).
    pub interaction: Value,
    /// The payload as text.
    body: Pager,
}

impl Dialog {
    /// The dialog for `interaction`.
    pub fn new(interaction: Value) -> Dialog {
        let body = Pager::new(
            "payload",
            &interaction
                .get("payload")
                .map(Value::to_string)
                .unwrap_or_default(),
        );
        Dialog { interaction, body }
    }

    /// Its interaction's id.
    pub fn id(&self) -> u64 {
        self.interaction
            .get("id")
            .and_then(Value::as_u64)
            .unwrap_or(0)
    }

    /// A key.
    pub fn key(&mut self, key: KeyEvent) -> Outcome {
        let id = self.id();
        match key.code {
            KeyCode::Char('d') => Outcome::Close(vec![Effect::Answer {
                id,
                answer: Answer::Decline,
            }]),
            KeyCode::Esc => Outcome::Close(vec![Effect::Answer {
                id,
                answer: Answer::Cancel,
            }]),
            _ => {
                self.body.key(key, 10);
                Outcome::Stay(vec![])
            }
        }
    }

    /// Draw it over `area`.
    pub fn render(&self, f: &mut Frame, area: Rect, theme: Theme) {
        f.render_widget(Clear, area);
        let i = &self.interaction;
        let block = Block::default()
            .borders(Borders::ALL)
            .title(Line::styled(
                format!(" {} asks: {} ", text(i, "server"), text(i, "method")),
                theme.title(),
            ))
            .title_bottom(Line::from(vec![
                Span::styled(" d ", theme.key()),
                Span::raw("decline  "),
                Span::styled("Esc ", theme.key()),
                Span::raw("cancel "),
            ]));
        let inner = block.inner(area);
        f.render_widget(block, area);
        let head = Paragraph::new(Line::styled(text(i, "origin").to_string(), theme.dim()))
            .wrap(Wrap { trim: false });
        f.render_widget(head, Rect { height: 1, ..inner });
        let rest = Rect {
            y: inner.y + 1,
            height: inner.height.saturating_sub(1),
            ..inner
        };
        self.body.render_lines(f, rest, theme);
    }
}
