//! URL-mode elicitation (003's "External Action Required"): the URL in full with its host shown
//! plainly on a line of its own (the server chose the link: the host is what the user must
//! check), the message, the elicitation id. Opening it in the browser is the user's consent, so
//! it answers accept, as in the web UI; over SSH the URL is copied (OSC 52) and opened elsewhere,
//! then accepted by hand. Only what `mcpscope_proto::openable` allows (https:, http: on this
//! machine) is opened or accepted.
//!
//! An accepted URL elicitation with an `elicitationId` (2025-11-25) is finished out of band: the
//! dialog stays, saying it waits for the server's `notifications/elicitation/complete` with that
//! id, and closes when it comes (the reducer sees the notification) or on Esc. A 2026-07-28 one
//! has no id (the retried call finishes it): it closes at once.

use super::{Hint, answer, clean, clean_line, clean_lines, hint_line, message_of};
use crate::modals::Outcome;
use crate::msg::Effect;
use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent};
use mcpscope_inspect::Answer;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use serde_json::Value;

/// Characters of the URL drawn (it is copied and opened whole).
const MAX_URL_SHOWN: usize = 2_000;
/// Longest URL kept at all: a bigger one is no link a user should follow.
const MAX_URL: usize = 64 * 1024;
/// Longest elicitation id kept (compared with the notification's; drawn cut shorter).
const MAX_ID: usize = 1_024;

/// A URL cut so its host can be shown apart.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct UrlParts {
    /// `https`, `javascript`, … (lower case); empty when there is none.
    pub scheme: String,
    /// The host (and port), lower case, without any user info; empty when there is none.
    pub host: String,
    /// Whether the URL may be opened (`mcpscope_proto::openable`, the rule every view shares).
    pub openable: bool,
    /// Why not, when it may not.
    pub refused: String,
}

/// `url`'s scheme and host, read without a URL library: enough to say where it leads.
pub(crate) fn url_parts(url: &str) -> UrlParts {
    let Some((scheme, rest)) = url.split_once(':') else {
        return UrlParts::default();
    };
    let valid = !scheme.is_empty()
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !valid {
        return UrlParts::default();
    }
    let scheme = scheme.to_ascii_lowercase();
    let host = rest
        .strip_prefix("//")
        .map(|a| {
            let authority = a.split(['/', '?', '#', '\\']).next().unwrap_or("");
            let host = authority.rsplit('@').next().unwrap_or("");
            host.to_ascii_lowercase()
        })
        .unwrap_or_default();
    let verdict = mcpscope_proto::openable::openable(url);
    UrlParts {
        scheme,
        host,
        openable: verdict.is_ok(),
        refused: verdict.err().unwrap_or_default(),
    }
}

/// The URL dialog's state.
#[derive(Debug, Clone)]
pub(crate) struct UrlBody {
    url: String,
    parts: UrlParts,
    message: Vec<String>,
    /// As the server sent it (bounded), to match its completion notification.
    elicitation_id: Option<String>,
    /// Accepted: waiting for `notifications/elicitation/complete`.
    waiting: bool,
}

pub(super) const HINTS: &[Hint] = &[
    ("o", "open in browser (accepts)"),
    ("y", "copy URL"),
    ("a", "accept (opened elsewhere)"),
    ("d", "decline"),
    ("Esc", "cancel"),
];
pub(super) const HINTS_UNSAFE: &[Hint] = &[("y", "copy URL"), ("d", "decline"), ("Esc", "cancel")];
pub(super) const WAIT_HINTS: &[Hint] = &[("Esc", "stop waiting"), ("y", "copy URL")];

