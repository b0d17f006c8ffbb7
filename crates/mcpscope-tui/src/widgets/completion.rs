//! The completion form, and what else the Resources and Prompts tabs share (it lived in
//! `tabs/resources/` while only Resources had it): an argument form (one [`Input`] per argument,
//! required ones marked, descriptions shown) that asks the server for completions
//! (`completion/complete`) as the user types, the `/` search box of their lists, and the
//! cleaning of text a server sent before it is kept or drawn.
//!
//! Only a server that declares the `completions` capability is asked ([`Form::completing`]).
//! Completion is debounced without a timer: a question is asked only when the field's text
//! differs from the one last answered and no answer is pending; when the answer comes and the
//! text moved on meanwhile, the form asks again for the text as it is now.

use crate::widgets::input::{Edit, Input};
use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent};
use mcpscope_inspect::Call;
use ratatui::text::{Line, Span};
use serde_json::{Map, Value, json};

/// Suggestions shown under a field.
pub const MAX_SUGGESTIONS: usize = 8;
/// Fields a form keeps (a prompt with 10,000 arguments is cut).
pub const MAX_FIELDS: usize = 64;
/// Characters kept of a name, a URI, a description.
pub const MAX_TEXT: usize = 512;

/// `s` made safe to draw on one line, by the one rule for server text on a terminal
/// (`mcpscope_proto::terminal`): control characters shown as their pictures (`␛`), bidi
/// overrides as `�`, a line break as a space (a name, a URI, a description is one line here),
/// cut to `max` characters with a mark.
pub fn clean(s: &str, max: usize) -> String {
    mcpscope_proto::terminal::clean(s, max).replace('\n', " ")
}

