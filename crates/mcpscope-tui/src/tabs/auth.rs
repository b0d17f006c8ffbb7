//! The Auth tab: the OAuth state of this server as the core reports it (`Inspector::auth_view`,
//! and every `auth` event): none / authorizing / authorized / failed, the login waiting for a
//! person (its authorization URL always shown in full, opened in a browser and copied with
//! OSC 52 the moment it appears — an SSH user opens it on their own machine), what discovery
//! found (the authorization server and its metadata, the protected resource metadata, the
//! resource, the client and how it was registered), the granted scopes and the token's expiry,
//! the stored grant, the secret store, the callback URL. Re-authorize, Forget and Cancel login
//! are the core's (`reauthorize`, `forget_auth`, `cancel_login`).

use super::history::cut;
use super::{Binding, Ctx, Handled, Tab, TabId, text};
use crate::msg::{CoreEvent, Done, Effect, Job, Route};
use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent};
use mcpscope_inspect::Error;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;

/// Characters kept of the authorization URL (a real one is well under this).
const URL_CHARS: usize = 16_384;
/// Characters drawn of a field.
const FIELD_CHARS: usize = 400;

/// The Auth tab's state.
#[derive(Debug, Default)]
pub struct Auth {
    /// The `AuthView` last read or heard.
    view: Option<Value>,
    /// The pending login whose URL was opened and copied (each is opened once).
    opened: Option<String>,
    /// `D` was pressed once: the next `D` forgets.
    confirm_forget: bool,
    /// What the last action said went wrong.
    error: Option<String>,
    /// An action is on its way (its name).
    busy: Option<&'static str>,
    /// The first line drawn.
    top: usize,
}

/// The keys while OAuth does not apply (a stdio server, or one that brings its own
/// Authorization header): nothing to log in to, so no login is offered.
const KEYS_NOT_APPLYING: &[Binding] = &[Binding {
    keys: "↑↓",
    what: "scroll",
}];

/// What a login key says where OAuth does not apply.
const NOT_APPLYING: &str = "OAuth applies only to HTTP servers without their own Authorization header: nothing to log in to";

const KEYS: &[Binding] = &[
    Binding {
        keys: "u",
        what: "re-authorize (log in again)",
    },
    Binding {
        keys: "b",
        what: "open the login URL in a browser",
    },
    Binding {
        keys: "y",
        what: "copy the login URL (OSC 52)",
    },
    Binding {
        keys: "x",
        what: "cancel the waiting login",
    },
    Binding {
        keys: "D D",
        what: "forget the tokens (press twice)",
    },
    Binding {
        keys: "↑↓",
        what: "scroll",
    },
];

