//! Drawing the Prompts tab: the list beside the detail (the prompt, its argument form, the
//! messages); on a narrow screen one half at a time.

use super::{Pane, Prompts};
use crate::tabs::Ctx;
use crate::widgets::completion::{window, wrap};
use crate::widgets::list::stay;
use crate::widgets::style::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// Below this width the list and the detail take turns.
const SPLIT_WIDTH: u16 = 90;

/// Draw the tab into `area`.
pub(super) fn render(t: &Prompts, ctx: &Ctx, f: &mut Frame, area: Rect) {
    let theme = Theme::new(ctx.color);
    if !ctx.server.connected() && t.prompts.is_none() {
        let l = Line::styled(crate::strings::NOT_CONNECTED, theme.dim());
        f.render_widget(Paragraph::new(l), area);
        return;
    }
    if area.width < SPLIT_WIDTH {
        match t.pane {
            Pane::List => list(t, ctx, f, area, theme),
            Pane::Detail => detail(t, ctx, f, area, theme),
        }
        return;
    }
    let lw = list_width(area);
    list(t, ctx, f, Rect { width: lw, ..area }, theme);
    let right = Rect {
        x: area.x + lw,
        width: area.width - lw,
        ..area
    };
    let block = Block::default()
        .borders(Borders::LEFT)
        .border_style(theme.dim());
    let inner = block.inner(right);
    f.render_widget(block, right);
    detail(t, ctx, f, inner, theme);
}

/// The list's width beside the detail.
fn list_width(area: Rect) -> u16 {
    (area.width * 2 / 5).max(30)
}

/// Where the list is drawn in the tab's `area` (`None`: the detail has a narrow screen).
pub(super) fn list_area(t: &Prompts, area: Rect) -> Option<Rect> {
    if area.width >= SPLIT_WIDTH {
        return Some(Rect {
            width: list_width(area),
            ..area
        });
    }
    (t.pane == Pane::List).then_some(area)
}

/// The lines over the list: the search, a stale list, its error, its title.
fn head(t: &Prompts, theme: Theme, w: usize) -> Vec<Line<'static>> {
    let mut head: Vec<Line> = Vec::new();
    head.extend(t.search.line(theme, w));
    if t.list_changed {
        head.push(Line::styled("The list changed: f reloads", theme.warn()));
    }
    if let Some(e) = &t.list_error {
        head.push(Line::styled(format!("prompts: {e}"), theme.error()));
    }
    let shown = t.items().len();
    let title = match &t.prompts {
        None => "Prompts (loading…)".to_string(),
        Some(p) if p.len() == shown => format!("Prompts ({})", p.len()),
        Some(p) => format!("Prompts ({shown} of {})", p.len()),
    };
    head.push(Line::styled(title, theme.title()));
    head
}

/// The list as drawn in `area`: the lines over it and the first row shown (clicks are placed
/// by it).
pub(super) fn list_lines(t: &Prompts, area: Rect) -> (u16, usize) {
    let hh = (head(t, Theme::new(false), area.width as usize).len() as u16).min(area.height);
    let (at, len, h) = (
        t.cursor.selected,
        t.items().len(),
        (area.height - hh) as usize,
    );
    let top = stay(t.click_top, at, len, h).unwrap_or_else(|| window(at, len, h));
    (hh, top)
}

