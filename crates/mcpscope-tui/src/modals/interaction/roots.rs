//! The kinds without a form of their own: `roots/list` and any other method a server sends.
//!
//! Roots: the server's configured roots (its catalog entry's `roots`, as the server card carries
//! it) listed with the answers Send (those roots), Edit (one root per line, `URI [name]`, checked
//! with the core's rules before it is sent; the edit is this answer's only, not saved) and
//! Reject (decline). The core's own policy normally answers `roots/list` from the same list at
//! once, so this opens only when a policy left the question to a view.
//!
//! Any other method: its params in a pager (bounded), declined or cancelled.

use super::editor::TextArea;
use super::{Hint, answer, clean_line, clean_lines, hint_line};
use crate::modals::Outcome;
use crate::widgets::pager::Pager;
use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent};
use mcpscope_inspect::Answer;
use mcpscope_inspect::roots::{MAX_NAME_CHARS, MAX_ROOTS, Root, problem};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use serde_json::Value;

/// Lines of the params kept (the pager scrolls them).
const MAX_LINES: usize = 5_000;
/// Characters kept of one line.
const MAX_LINE: usize = 1_000;

/// A question of a method without a dialog.
#[derive(Debug, Clone)]
pub(crate) struct RawBody {
    params: Pager,
}

pub(super) const OTHER_HINTS: &[Hint] = &[("d", "decline"), ("Esc", "cancel"), ("↑↓", "scroll")];

impl RawBody {
    /// Any other request.
    pub(crate) fn other(payload: &Value) -> RawBody {
        RawBody {
            params: params_pager(payload),
        }
    }

    /// The keys shown.
    pub(crate) fn hints(&self) -> &'static [Hint] {
        OTHER_HINTS
    }

    /// A key.
    pub(crate) fn key(&mut self, id: u64, key: KeyEvent) -> Outcome {
        match key.code {
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
        let note = "mcpscope has no dialog for this method. Its params are below; decline it (the \
                    server gets method-not-found) or cancel.";
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

/// A `roots/list` question: the configured roots, sent as they are or edited first.
#[derive(Debug, Clone)]
pub(crate) struct RootsBody {
    /// The server's configured roots (already bounded and cleaned to draw).
    configured: Vec<Root>,
    /// While editing: one root per line, and why the last Send was refused.
    edit: Option<(TextArea, Option<String>)>,
}

pub(super) const ROOTS_HINTS: &[Hint] = &[
    ("Enter", "send these roots"),
    ("e", "edit"),
    ("d", "reject"),
    ("Esc", "cancel"),
];
pub(super) const EDIT_HINTS: &[Hint] = &[
    ("^S", "send"),
    ("Esc", "back to the list"),
    ("^D", "reject"),
];

impl RootsBody {
    /// The body for a server whose catalog entry has `roots` (a JSON array, as the card has it;
    /// anything not a root is left out, at most [`MAX_ROOTS`] kept).
    pub(crate) fn new(configured: &Value) -> RootsBody {
        let configured = configured
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| serde_json::from_value::<Root>(r.clone()).ok())
            .take(MAX_ROOTS)
            .collect();
        RootsBody {
            configured,
            edit: None,
        }
    }

    /// The keys shown.
    pub(crate) fn hints(&self) -> &'static [Hint] {
        if self.edit.is_some() {
            EDIT_HINTS
        } else {
            ROOTS_HINTS
        }
    }

    /// A key.
    pub(crate) fn key(&mut self, id: u64, key: KeyEvent) -> Outcome {
        let ctrl = key
            .modifiers
            .contains(crossterm::event::KeyModifiers::CONTROL);
        if let Some((editor, error)) = &mut self.edit {
            match key.code {
                KeyCode::Char('s') if ctrl => match parse_roots(&editor.text()) {
                    Ok(roots) => return answer(id, Answer::Accept(roots_json(&roots))),
                    Err(why) => *error = Some(why),
                },
                KeyCode::Char('d') if ctrl => return answer(id, Answer::Decline),
                KeyCode::Esc => self.edit = None,
                _ => {
                    editor.key(key);
                }
            }
            return Outcome::Stay(vec![]);
        }
        match key.code {
            KeyCode::Enter | KeyCode::Char('s') => {
                answer(id, Answer::Accept(roots_json(&self.configured)))
            }
            KeyCode::Char('e') => {
                self.edit = Some((TextArea::new(&roots_text(&self.configured)), None));
                Outcome::Stay(vec![])
            }
            KeyCode::Char('d') | KeyCode::Char('r') => answer(id, Answer::Decline),
            KeyCode::Esc => answer(id, Answer::Cancel),
            _ => Outcome::Stay(vec![]),
        }
    }

    /// Draw it into `area`.
    pub(crate) fn render(&self, f: &mut Frame, area: Rect, theme: Theme) {
        let mut lines = vec![Line::styled(
            "The server asks for the client's roots (roots/list): the directories it may work in.",
            theme.dim(),
        )];
        if let Some((editor, error)) = &self.edit {
            lines.push(Line::styled(
                "One root per line: a file:// URI, then a name if you like. Sent for this \
                 question only (not saved).",
                theme.dim(),
            ));
            let room = (area.height as usize)
                .saturating_sub(lines.len() + 2)
                .max(1);
            lines.extend(editor.view(room, area.width as usize, true));
            if let Some(e) = error {
                lines.push(Line::styled(clean_line(e, 500), theme.error()));
            }
            lines.push(hint_line(EDIT_HINTS, theme));
            f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
            return;
        }
        lines.push(Line::styled(
            format!("Configured roots ({}):", self.configured.len()),
            theme.title(),
        ));
        if self.configured.is_empty() {
            lines.push(Line::styled(
                "  none configured (`roots` in mcp.json): Send answers an empty list",
                theme.dim(),
            ));
        }
        let room = (area.height as usize).saturating_sub(lines.len() + 2);
        let shown = self.configured.len().min(room.max(1));
        for r in &self.configured[..shown] {
            let mut spans = vec![
                Span::raw("  "),
                Span::styled(clean_line(&r.uri, 300), theme.plain()),
            ];
            if let Some(n) = &r.name {
                spans.push(Span::styled(
                    format!("  {}", clean_line(n, 100)),
                    theme.dim(),
                ));
            }
            lines.push(Line::from(spans));
        }
        if shown < self.configured.len() {
            let more = self.configured.len() - shown;
            lines.push(Line::styled(
                format!("  … {more} more (e shows them all)"),
                theme.dim(),
            ));
        }
        lines.push(Line::raw(""));
        lines.push(hint_line(ROOTS_HINTS, theme));
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
    }
}

