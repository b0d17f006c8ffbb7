//! Schema → form model: the fields a view draws for a JSON Schema (tool `inputSchema`, prompt
//! arguments, template variables, elicitation `requestedSchema`).
//!
//! Computed here, once, so the web UI and the TUI draw the same form. It covers what users of the
//! official Inspector keep asking for: nested objects, arrays, enums and `oneOf`/`anyOf` of consts
//! as selects (with titles), nullable unions, local `$ref`/`$defs` (never fetched), `allOf`
//! merged, string formats, defaults, required marks and bounds. Anything it cannot draw faithfully
//! becomes a [`FieldKind::Json`] field with the reason, so the view falls back to a JSON editor
//! instead of guessing.

use serde::Serialize;
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};

/// How deep nesting and `$ref` chains are followed before falling back to JSON.
const MAX_DEPTH: usize = 24;

/// One field of a form.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(
    feature = "ts",
    derive(ts_rs::TS),
    ts(rename = "FormField", optional_fields)
)]
#[serde(rename_all = "camelCase")]
pub struct Field {
    /// Property name (empty for the root and for array items).
    pub key: String,
    /// Label: `title`, else the key.
    pub title: String,
    /// `description`, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Listed in the parent's `required`.
    pub required: bool,
    /// `null` is an accepted value (`type: [T, "null"]`, `anyOf: [T, {type: null}]`).
    pub nullable: bool,
    /// `default`, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// What to draw.
    pub kind: FieldKind,
}

/// One choice of a select.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct EnumOption {
    /// The value sent.
    pub value: Value,
    /// What is shown.
    pub label: String,
}

/// String formats with a matching input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum StringFormat {
    /// `email`.
    Email,
    /// `uri`.
    Uri,
    /// `date`.
    Date,
    /// `date-time`.
    DateTime,
}

/// What kind of input a field is.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum FieldKind {
    /// A group of named fields.
    Object {
        /// Fields in schema order.
        fields: Vec<Field>,
        /// Whether unknown keys are allowed (`additionalProperties` not `false`).
        open: bool,
    },
    /// A list with add/remove.
    Array {
        /// The item field.
        items: Box<Field>,
        /// `minItems`.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        min_items: Option<u64>,
        /// `maxItems`.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        max_items: Option<u64>,
    },
    /// Text.
    String {
        /// A format with a matching input.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        format: Option<StringFormat>,
        /// `minLength`.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        min_length: Option<u64>,
        /// `maxLength`.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        max_length: Option<u64>,
        /// `pattern`.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        pattern: Option<String>,
    },
    /// A number.
    Number {
        /// `type: integer`.
        integer: bool,
        /// `minimum`.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        minimum: Option<f64>,
        /// `maximum`.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        maximum: Option<f64>,
    },
    /// A checkbox; when not required, a tri-state "not set / true / false".
    Boolean,
    /// A select (or multi-select).
    Enum {
        /// The choices.
        options: Vec<EnumOption>,
        /// Several may be chosen (an array of an enum).
        multi: bool,
    },
    /// A JSON editor: the schema is beyond what a form can draw faithfully.
    Json {
        /// Why (shown to the user).
        reason: String,
    },
}

/// Build the form for `schema`. Never fails: what cannot be drawn becomes a JSON field.
///
/// Bounded for any schema a server sends: at most [`MAX_NODES`] fields and select options, at
/// most [`MAX_TEXT_BYTES`] of copied text, nesting and `$ref` chains at most `MAX_DEPTH` deep;
/// time is linear in that work plus the size of the schema. A `$ref` back to a schema it is
/// inside of is not expanded again: it becomes a JSON field whose reason starts with
/// `recursive:`. What does not fit the budget becomes a JSON field whose reason starts with
/// `too large for a form:`.
pub fn form_model(schema: &Value) -> Field {
    let cx = Cx {
        root: schema,
        budget: Budget::default(),
        ancestors: RefCell::default(),
    };
    cx.budget.take_nodes(1);
    cx.field("", schema, false, 0)
}

/// Most fields plus select options in one form. A real tool has tens; a schema that expands to
/// more (a `$ref` fanned out level after level) is cut, the rest edited as JSON.
pub const MAX_NODES: usize = 10_000;

/// Most bytes of text (keys, titles, descriptions, defaults, patterns, option values and labels)
/// copied from the schema into one form, so a long description referenced from every field
/// cannot multiply.
pub const MAX_TEXT_BYTES: usize = 4 << 20;

/// Longest piece of the schema (a `$ref`, a type name) quoted in a reason.
const MAX_QUOTE: usize = 120;

/// What building one form may still spend.
struct Budget {
    nodes: Cell<usize>,
    text: Cell<usize>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            nodes: Cell::new(MAX_NODES),
            text: Cell::new(MAX_TEXT_BYTES),
        }
    }
}

impl Budget {
    /// Pay for `n` fields or options; a part that does not fit is cut, smaller ones still fit.
    fn take_nodes(&self, n: usize) -> bool {
        let left = self.nodes.get().checked_sub(n);
        if let Some(left) = left {
            self.nodes.set(left);
        }
        left.is_some()
    }

    /// Pay for `n` bytes of text; when they do not fit, the text budget is spent, so every field
    /// after this one is cut rather than drawn without its annotations.
    fn take_text(&self, n: usize) -> bool {
        let left = self.text.get().checked_sub(n);
        self.text.set(left.unwrap_or(0));
        left.is_some()
    }

    /// Count work proportional to `n` bytes of the schema (a `$ref` followed) against the text
    /// budget, so following long pointers for every field is bounded too.
    fn spend_text(&self, n: usize) {
        self.text.set(self.text.get().saturating_sub(n));
    }

    fn spent(&self) -> bool {
        self.nodes.get() == 0 || self.text.get() == 0
    }

    /// A copy of `s` if the text budget allows it.
    fn copy(&self, s: &str) -> Option<String> {
        self.take_text(s.len()).then(|| s.to_string())
    }

    /// A copy of `v` if the text budget allows it (measured as its JSON size).
    fn copy_value(&self, v: &Value) -> Option<Value> {
        let left = self.text.get();
        self.take_text(json_len(v, left)).then(|| v.clone())
    }
}

/// The cut a view shows when the budget is spent.
fn too_large(what: &str) -> FieldKind {
    FieldKind::Json {
        reason: format!("too large for a form: {what}; edit as JSON"),
    }
}