/// `s` broken into lines of at most `width` characters at spaces (a longer word is cut), at
/// most `max_lines` of them (the last marked when more was left out).
pub fn wrap(s: &str, width: usize, max_lines: usize) -> Vec<String> {
    let width = width.max(8);
    let mut out: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in s.split_whitespace() {
        let word: String = word.chars().take(width).collect();
        let need = line.chars().count() + word.chars().count() + usize::from(!line.is_empty());
        if need > width && !line.is_empty() {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() {
        out.push(line);
    }
    if out.len() > max_lines {
        out.truncate(max_lines);
        if let Some(last) = out.last_mut() {
            last.push('…');
        }
    }
    out
}

/// `v[key]` as cleaned text, or "".
pub fn field_text(v: &Value, key: &str) -> String {
    clean(crate::tabs::text(v, key), MAX_TEXT)
}

/// One argument of a form.
#[derive(Debug, Clone, Default)]
pub struct Field {
    /// The argument's name.
    pub name: String,
    /// What it is for (may be empty).
    pub description: String,
    /// It must be filled in.
    pub required: bool,
    /// Its value.
    pub input: Input,
}

/// What a key did to a form.
#[derive(Debug)]
pub enum FormOut {
    /// Nothing for the tab to do.
    Nothing,
    /// Ask the server for completions with this call.
    Ask(Box<Call>),
    /// The user wants the form sent (every required field is filled).
    Submit,
    /// The user left the form.
    Close,
}

/// An argument form with completion.
#[derive(Debug, Clone, Default)]
pub struct Form {
    /// What completion is for: `{type: "ref/prompt", name}` or `{type: "ref/resource", uri}`.
    reference: Value,
    /// The fields.
    pub fields: Vec<Field>,
    /// The field being typed into.
    pub at: usize,
    suggestions: Vec<String>,
    pick: Option<usize>,
    /// The (field, text) asked about and not yet answered.
    pending: Option<(usize, String)>,
    /// The (field, text) the last answer was for.
    answered: Option<(usize, String)>,
    /// The server cannot complete (it answered an error): stop asking.
    no_completion: Option<String>,
    /// Why the form was not sent.
    pub error: Option<String>,
    /// Tells this form's completion answers from an earlier form's.
    pub generation: u64,
}

impl Form {
    /// A form over `fields`, completing against `reference`.
    pub fn new(reference: Value, mut fields: Vec<Field>, generation: u64) -> Form {
        fields.truncate(MAX_FIELDS);
        Form {
            reference,
            fields,
            generation,
            ..Form::default()
        }
    }

    /// A form for a server that declared `completions` (`declared`) or not: without it the
    /// server is never asked (each question would be a -32601 in History and Protocol), and the
    /// form says why no suggestions come.
    pub fn completing(mut self, declared: bool) -> Form {
        if !declared {
            self.no_completion = Some("the server does not declare completions".into());
        }
        self
    }

    /// The field's value by name ("" when empty or unknown).
    pub fn value(&self, name: &str) -> &str {
        self.fields
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.input.text())
            .unwrap_or("")
    }

    /// The filled-in fields as a JSON object (`arguments`).
    pub fn values(&self) -> Map<String, Value> {
        self.fields
            .iter()
            .filter(|f| !f.input.text().is_empty())
            .map(|f| (f.name.clone(), json!(f.input.text())))
            .collect()
    }

    /// The suggestions shown.
    pub fn suggestions(&self) -> &[String] {
        &self.suggestions
    }

    /// Ask for completions of the current field, unless its text was answered or an answer is
    /// still pending (the answer asks again if the text moved on).
    pub fn ask(&mut self) -> Option<Call> {
        let field = self.fields.get(self.at)?;
        let now = (self.at, field.input.text().to_string());
        if self.no_completion.is_some()
            || self.pending.is_some()
            || self.answered == Some(now.clone())
        {
            return None;
        }
        let mut params = json!({
            "ref": self.reference,
            "argument": {"name": field.name, "value": now.1},
        });
        let mut context = self.values();
        context.remove(&field.name);
        if !context.is_empty() {
            params["context"] = json!({ "arguments": context });
        }
        self.pending = Some(now);
        Some(Call {
            method: "completion/complete".into(),
            params: Some(params),
            ..Call::default()
        })
    }

    /// The answer to the last completion question (the call's value, or why it failed); may
    /// ask again.
    pub fn answer(&mut self, result: Result<&Value, String>) -> Option<Call> {
        let asked = self.pending.take();
        match result {
            Ok(v) => {
                let now = self
                    .fields
                    .get(self.at)
                    .map(|f| (self.at, f.input.text().to_string()));
                if asked.is_some() && asked == now {
                    self.suggestions = v
                        .pointer("/completion/values")
                        .and_then(Value::as_array)
                        .map(|a| {
                            a.iter()
                                .filter_map(Value::as_str)
                                .take(MAX_SUGGESTIONS)
                                .map(|s| clean(s, MAX_TEXT))
                                .collect()
                        })
                        .unwrap_or_default();
                    self.pick = None;
                }
                self.answered = asked;
            }
            Err(why) => self.no_completion = Some(why),
        }
        self.ask()
    }

    fn go(&mut self, to: usize) -> FormOut {
        if to == self.at || to >= self.fields.len() {
            return FormOut::Nothing;
        }
        self.at = to;
        self.suggestions.clear();
        self.pick = None;
        self.answered = None;
        self.ask()
            .map_or(FormOut::Nothing, |c| FormOut::Ask(Box::new(c)))
    }

    /// A key while the form has the keyboard (it takes every key).
    pub fn key(&mut self, key: KeyEvent) -> FormOut {
        match key.code {
            KeyCode::Esc if !self.suggestions.is_empty() => {
                self.suggestions.clear();
                self.pick = None;
                FormOut::Nothing
            }
            KeyCode::Esc => FormOut::Close,
            KeyCode::Enter => self.enter(),
            KeyCode::Down | KeyCode::Tab if !self.suggestions.is_empty() => {
                let last = self.suggestions.len() - 1;
                self.pick = Some(self.pick.map_or(0, |p| (p + 1).min(last)));
                FormOut::Nothing
            }
            KeyCode::Up if self.pick.is_some() => {
                self.pick = self.pick.and_then(|p| p.checked_sub(1));
                FormOut::Nothing
            }
            KeyCode::Down | KeyCode::Tab => self.go(self.at + 1),
            KeyCode::Up | KeyCode::BackTab => self.go(self.at.saturating_sub(1)),
            _ => self.edit(key),
        }
    }

    fn enter(&mut self) -> FormOut {
        if let Some(p) = self.pick.take() {
            let chosen = self.suggestions[p].clone();
            self.suggestions.clear();
            if let Some(f) = self.fields.get_mut(self.at) {
                f.input.set(chosen.clone());
            }
            // The chosen value needs no completing of its own.
            self.answered = Some((self.at, chosen));
            return FormOut::Nothing;
        }
        if let Some(i) = self
            .fields
            .iter()
            .position(|f| f.required && f.input.text().is_empty())
        {
            self.error = Some(format!("{} is required", self.fields[i].name));
            return self.go(i);
        }
        self.error = None;
        FormOut::Submit
    }

    fn edit(&mut self, key: KeyEvent) -> FormOut {
        let Some(f) = self.fields.get_mut(self.at) else {
            return FormOut::Nothing;
        };
        match f.input.key(key) {
            Edit::Changed => {
                self.pick = None;
                self.error = None;
                self.ask()
                    .map_or(FormOut::Nothing, |c| FormOut::Ask(Box::new(c)))
            }
            Edit::Moved | Edit::Ignored => FormOut::Nothing,
        }
    }

    /// The form as lines `width` wide, and the line of the field being typed into (to keep it
    /// in view).
    pub fn lines(&self, theme: Theme, width: usize, focused: bool) -> (Vec<Line<'static>>, usize) {
        let mut out = Vec::new();
        let mut cursor_line = 0;
        if self.fields.is_empty() {
            out.push(Line::styled("No arguments.", theme.dim()));
        }
        let label_w = self
            .fields
            .iter()
            .map(|f| f.name.chars().count() + 2)
            .max()
            .unwrap_or(0)
            .min(24);
        for (i, f) in self.fields.iter().enumerate() {
            let here = i == self.at;
            if here {
                cursor_line = out.len();
            }
            let mark = if f.required { " *" } else { "" };
            let label = clean(&format!("{}{mark}", f.name), 24);
            let style = if here { theme.title() } else { theme.plain() };
            let input_w = width.saturating_sub(label_w + 4).max(4);
            let mut spans = vec![
                Span::styled(if here { "▸ " } else { "  " }, style),
                Span::styled(format!("{label:<label_w$} "), style),
                Span::raw("["),
            ];
            spans.extend(f.input.spans(here && focused, input_w).spans);
            if f.input.text().is_empty() && !(here && focused) {
                // An empty field is as wide as a focused one: the brackets do not jump.
                spans.push(Span::raw(" "));
            }
            spans.push(Span::raw("]"));
            out.push(Line::from(spans));
            for d in wrap(&f.description, width.saturating_sub(label_w + 4), 3) {
                out.push(Line::styled(format!("  {:label_w$} {d}", ""), theme.dim()));
            }
            if here && focused {
                out.extend(self.suggestion_lines(theme, label_w));
            }
        }
        if let Some(e) = &self.error {
            out.push(Line::styled(e.clone(), theme.error()));
        }
        if let Some(why) = &self.no_completion {
            out.push(Line::styled(
                clean(&format!("no completion: {why}"), width.max(10)),
                theme.dim(),
            ));
        }
        (out, cursor_line)
    }

    fn suggestion_lines(&self, theme: Theme, indent: usize) -> Vec<Line<'static>> {
        self.suggestions
            .iter()
            .enumerate()
            .map(|(j, s)| {
                let style = if self.pick == Some(j) {
                    theme.selected()
                } else {
                    theme.warn()
                };
                let mark = if self.pick == Some(j) { "›" } else { " " };
                Line::from(vec![
                    Span::raw(format!("  {:indent$} {mark}", "")),
                    Span::styled(format!(" {s} "), style),
                ])
            })
            .collect()
    }
}

