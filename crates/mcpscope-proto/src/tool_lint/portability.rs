//! Portability: constructs that are valid JSON Schema and still refused or mishandled by many
//! clients, all reported as warnings. Where each rule comes from:
//!
//! - The official Inspector's schema-portability lint (`core/json/schemaLint.ts`, its issue
//!   #1005, behind `--strict`), by its rule names: `boolean-schema` (a bare `true`/`false` where
//!   a schema object is expected; Claude Code refuses the tool — an error in the Inspector's
//!   `--strict`, a warning here, where errors are spec violations), `type-union` (`type` as an
//!   array; single-`type` dialects such as Gemini's function declarations), `untyped-schema` (a
//!   schema with no validating keyword accepts anything), `remote-ref` (a `$ref` out of the
//!   document; clients never fetch it). As there, `true`/`false` under `additionalProperties`,
//!   `unevaluatedProperties`, `additionalItems`, `unevaluatedItems` is idiomatic, `{}` under
//!   `not` is not "untyped", and a document with an `$id` gets no `remote-ref` (its base URI may
//!   make the reference local).
//! - MCPJam's quality badges (docs/anchors.md): `undocumented-parameter` (a top-level argument
//!   with neither description nor title), `required-not-in-properties`.
//! - Issue 9's list: `top-level-composition` (`oneOf`/`anyOf`/`allOf` at the root of an
//!   `inputSchema`, which model APIs refuse there), `local-ref` (`$ref` inside the document, not
//!   resolved by clients that hand schemas to a model as they are; one finding per schema),
//!   `pattern-properties`, `nested-array` (an array of arrays, which form-drawing clients cannot
//!   draw). One error is found on the way: `unresolvable-ref`, a `#/…` pointer to nothing.

use super::{ToolCx, pointer, quote};
use serde_json::{Map, Value};

/// Keywords whose value is one subschema.
const SINGLE: [&str; 12] = [
    "items",
    "contains",
    "not",
    "propertyNames",
    "if",
    "then",
    "else",
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
    "contentSchema",
];
/// Keywords whose value is an array of subschemas.
const LIST: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const MAP: [&str; 6] = [
    "properties",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "$defs",
    "definitions",
];
/// Where a bare boolean is the idiomatic spelling ("anything else" / "nothing else").
const BOOLEAN_OK: [&str; 4] = [
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
];
/// Keywords that constrain the value (assertions, applicators, references); `if` counts only
/// with `then` or `else`. An allowlist: an unknown keyword constrains nothing.
const CONSTRAINING: [&str; 43] = [
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "items",
    "prefixItems",
    "contains",
    "additionalItems",
    "unevaluatedItems",
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "dependentSchemas",
    "dependencies",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
];
/// The type names of JSON Schema.
const TYPES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "string", "integer",
];
/// Deepest subschema nesting walked (serde_json parses at most 128 levels of JSON).
const MAX_DEPTH: usize = 64;
/// Most argument names quoted in one `undocumented-parameter` finding.
const MAX_NAMED: usize = 5;

/// Every portability rule over one of a tool's schemas (`key`: `inputSchema` or `outputSchema`).
pub(super) fn check(key: &str, schema: &Value, t: &mut ToolCx) {
    let mut w = Walk {
        root: schema,
        has_ids: declares_id(schema, 0),
        local_refs: 0,
        first_local: None,
        too_deep: false,
        path: vec![Seg::Key(key)],
        t,
    };
    if key == "inputSchema" {
        w.input_root(schema);
    }
    w.walk(schema, None, 0);
    if let Some(at) = w.first_local.take() {
        let n = w.local_refs;
        w.t.warning(
            "local-ref",
            &at,
            format!(
                "{key} uses $ref ({n} in all): clients that give the schema to a model as it is do not resolve references; inline them where portability matters"
            ),
        );
    }
}

/// Whether an `$id` is declared at any subschema position (not in `default`, `examples`, …).
fn declares_id(v: &Value, depth: usize) -> bool {
    let Some(o) = v.as_object() else {
        return false;
    };
    if depth > MAX_DEPTH {
        return false;
    }
    if o.get("$id")
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty())
    {
        return true;
    }
    let mut found = false;
    for_each_subschema(o, |_, _, child| {
        found = found || declares_id(child, depth + 1);
    });
    found
}

