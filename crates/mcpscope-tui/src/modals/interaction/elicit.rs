//! The elicitation form (000's dialog), as the web's `ElicitationForm` asks: the requested
//! schema drawn and edited by the one form widget (`widgets::form`, over the core's form model),
//! typed into directly, defaults pre-filled. This file keeps what is elicitation's own: the
//! subset check, Accept / Decline / Cancel, and the web's rules (`web/src/utils/elicitation.ts`:
//! required, bounds, integer, lengths, `pattern`, `format`, a multi-select's item bounds) as the
//! form's checker. Accept shows the errors (from then on they follow each change) and sends
//! nothing while one is wrong; Decline and Cancel always send, unchecked. A schema outside the
//! subset is answered as JSON: per field (the form's JSON fields), or whole when it is not a
//! flat object of at most [`MAX_FORM_FIELDS`] fields.

use super::editor::TextArea;
use super::{Hint, answer, clean_line, clean_lines, message_of};
use crate::modals::Outcome;
use crate::widgets::form::Form;
use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpscope_inspect::Answer;
use mcpscope_proto::form::{Field, FieldError, FieldKind, StringFormat, form_model};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use serde_json::{Value, json};

/// More fields than this are answered in the JSON editor (the web's bound).
pub(crate) const MAX_FORM_FIELDS: usize = 100;

/// The form's state.
#[derive(Debug, Clone)]
pub(crate) struct FormBody {
    message: Vec<String>,
    /// The fields (None: the whole answer is JSON).
    form: Option<Form>,
    /// Why the whole answer is JSON, its editor and its error.
    whole: Option<(String, TextArea, Option<String>)>,
}

pub(super) const HINTS: &[Hint] = &[
    ("Enter", "accept"),
    ("^D", "decline"),
    ("Esc", "cancel"),
    ("Tab ↑↓", "field"),
    ("Space", "choose"),
    ("^T", "JSON"),
];
pub(super) const WHOLE_HINTS: &[Hint] = &[("^S", "accept"), ("^D", "decline"), ("Esc", "cancel")];

impl FormBody {
    /// The form for an elicitation's `payload` (its `requestedSchema`).
    pub(crate) fn new(payload: &Value) -> FormBody {
        let message = clean_lines(message_of(payload).unwrap_or(""), 20, 2_000);
        let (form, whole) = match layout(payload.get("requestedSchema")) {
            Ok(form) => (Some(form), None),
            Err(why) => (None, Some((why, TextArea::new("{}"), None))),
        };
        FormBody {
            message,
            form,
            whole,
        }
    }

