//! A form over a JSON Schema: the tool arguments of the Tools tab and the elicitation forms of
//! the question dialogs. The fields come from the core's schema → form model
//! (`mcpscope_proto::form::form_model`, the one the web UI draws), the value is checked with
//! `mcpscope_proto::form::validate` after every change and each error is drawn under its field.
//!
//! The value (one JSON value) is the truth; the rows are a view of the model beside it. A JSON
//! mode (`Ctrl-T`) edits that same value as text, and going back parses the text into the fields,
//! so nothing typed is lost either way. A schema the model cannot draw as fields opens in JSON
//! mode and stays there.
//!
//! Keys (when the form has the keyboard): ↑↓ / Tab / Shift-Tab move; Enter edits a text or
//! number (Enter or ↑↓ again keeps it, Esc drops the edit), opens an enum's choices or adds an
//! array item; Space toggles a boolean or steps an enum; ←→ step an enum or a boolean; `+` adds
//! and `-` removes array items; Delete unsets an optional field; Ctrl-N sets a nullable field to
//! null. Esc on a form that is not editing is the owner's (to close it).
//!
//! Three options serve their owners: [`Form::direct_typing`] (a focused text or number field
//! takes characters at once and keeps the value as it is typed; Enter is then the owner's: the
//! dialogs and the tool form set it), [`Form::errors_on_submit`] (errors stay
//! hidden until [`Form::submit`] is first called, then follow each change, as the web's
//! ElicitationForm shows them; the dialogs) and [`Form::checked_by`] (a [`Checker`] that turns `validate`'s
//! errors into the owner's rules).

mod draw;
mod rows;

use crate::widgets::input::{Edit, Input};
use crate::widgets::json_editor::JsonEditor;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpscope_proto::form::{
    Field, FieldError, FieldKind, form_model, in_field_order, initial_value, validate,
};
use rows::{Row, Seg, field_at, set_at, value_at};
use serde_json::{Map, Value, json};

/// Validation errors kept (a hostile value may fail a million ways).
const MAX_ERRORS: usize = 200;

/// The owner's rules over a value: given the schema, the value and `validate`'s errors, the
/// errors the form shows (the checker may keep, drop or reword `validate`'s, and add its own).
pub type Checker = fn(&Value, &Value, Vec<FieldError>) -> Vec<FieldError>;

/// What a key did to a form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormEvent {
    /// Not the form's key: the owner may use it (Esc, Ctrl-R, …).
    Ignored,
    /// Taken; the value is unchanged (a move, an edit begun).
    Consumed,
    /// Taken; the value changed (and was validated again).
    Changed,
}

/// A text or number field being typed into.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Editing {
    input: Input,
    /// Why the text cannot be kept yet ("not a number").
    error: Option<String>,
}

/// An enum's choices, open under its row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Picker {
    /// The highlighted choice.
    at: usize,
}

/// A choice of an enum row: its options, and "not set" / null where the field allows them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Choice {
    /// Leave the field out.
    Unset,
    /// `null`.
    Null,
    /// The option's value.
    Value(Value, String),
}

/// A form: the model, the value, where the cursor is, what is being edited, the errors.
#[derive(Debug, Clone)]
pub struct Form {
    schema: Value,
    model: Field,
    value: Value,
    rows: Vec<Row>,
    cursor: usize,
    /// The first line drawn (kept in view of the cursor when drawn).
    top: usize,
    editing: Option<Editing>,
    picker: Option<Picker>,
    /// Some in JSON mode.
    json: Option<JsonEditor>,
    /// Why the JSON text is not a value (or cannot go back to the fields).
    json_error: Option<String>,
    errors: Vec<FieldError>,
    /// Why the schema cannot validate (the server still will).
    unusable: Option<String>,
    /// Characters go straight into a focused text or number field (the dialogs).
    direct: bool,
    /// Errors are drawn (false until the first `submit` when errors wait for it).
    revealed: bool,
    checker: Option<Checker>,
}

impl Form {
    /// The form for `schema`, filled with its defaults.
    pub fn new(schema: &Value) -> Form {
        let model = form_model(schema);
        let value = initial_value(&model).unwrap_or_else(|| json!({}));
        Form::build(schema, model, value)
    }

