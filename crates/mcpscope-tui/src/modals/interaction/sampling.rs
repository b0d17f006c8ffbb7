//! The sampling dialog (003's "Sampling Request"): what the server asks the client's model — its
//! messages (role and text; images, audio and other blocks described, never drawn raw), the model
//! preferences, system prompt, max tokens and the other parameters it gives — and the answer
//! written by hand: a multi-line response, the model and the stop reason. Send answers with a
//! `CreateMessageResult` (the web's `samplingResult`); Reject declines ("User rejected sampling
//! request", the core's words). The server's Testing Profile can answer at once, or fill the
//! editor with what it would answer.

use super::editor::TextArea;
use super::{Hint, answer, clean, clean_line};
use crate::modals::Outcome;
use crate::msg::{Effect, Job, Route};
use crate::widgets::input::Input;
use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpscope_inspect::Answer;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use serde_json::{Value, json};

/// Messages drawn at most (a server may send thousands).
pub(crate) const MAX_MESSAGES: usize = 100;
/// Characters shown of any one string (a 5 MB prompt must not stall the screen).
pub(crate) const MAX_TEXT: usize = 20_000;
/// Lines of the request kept in all.
const MAX_ROWS: usize = 5_000;
/// The model the answer names when the field is left empty (the web's default).
pub(crate) const DEFAULT_MODEL: &str = "mcpscope-manual";
/// The stop reasons the field cycles through with ↑↓.
pub(crate) const STOP_REASONS: [&str; 4] = ["endTurn", "stopSequence", "maxTokens", "toolUse"];

/// The dialog's keys.
pub(crate) const HINTS: &[Hint] = &[
    ("^S", "send"),
    ("^D", "reject"),
    ("^P", "profile answers"),
    ("^F", "profile fills"),
    ("Tab", "field"),
    ("PgUp/PgDn", "scroll"),
    ("Esc", "cancel"),
];

/// How a line of the request is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tone {
    Role,
    Text,
    Note,
    Label,
}

/// Which field has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Focus {
    Response,
    Model,
    StopReason,
}

/// The sampling dialog's state.
#[derive(Debug, Clone)]
pub(crate) struct SamplingBody {
    /// The request, as lines (built once, bounded).
    rows: Vec<(Tone, String)>,
    /// The first row of the request drawn.
    top: usize,
    response: TextArea,
    model: Input,
    stop_reason: Input,
    focus: Focus,
    /// What the Testing Profile said when asked to fill (or why it could not).
    profile_note: Option<(bool, String)>,
}

impl SamplingBody {
    /// The body for a `sampling/createMessage` payload.
    pub(crate) fn new(payload: &Value) -> SamplingBody {
        SamplingBody {
            rows: request_rows(payload),
            top: 0,
            response: TextArea::default(),
            model: Input::new(DEFAULT_MODEL),
            stop_reason: Input::new(STOP_REASONS[0]),
            focus: Focus::Response,
            profile_note: None,
        }
    }

    /// The `CreateMessageResult` the answer becomes: `role`, `content` (text), `model` (the
    /// default when left empty: it is required) and `stopReason` (left out when empty).
    pub(crate) fn result(&self) -> Value {
        let model = self.model.text().trim();
        let mut out = json!({
            "role": "assistant",
            "content": {"type": "text", "text": self.response.text()},
            "model": if model.is_empty() { DEFAULT_MODEL } else { model },
        });
        let stop = self.stop_reason.text().trim();
        if !stop.is_empty() {
            out["stopReason"] = json!(stop);
        }
        out
    }