/// Call `f(keyword, segment, child)` for each subschema position of `o`, in the schema's order;
/// `segment` is the member name or index under the keyword, if any. One pass over the members
/// (not a lookup per keyword: this runs for every node of every schema of the list).
fn for_each_subschema<'v>(
    o: &'v Map<String, Value>,
    mut f: impl FnMut(&'v str, Option<Seg<'v>>, &'v Value),
) {
    for (k, v) in o {
        let k = k.as_str();
        match v {
            Value::Object(m) if MAP.contains(&k) => {
                for (name, child) in m {
                    f(k, Some(Seg::Key(name)), child);
                }
            }
            // The draft-04 tuple form of `items` too.
            Value::Array(a) if LIST.contains(&k) || k == "items" => {
                for (i, child) in a.iter().enumerate() {
                    f(k, Some(Seg::Index(i)), child);
                }
            }
            child if SINGLE.contains(&k) => f(k, None, child),
            _ => {}
        }
    }
}

/// One step of a pointer, borrowed from the schema (a walk makes no string per node).
#[derive(Clone, Copy)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

struct Walk<'a, 't> {
    root: &'a Value,
    has_ids: bool,
    local_refs: usize,
    first_local: Option<String>,
    too_deep: bool,
    /// Pointer segments from the tool's root to the node being walked.
    path: Vec<Seg<'a>>,
    t: &'t mut ToolCx,
}