fn json_kind(reason: impl Into<String>) -> FieldKind {
    FieldKind::Json {
        reason: reason.into(),
    }
}

/// `s` as quoted in a reason: cut at `MAX_QUOTE` bytes, so a megabyte-long `$ref` is not copied
/// into every field that refers to it.
fn quote(s: &str) -> String {
    shorten(s, MAX_QUOTE)
}

/// `s` cut to at most `max` bytes on a character boundary, with `…` when cut.
pub(crate) fn shorten(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut cut = max;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &s[..cut])
}

/// The size of `v` written as JSON, approximately, counted no further than `limit` (so a huge
/// default costs at most `limit` steps to price). Iterative: the value may be deep.
fn json_len(v: &Value, limit: usize) -> usize {
    let mut total = 0usize;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        total += match v {
            Value::Null | Value::Bool(_) => 5,
            Value::Number(_) => 8,
            Value::String(s) => s.len() + 2,
            Value::Array(a) => {
                stack.extend(a.iter());
                2 + a.len()
            }
            Value::Object(o) => {
                total += o.keys().map(|k| k.len() + 4).sum::<usize>();
                stack.extend(o.values());
                2
            }
        };
        if total > limit {
            return total;
        }
    }
    total
}

/// The builder's state for one form: the document `$ref`s point into, what is left to spend,
/// and the schemas the field being built is inside of (to see a `$ref` come back).
struct Cx<'a> {
    root: &'a Value,
    budget: Budget,
    /// Schemas (by address in `root`) of the current field and its ancestors, `$ref` targets and
    /// `allOf` members included; in push order, with a set for the lookup.
    ancestors: RefCell<(Vec<*const Value>, HashSet<*const Value>)>,
}

/// A schema seen through its `allOf` members: each keyword is read from the last member that has
/// it, `properties` and `required` are united (what merging the members used to give, without
/// copying them).
struct View<'a> {
    layers: Vec<&'a Value>,
}

impl<'a> View<'a> {
    fn get(&self, keyword: &str) -> Option<&'a Value> {
        self.layers.iter().rev().find_map(|l| l.get(keyword))
    }

    /// `true`, `{}`, or only `allOf`s of those: anything is accepted.
    fn accepts_anything(&self) -> bool {
        self.layers.iter().all(|l| {
            l.as_bool() == Some(true)
                || l.as_object()
                    .is_some_and(|o| o.keys().all(|k| k == "allOf"))
        })
    }

    /// Why no value can satisfy every member, if one of them says so plainly: a `false` member,
    /// or two members asking for different types.
    fn contradiction(&self) -> Option<String> {
        if self.layers.iter().any(|l| l.as_bool() == Some(false)) {
            return Some("allOf has a false member: no value is accepted".into());
        }
        let mut first: Option<&str> = None;
        for t in self.layers.iter().filter_map(|l| l.get("type")?.as_str()) {
            match first {
                None => first = Some(t),
                Some(f) if f == t || compatible_types(f, t) => {}
                Some(f) => {
                    return Some(format!(
                        "allOf asks for type {} and type {}: no value is accepted",
                        quote(f),
                        quote(t)
                    ));
                }
            }
        }
        None
    }

    /// How many properties and `required` entries the members declare (before uniting them):
    /// what building the object costs.
    fn property_count(&self) -> usize {
        let props: usize = self
            .layers
            .iter()
            .filter_map(|l| l.get("properties")?.as_object())
            .map(Map::len)
            .sum();
        let required: usize = self
            .layers
            .iter()
            .filter_map(|l| l.get("required")?.as_array())
            .map(Vec::len)
            .sum();
        props + required
    }

    /// Properties of every member, in first-seen order; a later member's schema for a name wins.
    fn properties(&self) -> Vec<(&'a str, &'a Value)> {
        let mut out: Vec<(&'a str, &'a Value)> = Vec::new();
        let mut at: HashMap<&'a str, usize> = HashMap::new();
        for props in self
            .layers
            .iter()
            .filter_map(|l| l.get("properties")?.as_object())
        {
            for (k, v) in props {
                match at.get(k.as_str()) {
                    Some(&i) => out[i].1 = v,
                    None => {
                        at.insert(k, out.len());
                        out.push((k, v));
                    }
                }
            }
        }
        out
    }

    fn required(&self) -> HashSet<&'a str> {
        self.layers
            .iter()
            .filter_map(|l| l.get("required")?.as_array())
            .flatten()
            .filter_map(Value::as_str)
            .collect()
    }
}

/// `integer` is a `number`; the two do not contradict each other.
fn compatible_types(a: &str, b: &str) -> bool {
    matches!((a, b), ("number", "integer") | ("integer", "number"))
}

