//! A server's question as a modal over the current tab: what it asks, which server asks and for
//! which request (origin, history entry, round), the time left before the core declines it, how
//! many more wait, and the answers its kind allows. Each kind has its own body: the elicitation
//! form (`elicit.rs`), URL elicitation (`url.rs`), sampling (`sampling.rs`), roots and anything
//! else (`roots.rs`). Every body can be declined or cancelled.
//!
//! Everything drawn here was sent by a server: it goes through [`clean`] first (control
//! characters made visible, never written to the terminal) and is bounded in length and lines.

pub mod causes;
mod editor;
mod elicit;
mod roots;
mod sampling;
mod url;

use crate::modals::Outcome;
use crate::msg::{Done, Effect};
use crate::widgets::style::Theme;
use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use serde_json::Value;

/// The route tag of the answers that come back to the open dialog (`route.tab` none, `key` the
/// interaction's id): the reducer hands them to [`Dialog::done`].
pub const ROUTE_TAG: &str = "interaction";

/// Characters kept of one server string shown on one line (a name, a method, an origin).
pub const MAX_SHORT: usize = 200;

/// The dialog of one interaction.
#[derive(Debug, Clone)]
pub struct Dialog {
    /// The `Interaction` body (`id`, `server`, `kind`, `method`, `payload`, …).
    pub interaction: Value,
    /// What it asks, by kind.
    body: Body,
    /// The request id of our call that asked, while it runs (`^X` cancels it and this).
    call: Option<String>,
}

/// The part of a dialog that depends on its kind.
#[derive(Debug, Clone)]
enum Body {
    Form(Box<elicit::FormBody>),
    Url(url::UrlBody),
    Sampling(Box<sampling::SamplingBody>),
    Roots(roots::RootsBody),
    Raw(roots::RawBody),
}

/// A key shown in the dialog's bottom line and what it does.
pub(crate) type Hint = (&'static str, &'static str);

impl Dialog {
    /// The dialog for `interaction`.
    pub fn new(interaction: Value) -> Dialog {
        let payload = interaction.get("payload").cloned().unwrap_or(Value::Null);
        let body = match crate::tabs::text(&interaction, "kind") {
            "elicitationForm" => Body::Form(Box::new(elicit::FormBody::new(&payload))),
            "elicitationUrl" => Body::Url(url::UrlBody::new(&payload)),
            "sampling" => Body::Sampling(Box::new(sampling::SamplingBody::new(&payload))),
            "roots" => Body::Roots(roots::RootsBody::new(&Value::Null)),
            _ => Body::Raw(roots::RawBody::other(&payload)),
        };
        Dialog {
            interaction,
            body,
            call: None,
        }
    }

    /// The dialog for `interaction` as the app opens it: with the call that asked (from
    /// `s.causes`) and, for roots, the server's configured roots (its card's catalog entry).
    pub fn open(interaction: &Value, s: &crate::state::AppState) -> Dialog {
        let call = s.causes.request_of(interaction).map(str::to_string);
        let mut d = Dialog::new(interaction.clone()).with_call(call);
        if let Body::Roots(b) = &mut d.body {
            let server = crate::tabs::text(interaction, "server");
            let row = s.servers.iter().find(|r| r.name == server);
            *b = roots::RootsBody::new(row.map_or(&Value::Null, |r| &r.roots));
        }
        d
    }

    /// The same dialog knowing the request id of the call that asked (`None`: not one of ours,
    /// or finished), so `^X` can cancel it.
    pub fn with_call(mut self, call: Option<String>) -> Dialog {
        self.call = call;
        self
    }

    /// Its interaction's id.
    pub fn id(&self) -> u64 {
        self.interaction
            .get("id")
            .and_then(Value::as_u64)
            .unwrap_or(0)
    }

    /// The server that asks.
    pub fn server(&self) -> &str {
        crate::tabs::text(&self.interaction, "server")
    }