    /// The form for `schema` filled with `value` (a replay, a saved request).
    pub fn with_value(schema: &Value, value: Value) -> Form {
        Form::build(schema, form_model(schema), value)
    }

    fn build(schema: &Value, model: Field, value: Value) -> Form {
        let drawable = matches!(model.kind, FieldKind::Object { .. });
        let mut f = Form {
            schema: schema.clone(),
            model,
            value,
            rows: Vec::new(),
            cursor: 0,
            top: 0,
            editing: None,
            picker: None,
            json: None,
            json_error: None,
            errors: Vec::new(),
            unusable: None,
            direct: false,
            revealed: true,
            checker: None,
        };
        if !drawable {
            f.json = Some(JsonEditor::of_value(&f.value));
        }
        f.changed();
        f
    }

    /// Characters typed on a text or number field edit it at once (no Enter to begin), the
    /// value follows each key, and Enter is left to the owner (the dialogs' Accept).
    pub fn direct_typing(mut self) -> Form {
        self.direct = true;
        self
    }

    /// Errors are not drawn until the first [`Form::submit`]; then they follow each change.
    pub fn errors_on_submit(mut self) -> Form {
        self.revealed = false;
        self
    }

    /// The owner's rules decide the errors (see [`Checker`]).
    pub fn checked_by(mut self, checker: Checker) -> Form {
        self.checker = Some(checker);
        self.changed();
        self
    }

    /// An attempt to send: errors show from now on, and the value when it parses and no rule
    /// fails, else why not (the first error). The tool form's [`Form::finish`] sends anyway.
    pub fn submit(&mut self) -> Result<Value, String> {
        self.revealed = true;
        let v = self.finish()?;
        match self.errors.first() {
            Some(e) => Err(e.message.clone()),
            None => Ok(v),
        }
    }

    /// True once errors are drawn (always, unless they wait for the first submit).
    pub fn revealed(&self) -> bool {
        self.revealed
    }

    /// True while an enum's choices are open (Enter is the form's then).
    pub fn picking(&self) -> bool {
        self.picker.is_some()
    }

    /// The schema the form was built for.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The value as it stands (in JSON mode: the text's last value that parsed).
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The errors `validate` found in the value (pointer and message).
    pub fn errors(&self) -> &[FieldError] {
        &self.errors
    }

    /// Why the schema could not be used to validate, if so.
    pub fn unusable(&self) -> Option<&str> {
        self.unusable.as_deref()
    }

    /// True in JSON mode.
    pub fn is_json(&self) -> bool {
        self.json.is_some()
    }

    /// True when the schema has fields to draw (not only JSON).
    pub fn drawable(&self) -> bool {
        matches!(self.model.kind, FieldKind::Object { .. })
    }

    /// The root's fields (empty: the schema takes no arguments).
    pub fn field_count(&self) -> usize {
        match &self.model.kind {
            FieldKind::Object { fields, .. } => fields.len(),
            _ => 1,
        }
    }

    /// True while typing goes into the form (a field is edited, JSON mode, or with direct
    /// typing the cursor is on a text or number field): the app's letter keys are typed then.
    pub fn captures(&self) -> bool {
        self.editing.is_some() || self.json.is_some() || self.direct && self.on_text()
    }

    /// True while a field's edit is open (its text being typed).
    pub fn is_editing(&self) -> bool {
        self.editing.is_some()
    }

    /// True when the cursor's field takes typed text (a text, number or JSON field).
    fn on_text(&self) -> bool {
        matches!(
            self.field().map(|f| &f.kind),
            Some(FieldKind::String { .. } | FieldKind::Number { .. } | FieldKind::Json { .. })
        )
    }

    /// Keep what is being typed and give the value to send, or why it cannot be sent yet (an
    /// edit that does not parse, JSON text that is not JSON). Validation errors do not stop it:
    /// the server is the judge, and an inspector must be able to send a wrong call.
    pub fn finish(&mut self) -> Result<Value, String> {
        if self.editing.is_some() {
            self.commit();
            if let Some(e) = self.editing.as_ref().and_then(|e| e.error.clone()) {
                return Err(e);
            }
        }
        if let Some(j) = &self.json {
            return j.parse();
        }
        Ok(self.value.clone())
    }