impl UrlBody {
    /// The body for a URL elicitation's `payload`.
    pub(crate) fn new(payload: &Value) -> UrlBody {
        let url: String = payload
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or("")
            .chars()
            .take(MAX_URL)
            .collect();
        UrlBody {
            parts: url_parts(&url),
            url,
            message: clean_lines(message_of(payload).unwrap_or(""), 20, 2_000),
            elicitation_id: payload
                .get("elicitationId")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty() && s.len() <= MAX_ID)
                .map(str::to_string),
            waiting: false,
        }
    }

    /// The keys shown.
    pub(crate) fn hints(&self) -> &'static [Hint] {
        if self.waiting {
            WAIT_HINTS
        } else if self.parts.openable {
            HINTS
        } else {
            HINTS_UNSAFE
        }
    }

    /// The elicitation id whose completion the accepted dialog waits for.
    pub(crate) fn waits_for(&self) -> Option<&str> {
        self.elicitation_id.as_deref().filter(|_| self.waiting)
    }

    /// A key.
    pub(crate) fn key(&mut self, id: u64, key: KeyEvent) -> Outcome {
        if self.waiting {
            return match key.code {
                KeyCode::Esc => Outcome::Close(vec![]),
                KeyCode::Char('y') => Outcome::Stay(vec![Effect::Copy(self.url.clone())]),
                _ => Outcome::Stay(vec![]),
            };
        }
        let ok = self.parts.openable;
        match key.code {
            KeyCode::Char('o') | KeyCode::Enter if ok => {
                self.accept(id, vec![Effect::OpenUrl(self.url.clone())])
            }
            KeyCode::Char('a') if ok => self.accept(id, vec![]),
            KeyCode::Char('y') => Outcome::Stay(vec![Effect::Copy(self.url.clone())]),
            KeyCode::Char('d') => answer(id, Answer::Decline),
            KeyCode::Esc => answer(id, Answer::Cancel),
            _ => Outcome::Stay(vec![]),
        }
    }

    /// Accept (after `first`): closes, unless there is an elicitation id to wait on.
    fn accept(&mut self, id: u64, mut first: Vec<Effect>) -> Outcome {
        first.push(Effect::Answer {
            id,
            // URL mode carries no content (the web sends `{action: "accept"}`).
            answer: Answer::Accept(Value::Null),
        });
        if self.elicitation_id.is_some() {
            self.waiting = true;
            Outcome::Stay(first)
        } else {
            Outcome::Close(first)
        }
    }

    /// Draw it into `area`.
    pub(crate) fn render(&self, f: &mut Frame, area: Rect, theme: Theme) {
        if self.waiting {
            return self.render_wait(f, area, theme);
        }
        let mut lines: Vec<Line<'static>> = Vec::new();
        for m in &self.message {
            lines.push(Line::raw(m.clone()));
        }
        lines.push(Line::raw(""));
        lines.push(Line::raw("The server is requesting you visit:"));
        lines.push(Line::styled(
            clean_line(&self.url, MAX_URL_SHOWN),
            theme.plain(),
        ));
        let host = if self.parts.host.is_empty() {
            "(none)".to_string()
        } else {
            clean_line(&self.parts.host, 300)
        };
        lines.push(Line::from(vec![
            Span::raw("Host: "),
            Span::styled(host, theme.title()),
        ]));
        lines.push(self.warning(theme));
        lines.push(Line::styled(
            format!(
                "Elicitation ID: {}",
                self.elicitation_id.as_deref().map_or(
                    "none (2026-07-28 drops it: the retried call finishes the request)".into(),
                    |e| clean_line(e, 200)
                )
            ),
            theme.dim(),
        ));
        lines.push(Line::raw(""));
        lines.push(hint_line(self.hints(), theme));
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
    }

    /// Accepted: what it waits for.
    fn render_wait(&self, f: &mut Frame, area: Rect, theme: Theme) {
        let id = self.elicitation_id.as_deref().unwrap_or("");
        let lines = vec![
            Line::styled("Accepted.", theme.ok()),
            Line::raw(""),
            Line::styled(
                "Waiting for the server to say the flow is complete \
                 (notifications/elicitation/complete)…",
                theme.warn(),
            ),
            Line::styled(
                format!("Elicitation ID: {}", clean_line(id, 200)),
                theme.dim(),
            ),
            Line::styled(clean_line(&self.url, MAX_URL_SHOWN), theme.plain()),
            Line::raw(""),
            Line::styled(
                "Esc stops waiting (the answer was sent; the server finishes on its own).",
                theme.dim(),
            ),
        ];
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
    }

    fn warning(&self, theme: Theme) -> Line<'static> {
        if self.parts.openable {
            return Line::styled(
                format!(
                    "This opens an external page: check that {} is the host you expect.",
                    clean(&self.parts.host, 300)
                ),
                theme.warn(),
            );
        }
        Line::styled(
            format!(
                "Not opened: {}. It cannot be opened or accepted; decline or cancel.",
                self.parts.refused
            ),
            theme.error(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_is_read_past_user_info_and_only_http_opens() {
        let p = url_parts("https://user:pw@Auth.Example.com:8443/x?y#z");
        assert_eq!(p.host, "auth.example.com:8443");
        assert!(!p.openable, "user info can hide the real host");
        assert!(url_parts("https://Auth.Example.com:8443/x?y#z").openable);
        let p = url_parts("https://evil.example@good.example.com/");
        assert_eq!(p.host, "good.example.com");
        assert!(!url_parts("javascript:alert(1)").openable);
        let p = url_parts("file:///etc/passwd");
        assert!(!p.openable);
        assert!(p.refused.contains("the file: scheme is refused"), "{p:?}");
        assert!(!url_parts("not a url").openable);
        assert!(
            !url_parts("http://example.com/").openable,
            "plain http off this machine"
        );
        assert!(url_parts("http://127.0.0.1:9/").openable);
    }
}