fn list(t: &Prompts, ctx: &Ctx, f: &mut Frame, area: Rect, theme: Theme) {
    let w = area.width as usize;
    let head = head(t, theme, w);
    let items = t.items();
    let active = ctx.focused && t.pane == Pane::List && !t.search.typing;
    let all = t.prompts.as_deref().unwrap_or(&[]);
    let rows: Vec<Line> = items
        .iter()
        .enumerate()
        .map(|(n, &i)| {
            let p = &all[i];
            let sel = n == t.cursor.selected;
            let style = match (sel, active) {
                (true, true) => theme.selected(),
                (true, false) => theme.title(),
                _ => theme.plain(),
            };
            let name = if p.title.is_empty() {
                &p.name
            } else {
                &p.title
            };
            let name: String = name.chars().take(w.saturating_sub(2)).collect();
            let args = match p.arguments.len() {
                0 => String::new(),
                1 => "  1 argument".into(),
                n => format!("  {n} arguments"),
            };
            Line::from(vec![
                Span::styled(if sel { "▸ " } else { "  " }, style),
                Span::styled(name, style),
                Span::styled(args, theme.dim()),
            ])
        })
        .collect();
    let (hh, top) = list_lines(t, area);
    f.render_widget(Paragraph::new(head), Rect { height: hh, ..area });
    let h = (area.height - hh) as usize;
    let shown: Vec<Line> = rows.into_iter().skip(top).take(h).collect();
    let rest = Rect {
        y: area.y + hh,
        height: area.height - hh,
        ..area
    };
    f.render_widget(Paragraph::new(shown), rest);
}

fn detail(t: &Prompts, ctx: &Ctx, f: &mut Frame, area: Rect, theme: Theme) {
    let w = area.width as usize;
    let focused = ctx.focused && t.pane == Pane::Detail;
    let mut lines: Vec<Line> = Vec::new();
    let mut at = 0;
    let shown = match &t.form {
        Some((name, _)) => t.prompts.iter().flatten().find(|p| &p.name == name),
        None => t.selected(),
    };
    match shown {
        Some(p) => {
            let name = if p.title.is_empty() {
                p.name.clone()
            } else {
                format!("{} ({})", p.title, p.name)
            };
            lines.push(Line::styled(name, theme.title()));
            lines.extend(wrap(&p.description, w, 6).into_iter().map(Line::raw));
        }
        None => lines.push(Line::styled("Pick a prompt.", theme.dim())),
    }
    if let Some((_, form)) = &t.form {
        lines.push(Line::raw(""));
        let (fl, cursor) = form.lines(theme, w, focused && t.editing);
        at = lines.len() + cursor;
        lines.extend(fl);
        let hint = match (t.editing, form.fields.is_empty()) {
            (true, _) => "Enter get · Tab/↓ suggestions · Esc back",
            (false, true) => "Enter get it again · Esc back",
            (false, false) => "Enter / Esc edit the arguments again",
        };
        lines.push(Line::styled(hint, theme.dim()));
    } else if shown.is_some() {
        let n = shown.map_or(0, |p| p.arguments.len());
        lines.push(Line::styled(
            format!("{n} arguments · Enter fill in and get"),
            theme.dim(),
        ));
    }
    if let Some(name) = &t.getting {
        lines.push(Line::styled(format!("Getting {name}…"), theme.dim()));
    }
    if let Some(m) = &t.messages {
        lines.push(Line::raw(""));
        match &m.error {
            Some(e) => lines.push(Line::styled(format!("error: {e}"), theme.error())),
            None => {
                let s = if m.count == 1 { "" } else { "s" };
                let mut head = format!("{} message{s}", m.count);
                if !m.description.is_empty() {
                    head = format!("{head} · {}", m.description);
                }
                lines.push(Line::styled(head, theme.ok()));
            }
        }
    }
    let pager = t
        .messages
        .as_ref()
        .filter(|m| m.error.is_none())
        .map(|m| &m.pager);
    let room = if pager.is_some() {
        area.height.saturating_sub(4)
    } else {
        area.height
    };
    let hh = (lines.len() as u16).min(room);
    let top = window(at, lines.len(), hh as usize);
    let head: Vec<Line> = lines.into_iter().skip(top).take(hh as usize).collect();
    f.render_widget(Paragraph::new(head), Rect { height: hh, ..area });
    if let Some(p) = pager {
        let rest = Rect {
            y: area.y + hh,
            height: area.height - hh,
            ..area
        };
        p.render_lines(f, rest, theme);
    }
}