impl<'a> Cx<'a> {
    /// Follow a local `$ref` (`#/$defs/x`, `#/definitions/x`, any `#/…` pointer).
    fn resolve(&self, schema: &'a Value, depth: usize) -> Result<&'a Value, String> {
        let mut cur = schema;
        let mut hops = 0;
        while let Some(r) = cur.get("$ref").and_then(Value::as_str) {
            hops += 1;
            self.budget.spend_text(r.len());
            if hops + depth > MAX_DEPTH {
                return Err(format!("$ref chain too deep or cyclic at {}", quote(r)));
            }
            let Some(pointer) = r.strip_prefix('#') else {
                return Err(format!(
                    "$ref {} points outside this schema; it is never fetched",
                    quote(r)
                ));
            };
            cur = self
                .root
                .pointer(pointer)
                .ok_or_else(|| format!("$ref {} does not resolve in this schema", quote(r)))?;
        }
        Ok(cur)
    }

    /// Note `schema` as one the field being built is inside of.
    fn enter(&self, schema: &'a Value) {
        let mut a = self.ancestors.borrow_mut();
        let p: *const Value = schema;
        if a.1.insert(p) {
            a.0.push(p);
        }
    }

    fn is_ancestor(&self, schema: &Value) -> bool {
        let p: *const Value = schema;
        self.ancestors.borrow().1.contains(&p)
    }

    /// Forget the ancestors entered after `mark`.
    fn leave(&self, mark: usize) {
        let mut a = self.ancestors.borrow_mut();
        while a.0.len() > mark {
            if let Some(p) = a.0.pop() {
                a.1.remove(&p);
            }
        }
    }

    /// The field for `schema`. Its node has been paid for by the caller.
    fn field(&self, key: &str, schema: &'a Value, required: bool, depth: usize) -> Field {
        let mark = self.ancestors.borrow().0.len();
        let f = self.field_in(key, schema, required, depth);
        self.leave(mark);
        f
    }

    fn field_in(&self, key: &str, schema: &'a Value, required: bool, depth: usize) -> Field {
        let mut f = Field {
            key: key.to_string(),
            title: key.to_string(),
            description: None,
            required,
            nullable: false,
            default: None,
            kind: json_kind(String::new()),
        };
        if self.budget.spent() {
            f.kind = too_large(&format!(
                "more than {MAX_NODES} fields or {MAX_TEXT_BYTES} bytes"
            ));
            return f;
        }
        // Annotations on the referring schema win over the target's (JSON Schema 2020-12).
        self.read_annotations(&mut f, &schema);
        if self.budget.spent() {
            f.kind = too_large(&format!("annotations over {MAX_TEXT_BYTES} bytes"));
            return f;
        }
        if depth > MAX_DEPTH {
            f.kind = json_kind("nested too deeply for a form");
            return f;
        }
        let target = match self.resolve(schema, depth) {
            Ok(s) => s,
            Err(reason) => {
                f.kind = json_kind(reason);
                return f;
            }
        };
        if self.is_ancestor(target) {
            let r = schema.get("$ref").and_then(Value::as_str).unwrap_or("#");
            f.kind = json_kind(format!(
                "recursive: {} refers back to a schema it is inside of; edit as JSON",
                quote(r)
            ));
            return f;
        }
        let view = match self.view(target, depth) {
            Ok(v) => v,
            Err(kind) => {
                f.kind = kind;
                return f;
            }
        };
        if f.title == key && f.description.is_none() && f.default.is_none() {
            self.read_annotations(&mut f, &view);
        } else {
            self.fill_missing_annotations(&mut f, &view);
        }
        if self.budget.spent() {
            f.kind = too_large(&format!("annotations over {MAX_TEXT_BYTES} bytes"));
            return f;
        }
        f.kind = match self.kind(&mut f, &view, depth) {
            Ok(kind) => kind,
            Err(field) => return *field,
        };
        f
    }

    /// `target` seen through its `allOf` members, each entered as an ancestor.
    fn view(&self, target: &'a Value, depth: usize) -> Result<View<'a>, FieldKind> {
        let mut layers = Vec::new();
        if target.get("allOf").is_some() {
            self.flatten(target, depth, &mut layers, &mut HashSet::new())?;
        } else {
            layers.push(target);
        }
        for l in &layers {
            self.enter(l);
        }
        let view = View { layers };
        if let Some(reason) = view.contradiction() {
            return Err(json_kind(reason));
        }
        Ok(view)
    }

    /// `schema`'s `allOf` members (resolved, their own `allOf`s flattened) then `schema` itself.
    /// A member seen before adds nothing (`allOf: [A, A]` is `A`), which also ends cycles.
    fn flatten(
        &self,
        schema: &'a Value,
        depth: usize,
        out: &mut Vec<&'a Value>,
        seen: &mut HashSet<*const Value>,
    ) -> Result<(), FieldKind> {
        if !seen.insert(schema) {
            return Ok(());
        }
        if depth > MAX_DEPTH {
            return Err(json_kind("allOf nested too deeply for a form"));
        }
        if !self.budget.take_nodes(1) {
            return Err(too_large(&format!(
                "allOf has more than {MAX_NODES} members"
            )));
        }
        if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
            for part in parts {
                let part = self.resolve(part, depth).map_err(json_kind)?;
                self.flatten(part, depth + 1, out, seen)?;
            }
        }
        out.push(schema);
        Ok(())
    }

    /// What to draw for `view`; `Err` when a union replaces the whole field.
    fn kind(&self, f: &mut Field, view: &View<'a>, depth: usize) -> Result<FieldKind, Box<Field>> {
        if view.accepts_anything() {
            return Ok(json_kind("any JSON value is accepted"));
        }
        // Selects: enum, const unions.
        if let Some(values) = view.get("enum").and_then(Value::as_array) {
            return Ok(self.enum_kind(f, view, values));
        }
        for union in ["oneOf", "anyOf"] {
            if let Some(alts) = view.get(union).and_then(Value::as_array) {
                return Err(Box::new(self.union(f.clone(), view, alts, union, depth)));
            }
        }
        let (ty, nullable) = match view.get("type") {
            Some(Value::String(t)) => (Some(t.as_str()), false),
            Some(Value::Array(ts)) => {
                let non_null: Vec<&str> = ts
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|t| *t != "null")
                    .collect();
                let nullable = ts.iter().any(|t| t == "null");
                match non_null.as_slice() {
                    [one] => (Some(*one), nullable),
                    _ => {
                        // Quote a few: the list is the server's and may be long.
                        let listed: Vec<String> =
                            non_null.iter().take(8).map(|t| quote(t)).collect();
                        return Ok(json_kind(format!(
                            "several types allowed: {}{}",
                            listed.join(", "),
                            if non_null.len() > 8 { ", …" } else { "" }
                        )));
                    }
                }
            }
            _ => (infer_type(view), false),
        };
        f.nullable |= nullable;
        Ok(match ty {
            Some("object") => self.object(view, depth),
            Some("array") => self.array(view, depth),
            Some("string") => FieldKind::String {
                format: match view.get("format").and_then(Value::as_str) {
                    Some("email") => Some(StringFormat::Email),
                    Some("uri" | "url") => Some(StringFormat::Uri),
                    Some("date") => Some(StringFormat::Date),
                    Some("date-time") => Some(StringFormat::DateTime),
                    _ => None,
                },
                min_length: view.get("minLength").and_then(Value::as_u64),
                max_length: view.get("maxLength").and_then(Value::as_u64),
                pattern: view
                    .get("pattern")
                    .and_then(Value::as_str)
                    .and_then(|p| self.budget.copy(p)),
            },
            Some(t @ ("number" | "integer")) => FieldKind::Number {
                integer: t == "integer",
                minimum: view.get("minimum").and_then(Value::as_f64),
                maximum: view.get("maximum").and_then(Value::as_f64),
            },
            Some("boolean") => FieldKind::Boolean,
            Some("null") => json_kind("only null is accepted"),
            Some(other) => json_kind(format!("unknown type {:?}", quote(other))),
            None => json_kind("the schema does not say what type this is"),
        })
    }