    /// A key.
    pub(crate) fn key(&mut self, id: u64, server: &str, key: KeyEvent) -> Outcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('s') if ctrl => answer(id, Answer::Accept(self.result())),
            KeyCode::Char('d') if ctrl => answer(id, Answer::Decline),
            // Stays open: the core's closed event closes it; when no profile is active, the
            // dialog says so instead of vanishing and coming back.
            KeyCode::Char('p') if ctrl => Outcome::Stay(vec![profile_job(server, id, true)]),
            KeyCode::Char('f') if ctrl => Outcome::Stay(vec![profile_job(server, id, false)]),
            KeyCode::Esc => answer(id, Answer::Cancel),
            KeyCode::Tab => {
                self.focus = match self.focus {
                    Focus::Response => Focus::Model,
                    Focus::Model => Focus::StopReason,
                    Focus::StopReason => Focus::Response,
                };
                Outcome::Stay(vec![])
            }
            KeyCode::BackTab => {
                self.focus = match self.focus {
                    Focus::Response => Focus::StopReason,
                    Focus::Model => Focus::Response,
                    Focus::StopReason => Focus::Model,
                };
                Outcome::Stay(vec![])
            }
            KeyCode::PageDown => {
                self.top = (self.top + 5).min(self.rows.len().saturating_sub(1));
                Outcome::Stay(vec![])
            }
            KeyCode::PageUp => {
                self.top = self.top.saturating_sub(5);
                Outcome::Stay(vec![])
            }
            _ => {
                self.edit(key);
                Outcome::Stay(vec![])
            }
        }
    }

    fn edit(&mut self, key: KeyEvent) {
        match self.focus {
            Focus::Response => {
                self.response.key(key);
            }
            Focus::Model => {
                self.model.key(key);
            }
            Focus::StopReason if matches!(key.code, KeyCode::Up | KeyCode::Down) => {
                let at = STOP_REASONS
                    .iter()
                    .position(|r| *r == self.stop_reason.text());
                let n = STOP_REASONS.len();
                let next = match (at, key.code) {
                    (Some(i), KeyCode::Down) => (i + 1) % n,
                    (Some(i), _) => (i + n - 1) % n,
                    (None, _) => 0,
                };
                self.stop_reason.set(STOP_REASONS[next]);
            }
            Focus::StopReason => {
                self.stop_reason.key(key);
            }
        }
    }

    /// The Testing Profile's answer (`ProfileAnswer`) fills the editor when it is text.
    pub(crate) fn prefill(&mut self, v: &Value) {
        if v.get("answered").is_some() {
            // Answered by the profile: the closed event takes the dialog away.
            return;
        }
        let name = clean_line(
            v.pointer("/profile/name")
                .and_then(Value::as_str)
                .unwrap_or("?"),
            100,
        );
        let a = v.get("answer").cloned().unwrap_or(Value::Null);
        let content = a.get("content").cloned().unwrap_or(Value::Null);
        let text = content.pointer("/content/text").and_then(Value::as_str);
        match (a.get("action").and_then(Value::as_str), text) {
            (Some("accept"), Some(text)) => {
                self.response = TextArea::new(text);
                if let Some(m) = content.get("model").and_then(Value::as_str) {
                    self.model.set(m);
                }
                let stop = content.get("stopReason").and_then(Value::as_str);
                self.stop_reason.set(stop.unwrap_or(""));
                self.profile_note = Some((true, format!("filled from Testing Profile «{name}»")));
            }
            _ => {
                let why = v.get("refused").and_then(Value::as_str).unwrap_or(
                    "its answer is not a text response (a rejection or a tool use): ^P sends it as it is",
                );
                self.profile_note = Some((
                    false,
                    format!(
                        "Testing Profile «{name}» cannot fill the editor: {}",
                        clean_line(why, 300)
                    ),
                ));
            }
        }
    }

    /// The Testing Profile could not be asked (none is active, the question closed).
    pub(crate) fn profile_failed(&mut self, why: &str) {
        self.profile_note = Some((false, clean_line(why, 300)));
    }

    /// Draw it into `area`.
    pub(crate) fn render(&self, f: &mut Frame, area: Rect, theme: Theme) {
        let edit_h: u16 = (area.height / 4).clamp(3, 10);
        let below = edit_h + 3 + self.profile_note.is_some() as u16;
        let req_h = area.height.saturating_sub(below).max(1);
        let req: Vec<Line<'static>> = self
            .rows
            .iter()
            .skip(self.top)
            .take(req_h as usize * 2)
            .map(|(tone, t)| Line::styled(t.clone(), tone_style(*tone, theme)))
            .collect();
        f.render_widget(
            Paragraph::new(req).wrap(Wrap { trim: false }),
            Rect {
                height: req_h,
                ..area
            },
        );
        let mut y = area.y + req_h;
        let line = |f: &mut Frame, y: u16, l: Line<'static>| {
            if y < area.y + area.height {
                f.render_widget(Paragraph::new(l), Rect::new(area.x, y, area.width, 1));
            }
        };
        let label = |name: &str, on: bool| {
            Span::styled(
                format!("{name}: "),
                if on { theme.key() } else { theme.title() },
            )
        };
        line(
            f,
            y,
            Line::from(vec![
                label("Response", self.focus == Focus::Response),
                Span::styled("the assistant's text (Enter: new line)", theme.dim()),
            ]),
        );
        y += 1;
        let width = area.width.saturating_sub(2) as usize;
        for l in self
            .response
            .view(edit_h as usize, width, self.focus == Focus::Response)
        {
            line(f, y, Line::from([vec![Span::raw("▏ ")], l.spans].concat()));
            y += 1;
        }
        y = y.max(area.y + req_h + 1 + edit_h);
        let half = (area.width as usize / 2).saturating_sub(16).max(4);
        let mut fields = vec![label("Model", self.focus == Focus::Model)];
        fields.extend(self.model.spans(self.focus == Focus::Model, half).spans);
        fields.push(Span::raw("   "));
        fields.push(label("Stop reason", self.focus == Focus::StopReason));
        fields.extend(
            self.stop_reason
                .spans(self.focus == Focus::StopReason, half)
                .spans,
        );
        line(f, y, Line::from(fields));
        y += 1;
        if let Some((ok, note)) = &self.profile_note {
            let style = if *ok { theme.ok() } else { theme.warn() };
            line(f, y, Line::styled(note.clone(), style));
            y += 1;
        }
        line(f, y, super::hint_line(&HINTS[..4], theme));
    }
}