    /// The keys shown.
    pub(crate) fn hints(&self) -> &'static [Hint] {
        if self.whole.is_some() {
            WHOLE_HINTS
        } else {
            HINTS
        }
    }

    /// A key: the dialog's own (Accept, Decline, Cancel), else the form's.
    pub(crate) fn key(&mut self, id: u64, key: KeyEvent) -> Outcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('d') if ctrl => return answer(id, Answer::Decline),
            KeyCode::Esc => return answer(id, Answer::Cancel),
            KeyCode::Char('s') if ctrl => return self.accept(id),
            _ => {}
        }
        if let Some((_, editor, _)) = &mut self.whole {
            editor.key(key);
            return Outcome::Stay(vec![]);
        }
        let Some(form) = &mut self.form else {
            return Outcome::Stay(vec![]);
        };
        // Enter accepts, unless an enum's choices are open (Enter chooses there).
        if key.code == KeyCode::Enter && !form.picking() {
            return self.accept(id);
        }
        form.key(key);
        Outcome::Stay(vec![])
    }

    /// Accept: everything checked; closes with the content only when no field has an error.
    fn accept(&mut self, id: u64) -> Outcome {
        if let Some((_, editor, error)) = &mut self.whole {
            return match serde_json::from_str::<Value>(&editor.text()) {
                Ok(v @ Value::Object(_)) => answer(id, Answer::Accept(v)),
                Ok(_) => {
                    *error = Some("the content must be a JSON object".into());
                    Outcome::Stay(vec![])
                }
                Err(e) => {
                    *error = Some(format!("not valid JSON: {e}"));
                    Outcome::Stay(vec![])
                }
            };
        }
        let Some(form) = &mut self.form else {
            return Outcome::Stay(vec![]);
        };
        match form.submit() {
            Ok(v @ Value::Object(_)) => answer(id, Answer::Accept(content(form.schema(), v))),
            _ => Outcome::Stay(vec![]),
        }
    }

    /// Draw it into `area`.
    pub(crate) fn render(&self, f: &mut Frame, area: Rect, theme: Theme) {
        let mut lines: Vec<Line<'static>> =
            self.message.iter().map(|m| Line::raw(m.clone())).collect();
        lines.push(Line::styled(
            "Only give information you trust this server with.",
            theme.warn(),
        ));
        if let Some((why, editor, error)) = &self.whole {
            lines.push(Line::styled(
                format!("Answered as JSON: {why}."),
                theme.warn(),
            ));
            lines.push(Line::styled("Content (a JSON object):", theme.title()));
            let h = area.height.saturating_sub(lines.len() as u16 + 2).max(1) as usize;
            lines.extend(editor.view(h, area.width as usize, true));
            if let Some(e) = error {
                lines.push(Line::styled(e.clone(), theme.error()));
            }
            f.render_widget(Paragraph::new(lines), area);
            return;
        }
        let Some(form) = &self.form else { return };
        let head = (lines.len() as u16).min(area.height);
        f.render_widget(
            Paragraph::new(lines),
            Rect {
                height: head,
                ..area
            },
        );
        let body = Rect {
            y: area.y + head,
            height: area.height.saturating_sub(head + 1),
            ..area
        };
        form.render(f, body, theme, true);
        let status = Rect {
            y: body.y + body.height,
            height: area.height.saturating_sub(head).min(1),
            ..area
        };
        f.render_widget(Paragraph::new(self.status_line(form, theme)), status);
    }

    /// "2 fields need fixing — nothing was sent." or the keys.
    fn status_line(&self, form: &Form, theme: Theme) -> Line<'static> {
        let mut wrong: Vec<&str> = form.errors().iter().map(|e| e.path.as_str()).collect();
        wrong.dedup();
        let invalid = if form.revealed() { wrong.len() } else { 0 };
        if invalid > 0 {
            let what = if invalid > 1 {
                "fields need"
            } else {
                "field needs"
            };
            return Line::styled(
                format!("{invalid} {what} fixing — nothing was sent."),
                theme.error(),
            );
        }
        if form.field_count() == 0 {
            return Line::styled("The server asks for no fields.", theme.dim());
        }
        super::hint_line(&HINTS[..3], theme)
    }
}

/// The form's checker: the web's rules on every field, in place of `validate`'s wording (the
/// pattern alone is `validate`'s, through [`matches_pattern`]).
fn web_rules(schema: &Value, value: &Value, _validated: Vec<FieldError>) -> Vec<FieldError> {
    let FieldKind::Object { fields, .. } = form_model(schema).kind else {
        return Vec::new();
    };
    let props = schema.get("properties");
    let mut out = Vec::new();
    for f in &fields {
        let raw = props.and_then(|p| p.get(&f.key)).unwrap_or(&Value::Null);
        let path = format!("/{}", f.key.replace('~', "~0").replace('/', "~1"));
        out.extend(
            field_errors(f, raw, value.get(&f.key))
                .into_iter()
                .map(|message| FieldError {
                    path: path.clone(),
                    message,
                }),
        );
    }
    out
}

