//! The Info tab: who the server says it is, what it can do, its instructions, and how the era
//! was decided (the engine's probe, or the era forced by the catalog or the era key).

use super::{Binding, Ctx, Handled, Tab, TabId, text};
use crate::msg::{Done, Effect, Route};
use crate::widgets::pager::Pager;
use crate::widgets::style::Theme;
use crate::widgets::wrap;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;

/// The Info tab's state.
#[derive(Debug, Default)]
pub struct Info {
    /// The engine's `ServerInfo` plus what we declared, once asked.
    info: Option<Value>,
    /// Why it could not be read.
    error: Option<String>,
    /// The whole info, scrolled.
    pager: Pager,
}

const KEYS: &[Binding] = &[
    Binding {
        keys: "↑↓ PgUp PgDn",
        what: "scroll",
    },
    Binding {
        keys: "y",
        what: "copy as JSON",
    },
];

impl Info {
    fn lines(&self, ctx: &Ctx, theme: Theme) -> Vec<Line<'static>> {
        let row = ctx.server;
        let mut out = vec![
            field("Server", row.name.clone(), theme),
            field(
                "Transport",
                format!("{} {}", row.transport, row.target),
                theme,
            ),
            field("Status", row.status.clone(), theme),
        ];
        if let Some(e) = &row.error {
            out.push(Line::styled(format!("  error: {e}"), theme.error()));
        }
        let Some(info) = &self.info else {
            if let Some(e) = &self.error {
                out.push(Line::styled(e.clone(), theme.error()));
            }
            return out;
        };
        let si = info.get("serverInfo").cloned().unwrap_or(Value::Null);
        out.push(field(
            "Name",
            format!("{} {}", text(&si, "name"), text(&si, "version")),
            theme,
        ));
        if !text(&si, "title").is_empty() {
            out.push(field("Title", text(&si, "title").to_string(), theme));
        }
        out.push(field(
            "Era",
            format!(
                "{} (asked: {}; protocol version {})",
                row.era.as_deref().unwrap_or("-"),
                row.era_choice,
                row.protocol_version.as_deref().unwrap_or("-")
            ),
            theme,
        ));
        if let Some(how) = info.get("eraDecision").or_else(|| info.get("probe")) {
            out.push(field("Era decided", compact(how), theme));
        }
        out.push(field(
            "Connection",
            text(info, "connectionKind").to_string(),
            theme,
        ));
        let caps = info.get("capabilities").cloned().unwrap_or(Value::Null);
        let names: Vec<String> = caps
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        out.push(field("Capabilities", names.join(", "), theme));
        if let Some(i) = info.get("instructions").and_then(Value::as_str) {
            out.push(Line::styled("Instructions", theme.title()));
            for l in i.lines().take(200) {
                out.push(Line::raw(format!("  {l}")));
            }
        }
        out.push(Line::raw(""));
        out.push(Line::styled("The whole server info:", theme.dim()));
        out
    }
}

fn field(name: &str, value: String, theme: Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{name:<13}"), theme.title()),
        Span::raw(value),
    ])
}

fn compact(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Tab for Info {
    fn entered(&mut self, ctx: &Ctx) -> Vec<Effect> {
        if !ctx.server.connected() {
            return Vec::new();
        }
        vec![Effect::ServerInfo {
            route: Route::new(&ctx.server.name, TabId::Info, "info", ""),
        }]
    }

    fn done(&mut self, _ctx: &Ctx, done: Done) -> Vec<Effect> {
        match done.result {
            Ok(v) => {
                self.pager = Pager::new("server info", &v.to_string());
                self.info = Some(v);
                self.error = None;
            }
            Err(f) => self.error = Some(format!("cannot read the server info: {}", f.message)),
        }
        Vec::new()
    }

    fn reset(&mut self) {
        *self = Info::default();
    }

    fn key(&mut self, _ctx: &Ctx, key: KeyEvent) -> Handled {
        if key.code == KeyCode::Char('y') && self.info.is_some() {
            return Handled::Yes(vec![Effect::Copy(self.pager.text())]);
        }
        if self.pager.key(key, 10) {
            return Handled::done();
        }
        Handled::No
    }

    fn scroll(&mut self, _ctx: &Ctx, down: bool) -> Vec<Effect> {
        let code = if down { KeyCode::Down } else { KeyCode::Up };
        self.pager.key(
            KeyEvent::new(code, crossterm::event::KeyModifiers::NONE),
            10,
        );
        Vec::new()
    }

    fn bindings(&self) -> &'static [Binding] {
        KEYS
    }

    fn render(&self, ctx: &Ctx, f: &mut Frame, area: Rect) {
        let theme = Theme::new(ctx.color);
        // The head wraps: an error, the era's decision or a target longer than the tab is read
        // whole.
        let width = area.width as usize;
        if !ctx.server.connected() && self.info.is_none() {
            let mut lines = self.lines(ctx, theme);
            lines.push(Line::raw(""));
            lines.push(Line::styled(crate::strings::NOT_CONNECTED, theme.dim()));
            f.render_widget(Paragraph::new(wrap::wrap_lines(&lines, width)), area);
            return;
        }
        let head = wrap::wrap_lines(&self.lines(ctx, theme), width);
        let h = (head.len() as u16).min(area.height);
        f.render_widget(Paragraph::new(head), Rect { height: h, ..area });
        let rest = Rect {
            y: area.y + h,
            height: area.height - h,
            ..area
        };
        self.pager.render_lines(f, rest, theme);
    }
}
