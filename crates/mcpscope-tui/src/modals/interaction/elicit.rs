//! The elicitation form (000's dialog), as the web's `ElicitationForm` draws it: one input per
//! field of the requested schema (the core's form model, `mcpscope_proto::form`), labelled with
//! its title, a required mark and its raw key, defaults pre-filled. Accept checks every field
//! first with the web's rules (`web/src/utils/elicitation.ts`: required, bounds, integer,
//! lengths, `pattern`, `format`, a multi-select's item bounds) and sends nothing while one is
//! wrong, the errors under the fields; Decline and Cancel always send, unchecked. A schema
//! outside the elicitation subset is answered as JSON: per field, or whole when it is not a flat
//! object of at most [`MAX_FORM_FIELDS`] fields.

use super::editor::TextArea;
use super::{Hint, answer, clean_line, clean_lines, message_of};
use crate::modals::Outcome;
use crate::widgets::input::Input;
use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpscope_inspect::Answer;
use mcpscope_proto::form::{Field, FieldKind, StringFormat, form_model};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::{Map, Value, json};

/// More fields than this are answered in the JSON editor (the web's bound).
pub(crate) const MAX_FORM_FIELDS: usize = 100;

/// What a field's input holds.
#[derive(Debug, Clone)]
enum Control {
    Text(Input),
    Number(Input),
    /// Never touched and no default: `None` (left out).
    Boolean(Option<bool>),
    /// The chosen option (`None`: "choose…" / "not set").
    Select(Option<usize>),
    /// Which options are ticked, and the option the cursor is on.
    Checks(Vec<bool>, usize),
    /// A field outside the subset, as JSON text.
    Json(Input),
}

#[derive(Debug, Clone)]
struct FieldRow {
    field: Field,
    control: Control,
    /// The property's own schema (a multi-select's minItems/maxItems).
    raw: Value,
}

/// The form's state.
#[derive(Debug, Clone)]
pub(crate) struct FormBody {
    message: Vec<String>,
    fields: Vec<FieldRow>,
    focus: usize,
    /// The errors by field, once Accept was pressed.
    errors: Option<Vec<Vec<String>>>,
    /// Why the whole answer is JSON, its editor and its error.
    whole: Option<(String, TextArea, Option<String>)>,
}

const HINTS: &[Hint] = &[
    ("Enter", "accept"),
    ("^D", "decline"),
    ("Esc", "cancel"),
    ("Tab ↑↓", "field"),
    ("Space ←→", "choose"),
];
const WHOLE_HINTS: &[Hint] = &[("^S", "accept"), ("^D", "decline"), ("Esc", "cancel")];

impl FormBody {
    /// The form for an elicitation's `payload` (its `requestedSchema`).
    pub(crate) fn new(payload: &Value) -> FormBody {
        let message = clean_lines(message_of(payload).unwrap_or(""), 20, 2_000);
        let schema = payload.get("requestedSchema");
        let mut body = FormBody {
            message,
            fields: Vec::new(),
            focus: 0,
            errors: None,
            whole: None,
        };
        match layout(schema) {
            Ok(fields) => body.fields = fields,
            Err(why) => body.whole = Some((why, TextArea::new("{}"), None)),
        }
        body
    }

