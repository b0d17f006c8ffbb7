//! The Subscriptions tab: the core's Subscriptions panel of this server
//! (`Inspector::subscriptions`, and whole again in every `subscriptions` event): on the modern
//! era the `subscriptions/listen` stream — its status, subscription id, what it asked for and
//! what the server honours, why it closed — with the filter to listen for (toggled here: a new
//! filter is a new listen), Listen again and Cancel stream; on both eras the URIs watched or
//! subscribed and their updates; the transitions (bounded by the core, newest first) and the
//! notifications rejected.

use super::history::{clock, cut};
use super::{Binding, Ctx, Handled, Tab, TabId, text};
use crate::msg::{CoreEvent, Done, Effect, Job, Route};
use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent};
use mcpscope_inspect::Error;
use mcpscope_inspect::subscriptions::Filter;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;

/// URIs kept of a view (the core keeps more; a screen shows fewer).
const MAX_URIS: usize = 500;
/// Characters kept of a URI, a message.
const TEXT_CHARS: usize = 300;

/// The Subscriptions tab's state.
#[derive(Debug, Default)]
pub struct Subscriptions {
    /// The panel as the core last sent it (`SubscriptionsView`), its URIs bounded.
    view: Option<Value>,
    /// The first line drawn.
    top: usize,
    /// What the last request said went wrong.
    error: Option<String>,
}

const KEYS: &[Binding] = &[
    Binding {
        keys: "↑↓ PgUp PgDn",
        what: "scroll",
    },
    Binding {
        keys: "T P R",
        what: "listen for tools / prompts / resources list_changed (a new listen)",
    },
    Binding {
        keys: "u",
        what: "listen again",
    },
    Binding {
        keys: "x",
        what: "cancel the stream",
    },
];

fn json(v: serde_json::Result<Value>) -> Result<Value, Error> {
    v.map_err(|e| Error::internal(e.to_string()))
}

