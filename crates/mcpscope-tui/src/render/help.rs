//! The `?` screen (the app's keys, the open tab's, the dialogs') and the quit question.

use crate::keymap::{DIALOG_HELP, HELP};
use crate::state::AppState;
use crate::strings;
use crate::widgets::style::Theme;
use crate::widgets::wrap;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

/// Draw the key help from line `top`.
pub(super) fn render(s: &AppState, top: usize, f: &mut Frame, area: Rect, theme: Theme) {
    f.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Line::styled(" Keys ", theme.title()))
        .title_bottom(Line::styled(" ↑↓ scroll · Esc close ", theme.dim()));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let width = usize::from(inner.width);
    let mut lines = vec![Line::styled("Everywhere", theme.title())];
    for b in HELP {
        lines.extend(binding(b.keys, b.what, theme, width));
    }
    if let Some(tabs) = s.current().and_then(|r| s.tabs.get(&r.name)) {
        let keys = tabs.get(s.tab).bindings();
        if !keys.is_empty() {
            lines.push(Line::raw(""));
            lines.push(Line::styled(format!("In {}", s.tab.title()), theme.title()));
            for b in keys {
                lines.extend(binding(b.keys, b.what, theme, width));
            }
        }
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled("Answering the server", theme.title()));
    for b in DIALOG_HELP {
        lines.extend(binding(b.keys, b.what, theme, width));
    }
    lines.push(Line::raw(""));
    lines.extend(wrap::wrap_lines(
        &[Line::styled(strings::MOUSE_HELP, theme.dim())],
        width,
    ));
    let shown: Vec<Line> = lines.into_iter().skip(top).collect();
    f.render_widget(Paragraph::new(shown), inner);
}

/// One key's line, its description wrapped under itself (a hanging indent) so nothing is cut at
/// 80 columns.
fn binding(keys: &str, what: &str, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let key = format!("  {keys:<14}");
    let indent = key.chars().count();
    let rows = wrap::rows(
        &[(what.to_string(), Style::default())],
        width.saturating_sub(indent).max(12),
    );
    rows.into_iter()
        .enumerate()
        .map(|(i, row)| {
            let lead = if i == 0 {
                Span::styled(key.clone(), theme.key())
            } else {
                Span::raw(" ".repeat(indent))
            };
            Line::from(std::iter::once(lead).chain(row.spans).collect::<Vec<_>>())
        })
        .collect()
}

/// Draw "quit?".
pub(super) fn quit(s: &AppState, f: &mut Frame, area: Rect, theme: Theme) {
    let h = 5.min(area.height);
    let area = Rect::new(area.x, area.y + area.height / 2 - h / 2, area.width, h);
    f.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Line::styled(" Quit? ", theme.title()));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let text = vec![
        Line::raw(strings::quit_question(s.running)),
        Line::from(vec![
            Span::styled("y", theme.key()),
            Span::raw(" quit   "),
            Span::styled("any other key", theme.key()),
            Span::raw(" stay"),
        ]),
    ];
    f.render_widget(Paragraph::new(text), inner);
}