    /// A key: the dialog stays (with effects: a copy, a browser) or closes with the answer.
    pub fn key(&mut self, key: KeyEvent) -> Outcome {
        let id = self.id();
        let ctrl = key
            .modifiers
            .contains(crossterm::event::KeyModifiers::CONTROL);
        if let Some(request_id) = self.call.clone().filter(|_| ctrl)
            && key.code == crossterm::event::KeyCode::Char('x')
        {
            // The cancel first, then this question's own answer: the reducer dismisses the
            // call's other questions when it sees the cancel.
            return Outcome::Close(vec![
                Effect::Cancel { request_id },
                Effect::Answer {
                    id,
                    answer: mcpscope_inspect::Answer::Cancel,
                },
                Effect::Toast {
                    text: crate::strings::CANCELLED_WITH_CALL.into(),
                    error: false,
                },
            ]);
        }
        let server = self.server().to_string();
        match &mut self.body {
            Body::Form(b) => b.key(id, key),
            Body::Url(b) => b.key(id, key),
            Body::Sampling(b) => b.key(id, &server, key),
            Body::Roots(b) => b.key(id, key),
            Body::Raw(b) => b.key(id, key),
        }
    }

    /// The elicitation id an accepted URL dialog waits on (`notifications/elicitation/complete`).
    pub fn waits_for(&self) -> Option<&str> {
        match &self.body {
            Body::Url(b) => b.waits_for(),
            _ => None,
        }
    }

    /// True when the core's `interactionClosed` (`closed`) leaves this dialog open: it was
    /// accepted and now waits for the flow's completion.
    pub fn stays_after(&self, closed: &Value) -> bool {
        self.waits_for().is_some() && crate::tabs::text(closed, "outcome") == "accepted"
    }

    /// True when `notification` (a core `notification` event) completes what this dialog waits
    /// on: `notifications/elicitation/complete` from its server with its elicitation id.
    pub fn completed_by(&self, notification: &Value) -> bool {
        let Some(want) = self.waits_for() else {
            return false;
        };
        let n = notification;
        crate::tabs::text(n, "method") == "notifications/elicitation/complete"
            && crate::tabs::text(n, "server") == self.server()
            && n.pointer("/params/elicitationId").and_then(Value::as_str) == Some(want)
    }

    /// True when `route` brings the answer to an effect this dialog asked for.
    pub fn answers(&self, route: &crate::msg::Route) -> bool {
        route.tab.is_none()
            && route.tag == ROUTE_TAG
            && route.key.split(':').next() == Some(self.id().to_string().as_str())
    }

    /// The answer to an effect the dialog asked for (the Testing Profile's answer, to pre-fill
    /// the sampling editor); `done.route.key` is the interaction's id.
    pub fn done(&mut self, done: Done) -> Vec<Effect> {
        if let Body::Sampling(b) = &mut self.body {
            match &done.result {
                Ok(v) => b.prefill(v),
                Err(e) => b.profile_failed(&e.message),
            }
        }
        Vec::new()
    }

    /// Draw it over `area`: at `now_us` (the deadline counts down), `queue` the questions
    /// waiting (`AppState::interactions`: how many more, and this key's place in its round).
    pub fn render(&self, f: &mut Frame, area: Rect, theme: Theme, now_us: u64, queue: &[Value]) {
        f.render_widget(Clear, area);
        let i = &self.interaction;
        // Whole hints only, as many as fit on the border (the `?` screen lists them all). The
        // room is inside the corners after the leading space; the last hint's two trailing spaces
        // may fall off it.
        let mut bottom = vec![Span::raw(" ")];
        let mut room = usize::from(area.width.saturating_sub(3));
        for (k, what) in self.hints() {
            let (key, what) = (
                Span::styled(*k, theme.key()),
                Span::raw(format!(" {what}  ")),
            );
            let width = key.width() + what.width();
            if width > room + 2 {
                break;
            }
            room = room.saturating_sub(width);
            bottom.extend([key, what]);
        }

        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.title())
            .title(Line::styled(format!(" {} ", title(i)), theme.title()))
            .title_bottom(Line::from(bottom));
        let inner = block.inner(area);
        f.render_widget(block, area);
        let place = Place::of(i, queue);
        let mut head = header_lines(i, theme, now_us, place, self.waits_for().is_none());
        if self.call.is_some() && self.waits_for().is_none() {
            // A line of its own: the bottom line is full of the body's keys at 80×24.
            head.push(Line::from(vec![
                Span::styled("^X", theme.key()),
                Span::styled(
                    " cancels the call that asked (and its other questions)",
                    theme.dim(),
                ),
            ]));
        }
        let h = (head.len() as u16).min(inner.height);
        f.render_widget(Paragraph::new(head), Rect { height: h, ..inner });
        let rest = Rect {
            y: inner.y + h,
            height: inner.height.saturating_sub(h),
            ..inner
        };
        match &self.body {
            Body::Form(b) => b.render(f, rest, theme),
            Body::Url(b) => b.render(f, rest, theme),
            Body::Sampling(b) => b.render(f, rest, theme),
            Body::Roots(b) => b.render(f, rest, theme),
            Body::Raw(b) => b.render(f, rest, theme),
        }
    }

    fn hints(&self) -> &'static [Hint] {
        match &self.body {
            Body::Form(b) => b.hints(),
            Body::Url(b) => b.hints(),
            Body::Sampling(_) => sampling::HINTS,
            Body::Roots(b) => b.hints(),
            Body::Raw(b) => b.hints(),
        }
    }
}