    fn enum_kind(&self, f: &mut Field, view: &View<'a>, values: &'a [Value]) -> FieldKind {
        if !self.budget.take_nodes(values.len()) {
            return too_large(&format!("an enum of {} values", values.len()));
        }
        let names = view.get("enumNames").and_then(Value::as_array);
        let mut options = Vec::new();
        for (i, v) in values.iter().enumerate() {
            if v.is_null() {
                f.nullable = true;
                continue;
            }
            let label = names.and_then(|n| n.get(i)).and_then(Value::as_str);
            match self.option(v, label) {
                Some(o) => options.push(o),
                None => return too_large(&format!("an enum of {} values", values.len())),
            }
        }
        FieldKind::Enum {
            options,
            multi: false,
        }
    }

    /// One select option, if the text budget allows its value and label.
    fn option(&self, value: &Value, label: Option<&str>) -> Option<EnumOption> {
        let value = self.budget.copy_value(value)?;
        let label = match label {
            Some(l) => self.budget.copy(l)?,
            None => {
                let l = label_of(&value);
                self.budget.take_text(l.len()).then_some(l)?
            }
        };
        Some(EnumOption { value, label })
    }

    fn object(&self, view: &View<'a>, depth: usize) -> FieldKind {
        let count = view.property_count();
        if !self.budget.take_nodes(count) {
            return too_large(&format!(
                "an object with {count} properties and required names"
            ));
        }
        let props = view.properties();
        // Each key is copied twice (key and default title).
        let key_bytes: usize = props.iter().map(|(k, _)| 2 * k.len()).sum();
        if !self.budget.take_text(key_bytes) {
            return too_large(&format!("an object of {} properties", props.len()));
        }
        let required = view.required();
        if !self
            .budget
            .take_text(required.iter().map(|r| r.len()).sum())
        {
            return too_large(&format!("an object of {} properties", props.len()));
        }
        let fields = props
            .into_iter()
            .map(|(k, p)| self.field(k, p, required.contains(k), depth + 1))
            .collect();
        let open = view.get("additionalProperties") != Some(&Value::Bool(false));
        FieldKind::Object { fields, open }
    }

    fn array(&self, view: &View<'a>, depth: usize) -> FieldKind {
        let min_items = view.get("minItems").and_then(Value::as_u64);
        let max_items = view.get("maxItems").and_then(Value::as_u64);
        let Some(items) = view.get("items") else {
            return json_kind("an array whose items have no schema");
        };
        if !self.budget.take_nodes(1) {
            return too_large("an array");
        }
        let item = self.field("", items, true, depth + 1);
        match item.kind {
            // An array of an enum is a multi-select.
            FieldKind::Enum { options, .. } => FieldKind::Enum {
                options,
                multi: true,
            },
            kind => FieldKind::Array {
                items: Box::new(Field { kind, ..item }),
                min_items,
                max_items,
            },
        }
    }

    fn union(
        &self,
        mut f: Field,
        view: &View<'a>,
        alts: &'a [Value],
        keyword: &str,
        depth: usize,
    ) -> Field {
        if !self.budget.take_nodes(alts.len()) {
            f.kind = too_large(&format!("{keyword} of {} schemas", alts.len()));
            return f;
        }
        let resolved: Vec<&'a Value> = alts
            .iter()
            .map(|a| self.resolve(a, depth).unwrap_or(a))
            .collect();
        let is_null = |s: &Value| {
            s.get("type") == Some(&Value::String("null".into()))
                || s.get("const") == Some(&Value::Null)
        };
        let non_null: Vec<&'a Value> = resolved.iter().copied().filter(|s| !is_null(s)).collect();
        let nullable = non_null.len() < resolved.len();
        // Every alternative a const: a select with titles.
        if !non_null.is_empty() && non_null.iter().all(|s| s.get("const").is_some()) {
            let mut options = Vec::new();
            for s in &non_null {
                let title = s.get("title").and_then(Value::as_str);
                match self.option(&s["const"], title) {
                    Some(o) => options.push(o),
                    None => {
                        f.kind = too_large(&format!("{keyword} of {} consts", non_null.len()));
                        return f;
                    }
                }
            }
            f.nullable |= nullable;
            f.kind = FieldKind::Enum {
                options,
                multi: false,
            };
            return f;
        }
        // T or null: a nullable T.
        if non_null.len() == 1 {
            let mut inner = self.field(&f.key, non_null[0], f.required, depth + 1);
            self.fill_missing_annotations(&mut inner, view);
            if f.title != f.key {
                inner.title = f.title.clone();
            }
            inner.description = f.description.clone().or(inner.description);
            inner.default = f.default.clone().or(inner.default);
            inner.nullable = true;
            return inner;
        }
        f.kind = json_kind(format!("{keyword} of {} different schemas", non_null.len()));
        f
    }

    fn read_annotations(&self, f: &mut Field, schema: &impl Keywords<'a>) {
        if let Some(t) = schema.keyword("title").and_then(Value::as_str)
            && let Some(t) = self.budget.copy(t)
        {
            f.title = t;
        }
        if let Some(d) = schema.keyword("description").and_then(Value::as_str)
            && let Some(d) = self.budget.copy(d)
        {
            f.description = Some(d);
        }
        if let Some(d) = schema.keyword("default")
            && let Some(d) = self.budget.copy_value(d)
        {
            f.default = Some(d);
        }
    }

    fn fill_missing_annotations(&self, f: &mut Field, schema: &impl Keywords<'a>) {
        if f.title == f.key
            && let Some(t) = schema.keyword("title").and_then(Value::as_str)
            && let Some(t) = self.budget.copy(t)
        {
            f.title = t;
        }
        if f.description.is_none() {
            f.description = schema
                .keyword("description")
                .and_then(Value::as_str)
                .and_then(|d| self.budget.copy(d));
        }
        if f.default.is_none() {
            f.default = schema
                .keyword("default")
                .and_then(|d| self.budget.copy_value(d));
        }
    }
}

/// A schema read keyword by keyword: a raw schema, or one seen through its `allOf` members.
trait Keywords<'a> {
    fn keyword(&self, k: &str) -> Option<&'a Value>;
}

impl<'a> Keywords<'a> for &'a Value {
    fn keyword(&self, k: &str) -> Option<&'a Value> {
        self.get(k)
    }
}

