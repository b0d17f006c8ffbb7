//! Drawing the Resources tab: the list (Resources, then Templates, each row with its
//! subscribed `●` and updated `↻` marks) beside the detail (the template form, the read, or
//! what the selected row is); on a narrow screen one half at a time.

use super::{Item, Pane, Resources};
use crate::tabs::Ctx;
use crate::widgets::completion::{clock, window, wrap};
use crate::widgets::list::stay;
use crate::widgets::style::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// Below this width the list and the detail take turns.
pub(super) const SPLIT_WIDTH: u16 = 90;

/// Draw the tab into `area`.
pub(super) fn render(t: &Resources, ctx: &Ctx, f: &mut Frame, area: Rect) {
    let theme = Theme::new(ctx.color);
    if !ctx.server.connected() && t.resources.is_none() {
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

/// The marks of `uri`: subscribed, updated (with its time).
fn marks(t: &Resources, uri: &str) -> (bool, Option<u64>) {
    (t.subscribed.contains(uri), t.updated.get(uri).copied())
}

/// The list's width beside the detail.
fn list_width(area: Rect) -> u16 {
    (area.width * 2 / 5).max(30)
}

/// Where the list is drawn in the tab's `area` (`None`: the detail has a narrow screen).
pub(super) fn list_area(t: &Resources, area: Rect) -> Option<Rect> {
    if area.width >= SPLIT_WIDTH {
        return Some(Rect {
            width: list_width(area),
            ..area
        });
    }
    (t.pane == Pane::List).then_some(area)
}

/// The lines over the list: the search, a stale list, the lists' errors.
fn head(t: &Resources, theme: Theme, w: usize) -> Vec<Line<'static>> {
    let mut head: Vec<Line> = Vec::new();
    head.extend(t.search.line(theme, w));
    if t.list_changed {
        head.push(Line::styled("The list changed: f reloads", theme.warn()));
    }
    for e in &t.list_errors {
        head.push(Line::styled(super::clean(e, w.max(8) * 2), theme.error()));
    }
    head
}

/// The list as drawn in `area`: the lines over it, then each line's item (`None`: the title of
/// Resources or Templates), and the first of those lines shown. Clicks are placed by it.
pub(super) fn list_lines(t: &Resources, area: Rect) -> (u16, Vec<Option<usize>>, usize) {
    let hh = (head(t, Theme::new(false), area.width as usize).len() as u16).min(area.height);
    let items = t.items();
    let shown_r = items
        .iter()
        .filter(|i| matches!(i, Item::Resource(_)))
        .count();
    let mut map = vec![None];
    for n in 0..items.len() {
        if n == shown_r {
            map.push(None);
        }
        map.push(Some(n));
    }
    if shown_r == items.len() {
        map.push(None);
    }
    let at = map
        .iter()
        .position(|m| *m == Some(t.cursor.selected))
        .unwrap_or(0);
    let h = (area.height - hh) as usize;
    let top = stay(t.click_top, at, map.len(), h).unwrap_or_else(|| window(at, map.len(), h));
    (hh, map, top)
}

fn list(t: &Resources, ctx: &Ctx, f: &mut Frame, area: Rect, theme: Theme) {
    let w = area.width as usize;
    let head = head(t, theme, w);
    let items = t.items();
    let selected = items.get(t.cursor.selected).copied();
    let active = ctx.focused && t.pane == Pane::List && !t.search.typing;
    let count = |n: Option<usize>, shown: usize| match n {
        None => " (loading…)".to_string(),
        Some(n) if n == shown => format!(" ({n})"),
        Some(n) => format!(" ({shown} of {n})"),
    };
    let shown_r = items
        .iter()
        .filter(|i| matches!(i, Item::Resource(_)))
        .count();
    let n_r = t.resources.as_ref().map(Vec::len);
    let n_t = t.templates.as_ref().map(Vec::len);
    let (hh, map, top) = list_lines(t, area);
    f.render_widget(Paragraph::new(head), Rect { height: hh, ..area });
    let h = (area.height - hh) as usize;
    let shown: Vec<Line> = map
        .iter()
        .enumerate()
        .skip(top)
        .take(h)
        .map(|(k, m)| match m {
            None if k == 0 => {
                Line::styled(format!("Resources{}", count(n_r, shown_r)), theme.title())
            }
            None => Line::styled(
                format!("Templates{}", count(n_t, items.len() - shown_r)),
                theme.title(),
            ),
            Some(n) => {
                let item = items[*n];
                row(t, item, Some(item) == selected, active, w, theme)
            }
        })
        .collect();
    let rest = Rect {
        y: area.y + hh,
        height: area.height - hh,
        ..area
    };
    f.render_widget(Paragraph::new(shown), rest);
}

fn row(
    t: &Resources,
    item: Item,
    sel: bool,
    active: bool,
    w: usize,
    theme: Theme,
) -> Line<'static> {
    let (mark, name, rest) = match item {
        Item::Resource(i) => {
            let r = &t.resources.as_ref().expect("listed")[i];
            let (sub, upd) = marks(t, &r.uri);
            let mark = match (sub, upd) {
                (true, Some(_)) => "●↻",
                (false, Some(_)) => " ↻",
                (true, None) => "● ",
                _ => "  ",
            };
            let name = if r.title.is_empty() {
                &r.name
            } else {
                &r.title
            };
            (mark, name.clone(), r.uri.clone())
        }
        Item::Template(i) => {
            let tp = &t.templates.as_ref().expect("listed")[i];
            ("  ", tp.template.clone(), tp.name.clone())
        }
    };
    let style = if sel && active {
        theme.selected()
    } else if sel {
        theme.title()
    } else {
        theme.plain()
    };
    let name: String = name.chars().take(w.saturating_sub(4)).collect();
    let room = w.saturating_sub(name.chars().count() + 6);
    let rest: String = rest.chars().take(room).collect();
    Line::from(vec![
        Span::styled(if sel { "▸" } else { " " }, style),
        Span::styled(format!("{mark} "), theme.ok()),
        Span::styled(name, style),
        Span::raw("  "),
        Span::styled(rest, theme.dim()),
    ])
}