/// 000's dialog titles: "Elicitation Request" for a legacy request, "Operation Needs Input" for
/// an `input_required` round.
fn title(i: &Value) -> &'static str {
    let round = i.get("round").is_some_and(|r| !r.is_null());
    match crate::tabs::text(i, "kind") {
        "elicitationForm" | "elicitationUrl" if round => "Operation Needs Input",
        "elicitationForm" | "elicitationUrl" => "Elicitation Request",
        "sampling" => "Sampling Request",
        "roots" => "Roots Request",
        _ => "Server Request",
    }
}

/// Who asks, for which request, the round, the time left and the queue behind (one line each,
/// cut at the modal's width rather than wrapped).
/// `deadline`: the question still waits (an accepted one waiting for its flow has no deadline).
fn header_lines(
    i: &Value,
    theme: Theme,
    now_us: u64,
    place: Place,
    deadline: bool,
) -> Vec<Line<'static>> {
    let s = |k: &str| clean_line(crate::tabs::text(i, k), MAX_SHORT);
    let mut who = vec![
        Span::styled(s("server"), theme.title()),
        Span::raw(" asks "),
        Span::styled(s("method"), theme.key()),
        Span::styled(format!(" · {}", s("origin")), theme.dim()),
    ];
    if let Some(h) = i.get("historyId").and_then(Value::as_i64) {
        who.push(Span::styled(format!(" · history #{h}"), theme.dim()));
    }
    let mut out = vec![Line::from(who)];
    if let Some(round) = i.get("round").and_then(Value::as_u64) {
        out.push(Line::styled(round_text(i, round, place.left), theme.warn()));
    }
    let mut when = Vec::new();
    if deadline {
        when.push(Span::styled(
            format!(
                "Declined automatically in {} if not answered",
                time_left(i, now_us)
            ),
            theme.dim(),
        ));
    }
    if place.waiting > 0 {
        when.push(Span::styled(
            format!(
                "{}{} more waiting",
                if deadline { " · " } else { "" },
                place.waiting
            ),
            theme.warn(),
        ));
    }
    out.push(Line::from(when));
    out
}

/// Where the open question stands in the queue.
#[derive(Debug, Clone, Copy)]
struct Place {
    /// Questions waiting besides this one.
    waiting: usize,
    /// Keys of its round still waiting, itself included.
    left: u64,
}

impl Place {
    fn of(i: &Value, queue: &[Value]) -> Place {
        let id = i.get("id");
        let others = queue.iter().filter(|q| q.get("id") != id);
        let same = |q: &&Value| {
            ["server", "historyId", "round"]
                .iter()
                .all(|k| q.get(k) == i.get(k))
        };
        Place {
            waiting: others.clone().count(),
            left: others.filter(same).count() as u64 + 1,
        }
    }
}

/// "Round 2 of at most 8 · key 1 of 3: "team"": the keys of a round are asked at once and
/// answered one dialog each, in the engine's order, so this one's place is the count of them
/// answered before it.
fn round_text(i: &Value, round: u64, left: u64) -> String {
    let mut t = format!("Round {round}");
    if let Some(m) = i.get("maxRounds").and_then(Value::as_u64) {
        t.push_str(&format!(" of at most {m}"));
    }
    let key = crate::tabs::text(i, "key");
    if let Some(n) = i.get("roundKeys").and_then(Value::as_u64) {
        let k = (n + 1).saturating_sub(left).clamp(1, n.max(1));
        t.push_str(&format!(" · key {k} of {n}"));
    }
    if !key.is_empty() {
        t.push_str(&format!(": {:?}", clean_line(key, 80)));
    }
    t
}