/// An `Effect::Run` answered with the panel.
fn run<F, Fut>(ctx: &Ctx, tag: &'static str, f: F) -> Effect
where
    F: Fn(std::sync::Arc<mcpscope_inspect::Inspector>, String) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<Value, Error>> + Send + 'static,
{
    let server = ctx.server.name.clone();
    Effect::Run {
        route: Route::new(&ctx.server.name, TabId::Subscriptions, tag, ""),
        job: Job::new(move |i| f(i, server.clone())),
    }
}

/// The view with its URIs bounded (a server names them).
fn bounded(mut v: Value) -> Value {
    if let Some(uris) = v.get_mut("uris").and_then(Value::as_array_mut) {
        let over = uris.len().saturating_sub(MAX_URIS);
        uris.truncate(MAX_URIS);
        for u in uris.iter_mut() {
            if let Some(s) = u.get("uri").and_then(Value::as_str) {
                u["uri"] = Value::String(cut(s, TEXT_CHARS));
            }
        }
        let omitted = v["urisOmitted"].as_u64().unwrap_or(0) + over as u64;
        v["urisOmitted"] = omitted.into();
    }
    v
}

/// Which list-changed kinds a filter names, in words.
fn kinds(f: &Value) -> String {
    let names: Vec<&str> = [
        ("toolsListChanged", "tools"),
        ("promptsListChanged", "prompts"),
        ("resourcesListChanged", "resources"),
    ]
    .iter()
    .filter(|(k, _)| f[*k] == true)
    .map(|(_, n)| *n)
    .collect();
    let uris = f["resourceSubscriptions"].as_array().map_or(0, Vec::len);
    let mut s = if names.is_empty() {
        "no list changes".to_string()
    } else {
        format!("{} list changes", names.join(", "))
    };
    if uris > 0 {
        s.push_str(&format!(", updates of {uris} URIs"));
    }
    s
}

fn status_word(s: &str) -> &str {
    match s {
        "opening" => "opening",
        "active" => "active",
        "closedByServer" => "closed by the server",
        "connectionLost" => "connection lost",
        "cancelledLocally" => "cancelled here",
        "error" => "error",
        other => other,
    }
}

impl Subscriptions {
    /// The panel as last read.
    pub fn view(&self) -> Option<&Value> {
        self.view.as_ref()
    }

    /// The desired filter with `key` flipped, as a listen filter.
    fn toggled(&self, key: &str) -> Option<Filter> {
        let mut desired = self.view.as_ref()?.get("desired")?.clone();
        let now = desired[key] == true;
        desired[key] = Value::Bool(!now);
        serde_json::from_value(desired).ok()
    }

    /// Keep the scroll inside the lines.
    fn clamp(&mut self, ctx: &Ctx) {
        let n = self.lines(ctx, Theme::new(false)).len();
        self.top = self.top.min(n.saturating_sub(1));
    }

    fn stream_lines(&self, v: &Value, theme: Theme, out: &mut Vec<Line<'static>>) {
        out.push(Line::from(vec![
            Span::styled("Listening for  ", theme.title()),
            Span::raw(kinds(&v["desired"])),
            Span::styled("   (T P R toggle · u listen again · x cancel)", theme.dim()),
        ]));
        let s = &v["stream"];
        if s.is_null() {
            out.push(Line::styled("No stream yet.", theme.dim()));
            return;
        }
        let status = text(s, "status");
        let style = match status {
            "active" => theme.ok(),
            "opening" => theme.warn(),
            "error" | "connectionLost" => theme.error(),
            _ => theme.dim(),
        };
        let id = match &s["subscriptionId"] {
            Value::Null => "-".to_string(),
            other => cut(&other.to_string(), 60),
        };
        out.push(Line::from(vec![
            Span::styled(format!("Stream #{}  ", s["number"]), theme.title()),
            Span::styled(status_word(status).to_string(), style),
            Span::raw(format!(
                " · subscription id {id} ({}) · {} notifications · opened {}",
                if text(s, "idSource").is_empty() {
                    "not known yet"
                } else {
                    text(s, "idSource")
                },
                s["notifications"],
                clock(s["openedUs"].as_u64().unwrap_or(0)),
            )),
        ]));
        let ack = match &s["acknowledged"] {
            Value::Null => "not yet".to_string(),
            a => kinds(a),
        };
        out.push(Line::raw(format!(
            "  asked: {} · acknowledged: {ack}",
            kinds(&s["requested"])
        )));
        if let Some(n) = s["notHonoured"].as_array().filter(|n| !n.is_empty()) {
            let n: Vec<String> = n
                .iter()
                .take(20)
                .map(|x| cut(x.as_str().unwrap_or("?"), 80))
                .collect();
            out.push(Line::styled(
                format!("  not honoured: {}", n.join(", ")),
                theme.warn(),
            ));
        }
        if !text(s, "closeReason").is_empty() {
            let at = s["closedUs"]
                .as_u64()
                .map(|t| format!(" {}", clock(t)))
                .unwrap_or_default();
            out.push(Line::raw(format!(
                "  closed{at}: {}",
                cut(text(s, "closeReason"), TEXT_CHARS)
            )));
        }
        if v["relistens"].as_u64().unwrap_or(0) > 0 {
            out.push(Line::styled(
                format!("  {} listens after the first", v["relistens"]),
                theme.dim(),
            ));
        }
    }

    fn lines(&self, ctx: &Ctx, theme: Theme) -> Vec<Line<'static>> {
        let Some(v) = &self.view else {
            let s = if ctx.server.connected() {
                "Reading…"
            } else {
                crate::strings::NOT_CONNECTED
            };
            return vec![Line::styled(s, theme.dim())];
        };
        let era = text(v, "era");
        let mut out = vec![Line::styled(
            format!(
                "Subscriptions of {} · era {} · {} updates · {} rejected",
                ctx.server.name,
                if era.is_empty() { "-" } else { era },
                v["updates"],
                v["rejected"]
            ),
            theme.title(),
        )];
        if let Some(e) = &self.error {
            out.push(Line::styled(cut(e, TEXT_CHARS), theme.error()));
        }
        match era {
            "modern" => self.stream_lines(v, theme, &mut out),
            "legacy" => out.push(Line::styled(
                "2025-11-25: resources/subscribe per URI (subscribe from the Resources tab).",
                theme.dim(),
            )),
            _ => out.push(Line::styled(crate::strings::NOT_CONNECTED, theme.dim())),
        }
        uri_lines(v, theme, &mut out);
        transition_lines(v, theme, &mut out);
        out
    }
}

fn uri_lines(v: &Value, theme: Theme, out: &mut Vec<Line<'static>>) {
    let uris = v["uris"].as_array().cloned().unwrap_or_default();
    out.push(Line::raw(""));
    out.push(Line::styled(
        format!("URIs ({})", uris.len()),
        theme.title(),
    ));
    for u in &uris {
        let mut s = format!(
            "  {} {}",
            if u["subscribed"] == true {
                "●"
            } else {
                "○"
            },
            text(u, "uri")
        );
        if !text(u, "pending").is_empty() {
            s.push_str(&format!(" · {}", text(u, "pending")));
        }
        let n = u["updates"].as_u64().unwrap_or(0);
        if n > 0 {
            s.push_str(&format!(" · {n} updates"));
            if let Some(t) = u["lastUpdatedUs"].as_u64() {
                s.push_str(&format!(", last {}", clock(t)));
            }
        }
        if u["updated"] == true {
            s.push_str(" · new");
        }
        out.push(Line::raw(s));
        if !text(u, "error").is_empty() {
            out.push(Line::styled(
                format!("      {}", cut(text(u, "error"), TEXT_CHARS)),
                theme.error(),
            ));
        }
    }
    let omitted = v["urisOmitted"].as_u64().unwrap_or(0);
    if omitted > 0 {
        out.push(Line::styled(
            format!("  … and updates for {omitted} more not kept"),
            theme.dim(),
        ));
    }
}

