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

/// How deep `$ref` chains and nesting are followed before falling back to JSON (guards cycles).
const MAX_DEPTH: usize = 24;

/// One field of a form.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
pub struct EnumOption {
    /// The value sent.
    pub value: Value,
    /// What is shown.
    pub label: String,
}

/// String formats with a matching input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
        min_items: Option<u64>,
        /// `maxItems`.
        #[serde(skip_serializing_if = "Option::is_none")]
        max_items: Option<u64>,
    },
    /// Text.
    String {
        /// A format with a matching input.
        #[serde(skip_serializing_if = "Option::is_none")]
        format: Option<StringFormat>,
        /// `minLength`.
        #[serde(skip_serializing_if = "Option::is_none")]
        min_length: Option<u64>,
        /// `maxLength`.
        #[serde(skip_serializing_if = "Option::is_none")]
        max_length: Option<u64>,
        /// `pattern`.
        #[serde(skip_serializing_if = "Option::is_none")]
        pattern: Option<String>,
    },
    /// A number.
    Number {
        /// `type: integer`.
        integer: bool,
        /// `minimum`.
        #[serde(skip_serializing_if = "Option::is_none")]
        minimum: Option<f64>,
        /// `maximum`.
        #[serde(skip_serializing_if = "Option::is_none")]
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
pub fn form_model(schema: &Value) -> Field {
    let cx = Cx { root: schema };
    cx.field("", schema, false, 0)
}

struct Cx<'a> {
    root: &'a Value,
}