    /// Apply a key.
    pub fn key(&mut self, key: KeyEvent) -> FormEvent {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('t') {
            return self.switch_mode();
        }
        if self.json.is_some() {
            return self.json_key(key);
        }
        if self.editing.is_some() {
            if self.direct && key.code == KeyCode::Enter {
                return self.commit_direct();
            }
            return self.edit_key(key);
        }
        if self.picker.is_some() {
            return self.picker_key(key);
        }
        if self.direct
            && let Some(ev) = self.begin_typing(key)
        {
            return ev;
        }
        match key.code {
            KeyCode::Up | KeyCode::BackTab => self.go(-1),
            KeyCode::Down | KeyCode::Tab => self.go(1),
            KeyCode::PageUp => self.go(-10),
            KeyCode::PageDown => self.go(10),
            KeyCode::Home => self.go(-(self.rows.len() as isize)),
            KeyCode::End => self.go(self.rows.len() as isize),
            KeyCode::Enter => self.activate(),
            KeyCode::Char(' ') => self.step(1, true),
            KeyCode::Left => self.step(-1, false),
            KeyCode::Right => self.step(1, false),
            KeyCode::Char('+') | KeyCode::Insert => self.add_item(),
            KeyCode::Char('-') => self.remove_item(),
            KeyCode::Delete | KeyCode::Backspace => self.unset(),
            KeyCode::Char('n') if ctrl => self.set_null(),
            _ => FormEvent::Ignored,
        }
    }

    /// After the value changed: the rows again, the cursor kept in them, validation again.
    fn changed(&mut self) {
        // A field filled in later would otherwise be sent (and shown in JSON mode) last.
        in_field_order(&self.model, &mut self.value);
        self.rows = rows::build(&self.model, &self.value);
        self.cursor = self.cursor.min(self.rows.len().saturating_sub(1));
        let found = match validate(&self.schema, &self.value) {
            Ok(e) => {
                self.unusable = None;
                e
            }
            Err(why) => {
                self.unusable = Some(why);
                Vec::new()
            }
        };
        self.errors = match self.checker {
            Some(check) => check(&self.schema, &self.value, found),
            None => found,
        };
        self.errors.truncate(MAX_ERRORS);
    }