    /// The keys shown.
    pub(crate) fn hints(&self) -> &'static [Hint] {
        if self.whole.is_some() {
            WHOLE_HINTS
        } else {
            HINTS
        }
    }

    /// A key.
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
        let n = self.fields.len();
        match key.code {
            KeyCode::Enter => return self.accept(id),
            KeyCode::Tab | KeyCode::Down if n > 0 => self.focus = (self.focus + 1) % n,
            KeyCode::BackTab | KeyCode::Up if n > 0 => self.focus = (self.focus + n - 1) % n,
            _ => {
                if self.edit(key) {
                    self.recheck(self.focus);
                }
            }
        }
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
        let (content, errors) = collect(&self.fields);
        let ok = errors.iter().all(Vec::is_empty);
        self.errors = Some(errors);
        if ok {
            answer(id, Answer::Accept(Value::Object(content)))
        } else {
            Outcome::Stay(vec![])
        }
    }

    /// Once checked, a corrected field loses its error as soon as it is fixed.
    fn recheck(&mut self, i: usize) {
        if let (Some(errors), Some(f)) = (&mut self.errors, self.fields.get(i)) {
            errors[i] = field_errors(f);
        }
    }

    /// An editing key on the focused field; true when its value changed.
    fn edit(&mut self, key: KeyEvent) -> bool {
        let Some(f) = self.fields.get_mut(self.focus) else {
            return false;
        };
        let options = match &f.field.kind {
            FieldKind::Enum { options, .. } => options.len(),
            _ => 0,
        };
        match (&mut f.control, key.code) {
            (Control::Text(i) | Control::Number(i) | Control::Json(i), _) => {
                i.key(key) == crate::widgets::input::Edit::Changed
            }
            (Control::Boolean(b), KeyCode::Char(' ')) => {
                *b = Some(!b.unwrap_or(false));
                true
            }
            (Control::Select(s), KeyCode::Char(' ') | KeyCode::Right) => {
                *s = match *s {
                    None if options > 0 => Some(0),
                    Some(i) if i + 1 < options => Some(i + 1),
                    _ => None,
                };
                true
            }
            (Control::Select(s), KeyCode::Left) => {
                *s = match *s {
                    None => options.checked_sub(1),
                    Some(0) => None,
                    Some(i) => Some(i - 1),
                };
                true
            }
            (Control::Checks(on, at), KeyCode::Char(' ')) => {
                if let Some(x) = on.get_mut(*at) {
                    *x = !*x;
                }
                true
            }
            (Control::Checks(on, at), KeyCode::Right) => {
                *at = (*at + 1).min(on.len().saturating_sub(1));
                false
            }
            (Control::Checks(_, at), KeyCode::Left) => {
                *at = at.saturating_sub(1);
                false
            }
            _ => false,
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
        let head = lines.len();
        let (rows, focus_at) = self.field_lines(theme, area.width as usize);
        let h = area.height as usize;
        let room = h.saturating_sub(head + 1).max(1);
        // Keep the focused field in view: a third of the way down once it is past the first.
        let top = if focus_at + 4 <= room {
            0
        } else {
            (focus_at + 4)
                .saturating_sub(room)
                .min(rows.len().saturating_sub(room))
        };
        lines.extend(rows.into_iter().skip(top).take(room));
        lines.truncate(h.saturating_sub(1));
        lines.push(self.status_line(theme));
        f.render_widget(Paragraph::new(lines), area);
    }

    /// "2 fields need fixing — nothing was sent." or the keys.
    fn status_line(&self, theme: Theme) -> Line<'static> {
        let invalid = self
            .errors
            .as_ref()
            .map_or(0, |e| e.iter().filter(|e| !e.is_empty()).count());
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
        if self.fields.is_empty() {
            return Line::styled("The server asks for no fields.", theme.dim());
        }
        super::hint_line(&HINTS[..3], theme)
    }

    /// Every field's lines, and the first line of the focused one.
    fn field_lines(&self, theme: Theme, width: usize) -> (Vec<Line<'static>>, usize) {
        let mut out = Vec::new();
        let mut focus_at = 0;
        for (i, f) in self.fields.iter().enumerate() {
            let on = i == self.focus;
            if on {
                focus_at = out.len();
            }
            out.push(label_line(f, on, theme));
            out.push(control_line(f, on, theme, width));
            if let Some(d) = f.field.description.as_deref().filter(|d| !d.is_empty()) {
                out.push(Line::styled(
                    format!("    {}", clean_line(d, 500)),
                    theme.dim(),
                ));
            }
            let errors = self.errors.as_ref().and_then(|e| e.get(i));
            if let Some(e) = errors.filter(|e| !e.is_empty()) {
                out.push(Line::styled(
                    format!("    ✗ {}", e.join("; ")),
                    theme.error(),
                ));
            }
        }
        (out, focus_at)
    }
}