/// Every rule for one field: the errors shown under it. An empty text is a missing value (the
/// form keeps a required string's "" so the field reads as typed into).
fn field_errors(f: &Field, raw: &Value, value: Option<&Value>) -> Vec<String> {
    let value = value.filter(|v| !is_empty(f, v));
    let mut out = bound_errors(f, value);
    if let (
        FieldKind::String {
            pattern, format, ..
        },
        Some(Value::String(s)),
    ) = (&f.kind, value)
    {
        if let Some(p) = pattern
            && !matches_pattern(p, s)
        {
            out.push(format!("must match the pattern {}", clean_line(p, 200)));
        }
        if let Some(e) = format.and_then(|fm| format_error(fm, s)) {
            out.push(e.into());
        }
    }
    if matches!(f.kind, FieldKind::Enum { multi: true, .. }) {
        out.extend(item_errors(raw, value));
    }
    out
}

/// An empty text or an empty multi-select: left out of the answer, as the web leaves them.
fn is_empty(f: &Field, v: &Value) -> bool {
    match f.kind {
        FieldKind::String { .. } => v.as_str() == Some(""),
        FieldKind::Enum { multi: true, .. } => v.as_array().is_some_and(Vec::is_empty),
        _ => false,
    }
}

/// The content Accept sends: the value without its empty texts and multi-selects.
fn content(schema: &Value, mut value: Value) -> Value {
    if let (FieldKind::Object { fields, .. }, Value::Object(m)) =
        (form_model(schema).kind, &mut value)
    {
        for f in &fields {
            if m.get(&f.key).is_some_and(|v| is_empty(f, v)) {
                m.remove(&f.key);
            }
        }
    }
    value
}

/// A bound as JavaScript prints it (`1`, not `1.0`).
fn num_text(n: f64) -> String {
    number(n).to_string()
}

/// `n` as JSON, integral values without a fraction (as `JSON.stringify` writes them).
fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

/// The fields of `schema`, or why the whole answer is JSON (the web's `elicitLayout`).
fn layout(schema: Option<&Value>) -> Result<Form, String> {
    let schema = match schema {
        None => return Err("the requested schema is missing".into()),
        Some(s @ Value::Object(_)) => s,
        Some(other) => {
            let what = match other {
                Value::Array(_) => "an array",
                Value::Null => "null",
                Value::String(_) => "string",
                Value::Number(_) => "number",
                _ => "boolean",
            };
            return Err(format!("the requested schema is not an object ({what})"));
        }
    };
    let model = form_model(schema);
    let fields = match model.kind {
        FieldKind::Object { fields, .. } => fields,
        FieldKind::Json { reason } => return Err(clean_line(&reason, 300)),
        _ => return Err("the schema is not an object".into()),
    };
    if fields.len() > MAX_FORM_FIELDS {
        return Err(format!("{} fields are too many for a form", fields.len()));
    }
    Ok(Form::new(schema)
        .direct_typing()
        .errors_on_submit()
        .checked_by(web_rules))
}

/// The web's `boundErrors`: required, null, number bounds, string lengths, array sizes.
fn bound_errors(field: &Field, value: Option<&Value>) -> Vec<String> {
    let mut out = Vec::new();
    let Some(value) = value else {
        if field.required {
            out.push("required".to_string());
        }
        return out;
    };
    if value.is_null() {
        return if field.nullable {
            out
        } else {
            vec!["must not be null".into()]
        };
    }
    match (&field.kind, value) {
        (
            FieldKind::Number {
                minimum, maximum, ..
            },
            Value::Number(n),
        ) => {
            let n = n.as_f64().unwrap_or(0.0);
            if let Some(m) = minimum.filter(|m| n < *m) {
                out.push(format!("must be ≥ {}", num_text(m)));
            }
            if let Some(m) = maximum.filter(|m| n > *m) {
                out.push(format!("must be ≤ {}", num_text(m)));
            }
        }
        (
            FieldKind::String {
                min_length,
                max_length,
                ..
            },
            Value::String(s),
        ) => {
            let len = s.chars().count() as u64;
            if let Some(m) = min_length.filter(|m| len < *m) {
                out.push(format!("at least {m} characters"));
            }
            if let Some(m) = max_length.filter(|m| len > *m) {
                out.push(format!("at most {m} characters"));
            }
        }
        (
            FieldKind::Array {
                min_items,
                max_items,
                ..
            },
            Value::Array(a),
        ) => {
            let n = a.len() as u64;
            if let Some(m) = min_items.filter(|m| n < *m) {
                out.push(format!("at least {m} items"));
            }
            if let Some(m) = max_items.filter(|m| n > *m) {
                out.push(format!("at most {m} items"));
            }
        }
        _ => {}
    }
    out
}