fn run<F, Fut>(ctx: &Ctx, tag: &'static str, f: F) -> Effect
where
    F: Fn(std::sync::Arc<mcpscope_inspect::Inspector>, String) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<Value, Error>> + Send + 'static,
{
    let server = ctx.server.name.clone();
    Effect::Run {
        route: Route::new(&ctx.server.name, TabId::Auth, tag, ""),
        job: Job::new(move |i| f(i, server.clone())),
    }
}

/// `secs` (Unix seconds) from `now_us`, in words: `in 5m`, `expired 2h ago`.
pub fn relative(secs: u64, now_us: u64) -> String {
    let now = now_us / 1_000_000;
    let (d, future) = if secs >= now {
        (secs - now, true)
    } else {
        (now - secs, false)
    };
    let span = match d {
        0..60 => format!("{d}s"),
        60..3_600 => format!("{}m", d / 60),
        3_600..86_400 => format!("{}h {}m", d / 3_600, d / 60 % 60),
        _ => format!("{}d", d / 86_400),
    };
    if future {
        format!("in {span}")
    } else {
        format!("expired {span} ago")
    }
}

impl Auth {
    /// The view last read.
    pub fn view(&self) -> Option<&Value> {
        self.view.as_ref()
    }

    /// The authorization URL of the login waiting, if any.
    pub fn login_url(&self) -> Option<&str> {
        self.view
            .as_ref()?
            .pointer("/pending/url")
            .and_then(Value::as_str)
    }

    /// Take a view in; a login seen for the first time is opened and its URL copied.
    fn take(&mut self, mut v: Value) -> Vec<Effect> {
        if let Some(u) = v.pointer("/pending/url").and_then(Value::as_str) {
            let u = cut(u, URL_CHARS);
            v["pending"]["url"] = Value::String(u);
        }
        // An event leaves `stored` out: the grant the store holds is kept until a view says.
        if v.get("stored").is_none()
            && let Some(old) = self.view.as_ref().and_then(|o| o.get("stored"))
        {
            v["stored"] = old.clone();
        }
        self.view = Some(v);
        let pending = self.view.as_ref().and_then(|v| {
            let p = v.get("pending").filter(|p| !p.is_null())?;
            Some((text(p, "id").to_string(), text(p, "url").to_string()))
        });
        match pending {
            Some((id, url)) if self.opened.as_deref() != Some(id.as_str()) && !url.is_empty() => {
                self.opened = Some(id);
                // Copy first: the loop's last word is then the browser's (opened, or why not,
                // with the URL either way).
                vec![Effect::Copy(url.clone()), Effect::OpenUrl(url)]
            }
            _ => Vec::new(),
        }
    }

    /// False once the core said OAuth does not apply to the server (stdio, or its own
    /// Authorization header); true until then.
    fn applies(&self) -> bool {
        self.view.as_ref().is_none_or(|v| v["applies"] == true)
    }

    fn action(&mut self, ctx: &Ctx, code: KeyCode) -> Option<Vec<Effect>> {
        if !self.applies() {
            return matches!(code, KeyCode::Char('u' | 'b' | 'y' | 'x' | 'D')).then(|| {
                vec![Effect::Toast {
                    text: NOT_APPLYING.into(),
                    error: false,
                }]
            });
        }
        let forget_armed = std::mem::take(&mut self.confirm_forget);
        let e = match code {
            KeyCode::Char('u') => {
                self.busy = Some("re-authorize");
                run(ctx, "reauthorize", |i, s| async move {
                    i.reauthorize(&s, Vec::new()).await
                })
            }
            KeyCode::Char('x') if self.login_url().is_some() => run(
                ctx,
                "cancel",
                |i, s| async move { i.cancel_login(&s).await },
            ),
            KeyCode::Char('D') if forget_armed => {
                self.busy = Some("forget");
                run(ctx, "forget", |i, s| async move { i.forget_auth(&s).await })
            }
            KeyCode::Char('D') => {
                self.confirm_forget = true;
                return Some(Vec::new());
            }
            KeyCode::Char('b') => {
                return Some(
                    self.login_url()
                        .map(|u| vec![Effect::OpenUrl(u.into())])
                        .unwrap_or_default(),
                );
            }
            KeyCode::Char('y') => {
                return Some(
                    self.login_url()
                        .map(|u| vec![Effect::Copy(u.into())])
                        .unwrap_or_default(),
                );
            }
            _ => return None,
        };
        Some(vec![e])
    }

    fn lines(&self, ctx: &Ctx, width: usize, theme: Theme) -> Vec<Line<'static>> {
        let Some(v) = &self.view else {
            return vec![Line::styled("Reading…", theme.dim())];
        };
        let state = text(v, "state");
        let mut out = vec![Line::from(vec![
            Span::styled(
                format!("Authorization of {}  ", ctx.server.name),
                theme.title(),
            ),
            Span::styled(
                state.to_string(),
                match state {
                    "authorized" => theme.ok(),
                    "authorizing" => theme.warn(),
                    "failed" => theme.error(),
                    _ => theme.dim(),
                },
            ),
        ])];
        if v["applies"] != true {
            out.push(Line::styled(
                "OAuth does not apply to this server (stdio, or its entry sets its own Authorization header).",
                theme.dim(),
            ));
            return out;
        }
        if let Some(b) = self.busy {
            out.push(Line::styled(format!("{b}…"), theme.warn()));
        }
        if self.confirm_forget {
            out.push(Line::styled(
                "Press D again to forget the tokens (revoked where the server can); any other key keeps them.",
                theme.warn(),
            ));
        }
        if let Some(e) = &self.error {
            wrapped(&cut(e, FIELD_CHARS), width, theme.error(), &mut out);
        }
        pending_lines(v, width, theme, &mut out);
        if !text(v, "error").is_empty() {
            let e = format!(
                "Last authorization failed: {}",
                cut(text(v, "error"), FIELD_CHARS)
            );
            wrapped(&e, width, theme.error(), &mut out);
        }
        summary_lines(v, ctx, theme, &mut out);
        store_lines(v, theme, &mut out);
        out
    }
}

