//! The kinds without a dialog of their own: `roots/list` and any other method a server sends.
//! The request's params in a pager (bounded), and the answers the kind allows. Roots are
//! normally answered by the core from the server's configured roots, so this opens only when
//! that policy left one for a view; it can then be answered with no roots (`[]`) or declined.

use super::{Hint, answer, clean_lines};
use crate::modals::Outcome;
use crate::widgets::pager::Pager;
use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent};
use mcpscope_inspect::Answer;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};
use serde_json::{Value, json};

/// Lines of the params kept (the pager scrolls them).
const MAX_LINES: usize = 5_000;
/// Characters kept of one line.
const MAX_LINE: usize = 1_000;

/// A generic question: roots, or something else.
#[derive(Debug, Clone)]
pub(crate) struct RawBody {
    roots: bool,
    params: Pager,
}

const ROOTS_HINTS: &[Hint] = &[
    ("a", "answer: no roots"),
    ("d", "decline"),
    ("Esc", "cancel"),
    ("↑↓", "scroll"),
];
const OTHER_HINTS: &[Hint] = &[("d", "decline"), ("Esc", "cancel"), ("↑↓", "scroll")];

impl RawBody {
    /// A `roots/list` request.
    pub(crate) fn roots(payload: &Value) -> RawBody {
        RawBody {
            roots: true,
            params: params_pager(payload),
        }
    }

    /// Any other request.
    pub(crate) fn other(payload: &Value) -> RawBody {
        RawBody {
            roots: false,
            params: params_pager(payload),
        }
    }

    /// The keys shown.
    pub(crate) fn hints(&self) -> &'static [Hint] {
        if self.roots { ROOTS_HINTS } else { OTHER_HINTS }
    }

    /// A key.
    pub(crate) fn key(&mut self, id: u64, key: KeyEvent) -> Outcome {
        match key.code {
            KeyCode::Char('a') if self.roots => answer(id, Answer::Accept(json!([]))),
            KeyCode::Char('d') => answer(id, Answer::Decline),
            KeyCode::Esc => answer(id, Answer::Cancel),
            _ => {
                self.params.key(key, 10);
                Outcome::Stay(vec![])
            }
        }
    }

    /// Draw it into `area`.
    pub(crate) fn render(&self, f: &mut Frame, area: Rect, theme: Theme) {
        let note = if self.roots {
            "The server asks for the client's roots (roots/list). mcpscope answers it from the \
             server's configured roots (Roots in the web UI, `roots` in mcp.json); this one was \
             left for you: answer with no roots, or decline."
        } else {
            "mcpscope has no dialog for this method. Its params are below; decline it (the \
             server gets method-not-found) or cancel."
        };
        // Word wrapping takes a little more than the characters say.
        let per_line = (area.width as usize).saturating_sub(10).max(10);
        let h = (note.chars().count() / per_line + 1).min(area.height as usize / 2);
        let h = h as u16;
        let note = Paragraph::new(Line::styled(note, theme.dim())).wrap(Wrap { trim: false });
        f.render_widget(note, Rect { height: h, ..area });
        let rest = Rect {
            y: area.y + h + 1,
            height: area.height.saturating_sub(h + 1),
            ..area
        };
        f.render_widget(Line::styled("Params:", theme.title()), rest);
        self.params.render_lines(
            f,
            Rect {
                y: rest.y + 1,
                height: rest.height.saturating_sub(1),
                ..rest
            },
            theme,
        );
    }
}

/// The params pretty-printed, cleaned and bounded before the pager holds them.
fn params_pager(payload: &Value) -> Pager {
    let pretty = serde_json::to_string_pretty(payload).unwrap_or_default();
    let lines = clean_lines(&pretty, MAX_LINES, MAX_LINE);
    Pager {
        title: "params".into(),
        lines,
        top: 0,
        omitted: 0,
    }
}
