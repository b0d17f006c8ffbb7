//! The server list: a status dot, the name, and under the selected one its transport and target.

use crate::state::{AppState, Focus, ServerRow};
use crate::widgets::style::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// The status as a coloured word (`● connected`); `NO_COLOR` keeps the word.
pub(super) fn status_span(row: &ServerRow, theme: Theme) -> Span<'static> {
    let (dot, style) = match row.status.as_str() {
        "connected" => ("●", theme.ok()),
        "connecting" => ("◌", theme.warn()),
        "failed" => ("✗", theme.error()),
        _ => ("○", theme.dim()),
    };
    Span::styled(format!("{dot} {}", row.status), style)
}

/// Rows of the selected server's error shown under it (a list `width` wide): a few, the last
/// saying where the rest is when it is longer (`i` from the list opens it whole in the pager).
const ERROR_ROWS: usize = 4;

/// The selected server's error as the list shows it: wrapped, at most [`ERROR_ROWS`] rows.
pub(crate) fn error_rows(row: &ServerRow, width: usize) -> Vec<String> {
    let Some(e) = &row.error else {
        return Vec::new();
    };
    let text = format!("  {e}");
    let parts = [(text, ratatui::style::Style::default())];
    let all: Vec<String> = crate::widgets::wrap::rows(&parts, width)
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    if all.len() <= ERROR_ROWS {
        return all;
    }
    let mut shown = all[..ERROR_ROWS - 1].to_vec();
    // 18 characters: whole in the narrowest list (80 columns).
    shown.push("  … i: whole error".chars().take(width).collect());
    shown
}

/// True when the server list shows `row`'s error shortened (in a list `width` wide): `i` from
/// the list then opens the whole error in the pager.
pub(crate) fn error_cut(row: &ServerRow, width: usize) -> bool {
    let Some(e) = &row.error else {
        return false;
    };
    let parts = [(format!("  {e}"), ratatui::style::Style::default())];
    crate::widgets::wrap::row_count(&parts, width) > ERROR_ROWS
}

/// Draw the list into `area` (its border included).
pub(super) fn render(s: &AppState, f: &mut Frame, area: Rect, theme: Theme) {
    let focused = s.focus == Focus::Servers && s.modal.is_none();
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { theme.title() } else { theme.dim() })
        .title(Line::styled(
            format!(" Servers ({}) ", s.servers.len()),
            theme.title(),
        ));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let width = inner.width as usize;
    let mut lines = Vec::new();
    for (i, row) in s.servers.iter().enumerate() {
        let selected = i == s.selected;
        let dot = status_span(row, theme);
        let dot_char: String = dot.content.chars().take(1).collect();
        let name: String = row.name.chars().take(width.saturating_sub(2)).collect();
        let style = if selected {
            theme.selected()
        } else {
            theme.plain()
        };
        lines.push(Line::from(vec![
            Span::styled(dot_char, dot.style),
            Span::styled(format!(" {name:<w$}", w = width.saturating_sub(2)), style),
        ]));
        if selected {
            let detail = format!("  {} {}", row.transport, row.target);
            lines.push(Line::styled(
                detail.chars().take(width).collect::<String>(),
                theme.dim(),
            ));
            for l in error_rows(row, width) {
                lines.push(Line::styled(l, theme.error()));
            }
        }
    }
    f.render_widget(Paragraph::new(lines), inner);
}