impl<'a> Keywords<'a> for View<'a> {
    fn keyword(&self, k: &str) -> Option<&'a Value> {
        self.get(k)
    }
}

fn infer_type(view: &View<'_>) -> Option<&'static str> {
    if view.get("properties").is_some() {
        Some("object")
    } else if view.get("items").is_some() {
        Some("array")
    } else {
        None
    }
}

fn label_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The initial value of a form: defaults where given; required objects built out so nested
/// required fields have a place; optional fields left out (so "not set" stays distinguishable).
pub fn initial_value(field: &Field) -> Option<Value> {
    if let Some(d) = &field.default {
        return Some(d.clone());
    }
    match &field.kind {
        FieldKind::Object { fields, .. } => {
            let mut m = Map::new();
            for f in fields {
                if let Some(v) = initial_value(f).filter(|_| f.required || f.default.is_some()) {
                    m.insert(f.key.clone(), v);
                }
            }
            (field.required || field.key.is_empty() || !m.is_empty()).then_some(Value::Object(m))
        }
        _ => None,
    }
}

/// Put the keys of every object in `value` in the model's field order (keys the model does not
/// name keep their order after them), so what a form sends reads as the schema does however the
/// fields were filled in.
pub fn in_field_order(field: &Field, value: &mut Value) {
    match (&field.kind, value) {
        (FieldKind::Object { fields, .. }, Value::Object(m)) => {
            let mut rest = std::mem::take(m);
            for f in fields {
                if let Some(mut v) = rest.shift_remove(&f.key) {
                    in_field_order(f, &mut v);
                    m.insert(f.key.clone(), v);
                }
            }
            m.extend(rest);
        }
        (FieldKind::Array { items, .. }, Value::Array(list)) => {
            list.iter_mut().for_each(|v| in_field_order(items, v));
        }
        _ => {}
    }
}

/// A validation error under a field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldError {
    /// JSON pointer to the value (empty for the root).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// Validate a value against a schema (JSON Schema 2020-12 unless `$schema` says otherwise).
/// Network `$ref`s are never fetched: such a schema cannot be compiled, and the error says so.
///
/// A schema the validator could not get through is refused first (see [`check_expansion`]).
#[cfg(feature = "lint")]
pub fn validate(schema: &Value, value: &Value) -> Result<Vec<FieldError>, String> {
    check_expansion(schema)?;
    // What the engine would do for this value: fan-out that follows the value (a recursive
    // definition whose members refer to it several times) and `$ref`s that are not `#/…`
    // pointers (`$anchor`, `$id`, `$dynamicRef`) escape the schema-only count above.
    match cost::applications(schema, value) {
        Ok(_) => {}
        Err(cost::TooCostly::Visits) => {
            return Err(format!(
                "the schema is not validated here: its $refs fan out to over {MAX_VALIDATION_VISITS} checks for this value (the server still validates the call)"
            ));
        }
        Err(cost::TooCostly::Nesting) => {
            return Err(format!(
                "the schema is not validated here: its $refs and this value nest over {MAX_VALIDATION_NESTING} levels deep (the server still validates the call)"
            ));
        }
    }
    let validator = jsonschema::options()
        .build(schema)
        .map_err(|e| format!("the schema cannot be used for validation: {e}"))?;
    Ok(validator
        .iter_errors(value)
        .map(|e| FieldError {
            path: e.instance_path().to_string(),
            message: e.to_string(),
        })
        .collect())
}

#[cfg(feature = "lint")]
mod cost;
#[cfg(feature = "lint")]
pub use cost::{MAX_NESTING as MAX_VALIDATION_NESTING, MAX_VISITS as MAX_VALIDATION_VISITS};

/// Most subschemas a schema may expand to (each `$ref` and `allOf`/`anyOf` member counted as
/// often as it is reached, a cycle once) before validating with it is refused.
pub const MAX_EXPANSION: u64 = 100_000;

/// Deepest nesting of subschemas (`$ref`s followed) a schema may have to be validated with.
const MAX_VALIDATION_DEPTH: usize = 64;

/// Refuse a schema the validator would spend exponential time in (`$ref`s fanned out through
/// `allOf`/`anyOf` level after level: every member is evaluated, whatever the value) or recurse
/// too deeply for a thread's stack. Linear in the schema: each subschema's expansion is
/// computed once.
pub fn check_expansion(schema: &Value) -> Result<(), String> {
    let mut walk = Expansion {
        root: schema,
        done: HashMap::new(),
        open: HashSet::new(),
    };
    walk.size(schema, 0).map(|_| ())
}

struct Expansion<'a> {
    root: &'a Value,
    done: HashMap<*const Value, u64>,
    open: HashSet<*const Value>,
}

impl<'a> Expansion<'a> {
    fn size(&mut self, s: &'a Value, depth: usize) -> Result<u64, String> {
        let p: *const Value = s;
        if let Some(n) = self.done.get(&p) {
            return Ok(*n);
        }
        if depth > MAX_VALIDATION_DEPTH {
            return Err(format!(
                "the schema nests subschemas more than {MAX_VALIDATION_DEPTH} deep; it is not validated here"
            ));
        }
        // A cycle: the validator follows it only as far as the value goes.
        if !self.open.insert(p) {
            return Ok(1);
        }
        let mut n: u64 = 1;
        for (k, child) in s.as_object().into_iter().flatten() {
            let children: Vec<&'a Value> = match k.as_str() {
                "$ref" => child
                    .as_str()
                    .and_then(|r| r.strip_prefix('#'))
                    .and_then(|ptr| self.root.pointer(ptr))
                    .into_iter()
                    .collect(),
                "properties" | "patternProperties" | "dependentSchemas" => child
                    .as_object()
                    .into_iter()
                    .flat_map(|o| o.values())
                    .collect(),
                "allOf" | "anyOf" | "oneOf" | "prefixItems" | "items" => match child {
                    Value::Array(a) => a.iter().collect(),
                    other => vec![other],
                },
                "not"
                | "if"
                | "then"
                | "else"
                | "additionalProperties"
                | "additionalItems"
                | "unevaluatedProperties"
                | "unevaluatedItems"
                | "contains"
                | "propertyNames" => {
                    vec![child]
                }
                _ => continue,
            };
            for c in children {
                n = n.saturating_add(self.size(c, depth + 1)?);
                if n > MAX_EXPANSION {
                    return Err(format!(
                        "the schema expands to more than {MAX_EXPANSION} subschemas ($refs fanned \
                         out); it is not validated here, the server will validate the arguments"
                    ));
                }
            }
        }
        self.open.remove(&p);
        self.done.insert(p, n);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kind(f: &Field) -> &FieldKind {
        &f.kind
    }