    /// Direct typing: an editing key on a text or number field — a character, Backspace, the
    /// line keys Ctrl-U / Ctrl-A / Ctrl-E, ← → — begins its edit with that key, so they act
    /// the same whether the field was reached by typing, Tab, Shift-Tab or ↑; None when the key
    /// is not one of those.
    fn begin_typing(&mut self, key: KeyEvent) -> Option<FormEvent> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        let typed = match key.code {
            KeyCode::Char('u' | 'a' | 'e') if ctrl => true,
            KeyCode::Char(_) | KeyCode::Backspace | KeyCode::Left | KeyCode::Right => plain,
            _ => false,
        };
        if !typed || !self.on_text() {
            return None;
        }
        self.activate();
        Some(self.edit_key(key))
    }

    fn row(&self) -> Option<&Row> {
        self.rows.get(self.cursor)
    }

    /// The field of the cursor's row (an array item: the item field).
    fn field(&self) -> Option<&Field> {
        let r = self.row()?;
        if r.more.is_some() {
            return None;
        }
        field_at(&self.model, &r.steps)
    }

    fn current(&self) -> Option<&Value> {
        value_at(&self.value, &self.row()?.path)
    }

    fn set(&mut self, v: Option<Value>) -> FormEvent {
        let Some(path) = self.row().map(|r| r.path.clone()) else {
            return FormEvent::Ignored;
        };
        set_at(&mut self.value, &path, v);
        self.changed();
        FormEvent::Changed
    }

    fn go(&mut self, by: isize) -> FormEvent {
        let last = self.rows.len().saturating_sub(1) as isize;
        self.cursor = (self.cursor as isize + by).clamp(0, last.max(0)) as usize;
        if self.cursor < self.top {
            self.top = self.cursor;
        }
        FormEvent::Consumed
    }

    fn activate(&mut self) -> FormEvent {
        let Some(f) = self.field() else {
            return FormEvent::Ignored;
        };
        match &f.kind {
            FieldKind::String { .. } | FieldKind::Number { .. } | FieldKind::Json { .. } => {
                let text = match (&f.kind, self.current()) {
                    (_, None) => String::new(),
                    (FieldKind::String { .. }, Some(Value::String(s))) => s.clone(),
                    (_, Some(v)) => v.to_string(),
                };
                self.editing = Some(Editing {
                    input: Input::new(text),
                    error: None,
                });
                FormEvent::Consumed
            }
            FieldKind::Enum { .. } => {
                let at = self.choice_index().unwrap_or(0);
                self.picker = Some(Picker { at });
                FormEvent::Consumed
            }
            FieldKind::Boolean => self.step(1, true),
            FieldKind::Array { .. } => self.add_item(),
            FieldKind::Object { .. } => FormEvent::Ignored,
        }
    }

    fn edit_key(&mut self, key: KeyEvent) -> FormEvent {
        let Some(e) = self.editing.as_mut() else {
            return FormEvent::Ignored;
        };
        match key.code {
            KeyCode::Esc => {
                self.editing = None;
                FormEvent::Consumed
            }
            KeyCode::Enter | KeyCode::Up | KeyCode::Down | KeyCode::Tab | KeyCode::BackTab => {
                let ev = self.commit();
                if self.editing.is_none() {
                    match key.code {
                        KeyCode::Up | KeyCode::BackTab => {
                            self.go(-1);
                        }
                        KeyCode::Down | KeyCode::Tab => {
                            self.go(1);
                        }
                        _ => {}
                    }
                }
                ev
            }
            _ => {
                if e.input.key(key) != Edit::Changed {
                    return FormEvent::Consumed;
                }
                e.error = None;
                if self.direct {
                    return self.keep_typed();
                }
                FormEvent::Consumed
            }
        }
    }

    /// Direct typing: the text as the value after each key, the edit (and its caret) staying
    /// open; a text that does not parse yet keeps its error and the value as it was.
    fn keep_typed(&mut self) -> FormEvent {
        let (Some(e), Some(f), Some(row)) = (&self.editing, self.field(), self.row()) else {
            return FormEvent::Consumed;
        };
        let in_array = row.item.is_some();
        let keep_empty = in_array || f.required && is_string(&f.kind);
        match parse_text(&f.kind, e.input.text(), keep_empty) {
            Ok(v) => self.set(if in_array {
                Some(v.unwrap_or(Value::Null))
            } else {
                v
            }),
            Err(why) => {
                if let Some(e) = self.editing.as_mut() {
                    e.error = Some(why);
                }
                FormEvent::Consumed
            }
        }
    }

    /// Direct typing's Enter: the text is kept (already, as typed), the key is the owner's.
    fn commit_direct(&mut self) -> FormEvent {
        self.commit();
        FormEvent::Ignored
    }

    /// Keep the edited text as the field's value, if it parses; else say why and stay.
    fn commit(&mut self) -> FormEvent {
        let (Some(e), Some(f), Some(row)) = (&self.editing, self.field(), self.row()) else {
            self.editing = None;
            return FormEvent::Consumed;
        };
        let text = e.input.text().to_string();
        let in_array = row.item.is_some();
        let parsed = parse_text(&f.kind, &text, in_array || f.required && is_string(&f.kind));
        match parsed {
            Ok(v) => {
                self.editing = None;
                let v = if in_array {
                    Some(v.unwrap_or(Value::Null))
                } else {
                    v
                };
                self.set(v)
            }
            Err(why) => {
                if let Some(e) = self.editing.as_mut() {
                    e.error = Some(why);
                }
                FormEvent::Consumed
            }
        }
    }

    /// The enum row's choices: "not set" (optional, not an array item), the options, null.
    pub(crate) fn choices(&self) -> Vec<Choice> {
        let (Some(f), Some(row)) = (self.field(), self.row()) else {
            return Vec::new();
        };
        choices_of(f, row.item.is_some())
    }

    fn choice_index(&self) -> Option<usize> {
        let cur = self.current();
        self.choices().iter().position(|c| match (c, cur) {
            (Choice::Unset, None) => true,
            (Choice::Null, Some(Value::Null)) => true,
            (Choice::Value(v, _), Some(x)) => v == x,
            _ => false,
        })
    }

    fn choose(&mut self, c: Choice) -> FormEvent {
        let multi = matches!(
            self.field().map(|f| &f.kind),
            Some(FieldKind::Enum { multi: true, .. })
        );
        if multi {
            let Choice::Value(v, _) = c else {
                return self.set(None);
            };
            let mut list = match self.current() {
                Some(Value::Array(a)) => a.clone(),
                _ => Vec::new(),
            };
            match list.iter().position(|x| *x == v) {
                Some(i) => {
                    list.remove(i);
                }
                None => list.push(v),
            }
            return self.set(Some(Value::Array(list)));
        }
        self.set(match c {
            Choice::Unset => None,
            Choice::Null => Some(Value::Null),
            Choice::Value(v, _) => Some(v),
        })
    }

    /// Space / ←→: a boolean toggles (an optional one cycles "not set" → true → false); an enum
    /// steps to its next choice (Space opens a multi-select's choices).
    fn step(&mut self, by: isize, space: bool) -> FormEvent {
        let Some(f) = self.field() else {
            return FormEvent::Ignored;
        };
        let required = f.required || self.row().is_some_and(|r| r.item.is_some());
        match &f.kind {
            FieldKind::Boolean => {
                let next = match (self.current(), required) {
                    (Some(Value::Bool(true)), true) => Some(json!(false)),
                    (_, true) => Some(json!(true)),
                    (None, false) => Some(json!(by > 0)),
                    (Some(Value::Bool(b)), false) if *b == (by > 0) => Some(json!(!b)),
                    (Some(_), false) => None,
                };
                self.set(next)
            }
            FieldKind::Enum { multi: true, .. } if space => {
                self.picker = Some(Picker { at: 0 });
                FormEvent::Consumed
            }
            FieldKind::Enum { multi: false, .. } => {
                let choices = self.choices();
                if choices.is_empty() {
                    return FormEvent::Consumed;
                }
                let n = choices.len() as isize;
                let at = match self.choice_index() {
                    Some(i) => (i as isize + by).rem_euclid(n),
                    None if by > 0 => 0,
                    None => n - 1,
                };
                self.choose(choices[at as usize].clone())
            }
            // Space or ←→ on a row without choices: not the form's (←: the app may move focus).
            _ => FormEvent::Ignored,
        }
    }

    fn picker_key(&mut self, key: KeyEvent) -> FormEvent {
        let choices = self.choices();
        let multi = matches!(
            self.field().map(|f| &f.kind),
            Some(FieldKind::Enum { multi: true, .. })
        );
        let Some(p) = self.picker.as_mut() else {
            return FormEvent::Ignored;
        };
        let last = choices.len().saturating_sub(1);
        match key.code {
            KeyCode::Up => p.at = p.at.saturating_sub(1),
            KeyCode::Down => p.at = (p.at + 1).min(last),
            KeyCode::Home => p.at = 0,
            KeyCode::End => p.at = last,
            KeyCode::Esc => self.picker = None,
            KeyCode::Char(' ') if multi => {
                let at = p.at;
                return choices
                    .get(at)
                    .cloned()
                    .map_or(FormEvent::Consumed, |c| self.choose(c));
            }
            KeyCode::Enter if multi => self.picker = None,
            KeyCode::Enter => {
                let at = p.at;
                self.picker = None;
                return choices
                    .get(at)
                    .cloned()
                    .map_or(FormEvent::Consumed, |c| self.choose(c));
            }
            _ => {}
        }
        FormEvent::Consumed
    }

    fn array_row(&self) -> Option<(Vec<Seg>, Field)> {
        let r = self.row()?;
        let steps = if r.item.is_some() || r.more.is_some() {
            &r.steps[..r.steps.len().saturating_sub(1)]
        } else {
            &r.steps[..]
        };
        let path = if r.item.is_some() {
            r.path[..r.path.len() - 1].to_vec()
        } else {
            r.path.clone()
        };
        match &field_at(&self.model, steps)?.kind {
            FieldKind::Array { items, .. } => Some((path, (**items).clone())),
            _ => None,
        }
    }

    fn add_item(&mut self) -> FormEvent {
        let Some((path, item)) = self.array_row() else {
            return FormEvent::Ignored;
        };
        let mut list = match value_at(&self.value, &path) {
            Some(Value::Array(a)) => a.clone(),
            _ => Vec::new(),
        };
        list.push(empty_item(&item));
        let n = list.len();
        set_at(&mut self.value, &path, Some(Value::Array(list)));
        self.changed();
        // The cursor onto the new item.
        let p = [&path[..], &[Seg::Index(n - 1)]].concat();
        if let Some(i) = self.rows.iter().position(|r| r.path == p) {
            self.cursor = i;
        }
        FormEvent::Changed
    }

    fn remove_item(&mut self) -> FormEvent {
        let Some(r) = self.row() else {
            return FormEvent::Ignored;
        };
        let (Some(i), Some((path, _))) = (r.item, self.array_row()) else {
            return FormEvent::Ignored;
        };
        if let Some(Value::Array(a)) = value_at(&self.value, &path) {
            let mut a = a.clone();
            if i < a.len() {
                a.remove(i);
            }
            set_at(&mut self.value, &path, Some(Value::Array(a)));
            self.changed();
        }
        FormEvent::Changed
    }

    fn unset(&mut self) -> FormEvent {
        match self.row() {
            Some(r) if r.item.is_some() => self.remove_item(),
            Some(r) if r.more.is_none() && self.current().is_some() => self.set(None),
            Some(_) => FormEvent::Consumed,
            None => FormEvent::Ignored,
        }
    }

    fn set_null(&mut self) -> FormEvent {
        match self.field() {
            Some(f) if f.nullable => {
                let was_null = self.current() == Some(&Value::Null);
                self.set((!was_null).then_some(Value::Null))
            }
            _ => FormEvent::Consumed,
        }
    }

    /// Ctrl-T: form → JSON (the value as text), JSON → form (the text parsed into the fields).
    fn switch_mode(&mut self) -> FormEvent {
        if let Some(j) = &self.json {
            if !self.drawable() {
                self.json_error = Some(format!("{}: only JSON here", self.json_reason()));
                return FormEvent::Consumed;
            }
            match j.parse() {
                Ok(v) => {
                    self.value = v;
                    self.json = None;
                    self.json_error = None;
                    self.changed();
                    FormEvent::Changed
                }
                Err(e) => {
                    self.json_error = Some(format!("not JSON, so it stays here: {e}"));
                    FormEvent::Consumed
                }
            }
        } else {
            if self.editing.is_some() {
                self.commit();
                self.editing = None;
            }
            self.picker = None;
            self.json = Some(JsonEditor::of_value(&self.value));
            FormEvent::Consumed
        }
    }

    fn json_reason(&self) -> String {
        match &self.model.kind {
            FieldKind::Json { reason } => reason.clone(),
            _ => "this schema is not an object".into(),
        }
    }

    fn json_key(&mut self, key: KeyEvent) -> FormEvent {
        let Some(j) = self.json.as_mut() else {
            return FormEvent::Ignored;
        };
        match j.key(key) {
            Edit::Ignored => FormEvent::Ignored,
            Edit::Moved => FormEvent::Consumed,
            Edit::Changed => {
                match j.parse() {
                    Ok(v) => {
                        self.value = v;
                        self.json_error = None;
                        self.changed();
                    }
                    Err(e) => self.json_error = Some(e),
                }
                FormEvent::Changed
            }
        }
    }
}