fn tone_style(t: Tone, theme: Theme) -> Style {
    match t {
        Tone::Role => theme.title(),
        Tone::Text => theme.plain(),
        Tone::Note => theme.dim(),
        Tone::Label => theme.key(),
    }
}

/// Ask the core what the server's Testing Profile would answer (`answer`: answer with it now,
/// `Inspector::answer_with_profile`, as `Effect::AnswerWithProfile` does, but with its failure
/// told). The answer comes back to the open dialog: route tag `interaction`, key the id.
fn profile_job(server: &str, id: u64, answer: bool) -> Effect {
    Effect::Run {
        route: Route {
            server: server.to_string(),
            tab: None,
            tag: super::ROUTE_TAG,
            key: if answer {
                format!("{id}:answer")
            } else {
                id.to_string()
            },
        },
        job: Job::new(move |i| async move {
            if answer {
                i.answer_with_profile(id)
                    .map(|c| json!({"answered": serde_json::to_value(c).unwrap_or(Value::Null)}))
            } else {
                i.profile_answer(id)
                    .map(|a| serde_json::to_value(a).unwrap_or(Value::Null))
            }
        }),
    }
}

/// The request as lines: each message (role, then its blocks), then the parameters it gives.
fn request_rows(payload: &Value) -> Vec<(Tone, String)> {
    let mut rows = Vec::new();
    let messages = payload.get("messages").and_then(Value::as_array);
    let total = messages.map_or(0, Vec::len);
    if total == 0 {
        rows.push((Tone::Note, "The request holds no messages.".to_string()));
    }
    for m in messages.into_iter().flatten().take(MAX_MESSAGES) {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("(no role)");
        rows.push((Tone::Role, format!("{}:", clean_line(role, 100))));
        match m.get("content") {
            Some(Value::Array(blocks)) => {
                for b in blocks.iter().take(MAX_MESSAGES) {
                    block_rows(b, &mut rows);
                }
            }
            Some(b) => block_rows(b, &mut rows),
            None => rows.push((Tone::Note, "  (no content)".to_string())),
        }
        if rows.len() > MAX_ROWS {
            break;
        }
    }
    if total > MAX_MESSAGES {
        rows.push((
            Tone::Note,
            format!("… and {} more messages (not drawn)", total - MAX_MESSAGES),
        ));
    }
    param_rows(payload, &mut rows);
    rows.truncate(MAX_ROWS);
    rows
}