/// "▸ Full name * name" — the title (cut), the required mark, the raw key.
fn label_line(f: &FieldRow, on: bool, theme: Theme) -> Line<'static> {
    let title = if f.field.title.is_empty() {
        &f.field.key
    } else {
        &f.field.title
    };
    let mut spans = vec![
        Span::styled(if on { "▸ " } else { "  " }, theme.key()),
        Span::styled(
            clean_line(title, 200),
            if on { theme.title() } else { theme.plain() },
        ),
    ];
    if f.field.required {
        spans.push(Span::styled(" *", theme.error()));
    }
    spans.push(Span::styled(
        format!("  {}", clean_line(&f.field.key, 80)),
        theme.dim(),
    ));
    Line::from(spans)
}

/// The input: a text box, a checkbox, a select's choice, a row of checkboxes.
fn control_line(f: &FieldRow, on: bool, theme: Theme, width: usize) -> Line<'static> {
    let options: Vec<String> = match &f.field.kind {
        FieldKind::Enum { options, .. } => {
            options.iter().map(|o| clean_line(&o.label, 200)).collect()
        }
        _ => Vec::new(),
    };
    let mut spans = vec![Span::raw("    ")];
    match &f.control {
        Control::Text(i) | Control::Number(i) | Control::Json(i) => {
            // A box of a fixed width, so an empty field still reads as one to type into.
            let box_w = width.saturating_sub(8).min(40);
            let text = i.spans(on, box_w).spans;
            let used: usize = text.iter().map(|s| s.content.chars().count()).sum();
            spans.push(Span::styled("[", theme.dim()));
            spans.extend(text);
            spans.push(Span::raw(" ".repeat(box_w.saturating_sub(used))));
            spans.push(Span::styled("]", theme.dim()));
            spans.push(Span::styled(format!(" {}", hint_of(f)), theme.dim()));
        }
        Control::Boolean(b) => spans.push(Span::raw(match b {
            Some(true) => "[x] yes",
            Some(false) => "[ ] no",
            None => "[ ] not set",
        })),
        Control::Select(s) => {
            let none = if f.field.required {
                "choose…"
            } else {
                "not set"
            };
            let shown = s.and_then(|i| options.get(i).cloned());
            let style = if on { theme.selected() } else { theme.plain() };
            spans.push(Span::styled(
                format!("◂ {} ▸", shown.as_deref().unwrap_or(none)),
                style,
            ));
            spans.push(Span::styled(
                format!("  {} options", options.len()),
                theme.dim(),
            ));
        }
        Control::Checks(ticked, at) => {
            for (k, label) in options.iter().enumerate() {
                let mark = if ticked.get(k) == Some(&true) {
                    "[x] "
                } else {
                    "[ ] "
                };
                let style = if on && k == *at {
                    theme.selected()
                } else {
                    theme.plain()
                };
                spans.push(Span::styled(format!("{mark}{label}"), style));
                spans.push(Span::raw("  "));
            }
        }
    }
    Line::from(spans)
}