/// "4:59" until the deadline (then the core declines it as timed out).
pub fn time_left(i: &Value, now_us: u64) -> String {
    let deadline = i.get("deadlineUs").and_then(Value::as_u64).unwrap_or(0);
    let s = deadline.saturating_sub(now_us).div_ceil(1_000_000);
    format!("{}:{:02}", s / 60, s % 60)
}

/// Server text made safe to draw: the one rule, shared with the CLI (`mcpscope_proto::terminal`).
pub use mcpscope_proto::terminal::{clean, clean_line};

/// `text` as cleaned lines, at most `max_lines` (a last line says how many more), each at most
/// `max_chars` characters.
pub(crate) fn clean_lines(text: &str, max_lines: usize, max_chars: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    for l in lines.by_ref().take(max_lines) {
        out.push(clean_line(l, max_chars));
    }
    let more = lines.count();
    if more > 0 {
        out.push(format!("… {more} more lines not shown"));
    }
    out
}

/// The payload's `message` (what the server says it wants), if any.
pub(crate) fn message_of(payload: &Value) -> Option<&str> {
    payload
        .get("message")
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty())
}

/// One `key  what` hint line for a body (the keys of an answer row).
pub(crate) fn hint_line(hints: &[Hint], theme: Theme) -> Line<'static> {
    let mut spans = Vec::new();
    for (k, what) in hints {
        spans.push(Span::styled(format!("[{k}]"), theme.key()));
        spans.push(Span::raw(format!(" {what}   ")));
    }
    Line::from(spans)
}

/// The answer `id` closes with.
pub(crate) fn answer(id: u64, answer: mcpscope_inspect::Answer) -> Outcome {
    Outcome::Close(vec![Effect::Answer { id, answer }])
}

#[cfg(test)]
mod tests {
    /// Every key a dialog's own hint line names is on the `?` screen (`keymap::DIALOG_HELP`):
    /// the two lists are written apart, so this is what keeps them from drifting.
    #[test]
    fn every_dialog_hint_is_on_the_help_screen() {
        let all: &[&[super::Hint]] = &[
            super::elicit::HINTS,
            super::elicit::WHOLE_HINTS,
            super::sampling::HINTS,
            super::roots::OTHER_HINTS,
            super::roots::ROOTS_HINTS,
            super::roots::EDIT_HINTS,
            super::url::HINTS,
            super::url::HINTS_UNSAFE,
            super::url::WAIT_HINTS,
        ];
        let help: Vec<&str> = crate::keymap::DIALOG_HELP
            .iter()
            .flat_map(|b| b.keys.split_whitespace())
            .collect();
        for (key, what) in all.iter().flat_map(|h| h.iter()) {
            for k in key.split([' ', '/']) {
                // "↑↓" is written "↑ ↓" on the help screen.
                let parts: Vec<String> = if k.chars().all(|c| "↑↓←→".contains(c)) {
                    k.chars().map(String::from).collect()
                } else {
                    vec![k.to_string()]
                };
                for p in parts.iter().filter(|p| !p.is_empty()) {
                    assert!(
                        help.contains(&p.as_str()),
                        "the dialog key {p:?} ({what}) is not on the ? screen"
                    );
                }
            }
        }
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn control_characters_never_reach_the_terminal() {
        let s = clean("a\x1b[2Jb\x07c\td\u{9b}e\u{202e}f\r\ng", 100);
        assert_eq!(s, "a␛[2Jb␇c    d�e�f\ng");
        assert!(!s.chars().any(|c| c.is_control() && c != '\n'));
        assert_eq!(clean_line("x\ny", 10), "x⏎y");
        assert_eq!(clean(&"z".repeat(50), 10), format!("{}…", "z".repeat(10)));
    }

    #[test]
    fn the_time_left_counts_down_to_zero() {
        let i = json!({"deadlineUs": 300_000_000u64});
        assert_eq!(time_left(&i, 0), "5:00");
        assert_eq!(time_left(&i, 1), "5:00");
        assert_eq!(time_left(&i, 1_000_001), "4:59");
        assert_eq!(time_left(&i, 400_000_000), "0:00");
    }

    #[test]
    fn lines_are_bounded() {
        let text = "l\n".repeat(50);
        let lines = clean_lines(&text, 10, 5);
        assert_eq!(lines.len(), 11);
        assert_eq!(lines[10], "… 40 more lines not shown");
    }
}