/// One content block: text as it is; image and audio described; anything else as compact JSON.
fn block_rows(b: &Value, rows: &mut Vec<(Tone, String)>) {
    let kind = b.get("type").and_then(Value::as_str).unwrap_or("");
    match (kind, b.get("text").and_then(Value::as_str)) {
        ("text", Some(t)) => {
            for l in clean(t, MAX_TEXT).lines().take(MAX_ROWS) {
                rows.push((Tone::Text, format!("  {l}")));
            }
        }
        ("image" | "audio", _) => {
            let mime = b.get("mimeType").and_then(Value::as_str).unwrap_or("?");
            let data = b.get("data").and_then(Value::as_str).map_or(0, str::len);
            rows.push((
                Tone::Note,
                format!(
                    "  [{kind}: {}, {data} base64 characters — not drawn here]",
                    clean_line(mime, 100)
                ),
            ));
        }
        _ => rows.push((
            Tone::Note,
            format!(
                "  [{} block] {}",
                clean_line(if kind.is_empty() { "(no type)" } else { kind }, 100),
                clean_line(&b.to_string(), 2_000)
            ),
        )),
    }
}

/// The parameters below the messages (only those the request gives).
fn param_rows(p: &Value, rows: &mut Vec<(Tone, String)>) {
    let mut param = |label: &str, value: String| {
        rows.push((Tone::Label, format!("{label}: {value}")));
    };
    if let Some(s) = p.get("systemPrompt").and_then(Value::as_str) {
        param("System prompt", clean_line(s, MAX_TEXT));
    }
    if let Some(n) = p.get("maxTokens").filter(|v| v.is_number()) {
        param("Max tokens", n.to_string());
    }
    if let Some(t) = p.get("temperature").filter(|v| v.is_number()) {
        param("Temperature", t.to_string());
    }
    if let Some(s) = p.get("stopSequences").and_then(Value::as_array) {
        let shown: Vec<String> = s
            .iter()
            .take(100)
            .map(|v| clean_line(&v.to_string(), 500))
            .collect();
        param("Stop sequences", shown.join(", "));
    }
    if let Some(c) = p.get("includeContext").and_then(Value::as_str) {
        param("Include context", clean_line(c, 100));
    }
    let json_param = |v: Option<&Value>| {
        v.filter(|v| !v.is_null())
            .map(|v| clean_line(&v.to_string(), 2_000))
    };
    if let Some(m) = json_param(p.get("modelPreferences")) {
        param("Model preferences", m);
    }
    if let Some(t) = p.get("tools").and_then(Value::as_array) {
        let names: Vec<String> = t
            .iter()
            .take(50)
            .map(|t| clean_line(t.get("name").and_then(Value::as_str).unwrap_or("?"), 100))
            .collect();
        param("Tools", format!("{} ({})", t.len(), names.join(", ")));
    }
    if let Some(c) = json_param(p.get("toolChoice")) {
        param("Tool choice", c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_result_falls_back_to_the_default_model_and_drops_an_empty_stop_reason() {
        let mut b = SamplingBody::new(&json!({"messages": []}));
        b.model.set(" ");
        b.stop_reason.set("");
        assert_eq!(
            b.result(),
            json!({"role": "assistant", "content": {"type": "text", "text": ""}, "model": DEFAULT_MODEL})
        );
    }

    #[test]
    fn blocks_are_described_and_bounded() {
        let many: Vec<Value> = (0..150)
            .map(|i| json!({"role": "user", "content": {"type": "text", "text": format!("m{i}")}}))
            .collect();
        let rows = request_rows(&json!({"messages": many}));
        assert!(
            rows.iter()
                .any(|(_, t)| t == "… and 50 more messages (not drawn)")
        );
        let rows = request_rows(&json!({"messages": [{"role": "user", "content": [
            {"type": "image", "mimeType": "image/png", "data": "AAAA"},
            {"type": "tool_use", "name": "x"}
        ]}]}));
        assert_eq!(
            rows[1].1,
            "  [image: image/png, 4 base64 characters — not drawn here]"
        );
        assert!(rows[2].1.starts_with("  [tool_use block] {"));
    }
}