/// `pattern` (unanchored, as JSON Schema says), checked by the core's schema validator. A
/// pattern that does not compile is the server's mistake: it is not held against the answer.
fn matches_pattern(pattern: &str, s: &str) -> bool {
    let schema = json!({"type": "string", "pattern": pattern});
    match mcpscope_proto::form::validate(&schema, &json!(s)) {
        Ok(errors) => errors.is_empty(),
        Err(_) => true,
    }
}

/// `format` as the elicitation schema allows it (the web's `formatError`).
fn format_error(format: StringFormat, s: &str) -> Option<&'static str> {
    let ok = match format {
        StringFormat::Email => is_email(s),
        StringFormat::Uri => is_uri(s),
        StringFormat::Date => is_date(s),
        StringFormat::DateTime => is_date_time(s),
    };
    (!ok).then_some(match format {
        StringFormat::Email => "must be an email address",
        StringFormat::Uri => "must be an absolute URI (with a scheme, e.g. https://)",
        StringFormat::Date => "must be a date (YYYY-MM-DD)",
        StringFormat::DateTime => "must be a date and time (RFC 3339)",
    })
}

/// `^[^\s@]+@[^\s@.]+(\.[^\s@.]+)*$`.
fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    let bad = |c: char| c.is_whitespace() || c == '@';
    !local.is_empty()
        && !local.chars().any(bad)
        && domain
            .split('.')
            .all(|part| !part.is_empty() && !part.chars().any(bad))
}

/// A scheme, a colon, then something without whitespace.
fn is_uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        && !rest.is_empty()
        && !rest.chars().any(char::is_whitespace)
}

/// RFC 3339 full-date, a real day of the calendar.
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| {
        s.get(r)
            .filter(|t| t.bytes().all(|c| c.is_ascii_digit()))
            .and_then(|t| t.parse::<u32>().ok())
    };
    let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// RFC 3339 date-time: `YYYY-MM-DDThh:mm:ss[.frac](Z|±hh:mm)`.
fn is_date_time(s: &str) -> bool {
    if s.len() < 20 || !s.is_char_boundary(10) || !is_date(&s[..10]) {
        return false;
    }
    let t = &s[11..];
    if !matches!(s.as_bytes()[10], b'T' | b't') || !t.is_char_boundary(8) {
        return false;
    }
    let two = |x: &str| x.len() == 2 && x.bytes().all(|c| c.is_ascii_digit());
    let (hms, zone) = t.split_at(8);
    let p: Vec<&str> = hms.split(':').collect();
    if p.len() != 3 || !p.iter().all(|x| two(x)) {
        return false;
    }
    let n = |x: &str| x.parse::<u32>().unwrap_or(99);
    if n(p[0]) >= 24 || n(p[1]) >= 60 || n(p[2]) >= 61 {
        return false;
    }
    let zone = match zone.strip_prefix('.') {
        Some(frac) => {
            let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return false;
            }
            &frac[digits..]
        }
        None => zone,
    };
    match zone {
        "Z" | "z" => true,
        z => {
            z.len() == 6
                && (z.starts_with('+') || z.starts_with('-'))
                && two(&z[1..3])
                && &z[3..4] == ":"
                && two(&z[4..6])
        }
    }
}