/// `text` over as many lines of `width` as it takes (an error must be read whole).
fn wrapped(text: &str, width: usize, style: ratatui::style::Style, out: &mut Vec<Line<'static>>) {
    let chars: Vec<char> = text.chars().collect();
    for chunk in chars.chunks(width.max(20)) {
        out.push(Line::styled(chunk.iter().collect::<String>(), style));
    }
}

/// The login waiting: what for, and its URL whole, wrapped to the width.
fn pending_lines(v: &Value, width: usize, theme: Theme, out: &mut Vec<Line<'static>>) {
    let p = &v["pending"];
    if p.is_null() {
        return;
    }
    let scopes: Vec<String> = p["scopes"]
        .as_array()
        .into_iter()
        .flatten()
        .take(50)
        .map(|s| cut(s.as_str().unwrap_or(""), 100))
        .collect();
    let waits = format!(
        "A {}login waits for you{}, since {}.",
        if text(p, "reason") == "step-up" {
            "step-up "
        } else {
            ""
        },
        if scopes.is_empty() {
            String::new()
        } else {
            format!(" (scopes {})", scopes.join(" "))
        },
        cut(text(p, "startedAt"), 40)
    );
    // Wrapped: at 80 columns its time (and a long scope list) would be cut.
    wrapped(&waits, width, theme.warn(), out);
    // What discovery found before the first login, when there is no summary yet to say it.
    if v["summary"].is_null() && !text(p, "issuer").is_empty() {
        out.push(row(
            "Authorization server",
            text(p, "issuer").to_string(),
            theme,
        ));
    }
    out.push(Line::styled(
        "Open this URL to log in (b browser · y copy · x cancel):",
        theme.warn(),
    ));
    wrapped(text(p, "url"), width, theme.key(), out);
}

fn row(name: &str, value: String, theme: Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{name:<22}"), theme.title()),
        Span::raw(cut(&value, FIELD_CHARS)),
    ])
}

fn or_dash(s: &str) -> String {
    if s.is_empty() { "—".into() } else { s.into() }
}

/// What the flow established: discovery, client, scopes, the token's expiry.
fn summary_lines(v: &Value, ctx: &Ctx, theme: Theme, out: &mut Vec<Line<'static>>) {
    let s = &v["summary"];
    if s.is_null() {
        let st = &v["stored"];
        if st.is_object() {
            let exp = st["expiresAt"]
                .as_u64()
                .map(|e| format!("access token {}", relative(e, ctx.now_us)))
                .unwrap_or_else(|| "no expiry stated".into());
            out.push(Line::raw(cut(
                &format!(
                    "Stored tokens from {} (profile {}; scope {}; {exp}; {}): sent when the server connects.",
                    text(st, "issuer"),
                    text(st, "profile"),
                    or_dash(text(st, "scope")),
                    if st["refreshToken"] == true { "with a refresh token" } else { "no refresh token" },
                ),
                FIELD_CHARS,
            )));
        } else if v["pending"].is_object() {
            // The login above is how tokens come: "no tokens, it logs in" would say it again
            // as if nothing had started.
        } else if ctx.server.connected() {
            out.push(Line::styled(
                "No tokens: the next request the server refuses starts a login.",
                theme.dim(),
            ));
        } else {
            out.push(Line::styled(
                "No tokens loaded: stored ones are used when the server connects; without any, it logs in.",
                theme.dim(),
            ));
        }
        return;
    }
    out.push(Line::raw(""));
    out.push(row(
        "Authorization server",
        or_dash(text(s, "issuer")),
        theme,
    ));
    out.push(row(
        "  its metadata",
        or_dash(text(s, "authorizationServerMetadata")),
        theme,
    ));
    out.push(row(
        "Resource metadata",
        or_dash(text(s, "protectedResourceMetadata")),
        theme,
    ));
    out.push(row("Resource", or_dash(text(s, "resource")), theme));
    let c = &s["client"];
    let client = if c.is_null() {
        "—".to_string()
    } else {
        format!(
            "{} ({} · token endpoint auth {})",
            text(c, "clientId"),
            text(c, "registration"),
            text(c, "tokenEndpointAuthMethod")
        )
    };
    out.push(row("Client", client, theme));
    let mut scopes = or_dash(text(s, "scope"));
    let asked = text(s, "requestedScope");
    if !asked.is_empty() && asked != text(s, "scope") {
        scopes.push_str(&format!(" (asked for: {asked})"));
    }
    out.push(row("Granted scopes", scopes, theme));
    let exp = s["expiresAt"]
        .as_u64()
        .map(|e| format!("expires {}", relative(e, ctx.now_us)))
        .unwrap_or_else(|| "no expiry given".into());
    out.push(row(
        "Token",
        format!(
            "{} · {exp} · {} · profile {}",
            or_dash(text(s, "tokenType")),
            if s["refreshToken"] == true {
                "refresh token"
            } else {
                "no refresh token"
            },
            text(s, "profile")
        ),
        theme,
    ));
}