fn is_string(k: &FieldKind) -> bool {
    matches!(k, FieldKind::String { .. })
}

/// The choices of an enum field.
pub(crate) fn choices_of(f: &Field, in_array: bool) -> Vec<Choice> {
    let FieldKind::Enum { options, multi } = &f.kind else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if !f.required && !in_array && !multi {
        out.push(Choice::Unset);
    }
    out.extend(
        options
            .iter()
            .map(|o| Choice::Value(o.value.clone(), o.label.clone())),
    );
    if f.nullable && !multi {
        out.push(Choice::Null);
    }
    out
}

/// An edited text as a value of kind `k`: `None` for an empty text (the field is left out)
/// unless `keep_empty` (a required string, an array item's string keep "").
fn parse_text(k: &FieldKind, text: &str, keep_empty: bool) -> Result<Option<Value>, String> {
    match k {
        FieldKind::String { .. } if text.is_empty() && !keep_empty => Ok(None),
        FieldKind::String { .. } => Ok(Some(Value::String(text.to_string()))),
        _ if text.trim().is_empty() => Ok(None),
        FieldKind::Number { integer, .. } => parse_number(text.trim(), *integer).map(Some),
        _ => serde_json::from_str(text)
            .map(Some)
            .map_err(|e| format!("not JSON: {e}")),
    }
}