/// A multi-select's minItems/maxItems, read from its own schema (the form model turns an array
/// of an enum into a multi-select and does not carry them).
fn item_errors(raw: &Value, value: Option<&Value>) -> Vec<String> {
    let n = value.and_then(Value::as_array).map_or(0, Vec::len) as u64;
    let mut out = Vec::new();
    let min = raw.get("minItems").and_then(Value::as_u64);
    let max = raw.get("maxItems").and_then(Value::as_u64);
    if let Some(m) = min.filter(|m| value.is_some() && n < *m) {
        out.push(format!("choose at least {m}"));
    }
    if let Some(m) = max.filter(|m| n > *m) {
        out.push(format!("choose at most {m}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_as_the_web_checks_them() {
        assert!(is_email("ada@example.com") && !is_email("ada@") && !is_email("a b@x.y"));
        assert!(is_uri("https://x") && !is_uri("example.com") && !is_uri("1x:y"));
        assert!(is_date("2024-02-29") && !is_date("2023-02-29") && !is_date("2024-13-01"));
        assert!(is_date_time("2024-05-01T10:30:00Z"));
        assert!(is_date_time("2024-05-01t10:30:00.123+02:00"));
        assert!(!is_date_time("2024-05-01 10:30:00Z") && !is_date_time("2024-05-01T24:00:00Z"));
    }

    fn body() -> FormBody {
        FormBody::new(
            &json!({"message": "hi", "requestedSchema": {"type": "object",
            "properties": {"email": {"type": "string", "format": "email"},
                           "n": {"type": "integer", "maximum": 3}},
            "required": ["email"]}}),
        )
    }

    fn press(b: &mut FormBody, code: KeyCode) -> Outcome {
        b.key(1, KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn messages(b: &FormBody) -> Vec<String> {
        let form = b.form.as_ref().expect("a form");
        assert!(form.revealed(), "errors are drawn only once revealed");
        form.errors().iter().map(|e| e.message.clone()).collect()
    }

    #[test]
    fn errors_wait_for_accept_then_follow_each_change() {
        let mut b = body();
        assert!(!b.form.as_ref().is_some_and(Form::revealed));
        assert!(matches!(press(&mut b, KeyCode::Enter), Outcome::Stay(_)));
        assert_eq!(messages(&b), ["required"]);
        for c in "ada@".chars() {
            press(&mut b, KeyCode::Char(c));
        }
        assert_eq!(messages(&b), ["must be an email address"]);
        for c in "x.y".chars() {
            press(&mut b, KeyCode::Char(c));
        }
        assert!(messages(&b).is_empty());
    }

    #[test]
    fn characters_go_straight_into_the_focused_field() {
        let mut b = body();
        for c in "a@b.c".chars() {
            press(&mut b, KeyCode::Char(c));
        }
        press(&mut b, KeyCode::Down);
        press(&mut b, KeyCode::Char('7'));
        press(&mut b, KeyCode::Enter);
        assert_eq!(messages(&b), ["must be ≤ 3"]);
        press(&mut b, KeyCode::Backspace);
        press(&mut b, KeyCode::Char('2'));
        let Outcome::Close(effects) = press(&mut b, KeyCode::Enter) else {
            panic!("accepted");
        };
        let want = crate::msg::Effect::Answer {
            id: 1,
            answer: Answer::Accept(json!({"email": "a@b.c", "n": 2})),
        };
        assert_eq!(format!("{:?}", effects), format!("{:?}", vec![want]));
    }

    #[test]
    fn a_pattern_that_does_not_compile_is_not_held_against_the_answer() {
        assert!(matches_pattern("^[a-z]+$", "abc"));
        assert!(!matches_pattern("^[a-z]+$", "ABC"));
        assert!(matches_pattern("([", "anything"));
    }
}