impl Cx<'_> {
    /// Follow a local `$ref` (`#/$defs/x`, `#/definitions/x`, any `#/…` pointer).
    fn resolve<'s>(&'s self, schema: &'s Value, depth: usize) -> Result<&'s Value, String> {
        let mut cur = schema;
        let mut hops = 0;
        while let Some(r) = cur.get("$ref").and_then(Value::as_str) {
            hops += 1;
            if hops + depth > MAX_DEPTH {
                return Err(format!("$ref chain too deep or cyclic at {r}"));
            }
            let Some(pointer) = r.strip_prefix('#') else {
                return Err(format!(
                    "$ref {r} points outside this schema; it is never fetched"
                ));
            };
            cur = self
                .root
                .pointer(pointer)
                .ok_or_else(|| format!("$ref {r} does not resolve in this schema"))?;
        }
        Ok(cur)
    }

    fn field(&self, key: &str, schema: &Value, required: bool, depth: usize) -> Field {
        let mut f = Field {
            key: key.to_string(),
            title: key.to_string(),
            description: None,
            required,
            nullable: false,
            default: None,
            kind: FieldKind::Json {
                reason: String::new(),
            },
        };
        // Annotations on the referring schema win over the target's (JSON Schema 2020-12).
        read_annotations(&mut f, schema);
        if depth > MAX_DEPTH {
            f.kind = FieldKind::Json {
                reason: "nested too deeply for a form".into(),
            };
            return f;
        }
        let schema = match self.resolve(schema, depth) {
            Ok(s) => s,
            Err(reason) => {
                f.kind = FieldKind::Json { reason };
                return f;
            }
        };
        let merged;
        let schema = if schema.get("allOf").is_some() {
            match self.merge_all_of(schema, depth) {
                Ok(m) => {
                    merged = m;
                    &merged
                }
                Err(reason) => {
                    f.kind = FieldKind::Json { reason };
                    return f;
                }
            }
        } else {
            schema
        };
        if f.title == key && f.description.is_none() && f.default.is_none() {
            read_annotations(&mut f, schema);
        } else {
            fill_missing_annotations(&mut f, schema);
        }
        if schema.as_bool() == Some(true) || schema.as_object().is_some_and(|o| o.is_empty()) {
            f.kind = FieldKind::Json {
                reason: "any JSON value is accepted".into(),
            };
            return f;
        }

        // Selects: enum, const unions.
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            let names = schema.get("enumNames").and_then(Value::as_array);
            let mut options = Vec::new();
            for (i, v) in values.iter().enumerate() {
                if v.is_null() {
                    f.nullable = true;
                    continue;
                }
                let label = names
                    .and_then(|n| n.get(i))
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| label_of(v));
                options.push(EnumOption {
                    value: v.clone(),
                    label,
                });
            }
            f.kind = FieldKind::Enum {
                options,
                multi: false,
            };
            return f;
        }
        for union in ["oneOf", "anyOf"] {
            if let Some(alts) = schema.get(union).and_then(Value::as_array) {
                return self.union(f, schema, alts, union, depth);
            }
        }

        let (ty, nullable) = match schema.get("type") {
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
                        f.kind = FieldKind::Json {
                            reason: format!("several types allowed: {}", Value::Array(ts.clone())),
                        };
                        return f;
                    }
                }
            }
            _ => (infer_type(schema), false),
        };
        f.nullable |= nullable;
        f.kind = match ty {
            Some("object") => self.object(schema, depth),
            Some("array") => self.array(schema, depth),
            Some("string") => FieldKind::String {
                format: match schema.get("format").and_then(Value::as_str) {
                    Some("email") => Some(StringFormat::Email),
                    Some("uri" | "url") => Some(StringFormat::Uri),
                    Some("date") => Some(StringFormat::Date),
                    Some("date-time") => Some(StringFormat::DateTime),
                    _ => None,
                },
                min_length: schema.get("minLength").and_then(Value::as_u64),
                max_length: schema.get("maxLength").and_then(Value::as_u64),
                pattern: schema
                    .get("pattern")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            },
            Some(t @ ("number" | "integer")) => FieldKind::Number {
                integer: t == "integer",
                minimum: schema.get("minimum").and_then(Value::as_f64),
                maximum: schema.get("maximum").and_then(Value::as_f64),
            },
            Some("boolean") => FieldKind::Boolean,
            Some("null") => FieldKind::Json {
                reason: "only null is accepted".into(),
            },
            Some(other) => FieldKind::Json {
                reason: format!("unknown type {other:?}"),
            },
            None => FieldKind::Json {
                reason: "the schema does not say what type this is".into(),
            },
        };
        f
    }

    fn object(&self, schema: &Value, depth: usize) -> FieldKind {
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let fields = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| {
                props
                    .iter()
                    .map(|(k, p)| self.field(k, p, required.contains(&k.as_str()), depth + 1))
                    .collect()
            })
            .unwrap_or_default();
        let open = schema.get("additionalProperties") != Some(&Value::Bool(false));
        FieldKind::Object { fields, open }
    }

    fn array(&self, schema: &Value, depth: usize) -> FieldKind {
        let min_items = schema.get("minItems").and_then(Value::as_u64);
        let max_items = schema.get("maxItems").and_then(Value::as_u64);
        let Some(items) = schema.get("items") else {
            return FieldKind::Json {
                reason: "an array whose items have no schema".into(),
            };
        };
        let item = self.field("", items, true, depth + 1);
        // An array of an enum is a multi-select.
        if let FieldKind::Enum { options, .. } = &item.kind {
            return FieldKind::Enum {
                options: options.clone(),
                multi: true,
            };
        }
        FieldKind::Array {
            items: Box::new(item),
            min_items,
            max_items,
        }
    }

    fn union(
        &self,
        mut f: Field,
        schema: &Value,
        alts: &[Value],
        keyword: &str,
        depth: usize,
    ) -> Field {
        let resolved: Vec<&Value> = alts
            .iter()
            .map(|a| self.resolve(a, depth).unwrap_or(a))
            .collect();
        let is_null = |s: &Value| {
            s.get("type") == Some(&Value::String("null".into()))
                || s.get("const") == Some(&Value::Null)
        };
        let non_null: Vec<&Value> = resolved.iter().copied().filter(|s| !is_null(s)).collect();
        let nullable = non_null.len() < resolved.len();
        // Every alternative a const: a select with titles.
        if !non_null.is_empty() && non_null.iter().all(|s| s.get("const").is_some()) {
            let options = non_null
                .iter()
                .map(|s| {
                    let v = s["const"].clone();
                    let label = s
                        .get("title")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .unwrap_or_else(|| label_of(&v));
                    EnumOption { value: v, label }
                })
                .collect();
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
            fill_missing_annotations(&mut inner, schema);
            if f.title != f.key {
                inner.title = f.title.clone();
            }
            inner.description = f.description.clone().or(inner.description);
            inner.default = f.default.clone().or(inner.default);
            inner.nullable = true;
            return inner;
        }
        f.kind = FieldKind::Json {
            reason: format!("{keyword} of {} different schemas", non_null.len()),
        };
        f
    }

    /// Merge `allOf` members (properties and required lists united; other keywords from the last
    /// member that has them).
    fn merge_all_of(&self, schema: &Value, depth: usize) -> Result<Value, String> {
        let mut out = Map::new();
        let mut props = Map::new();
        let mut required: Vec<Value> = Vec::new();
        let mut parts: Vec<&Value> = vec![];
        for part in schema["allOf"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            parts.push(self.resolve(part, depth)?);
        }
        let mut base = schema.clone();
        if let Some(o) = base.as_object_mut() {
            o.remove("allOf");
        }
        parts.push(&base);
        for part in parts {
            let part = if part.get("allOf").is_some() {
                &self.merge_all_of(part, depth + 1)?
            } else {
                part
            };
            let Some(o) = part.as_object() else { continue };
            for (k, v) in o {
                match k.as_str() {
                    "properties" => {
                        if let Some(p) = v.as_object() {
                            props.extend(p.iter().map(|(k, v)| (k.clone(), v.clone())));
                        }
                    }
                    "required" => {
                        for r in v.as_array().into_iter().flatten() {
                            if !required.contains(r) {
                                required.push(r.clone());
                            }
                        }
                    }
                    _ => {
                        out.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        if !props.is_empty() {
            out.insert("properties".into(), Value::Object(props));
            out.entry("type").or_insert(Value::String("object".into()));
        }
        if !required.is_empty() {
            out.insert("required".into(), Value::Array(required));
        }
        Ok(Value::Object(out))
    }
}

fn read_annotations(f: &mut Field, schema: &Value) {
    if let Some(t) = schema.get("title").and_then(Value::as_str) {
        f.title = t.to_string();
    }
    if let Some(d) = schema.get("description").and_then(Value::as_str) {
        f.description = Some(d.to_string());
    }
    if let Some(d) = schema.get("default") {
        f.default = Some(d.clone());
    }
}

fn fill_missing_annotations(f: &mut Field, schema: &Value) {
    if f.title == f.key
        && let Some(t) = schema.get("title").and_then(Value::as_str)
    {
        f.title = t.to_string();
    }
    if f.description.is_none() {
        f.description = schema
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    if f.default.is_none() {
        f.default = schema.get("default").cloned();
    }
}

fn infer_type(schema: &Value) -> Option<&'static str> {
    if schema.get("properties").is_some() {
        Some("object")
    } else if schema.get("items").is_some() {
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
#[cfg(feature = "lint")]
pub fn validate(schema: &Value, value: &Value) -> Result<Vec<FieldError>, String> {
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
}