fn parse_number(t: &str, integer: bool) -> Result<Value, String> {
    let n: f64 = t.parse().map_err(|_| "not a number".to_string())?;
    if !n.is_finite() {
        return Err("not a number".into());
    }
    // "5" is 5, not 5.0, in any number field (as typed, and as the web's JSON.stringify sends it).
    if let Ok(i) = t.parse::<i64>() {
        return Ok(json!(i));
    }
    if integer {
        if n.fract() != 0.0 {
            return Err("must be an integer".into());
        }
        if n.abs() < 9.0e15 {
            return Ok(json!(n as i64));
        }
    }
    Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
}

/// The value of a new array item: its default, else an empty one of its kind.
fn empty_item(item: &Field) -> Value {
    let mut f = item.clone();
    f.required = true;
    if let Some(v) = initial_value(&f) {
        return v;
    }
    match &item.kind {
        FieldKind::String { .. } => json!(""),
        FieldKind::Boolean => json!(false),
        FieldKind::Number { .. } => json!(0),
        FieldKind::Array { .. } => json!([]),
        FieldKind::Object { .. } => Value::Object(Map::new()),
        FieldKind::Enum { options, multi } => {
            if *multi {
                json!([])
            } else {
                options.first().map_or(Value::Null, |o| o.value.clone())
            }
        }
        FieldKind::Json { .. } => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(f: &mut Form, code: KeyCode) -> FormEvent {
        f.key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn schema() -> Value {
        json!({"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"]})
    }

    #[test]
    fn the_tool_form_begins_an_edit_with_enter_the_dialogs_type_at_once() {
        let mut tool = Form::new(&schema());
        assert_eq!(key(&mut tool, KeyCode::Char('a')), FormEvent::Ignored);
        assert_eq!(tool.value(), &json!({}));
        let mut dialog = Form::new(&schema()).direct_typing();
        assert_eq!(key(&mut dialog, KeyCode::Char('a')), FormEvent::Changed);
        assert_eq!(dialog.value(), &json!({"s": "a"}));
        assert_eq!(key(&mut dialog, KeyCode::Enter), FormEvent::Ignored);
        assert_eq!(dialog.value(), &json!({"s": "a"}));
    }

    #[test]
    fn errors_wait_for_the_first_submit_only_when_asked() {
        let tool = Form::new(&schema());
        assert!(tool.revealed() && !tool.errors().is_empty());
        let mut dialog = Form::new(&schema()).errors_on_submit();
        assert!(!dialog.revealed());
        assert!(dialog.submit().is_err());
        assert!(dialog.revealed());
    }

    #[test]
    fn a_checker_decides_the_errors() {
        fn none(_: &Value, _: &Value, _: Vec<FieldError>) -> Vec<FieldError> {
            Vec::new()
        }
        let mut f = Form::new(&schema()).checked_by(none);
        assert!(f.errors().is_empty());
        assert_eq!(f.submit(), Ok(json!({})));
    }
}