/// What the text box takes: the format, a number's kind and range, JSON.
fn hint_of(f: &FieldRow) -> String {
    match &f.field.kind {
        FieldKind::String { format, .. } => match format {
            Some(StringFormat::Email) => "email".into(),
            Some(StringFormat::Uri) => "URI".into(),
            Some(StringFormat::Date) => "YYYY-MM-DD".into(),
            Some(StringFormat::DateTime) => "RFC 3339 date-time".into(),
            None => String::new(),
        },
        FieldKind::Number {
            integer,
            minimum,
            maximum,
        } => {
            let mut t = if *integer { "integer" } else { "number" }.to_string();
            if let Some(m) = minimum {
                t.push_str(&format!(", ≥ {}", num_text(*m)));
            }
            if let Some(m) = maximum {
                t.push_str(&format!(", ≤ {}", num_text(*m)));
            }
            t
        }
        FieldKind::Json { reason } => format!("JSON ({})", clean_line(reason, 100)),
        _ => "JSON".into(),
    }
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
fn layout(schema: Option<&Value>) -> Result<Vec<FieldRow>, String> {
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
    let props = schema.get("properties").cloned().unwrap_or(Value::Null);
    Ok(fields
        .into_iter()
        .map(|field| {
            let raw = props.get(&field.key).cloned().unwrap_or(Value::Null);
            let control = initial(&field);
            FieldRow {
                field,
                control,
                raw,
            }
        })
        .collect())
}

/// A field's input, holding its default where it has one.
fn initial(f: &Field) -> Control {
    let d = f.default.as_ref();
    let index = |options: &[mcpscope_proto::form::EnumOption], v: &Value| {
        options.iter().position(|o| &o.value == v)
    };
    match &f.kind {
        FieldKind::String { .. } => {
            Control::Text(Input::new(d.and_then(Value::as_str).unwrap_or("")))
        }
        FieldKind::Number { .. } => Control::Number(Input::new(
            d.filter(|v| v.is_number())
                .map(Value::to_string)
                .unwrap_or_default(),
        )),
        FieldKind::Boolean => Control::Boolean(d.and_then(Value::as_bool)),
        FieldKind::Enum {
            options,
            multi: false,
        } => Control::Select(d.and_then(|d| index(options, d))),
        FieldKind::Enum {
            options,
            multi: true,
        } => {
            let mut on = vec![false; options.len()];
            for v in d.and_then(Value::as_array).into_iter().flatten() {
                if let Some(i) = index(options, v) {
                    on[i] = true;
                }
            }
            Control::Checks(on, 0)
        }
        _ => Control::Json(Input::new(d.map(Value::to_string).unwrap_or_default())),
    }
}

/// The value an input stands for (`None`: left out), or why it is not one.
fn draft_value(f: &FieldRow) -> Result<Option<Value>, String> {
    let options = match &f.field.kind {
        FieldKind::Enum { options, .. } => options.as_slice(),
        _ => &[],
    };
    match &f.control {
        Control::Text(i) if i.text().is_empty() => Ok(None),
        Control::Text(i) => Ok(Some(json!(i.text()))),
        Control::Number(i) => {
            let t = i.text().trim();
            if t.is_empty() {
                return Ok(None);
            }
            let integer = matches!(f.field.kind, FieldKind::Number { integer: true, .. });
            match t.parse::<f64>() {
                Ok(n) if n.is_finite() && integer && n.fract() != 0.0 => {
                    Err("must be an integer".into())
                }
                Ok(n) if n.is_finite() => Ok(Some(number(n))),
                _ => Err("not a number".into()),
            }
        }
        Control::Boolean(b) => Ok(b.map(Value::Bool)),
        Control::Select(s) => Ok(s.and_then(|i| options.get(i)).map(|o| o.value.clone())),
        Control::Checks(on, _) => {
            let chosen: Vec<Value> = options
                .iter()
                .zip(on)
                .filter(|(_, on)| **on)
                .map(|(o, _)| o.value.clone())
                .collect();
            Ok((!chosen.is_empty()).then_some(Value::Array(chosen)))
        }
        Control::Json(i) if i.text().trim().is_empty() => Ok(None),
        Control::Json(i) => serde_json::from_str(i.text())
            .map(Some)
            .map_err(|e| format!("not valid JSON: {e}")),
    }
}

/// Every rule for one field: the errors shown under it.
fn field_errors(f: &FieldRow) -> Vec<String> {
    let value = match draft_value(f) {
        Ok(v) => v,
        Err(e) => return vec![e],
    };
    let mut out = bound_errors(&f.field, value.as_ref());
    if let (
        FieldKind::String {
            pattern, format, ..
        },
        Some(Value::String(s)),
    ) = (&f.field.kind, &value)
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
    if matches!(f.control, Control::Checks(..)) {
        out.extend(item_errors(&f.raw, value.as_ref()));
    }
    out
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

/// What Accept sends, and each field's errors.
fn collect(fields: &[FieldRow]) -> (Map<String, Value>, Vec<Vec<String>>) {
    let mut content = Map::new();
    let mut errors = Vec::new();
    for f in fields {
        errors.push(field_errors(f));
        if let Ok(Some(v)) = draft_value(f) {
            content.insert(f.field.key.clone(), v);
        }
    }
    (content, errors)
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

    #[test]
    fn a_pattern_that_does_not_compile_is_not_held_against_the_answer() {
        assert!(matches_pattern("^[a-z]+$", "abc"));
        assert!(!matches_pattern("^[a-z]+$", "ABC"));
        assert!(matches_pattern("([", "anything"));
    }
}