fn transition_lines(v: &Value, theme: Theme, out: &mut Vec<Line<'static>>) {
    let history = v["history"].as_array().cloned().unwrap_or_default();
    out.push(Line::raw(""));
    out.push(Line::styled(
        format!("Transitions ({}, newest first)", history.len()),
        theme.title(),
    ));
    for t in history.iter().rev() {
        let kind = text(t, "kind");
        let style = match kind {
            "rejected" | "error" => theme.error(),
            "connectionLost" => theme.warn(),
            _ => theme.plain(),
        };
        let mut s = cut(text(t, "message"), TEXT_CHARS);
        if !text(t, "uri").is_empty() {
            s.push_str(&format!(" ({})", cut(text(t, "uri"), 120)));
        }
        out.push(Line::from(vec![
            Span::styled(
                format!("  {} ", clock(t["timeUs"].as_u64().unwrap_or(0))),
                theme.dim(),
            ),
            Span::styled(format!("{kind:<16} "), style),
            Span::raw(s),
        ]));
    }
    let omitted = v["historyOmitted"].as_u64().unwrap_or(0);
    if omitted > 0 {
        out.push(Line::styled(
            format!("  … {omitted} older not kept"),
            theme.dim(),
        ));
    }
}

impl Tab for Subscriptions {
    fn entered(&mut self, ctx: &Ctx) -> Vec<Effect> {
        vec![run(ctx, "view", |i, s| async move {
            json(serde_json::to_value(i.subscriptions(&s)))
        })]
    }

    fn key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        let flag = match key.code {
            KeyCode::Char('T') => Some("toolsListChanged"),
            KeyCode::Char('P') => Some("promptsListChanged"),
            KeyCode::Char('R') => Some("resourcesListChanged"),
            _ => None,
        };
        if let Some(flag) = flag {
            let Some(filter) = self.toggled(flag) else {
                return Handled::done();
            };
            return Handled::Yes(vec![run(ctx, "filter", move |i, s| {
                let filter = filter.clone();
                async move {
                    json(serde_json::to_value(
                        i.set_subscription_filter(&s, filter).await?,
                    ))
                }
            })]);
        }
        let e = match key.code {
            KeyCode::Char('u') => run(ctx, "listen", |i, s| async move {
                json(serde_json::to_value(i.listen_again(&s).await?))
            }),
            KeyCode::Char('x') => run(ctx, "cancel", |i, s| async move {
                json(serde_json::to_value(i.cancel_subscription_stream(&s)?))
            }),
            KeyCode::Up => {
                self.top = self.top.saturating_sub(1);
                self.clamp(ctx);
                return Handled::done();
            }
            KeyCode::Down => {
                self.top += 1;
                self.clamp(ctx);
                return Handled::done();
            }
            KeyCode::PageUp => {
                self.top = self.top.saturating_sub(10);
                self.clamp(ctx);
                return Handled::done();
            }
            KeyCode::PageDown | KeyCode::Char(' ') => {
                self.top += 10;
                self.clamp(ctx);
                return Handled::done();
            }
            KeyCode::Home => {
                self.top = 0;
                return Handled::done();
            }
            _ => return Handled::No,
        };
        Handled::Yes(vec![e])
    }

    fn scroll(&mut self, _ctx: &Ctx, down: bool) -> Vec<Effect> {
        self.top = if down {
            self.top + 1
        } else {
            self.top.saturating_sub(1)
        };
        Vec::new()
    }

    fn core(&mut self, _ctx: &Ctx, event: &CoreEvent) -> Vec<Effect> {
        if event.name == "subscriptions" {
            self.view = Some(bounded(event.data.clone()));
        }
        Vec::new()
    }

    fn done(&mut self, _ctx: &Ctx, done: Done) -> Vec<Effect> {
        match done.result {
            Ok(v) => {
                self.error = None;
                if v.get("server").is_some() {
                    self.view = Some(bounded(v));
                }
            }
            Err(f) => self.error = Some(format!("{}: {}", done.route.tag, f.message)),
        }
        Vec::new()
    }

    fn reset(&mut self) {
        self.top = 0;
    }

    fn bindings(&self) -> &'static [Binding] {
        KEYS
    }

    fn render(&self, ctx: &Ctx, f: &mut Frame, area: Rect) {
        let theme = Theme::new(ctx.color);
        let lines = self.lines(ctx, theme);
        let last = lines.len().saturating_sub(area.height as usize);
        let top = self.top.min(last);
        let shown: Vec<Line> = lines
            .into_iter()
            .skip(top)
            .take(area.height as usize)
            .collect();
        f.render_widget(Paragraph::new(shown), area);
    }
}