/// The `/` search of a list: typed into while `typing`, kept as a filter afterwards.
#[derive(Debug, Clone, Default)]
pub struct Search {
    /// The text.
    pub input: Input,
    /// The box has the keyboard.
    pub typing: bool,
}

impl Search {
    /// True when `hay` matches (case-insensitively; everything matches an empty search).
    pub fn matches(&self, hay: &str) -> bool {
        let q = self.input.text().trim().to_lowercase();
        q.is_empty() || hay.to_lowercase().contains(&q)
    }

    /// A key while typing: true when the filter changed.
    pub fn key(&mut self, key: KeyEvent) -> bool {
        match key.code {
            KeyCode::Enter | KeyCode::Down => {
                self.typing = false;
                false
            }
            KeyCode::Esc => {
                self.typing = false;
                self.input.set("");
                true
            }
            _ => self.input.key(key) == Edit::Changed,
        }
    }

    /// The search line, when there is one.
    pub fn line(&self, theme: Theme, width: usize) -> Option<Line<'static>> {
        if !self.typing && self.input.text().is_empty() {
            return None;
        }
        let mut spans = vec![Span::styled("/ ", theme.key())];
        spans.extend(self.input.spans(self.typing, width.saturating_sub(2)).spans);
        Some(Line::from(spans))
    }
}

