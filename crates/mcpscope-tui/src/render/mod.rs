//! Drawing: pure functions of `&AppState` into a frame. The screen is a header line (the selected
//! server, its status and era, questions waiting), the tab bar, the server list beside the open
//! tab, and a footer (keys, or the last toast). [`layout`] is shared with the reducer, which
//! needs it to place mouse clicks.

mod help;
mod servers;

pub(crate) use servers::{error_cut, error_rows};

use crate::modals::Modal;
use crate::state::{AppState, Focus};
use crate::tabs::{Ctx, TabId};
use crate::widgets::style::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// Where each part of the screen goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    /// The header line.
    pub header: Rect,
    /// The tab bar.
    pub tabs: Rect,
    /// The server list (with its border).
    pub servers: Rect,
    /// The open tab (inside its border).
    pub body: Rect,
    /// The footer line.
    pub footer: Rect,
    /// Where a modal is drawn.
    pub modal: Rect,
}

/// The areas of a screen of `size` (columns, rows).
pub fn layout(size: (u16, u16)) -> Areas {
    layout_zoomed(size, false)
}

/// Where each part of `s`'s screen goes now (the server list hidden when zoomed).
pub fn areas(s: &AppState) -> Areas {
    layout_zoomed(s.size, s.zoomed)
}

/// The areas of a screen of `size`; `zoomed`: the server list hidden, the tab the whole width.
pub fn layout_zoomed(size: (u16, u16), zoomed: bool) -> Areas {
    let (w, h) = (size.0.max(20), size.1.max(8));
    let list_w = if zoomed {
        0
    } else if w >= 140 {
        32
    } else if w >= 100 {
        26
    } else {
        20
    };
    let middle_h = h.saturating_sub(3);
    let body_outer = Rect::new(list_w, 2, w - list_w, middle_h);
    let mw = (w * 9 / 10).max(20).min(w);
    let mh = (h * 8 / 10).max(6).min(h);
    Areas {
        header: Rect::new(0, 0, w, 1),
        tabs: Rect::new(0, 1, w, 1),
        servers: Rect::new(0, 2, list_w, middle_h),
        body: Rect::new(
            body_outer.x + 1,
            body_outer.y + 1,
            body_outer.width.saturating_sub(2),
            body_outer.height.saturating_sub(2),
        ),
        footer: Rect::new(0, h - 1, w, 1),
        modal: Rect::new((w - mw) / 2, (h - mh) / 2, mw, mh),
    }
}

/// The server list's inner width (its rows wrap to it).
pub(crate) fn list_inner_width(s: &AppState) -> usize {
    areas(s).servers.width.saturating_sub(2) as usize
}

/// What each tab lists (its label's count: `13`, or `100+` when more exist), in tab-bar
/// order: the selected server's.
pub type Counts = [Option<String>; TabId::ALL.len()];

/// The counts of the selected server's tabs.
pub fn tab_counts(s: &AppState) -> Counts {
    let tabs = s.current().and_then(|r| s.tabs.get(&r.name));
    TabId::ALL.map(|t| {
        let tab = tabs?.get(t);
        let n = tab.count()?;
        Some(if tab.count_partial() {
            format!("{n}+")
        } else {
            n.to_string()
        })
    })
}

/// The tab bar's titles for a screen `width` wide, each with its count (`Tools 13`): whole
/// words when they fit, else short ones; when even those do not fit (80 columns, long lists),
/// only the open tab keeps its count.
pub fn tab_titles(width: u16, counts: &Counts, open: TabId) -> Vec<(TabId, String)> {
    let with_count = |i: usize, title: &str| match &counts[i] {
        Some(n) => format!("{title} {n}"),
        None => title.to_string(),
    };
    let need = |titles: &[(TabId, String)]| -> usize {
        titles
            .iter()
            .map(|(_, t)| t.chars().count() + 2)
            .sum::<usize>()
            + 1
    };
    let long: Vec<(TabId, String)> = TabId::ALL
        .iter()
        .enumerate()
        .map(|(i, t)| (*t, with_count(i, t.title())))
        .collect();
    if need(&long) <= width as usize {
        return long;
    }
    let short = |i: usize, t: TabId, counted: bool| {
        let title = match t {
            TabId::Resources => "Res",
            TabId::Subscriptions => "Subs",
            TabId::Protocol => "Proto",
            TabId::Network => "Net",
            TabId::Console => "Cons",
            TabId::History => "Hist",
            TabId::Prompts => "Prom",
            other => other.title(),
        };
        (
            t,
            if counted {
                with_count(i, title)
            } else {
                title.to_string()
            },
        )
    };
    let counted: Vec<(TabId, String)> = TabId::ALL
        .iter()
        .enumerate()
        .map(|(i, t)| short(i, *t, true))
        .collect();
    if need(&counted) <= width as usize {
        return counted;
    }
    TabId::ALL
        .iter()
        .enumerate()
        .map(|(i, t)| short(i, *t, *t == open))
        .collect()
}

/// Where each tab's title sits on the tab bar (start column, width), for clicks.
pub fn tab_spans(width: u16, counts: &Counts, open: TabId) -> Vec<(TabId, u16, u16)> {
    let mut x = 1u16;
    tab_titles(width, counts, open)
        .into_iter()
        .map(|(t, title)| {
            let w = title.chars().count() as u16 + 2;
            let out = (t, x, w);
            x += w;
            out
        })
        .collect()
}