fn store_lines(v: &Value, theme: Theme, out: &mut Vec<Line<'static>>) {
    let st = &v["secretStore"];
    let store = if !text(st, "error").is_empty() {
        format!("unavailable: {}", text(st, "error"))
    } else {
        let mut s = text(st, "kind").to_string();
        if !text(st, "location").is_empty() {
            s.push_str(&format!(" at {}", text(st, "location")));
        }
        if !text(st, "reason").is_empty() {
            s.push_str(&format!(" ({})", text(st, "reason")));
        }
        s
    };
    out.push(Line::raw(""));
    out.push(row("Secret store", store, theme));
    out.push(row(
        "Callback URL",
        text(v, "callbackUrl").to_string(),
        theme,
    ));
    out.push(Line::styled(
        "u re-authorize · D D forget · b/y the login URL · x cancel the login",
        theme.dim(),
    ));
}

impl Tab for Auth {
    fn entered(&mut self, ctx: &Ctx) -> Vec<Effect> {
        vec![run(
            ctx,
            "view",
            |i, s| async move { i.auth_view(&s).await },
        )]
    }

    fn key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        if let Some(e) = self.action(ctx, key.code) {
            return Handled::Yes(e);
        }
        match key.code {
            KeyCode::Up => self.top = self.top.saturating_sub(1),
            KeyCode::Down => self.top += 1,
            KeyCode::Home => self.top = 0,
            _ => return Handled::No,
        }
        let width = ctx.area.width as usize;
        let n = crate::widgets::wrap::wrap_lines(&self.lines(ctx, width, Theme::new(false)), width)
            .len();
        self.top = self.top.min(n.saturating_sub(1));
        Handled::done()
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
        match event.name.as_str() {
            "auth" => self.take(event.data.clone()),
            // The launcher's callback listener could not have its port: the login cannot come
            // back here, which the user must know wherever they are.
            "warning" if text(&event.data, "message").starts_with("login callback") => {
                let m = cut(text(&event.data, "message"), FIELD_CHARS);
                self.error = Some(m.clone());
                vec![Effect::Toast {
                    text: m,
                    error: true,
                }]
            }
            _ => Vec::new(),
        }
    }

    fn done(&mut self, _ctx: &Ctx, done: Done) -> Vec<Effect> {
        if done.route.tag != "view" {
            self.busy = None;
        }
        match done.result {
            Ok(v) => {
                self.error = None;
                let toast = match done.route.tag {
                    "reauthorize" => Some("authorized again"),
                    "forget" => Some("tokens forgotten"),
                    "cancel" => Some("login cancelled"),
                    _ => None,
                };
                let mut e = if v.get("server").is_some() {
                    self.take(v)
                } else {
                    Vec::new()
                };
                if let Some(t) = toast {
                    e.push(Effect::Toast {
                        text: t.into(),
                        error: false,
                    });
                }
                e
            }
            Err(f) => {
                self.error = Some(format!("{}: {}", done.route.tag, f.message));
                Vec::new()
            }
        }
    }

    fn bindings(&self) -> &'static [Binding] {
        if self.applies() {
            KEYS
        } else {
            KEYS_NOT_APPLYING
        }
    }

    fn render(&self, ctx: &Ctx, f: &mut Frame, area: Rect) {
        let theme = Theme::new(ctx.color);
        // Every line wraps: a sentence cut at the edge (80 columns leave the tab 56) is lost.
        let width = area.width as usize;
        let lines = crate::widgets::wrap::wrap_lines(&self.lines(ctx, width, theme), width);
        let top = self.top.min(lines.len().saturating_sub(1));
        let shown: Vec<Line> = lines
            .into_iter()
            .skip(top)
            .take(area.height as usize)
            .collect();
        f.render_widget(Paragraph::new(shown), area);
    }
}