    fn fields(f: &Field) -> &[Field] {
        match &f.kind {
            FieldKind::Object { fields, .. } => fields,
            other => panic!("not an object: {other:?}"),
        }
    }

    #[test]
    fn values_are_put_in_schema_order_nested_and_in_arrays() {
        let f = form_model(&json!({"type": "object", "properties": {
            "name": {"type": "string"},
            "email": {"type": "string"},
            "people": {"type": "array", "items": {"type": "object", "properties": {
                "a": {"type": "integer"}, "b": {"type": "integer"}}}}
        }}));
        let mut v = json!({"extra": 1, "people": [{"b": 2, "a": 1}], "email": "e", "name": "n"});
        in_field_order(&f, &mut v);
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"name":"n","email":"e","people":[{"a":1,"b":2}],"extra":1}"#
        );
    }

    #[test]
    fn primitives_formats_required_and_defaults() {
        let f = form_model(
            &json!({"type": "object", "required": ["email"], "properties": {
                "email": {"type": "string", "format": "email", "title": "E-mail"},
                "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 30},
                "ok": {"type": "boolean"},
                "when": {"type": "string", "format": "date-time", "maxLength": 40}
            }}),
        );
        let fs = fields(&f);
        assert_eq!(fs[0].title, "E-mail");
        assert!(fs[0].required);
        assert!(matches!(
            kind(&fs[0]),
            FieldKind::String {
                format: Some(StringFormat::Email),
                ..
            }
        ));
        assert!(matches!(
            kind(&fs[1]),
            FieldKind::Number {
                integer: true,
                minimum: Some(0.0),
                maximum: Some(150.0)
            }
        ));
        assert_eq!(fs[1].default, Some(json!(30)));
        assert!(matches!(kind(&fs[2]), FieldKind::Boolean));
        assert!(!fs[2].required);
        assert_eq!(initial_value(&f), Some(json!({"age": 30})));
    }

    #[test]
    fn selects_from_enum_const_unions_and_legacy_enum_names() {
        let f = form_model(&json!({"properties": {
            "size": {"type": "string", "enum": ["S", "M"], "enumNames": ["Small", "Medium"]},
            "plan": {"type": "string", "oneOf": [{"const": "free", "title": "Free"}, {"const": "pro", "title": "Pro"}]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
            "titled": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "Ex"}]}}
        }}));
        let fs = fields(&f);
        match kind(&fs[0]) {
            FieldKind::Enum {
                options,
                multi: false,
            } => assert_eq!(options[1].label, "Medium"),
            other => panic!("{other:?}"),
        }
        match kind(&fs[1]) {
            FieldKind::Enum {
                options,
                multi: false,
            } => assert_eq!(
                options[0],
                EnumOption {
                    value: json!("free"),
                    label: "Free".into()
                }
            ),
            other => panic!("{other:?}"),
        }
        assert!(matches!(kind(&fs[2]), FieldKind::Enum { multi: true, .. }));
        assert!(matches!(kind(&fs[3]), FieldKind::Enum { multi: true, .. }));
    }

    #[test]
    fn nullable_unions_and_nullable_enums() {
        let f = form_model(&json!({"properties": {
            "a": {"type": ["string", "null"]},
            "b": {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "maybe"},
            "c": {"type": ["string", "null"], "enum": ["x", "y", null]}
        }}));
        let fs = fields(&f);
        assert!(fs[0].nullable && matches!(kind(&fs[0]), FieldKind::String { .. }));
        assert!(fs[1].nullable && matches!(kind(&fs[1]), FieldKind::Number { integer: true, .. }));
        assert_eq!(fs[1].description.as_deref(), Some("maybe"));
        assert!(fs[2].nullable && matches!(kind(&fs[2]), FieldKind::Enum { .. }));
    }

    #[test]
    fn local_refs_all_of_and_nesting() {
        let f = form_model(&json!({
            "$defs": {"addr": {"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}}},
            "allOf": [
                {"properties": {"home": {"$ref": "#/$defs/addr", "title": "Home"}}},
                {"required": ["home"], "properties": {"list": {"type": "array", "items": {"$ref": "#/$defs/addr"}}}}
            ]
        }));
        let fs = fields(&f);
        assert_eq!(fs[0].title, "Home");
        assert!(fs[0].required);
        assert!(fields(&fs[0])[0].required);
        match kind(&fs[1]) {
            FieldKind::Array { items, .. } => {
                assert!(matches!(items.kind, FieldKind::Object { .. }))
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(initial_value(&f), Some(json!({"home": {}})));
    }

    #[test]
    fn validation_errors_point_at_fields() {
        let schema = json!({"type": "object", "required": ["n"], "properties": {"n": {"type": "integer", "maximum": 3}}});
        assert!(validate(&schema, &json!({"n": 2})).unwrap().is_empty());
        let errs = validate(&schema, &json!({"n": 9})).unwrap();
        assert_eq!(errs[0].path, "/n");
        assert!(!validate(&schema, &json!({})).unwrap().is_empty());
        assert!(validate(&json!({"$ref": "https://example.com/x.json"}), &json!(1)).is_err());
    }

    #[test]
    fn falls_back_to_json_with_a_reason() {
        let f = form_model(&json!({"properties": {
            "remote": {"$ref": "https://example.com/schema.json"},
            "cyclic": {"$ref": "#/properties/cyclic"},
            "mixed": {"oneOf": [{"type": "string"}, {"type": "object"}]},
            "any": {}
        }}));
        let reasons: Vec<String> = fields(&f)
            .iter()
            .map(|x| match &x.kind {
                FieldKind::Json { reason } => reason.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert!(reasons[0].contains("never fetched"));
        assert!(reasons[1].contains("cyclic"));
        assert!(reasons[2].contains("oneOf"));
        assert!(reasons[3].contains("any JSON"));
    }

    /// Fields plus select options: what [`MAX_NODES`] bounds.
    fn nodes(f: &Field) -> usize {
        1 + match &f.kind {
            FieldKind::Object { fields, .. } => fields.iter().map(nodes).sum(),
            FieldKind::Array { items, .. } => nodes(items),
            FieldKind::Enum { options, .. } => options.len(),
            _ => 0,
        }
    }

    fn reason(f: &Field) -> &str {
        match &f.kind {
            FieldKind::Json { reason } => reason,
            other => panic!("{} is not a JSON field: {other:?}", f.key),
        }
    }

    /// The issue's 170 bytes: every property of `d` is `d` again. Unbounded, it grew to ~3 GB.
    #[test]
    fn recursive_fan_out_is_cut_at_the_first_repeat() {
        let schema: Value = serde_json::from_str(r##"{"$defs":{"d":{"type":"object","properties":{"a":{"$ref":"#/$defs/d"},"b":{"$ref":"#/$defs/d"},"c":{"$ref":"#/$defs/d"}}}},"$ref":"#/$defs/d"}"##).unwrap();
        let f = form_model(&schema);
        let fs = fields(&f);
        assert_eq!(fs.len(), 3);
        for x in fs {
            assert!(reason(x).starts_with("recursive: #/$defs/d"), "{x:?}");
        }
        assert_eq!(nodes(&f), 4);
        // A self-reference to the root, and one through an array's items.
        let f = form_model(
            &json!({"properties": {"me": {"$ref": "#"}, "list": {"items": {"$ref": "#"}}}}),
        );
        assert!(reason(&fields(&f)[0]).starts_with("recursive: #"));
        match kind(&fields(&f)[1]) {
            FieldKind::Array { items, .. } => assert!(reason(items).starts_with("recursive:")),
            other => panic!("{other:?}"),
        }
    }

    /// Ten properties each referring to the next of ten definitions: 10^10 fields if expanded.
    #[test]
    fn non_recursive_fan_out_stops_at_the_node_budget() {
        let mut defs = Map::new();
        for level in 0..10 {
            let props: Map<String, Value> = (0..10)
                .map(|i| {
                    let target = if level == 9 {
                        json!({"type": "string"})
                    } else {
                        json!({"$ref": format!("#/$defs/d{}", level + 1)})
                    };
                    (format!("p{i}"), target)
                })
                .collect();
            defs.insert(
                format!("d{level}"),
                json!({"type": "object", "properties": props}),
            );
        }
        let schema = json!({"$defs": defs, "$ref": "#/$defs/d0"});
        let f = form_model(&schema);
        assert!(nodes(&f) <= MAX_NODES, "{}", nodes(&f));
        let text = serde_json::to_string(&f).unwrap();
        assert!(text.contains("too large for a form"), "no cut shown");
        assert!(text.len() < 4 << 20, "{} bytes", text.len());
    }

    /// 100,000 nested `properties` (built in memory: the JSON parser stops at 128 levels, the
    /// form builder must not rely on it).
    #[test]
    fn deep_nesting_without_ref_is_cut_without_recursing_deeply() {
        let mut v = json!({"type": "string"});
        // Built by hand: `json!` would serialize the inner value again at every level.
        for _ in 0..100_000 {
            let mut props = Map::new();
            props.insert("a".into(), v);
            let mut outer = Map::new();
            outer.insert("properties".into(), Value::Object(props));
            v = Value::Object(outer);
        }
        // Dropping a Value this deep recurses once per level and would overflow the test's stack
        // (also when an assertion below unwinds), so it is never dropped.
        let v = std::mem::ManuallyDrop::new(v);
        let f = form_model(&v);
        let mut at = &f;
        let mut depth = 0;
        while let FieldKind::Object { fields, .. } = &at.kind {
            at = &fields[0];
            depth += 1;
        }
        assert!(reason(at).contains("nested too deeply"), "{at:?}");
        assert!(depth <= MAX_DEPTH + 1, "{depth}");
    }

    #[test]
    fn huge_enums_and_wide_objects_are_cut() {
        let values: Vec<Value> = (0..1_000_000).map(|i| json!(i)).collect();
        let f = form_model(
            &json!({"properties": {"big": {"enum": values}, "small": {"enum": [1, 2]}}}),
        );
        assert!(reason(&fields(&f)[0]).contains("an enum of 1000000 values"));
        assert!(
            matches!(kind(&fields(&f)[1]), FieldKind::Enum { options, .. } if options.len() == 2)
        );
        let props: Map<String, Value> = (0..100_000)
            .map(|i| (format!("p{i}"), json!({"type": "string"})))
            .collect();
        let required: Vec<Value> = (0..100_000).map(|i| json!(format!("p{i}"))).collect();
        let f = form_model(&json!({"properties": props, "required": required}));
        assert!(
            reason(&f).starts_with("too large for a form"),
            "{:?}",
            f.kind
        );
        // A wide union of consts is a select only while it fits.
        let alts: Vec<Value> = (0..50_000).map(|i| json!({"const": i})).collect();
        let f = form_model(&json!({"anyOf": alts}));
        assert!(reason(&f).starts_with("too large for a form"));
    }

    /// A megabyte description on a definition every property refers to is copied until the text
    /// budget is spent, not once per field.
    #[test]
    fn long_annotations_are_copied_within_the_text_budget() {
        let long = "x".repeat(1 << 20);
        let props: Map<String, Value> = (0..100)
            .map(|i| (format!("p{i}"), json!({"$ref": "#/$defs/d"})))
            .collect();
        let f = form_model(&json!({
            "$defs": {"d": {"type": "string", "description": long, "default": long}},
            "properties": props
        }));
        let text = serde_json::to_string(&f).unwrap();
        assert!(
            text.len() <= MAX_TEXT_BYTES + (1 << 20) + 100 * 200,
            "{}",
            text.len()
        );
        assert!(matches!(kind(&fields(&f)[0]), FieldKind::String { .. }));
        assert!(reason(&fields(&f)[99]).starts_with("too large for a form"));
    }

    #[test]
    fn all_of_fan_out_cycles_and_contradictions() {
        // allOf through $refs back to itself: the cycle adds nothing; the fan-out is one member.
        let f = form_model(&json!({
            "$defs": {
                "a": {"allOf": [{"$ref": "#/$defs/b"}, {"$ref": "#/$defs/b"}, {"$ref": "#/$defs/a"}]},
                "b": {"allOf": [{"$ref": "#/$defs/a"}], "properties": {"x": {"type": "string"}}}
            },
            "$ref": "#/$defs/a"
        }));
        assert_eq!(fields(&f).len(), 1);
        assert!(matches!(kind(&fields(&f)[0]), FieldKind::String { .. }));
        // Each allOf member refers to the next level three times: 3^24 merges if expanded.
        let mut defs = Map::new();
        for level in 0..30 {
            let next = json!({"$ref": format!("#/$defs/l{}", level + 1)});
            defs.insert(
                format!("l{level}"),
                json!({"allOf": [next, next, next], "properties": {format!("p{level}"): {"type": "integer"}}}),
            );
        }
        defs.insert("l30".into(), json!({"type": "object"}));
        let f = form_model(&json!({"$defs": defs, "$ref": "#/$defs/l0"}));
        assert!(nodes(&f) <= MAX_NODES);
        assert!(reason(&f).contains("too deep"), "{:?}", f.kind);
        // Contradictory members say so instead of picking one.
        let f = form_model(&json!({"allOf": [{"type": "string"}, {"type": "integer"}]}));
        assert!(reason(&f).contains("no value is accepted"));
        let f = form_model(&json!({"allOf": [{"type": "number"}, {"type": "integer"}]}));
        assert!(matches!(kind(&f), FieldKind::Number { integer: true, .. }));
        let f = form_model(&json!({"allOf": [false, {"type": "string"}]}));
        assert!(reason(&f).contains("false member"));
        // anyOf fanned out through refs to itself stays small.
        let f = form_model(
            &json!({"$defs": {"u": {"anyOf": [{"$ref": "#/$defs/u"}, {"type": "null"}]}}, "$ref": "#/$defs/u"}),
        );
        assert!(reason(&f).starts_with("recursive:"), "{:?}", f.kind);
    }

    #[test]
    fn missing_and_malformed_pointers_are_named() {
        let long = format!("#/{}", "a".repeat(1 << 20));
        let f = form_model(&json!({"properties": {
            "missing": {"$ref": "#/$defs/nope"},
            "no_slash": {"$ref": "#nope"},
            "bad_escape": {"$ref": "#/$defs/~2"},
            "empty": {"$ref": ""},
            "index": {"$ref": "#/properties/99999999999999999999999"},
            "not_a_string": {"$ref": 5, "type": "string"},
            "long": {"$ref": long}
        }}));
        let fs = fields(&f);
        for x in &fs[..3] {
            assert!(reason(x).contains("does not resolve"), "{x:?}");
        }
        assert!(reason(&fs[3]).contains("never fetched"));
        assert!(reason(&fs[4]).contains("does not resolve"));
        assert!(matches!(kind(&fs[5]), FieldKind::String { .. }));
        assert!(reason(&fs[6]).len() < 300, "a long $ref is quoted short");
    }

    /// The validator meets the same schemas: it must answer, not loop or overflow.
    #[test]
    fn validation_survives_recursive_and_cyclic_schemas() {
        let fan_out: Value = serde_json::from_str(r##"{"$defs":{"d":{"type":"object","properties":{"a":{"$ref":"#/$defs/d"},"b":{"$ref":"#/$defs/d"},"c":{"$ref":"#/$defs/d"}}}},"$ref":"#/$defs/d"}"##).unwrap();
        assert!(
            validate(&fan_out, &json!({"a": {"b": {"c": {}}}}))
                .unwrap()
                .is_empty()
        );
        assert!(
            !validate(&fan_out, &json!({"a": {"b": 5}}))
                .unwrap()
                .is_empty()
        );
        for cyclic in [
            json!({"$ref": "#"}),
            json!({"allOf": [{"$ref": "#"}]}),
            json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
            json!({"anyOf": [{"$ref": "#"}, {"type": "string"}]}),
        ] {
            let _ = validate(&cyclic, &json!({"x": 1}));
        }
    }

    /// A fan-out the schema-only count cannot see: each level of `{"a": …}` in the value triples
    /// the engine's work (3^20 steps for a 20-deep value: no answer within a minute).
    #[test]
    fn validation_refuses_a_fan_out_that_follows_the_value() {
        let schema = json!({"$defs": {"d": {"properties": {"a": {"allOf": [
            {"$ref": "#/$defs/d"}, {"$ref": "#/$defs/d"}, {"$ref": "#/$defs/d"}
        ]}}}}, "$ref": "#/$defs/d"});
        let nest = |n: usize| (0..n).fold(json!(1), |v, _| json!({"a": v}));
        let t = std::time::Instant::now();
        let err = validate(&schema, &nest(20)).unwrap_err();
        assert!(err.contains("not validated here"), "{err}");
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
        assert_eq!(validate(&schema, &nest(5)), Ok(vec![]));
    }

    /// The same fan-out through `$anchor` references (`#n1`, not `#/…`): invisible to a count
    /// that follows pointers only, 3^30 steps for the engine on any value.
    #[test]
    fn validation_refuses_a_fan_out_through_anchors() {
        let mut defs = Map::new();
        for i in 0..30 {
            let next = json!({"$ref": format!("#n{}", i + 1)});
            defs.insert(
                format!("d{i}"),
                json!({"$anchor": format!("n{i}"), "anyOf": [next, next, next]}),
            );
        }
        defs.insert("d30".into(), json!({"$anchor": "n30", "type": "integer"}));
        let t = std::time::Instant::now();
        let err = validate(&json!({"$defs": defs, "$ref": "#n0"}), &json!(1.5)).unwrap_err();
        assert!(err.contains("not validated here"), "{err}");
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
    }

    /// Found by the fuzzer: `allOf` members fanned out level after level made validation take
    /// 7^13 steps (a hang); such a schema is now refused for validation, with the reason.
    #[test]
    fn validation_refuses_fanned_out_and_too_deep_schemas() {
        let mut defs = Map::new();
        for level in 0..13 {
            let r = json!({"$ref": format!("#/$defs/d{}", level + 1)});
            defs.insert(format!("d{level}"), json!({"allOf": vec![r; 7]}));
        }
        defs.insert("d13".into(), json!({"type": "string"}));
        let schema = json!({"$defs": defs, "$ref": "#/$defs/d0"});
        let err = validate(&schema, &json!(5)).unwrap_err();
        assert!(err.contains("expands to more than"), "{err}");
        let mut deep = json!({"type": "string"});
        for _ in 0..100 {
            deep = json!({"anyOf": [deep, {"type": "null"}]});
        }
        let err = validate(&deep, &json!(5)).unwrap_err();
        assert!(err.contains("more than 64 deep"), "{err}");
    }
}