/// The roots as `roots/list` answers them (the core takes a list or `{roots}`).
fn roots_json(roots: &[Root]) -> Value {
    serde_json::to_value(roots).unwrap_or(Value::Array(Vec::new()))
}

/// `file:///a  name` per line, for the editor.
fn roots_text(roots: &[Root]) -> String {
    roots
        .iter()
        .map(|r| match &r.name {
            Some(n) => format!("{} {n}", r.uri),
            None => r.uri.clone(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The editor's lines as roots, checked with the core's rules (file:// only, bounded, no
/// duplicates); blank lines are skipped. The URI is the first word, the rest of the line its
/// name.
pub(crate) fn parse_roots(text: &str) -> Result<Vec<Root>, String> {
    let roots: Vec<Root> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (uri, name) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            let name = name.trim();
            Root {
                uri: uri.to_string(),
                name: (!name.is_empty()).then(|| name.chars().take(MAX_NAME_CHARS + 1).collect()),
            }
        })
        .take(MAX_ROOTS + 1)
        .collect();
    match problem(&roots) {
        Some(p) => Err(format!("not sent: {p}")),
        None => Ok(roots),
    }
}

/// The params pretty-printed, cleaned and bounded before the pager holds them.
fn params_pager(payload: &Value) -> Pager {
    let pretty = serde_json::to_string_pretty(payload).unwrap_or_default();
    let lines = clean_lines(&pretty, MAX_LINES, MAX_LINE);
    Pager {
        title: "params".into(),
        lines,
        ..Pager::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edited_roots_are_checked_with_the_cores_rules() {
        let r = parse_roots("file:///home/me/project  My project\n\nfile:///tmp").unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].name.as_deref(), Some("My project"));
        assert_eq!(r[1].name, None);
        let e = parse_roots("https://example.com/x").unwrap_err();
        assert!(e.contains("scheme \"https\""), "{e}");
        let e = parse_roots("file:///a\nfile:///a").unwrap_err();
        assert!(e.contains("listed twice"), "{e}");
        assert_eq!(
            roots_text(&r),
            "file:///home/me/project My project\nfile:///tmp"
        );
    }
}