impl<'a> Walk<'a, '_> {
    fn here(&self) -> String {
        let segments: Vec<String> = self
            .path
            .iter()
            .map(|s| match s {
                Seg::Key(k) => k.to_string(),
                Seg::Index(i) => i.to_string(),
            })
            .collect();
        pointer(&segments)
    }

    /// The pointer of the node being walked, then `suffix` (made only for a finding).
    fn at(&self, suffix: &str) -> String {
        self.here() + suffix
    }

    /// Rules about the root of an `inputSchema` only: composition there, undocumented arguments.
    fn input_root(&mut self, schema: &Value) {
        let here = self.here();
        for k in ["oneOf", "anyOf", "allOf"] {
            if schema.get(k).is_some() {
                self.t.warning(
                    "top-level-composition",
                    &format!("{here}/{k}"),
                    format!("{k} at the root of inputSchema: several model APIs refuse oneOf/anyOf/allOf at the top of a tool's input; put the alternatives under a property"),
                );
            }
        }
        let Some(props) = schema.get("properties").and_then(Value::as_object) else {
            return;
        };
        let bare: Vec<&String> = props
            .iter()
            .filter(|(_, p)| {
                p.as_object()
                    .is_some_and(|o| !o.contains_key("description") && !o.contains_key("title"))
            })
            .map(|(k, _)| k)
            .collect();
        if !bare.is_empty() {
            let named: Vec<String> = bare
                .iter()
                .take(MAX_NAMED)
                .map(|k| format!("{:?}", quote(k)))
                .collect();
            let more = bare.len().saturating_sub(MAX_NAMED);
            self.t.warning(
                "undocumented-parameter",
                &format!("{here}/properties"),
                format!(
                    "{} argument{} without a description or title: {}{}",
                    bare.len(),
                    if bare.len() == 1 { "" } else { "s" },
                    named.join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                ),
            );
        }
    }

    /// Visit one subschema position (`keyword`: the keyword it is under; `None` at the root).
    fn walk(&mut self, node: &'a Value, keyword: Option<&str>, depth: usize) {
        // Past the tool's finding bound the walk goes on (its size is bounded already), so the
        // findings left out are still counted, errors apart.
        if depth > MAX_DEPTH {
            if !self.too_deep {
                self.too_deep = true;
                let here = self.here();
                self.t.warning(
                    "deep-schema",
                    &here,
                    format!("the schema nests subschemas more than {MAX_DEPTH} deep; nothing below is checked here"),
                );
            }
            return;
        }
        match node {
            Value::Bool(b) if !keyword.is_some_and(|k| BOOLEAN_OK.contains(&k)) => {
                let here = self.here();
                self.t.warning(
                    "boolean-schema",
                    &here,
                    format!("a bare {b} where a schema object is expected: valid JSON Schema, but Claude Code refuses the tool (the official Inspector's --strict fails on it); write {}", if *b { "{} with a type" } else { "{\"not\": {}}" }),
                );
            }
            Value::Object(o) => {
                self.node(o, keyword);
                for_each_subschema(o, |k, seg, child| {
                    self.path.push(Seg::Key(k));
                    if let Some(s) = &seg {
                        self.path.push(*s);
                    }
                    self.walk(child, Some(k), depth + 1);
                    if seg.is_some() {
                        self.path.pop();
                    }
                    self.path.pop();
                });
            }
            // Not a schema at all: the meta-schema check reports it.
            _ => {}
        }
    }

    /// The rules about one schema object, not its children.
    fn node(&mut self, o: &Map<String, Value>, keyword: Option<&str>) {
        if let Some(Value::Array(types)) = o.get("type")
            && is_type_union(types)
        {
            let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
            self.t.warning(
                "type-union",
                &self.at("/type"),
                format!("type is a list ({}): clients that map tool schemas to a single-type dialect (Gemini's function declarations) reject it or drop the constraint; anyOf with one type per branch is portable", names.join(", ")),
            );
        }
        if let Some(r) = o.get("$ref").and_then(Value::as_str) {
            self.reference(r);
        }
        let constrains = o.keys().any(|k| CONSTRAINING.contains(&k.as_str()))
            || (o.contains_key("if") && (o.contains_key("then") || o.contains_key("else")));
        if !constrains && keyword != Some("not") {
            self.t.warning(
                "untyped-schema",
                &self.at(""),
                "no validating keyword (type, enum, properties, …): this accepts any value, like a bare true; say what the value is".to_string(),
            );
        }
        if o.contains_key("patternProperties") {
            self.t.warning(
                "pattern-properties",
                &self.at("/patternProperties"),
                "patternProperties: most clients' forms and several model APIs ignore it; name the properties, or use additionalProperties".to_string(),
            );
        }
        if let Some(items) = o.get("items").and_then(Value::as_object)
            && (items.get("type") == Some(&Value::String("array".into()))
                || items.contains_key("items"))
        {
            self.t.warning(
                "nested-array",
                &self.at("/items"),
                "an array of arrays: form-drawing clients cannot draw it and fall back to raw JSON"
                    .to_string(),
            );
        }
        self.required(o);
    }

    /// `$ref`: a `#/…` pointer must lead somewhere; one out of the document is never fetched.
    fn reference(&mut self, r: &str) {
        if let Some(fragment) = r.strip_prefix('#') {
            if (fragment.is_empty() || fragment.starts_with('/'))
                && self.root.pointer(fragment).is_none()
            {
                self.t.error(
                    "unresolvable-ref",
                    &self.at("/$ref"),
                    format!("$ref {:?} points at nothing in this schema", quote(r)),
                );
                return;
            }
            self.local_refs += 1;
            if self.first_local.is_none() {
                self.first_local = Some(self.at("/$ref"));
            }
        } else if !self.has_ids {
            self.t.warning(
                "remote-ref",
                &self.at("/$ref"),
                format!("$ref {:?} points outside this schema: clients never fetch it, so the constraint is dropped or the tool refused; move it into $defs", quote(r)),
            );
        }
    }

    /// Names in `required` that `properties` does not define (MCPJam's rule); a schema with
    /// `patternProperties` may define them by pattern, so it is left alone.
    fn required(&mut self, o: &Map<String, Value>) {
        let Some(required) = o.get("required").and_then(Value::as_array) else {
            return;
        };
        if o.contains_key("patternProperties") {
            return;
        }
        let props = o.get("properties").and_then(Value::as_object);
        let missing: Vec<String> = required
            .iter()
            .filter_map(Value::as_str)
            .filter(|n| !props.is_some_and(|p| p.contains_key(*n)))
            .take(MAX_NAMED)
            .map(|n| format!("{:?}", quote(n)))
            .collect();
        if !missing.is_empty() {
            self.t.warning(
                "required-not-in-properties",
                &self.at("/required"),
                format!(
                    "required names what properties does not define: {}",
                    missing.join(", ")
                ),
            );
        }
    }
}

/// A legal union: a non-empty list of distinct type names (a malformed one is the meta-schema's).
fn is_type_union(types: &[Value]) -> bool {
    let mut seen: Vec<&str> = Vec::new();
    for t in types {
        match t.as_str() {
            Some(s) if TYPES.contains(&s) && !seen.contains(&s) => seen.push(s),
            _ => return false,
        }
    }
    !seen.is_empty()
}