/// The first line of the window of `height` lines that shows line `at` of `len` (centred once
/// past the first screen: drawing stays a pure function of the state).
pub fn window(at: usize, len: usize, height: usize) -> usize {
    if len <= height || at < height / 2 {
        return 0;
    }
    (at - height / 2).min(len - height)
}

/// A clock time (`HH:MM:SS` UTC) of µs since the epoch.
pub fn clock(us: u64) -> String {
    let s = us / 1_000_000 % 86_400;
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    fn k(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn form() -> Form {
        let field = |n: &str, required| Field {
            name: n.into(),
            required,
            ..Field::default()
        };
        Form::new(
            json!({"type": "ref/prompt", "name": "review"}),
            vec![field("pr", true), field("style", false)],
            1,
        )
    }

    #[test]
    fn completion_asks_once_per_text_and_again_when_the_text_moved_on() {
        let mut f = form();
        let first = f.ask().expect("asks for the empty field");
        assert_eq!(first.params.as_ref().unwrap()["argument"]["value"], "");
        assert!(matches!(f.key(k(KeyCode::Char('1'))), FormOut::Nothing));
        let again = f
            .answer(Ok(&json!({"completion": {"values": ["7", "8"]}})))
            .expect("the text moved on");
        assert_eq!(again.params.as_ref().unwrap()["argument"]["value"], "1");
        assert!(f.suggestions().is_empty(), "the answer was for older text");
        assert!(
            f.answer(Ok(&json!({"completion": {"values": ["12", "13"]}})))
                .is_none()
        );
        assert_eq!(f.suggestions(), ["12", "13"]);
        f.key(k(KeyCode::Down));
        f.key(k(KeyCode::Down));
        assert!(matches!(f.key(k(KeyCode::Enter)), FormOut::Nothing));
        assert_eq!(f.value("pr"), "13");
        assert!(matches!(f.key(k(KeyCode::Enter)), FormOut::Submit));
    }

    #[test]
    fn a_required_field_left_empty_is_named_and_errors_stop_the_asking() {
        let mut f = form();
        f.ask();
        assert!(f.answer(Err("method not found".into())).is_none());
        f.key(k(KeyCode::Tab));
        assert_eq!(f.at, 1);
        assert!(matches!(f.key(k(KeyCode::Enter)), FormOut::Nothing));
        assert_eq!(f.at, 0);
        assert_eq!(f.error.as_deref(), Some("pr is required"));
        assert!(matches!(f.key(k(KeyCode::Esc)), FormOut::Close));
        assert_eq!(clean("a\x1b[2Jb", 3), "a␛[…");
        assert_eq!(clean("a\u{202e}b\nc", 9), "a\u{fffd}b c");
        assert_eq!(clock(3_723_000_000), "01:02:03");
        assert_eq!(
            wrap("one two three four", 9, 5),
            ["one two", "three", "four"]
        );
        assert_eq!(wrap("one two three four", 9, 2), ["one two", "three…"]);
    }
}