/// Draw the whole screen.
pub fn render(s: &AppState, f: &mut Frame) {
    let areas = areas(s);
    let theme = Theme::new(s.color);
    header(s, f, areas.header, theme);
    tab_bar(s, f, areas.tabs, theme);
    if !s.zoomed {
        servers::render(s, f, areas.servers, theme);
    }
    body(s, f, areas, theme);
    footer(s, f, areas.footer, theme);
    match &s.modal {
        None => {}
        Some(Modal::Help { top }) => help::render(s, *top, f, areas.modal, theme),
        Some(Modal::Quit) => help::quit(s, f, areas.modal, theme),
        Some(Modal::Pager(p)) => p.render_modal(f, areas.modal, theme),
        Some(Modal::Interaction(d)) => d.render(f, areas.modal, theme, s.now_us, &s.interactions),
    }
}

fn header(s: &AppState, f: &mut Frame, area: Rect, theme: Theme) {
    let mut spans = vec![Span::styled(" mcpscope ", theme.title())];
    if let Some(row) = s.current() {
        spans.push(Span::raw(format!("│ {} ", row.name)));
        spans.push(servers::status_span(row, theme));
        if let Some(v) = row.protocol_version.as_ref().or(row.era.as_ref()) {
            spans.push(Span::raw(format!(" {v}")));
        }
        spans.push(Span::styled(
            format!(" (era: {})", row.era_choice),
            theme.dim(),
        ));
        if let Some(ms) = row.latency_ms {
            spans.push(Span::styled(format!(" · {ms} ms"), theme.dim()));
        }
    }
    if !s.interactions.is_empty() {
        spans.push(Span::styled(
            format!(
                "  ! {} question{} waiting",
                s.interactions.len(),
                if s.interactions.len() == 1 { "" } else { "s" }
            ),
            theme.warn(),
        ));
    }
    if s.running > 0 {
        spans.push(Span::styled(
            format!("  ⟳ {} running", s.running),
            theme.dim(),
        ));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn tab_bar(s: &AppState, f: &mut Frame, area: Rect, theme: Theme) {
    let mut spans = vec![Span::raw(" ")];
    for (t, title) in tab_titles(area.width, &tab_counts(s), s.tab) {
        let style = if t == s.tab {
            theme.selected()
        } else {
            theme.plain()
        };
        let mut chars = title.chars();
        let first = chars.next().map(String::from).unwrap_or_default();
        // The key letter is underlined where it is the title's first letter; else shown before.
        if first.to_ascii_lowercase() == t.key().to_string() {
            spans.push(Span::styled(" ", style));
            spans.push(Span::styled(
                first,
                style
                    .patch(theme.key())
                    .add_modifier(ratatui::style::Modifier::UNDERLINED),
            ));
            spans.push(Span::styled(format!("{} ", chars.as_str()), style));
        } else {
            spans.push(Span::styled(format!(" {title} "), style));
        }
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn body(s: &AppState, f: &mut Frame, areas: Areas, theme: Theme) {
    let outer = Rect::new(
        areas.body.x - 1,
        areas.body.y - 1,
        areas.body.width + 2,
        areas.body.height + 2,
    );
    let focused = s.focus == Focus::Tab && s.modal.is_none();
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { theme.title() } else { theme.dim() })
        .title(Line::styled(format!(" {} ", s.tab.title()), theme.title()));
    f.render_widget(block, outer);
    let (Some(row), Some(tabs)) = (s.current(), s.current().and_then(|r| s.tabs.get(&r.name)))
    else {
        f.render_widget(
            Paragraph::new(crate::strings::NO_SERVERS).style(theme.dim()),
            areas.body,
        );
        return;
    };
    let ctx = Ctx {
        server: row,
        now_us: s.now_us,
        color: s.color,
        focused,
        area: areas.body,
    };
    tabs.get(s.tab).render(&ctx, f, areas.body);
}

fn footer(s: &AppState, f: &mut Frame, area: Rect, theme: Theme) {
    if let Some(t) = &s.toast {
        let style = if t.error { theme.error() } else { theme.ok() };
        f.render_widget(
            Paragraph::new(Line::styled(format!(" {}", t.text), style)),
            area,
        );
        return;
    }
    let tab = s
        .current()
        .and_then(|r| s.tabs.get(&r.name))
        .map(|t| t.get(s.tab));
    let (tab_keys, typing) = match (s.focus, tab) {
        (Focus::Tab, Some(t)) => (t.bindings(), t.captures()),
        _ => (&[][..], false),
    };
    // Where the keys go, first: the tab (its name) or the server list.
    let owner = match s.focus {
        Focus::Tab => s.tab.title(),
        Focus::Servers => "Servers",
    };
    let mut spans = vec![Span::styled(format!(" {owner} │ "), theme.title())];
    if s.focus == Focus::Servers {
        spans.push(Span::styled("↑↓ Enter", theme.key()));
        spans.push(Span::raw(" open  "));
        if s.current()
            .is_some_and(|r| error_cut(r, list_inner_width(s)))
        {
            spans.push(Span::styled("i", theme.key()));
            spans.push(Span::raw(" the whole error  "));
        }
    }
    let connected = s
        .current()
        .is_some_and(|r| r.connected() || r.status == "connecting");
    // While a text field has the keyboard, `c`, `?` and `q` are typed into it.
    let app_keys: &[(&str, &str)] = match (typing, connected) {
        (true, _) => &[("Ctrl-C", "quit")],
        (false, true) => &[("c", "disconnect"), ("?", "help"), ("q", "quit")],
        (false, false) => &[("c", "connect"), ("?", "help"), ("q", "quit")],
    };
    for b in tab_keys.iter().take(5) {
        spans.push(Span::styled(b.keys, theme.key()));
        spans.push(Span::raw(format!(" {}  ", b.what)));
    }
    for (k, w) in app_keys {
        spans.push(Span::styled(*k, theme.key()));
        spans.push(Span::raw(format!(" {w}  ")));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}