fn detail(t: &Resources, ctx: &Ctx, f: &mut Frame, area: Rect, theme: Theme) {
    let w = area.width as usize;
    let mut lines: Vec<Line> = Vec::new();
    let mut at = 0;
    let focused = ctx.focused && t.pane == Pane::Detail;
    if let Some((template, form)) = &t.form {
        lines.push(Line::styled(format!("Template {template}"), theme.title()));
        let (fl, cursor) = form.lines(theme, w, focused && t.editing);
        at = lines.len() + cursor;
        lines.extend(fl);
        lines.push(Line::from(vec![
            Span::styled("URI: ", theme.dim()),
            Span::raw(t.expanded().unwrap_or_default()),
        ]));
        let hint = if t.editing {
            "Enter read · Tab/↓ suggestions · Esc back"
        } else {
            "Enter edit the form · Esc back to it"
        };
        lines.push(Line::styled(hint, theme.dim()));
        lines.push(Line::raw(""));
    } else if t.read.is_none() && t.reading.is_none() {
        lines.extend(about_selected(t, w, theme));
    }
    if let Some(uri) = &t.reading {
        lines.push(Line::styled(format!("Reading {uri}…"), theme.dim()));
    }
    if let Some(r) = &t.read {
        lines.push(Line::styled(r.uri.clone(), theme.title()));
        lines.extend(sub_line(t, &r.uri, theme));
        if let Some(e) = &r.error {
            lines.push(Line::styled(format!("error: {e}"), theme.error()));
        }
        for h in &r.heads {
            lines.push(Line::styled(h.clone(), theme.dim()));
        }
    }
    if let Some(e) = &t.sub_error {
        lines.push(Line::styled(format!("subscription: {e}"), theme.error()));
    }
    if let Some(input) = &t.save {
        let mut spans = vec![Span::styled("Save to: ", theme.key())];
        spans.extend(input.spans(true, w.saturating_sub(30)).spans);
        spans.push(Span::styled("  Enter save · Esc cancel", theme.dim()));
        lines.push(Line::from(spans));
    }
    draw_detail(t, f, area, lines, at, theme);
}

/// The head lines, then the read's pager in what is left (at least a few lines).
fn draw_detail(
    t: &Resources,
    f: &mut Frame,
    area: Rect,
    lines: Vec<Line>,
    at: usize,
    theme: Theme,
) {
    let pager = t
        .read
        .as_ref()
        .filter(|r| r.error.is_none())
        .map(|r| &r.pager);
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

/// "● subscribed · ↻ updated 12:00:01", when either.
fn sub_line(t: &Resources, uri: &str, theme: Theme) -> Option<Line<'static>> {
    let (sub, upd) = marks(t, uri);
    let mut spans = Vec::new();
    if sub {
        spans.push(Span::styled("● subscribed (u unsubscribes)", theme.ok()));
    }
    if let Some(us) = upd {
        if !spans.is_empty() {
            spans.push(Span::raw(" · "));
        }
        spans.push(Span::styled(
            format!("↻ updated {}", clock(us)),
            theme.warn(),
        ));
    }
    (!spans.is_empty()).then(|| Line::from(spans))
}

fn about_selected(t: &Resources, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let field = |k: &str, v: &str| {
        Line::from(vec![
            Span::styled(format!("{k:<12}"), theme.title()),
            Span::raw(v.to_string()),
        ])
    };
    let mut out = Vec::new();
    match t.selected() {
        Some(Item::Resource(i)) => {
            let r = &t.resources.as_ref().expect("listed")[i];
            out.push(field("Name", &r.name));
            if !r.title.is_empty() {
                out.push(field("Title", &r.title));
            }
            out.push(field("URI", &r.uri));
            out.push(field("MIME type", &r.mime));
            if !r.annotations.is_empty() {
                out.push(field("Annotations", &r.annotations));
            }
            out.extend(wrap(&r.description, width, 6).into_iter().map(Line::raw));
            out.extend(sub_line(t, &r.uri, theme));
            out.push(Line::styled(
                if t.subscribable {
                    "Enter read · b subscribe · u unsubscribe"
                } else {
                    "Enter read (no subscribe: the server does not declare resources.subscribe)"
                },
                theme.dim(),
            ));
        }
        Some(Item::Template(i)) => {
            let tp = &t.templates.as_ref().expect("listed")[i];
            out.push(field("Template", &tp.template));
            out.push(field("Name", &tp.name));
            out.push(field("MIME type", &tp.mime));
            out.extend(wrap(&tp.description, width, 6).into_iter().map(Line::raw));
            out.push(Line::styled(
                "Enter fill in its variables and read",
                theme.dim(),
            ));
        }
        None => out.push(Line::styled("Pick a resource or a template.", theme.dim())),
    }
    out
}
