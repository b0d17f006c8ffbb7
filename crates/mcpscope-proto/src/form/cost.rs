//! What validating a value against a schema would cost, found before the JSON Schema engine is
//! asked to: the engine follows every `$ref` it meets, so a schema whose `$ref`s fan out (an
//! `allOf` of three `$ref`s to a definition that is itself an `allOf` of three, thirty deep) makes
//! it take exponential time on any value, and a `$ref` chain thousands long makes it recurse that
//! deep.
//!
//! The walk here visits what the engine would: each subschema that applies to each part of the
//! value, through `$ref`, `$dynamicRef`, `$recursiveRef`, the in-place applicators (`allOf`,
//! `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `dependentSchemas`, `dependencies`) and those
//! that descend into the value (`properties`, `patternProperties`, `additionalProperties`,
//! `unevaluatedProperties`, `propertyNames`, `items`, `prefixItems`, `additionalItems`,
//! `unevaluatedItems`, `contains`). It errs on the side of visiting more: every
//! `patternProperties` schema applies to every property, every `anyOf` branch is taken, an
//! ambiguous `$ref` goes to every schema it might mean.
//!
//! A `$ref` cycle that comes back to the same part of the value is where the engine has to stop
//! by itself. It does so only at the `$ref`s it compiled as the back edges of cycles, and each of
//! those stops it once per part of the value, so along one path a schema can come back once per
//! such back edge: as many times as there are distinct `$ref`s, plus one. The walk lets it come
//! back that often (a cycle with fan-out then costs what it costs the engine: exponential, and
//! refused). It stops at [`MAX_VISITS`] visits or [`MAX_NESTING`] levels, so it costs at most that
//! much itself.

use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// Most subschema applications a validation may take (each is one step of the engine: well
/// under a second for the lot).
pub const MAX_VISITS: usize = 500_000;
/// Deepest nesting of applications (value depth plus `$ref` chains): the engine recurses once per
/// level, on a thread stack of a couple of MiB.
pub const MAX_NESTING: usize = 256;

/// Why a validation is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TooCostly {
    /// More than [`MAX_VISITS`] applications.
    Visits,
    /// Nested deeper than [`MAX_NESTING`].
    Nesting,
}

/// Count the applications validating `instance` against `schema` would take, up to the bounds.
/// A schema nested deeper than [`MAX_NESTING`] is refused outright: the engine compiles it
/// recursively (serde_json parses at most 128 levels, so only a schema built in memory is).
pub(crate) fn applications(schema: &Value, instance: &Value) -> Result<usize, TooCostly> {
    if nesting_over(schema, MAX_NESTING) {
        return Err(TooCostly::Nesting);
    }
    let index = Index::of(schema);
    let mut w = Walk {
        root: schema,
        max_returns: index.distinct_refs + 1,
        index,
        visits: 0,
        stack: Vec::new(),
    };
    w.walk(schema, instance, 0, 0)?;
    Ok(w.visits)
}

/// Whether `v` nests deeper than `max` levels (found without recursing).
fn nesting_over(v: &Value, max: usize) -> bool {
    let mut todo = vec![(v, 0usize)];
    while let Some((v, depth)) = todo.pop() {
        if depth > max {
            return true;
        }
        match v {
            Value::Object(o) => todo.extend(o.values().map(|x| (x, depth + 1))),
            Value::Array(a) => todo.extend(a.iter().map(|x| (x, depth + 1))),
            _ => {}
        }
    }
    false
}

/// Where the non-pointer `$ref`s of a schema may lead.
#[derive(Default)]
struct Index<'s> {
    /// `$anchor` and `$dynamicAnchor` names.
    anchors: HashMap<&'s str, Vec<&'s Value>>,
    /// Embedded resources: subschemas with an `$id` (or draft-4 `id`), by the last segment of it.
    ids: HashMap<&'s str, Vec<&'s Value>>,
    /// Every embedded resource (a `#/…` pointer may be relative to any of them).
    resources: Vec<&'s Value>,
    /// Subschemas with `$recursiveAnchor: true`.
    recursive: Vec<&'s Value>,
    /// How many different `$ref` (`$dynamicRef`, `$recursiveRef`) values there are.
    distinct_refs: usize,
}

impl<'s> Index<'s> {
    fn of(root: &'s Value) -> Index<'s> {
        let mut ix = Index::default();
        let mut refs: HashSet<&'s str> = HashSet::new();
        // Iterative (a schema may be deep); bounded by the schema's size.
        let mut todo = vec![(root, 0usize)];
        while let Some((v, depth)) = todo.pop() {
            match v {
                Value::Object(o) => {
                    for key in ["$ref", "$dynamicRef", "$recursiveRef"] {
                        if let Some(r) = o.get(key).and_then(Value::as_str) {
                            refs.insert(r);
                        }
                    }
                    for key in ["$anchor", "$dynamicAnchor"] {
                        if let Some(a) = o.get(key).and_then(Value::as_str) {
                            ix.anchors.entry(a).or_default().push(v);
                        }
                    }
                    if depth > 0 {
                        for key in ["$id", "id"] {
                            if let Some(id) = o.get(key).and_then(Value::as_str) {
                                let no_fragment = id.split('#').next().unwrap_or(id);
                                let last = no_fragment.rsplit('/').next().unwrap_or(no_fragment);
                                ix.ids.entry(last).or_default().push(v);
                                ix.resources.push(v);
                            }
                        }
                    }
                    if o.get("$recursiveAnchor") == Some(&Value::Bool(true)) {
                        ix.recursive.push(v);
                    }
                    todo.extend(o.values().map(|x| (x, depth + 1)));
                }
                Value::Array(a) => todo.extend(a.iter().map(|x| (x, depth + 1))),
                _ => {}
            }
        }
        ix.distinct_refs = refs.len();
        ix
    }
}

/// The keywords of one schema that apply to the value's members and items, noted during the
/// pass over its keywords and applied after it.
#[derive(Default)]
struct Descent<'s> {
    /// `properties`.
    props: Option<&'s Map<String, Value>>,
    /// `patternProperties` (every one applies to every member: the walk errs on more).
    patterns: Option<&'s Map<String, Value>>,
    /// `additionalProperties`, `unevaluatedProperties`.
    each_property: [Option<&'s Value>; 2],
    /// `propertyNames`.
    names: Option<&'s Value>,
    /// `prefixItems`, or a draft 4–7 array of `items`.
    prefix: Option<&'s Vec<Value>>,
    /// `items`, `additionalItems`, `unevaluatedItems`, `contains`.
    each_item: [Option<&'s Value>; 4],
}

impl<'s> Descent<'s> {
    /// Note `key` when it is a member or item keyword; any other is ignored.
    fn note(&mut self, key: &str, s: &'s Value) {
        match key {
            "properties" => self.props = s.as_object(),
            "patternProperties" => self.patterns = s.as_object(),
            "additionalProperties" => self.each_property[0] = Some(s),
            "unevaluatedProperties" => self.each_property[1] = Some(s),
            "propertyNames" => self.names = Some(s),
            "prefixItems" => self.prefix = s.as_array().or(self.prefix),
            // Draft 4 to 7: an array of `items` is by position.
            "items" if s.is_array() => self.prefix = self.prefix.or(s.as_array()),
            "items" => self.each_item[0] = Some(s),
            "additionalItems" => self.each_item[1] = Some(s),
            "unevaluatedItems" => self.each_item[2] = Some(s),
            "contains" => self.each_item[3] = Some(s),
            _ => {}
        }
    }
}

struct Walk<'s> {
    root: &'s Value,
    index: Index<'s>,
    visits: usize,
    /// `$ref` targets applied to the current part of the value (from `floor` on).
    stack: Vec<*const Value>,
    /// How often one target may come back on the stack for the same part of the value.
    max_returns: usize,
}

impl<'s> Walk<'s> {
    /// Apply `schema` to `instance`; `floor` is where `stack` starts for this part of the value.
    fn walk(
        &mut self,
        schema: &'s Value,
        instance: &Value,
        floor: usize,
        depth: usize,
    ) -> Result<(), TooCostly> {
        self.visits += 1;
        if self.visits > MAX_VISITS {
            return Err(TooCostly::Visits);
        }
        if depth > MAX_NESTING {
            return Err(TooCostly::Nesting);
        }
        let Some(o) = schema.as_object() else {
            return Ok(());
        };
        // One pass over the keywords: in-place applicators now, the rest noted for the value's
        // members and items.
        let mut descent = Descent::default();
        for (key, s) in o {
            match key.as_str() {
                "$ref" | "$dynamicRef" | "$recursiveRef" => {
                    if let Some(r) = s.as_str() {
                        self.follow_ref(key, r, instance, floor, depth)?;
                    }
                }
                "not" | "if" | "then" | "else" => self.walk(s, instance, floor, depth + 1)?,
                "allOf" | "anyOf" | "oneOf" => {
                    for s in s.as_array().into_iter().flatten() {
                        self.walk(s, instance, floor, depth + 1)?;
                    }
                }
                "dependentSchemas" | "dependencies" => {
                    // `dependencies` also holds lists of names, which apply no schema.
                    for s in s.as_object().into_iter().flat_map(|m| m.values()) {
                        if s.is_object() || s.is_boolean() {
                            self.walk(s, instance, floor, depth + 1)?;
                        }
                    }
                }
                _ => descent.note(key, s),
            }
        }
        self.descend(&descent, instance, depth)
    }

    /// Apply every schema a `$ref` (`$dynamicRef`, `$recursiveRef`) may mean, except one that has
    /// already come back [`Walk::max_returns`] times for this part of the value.
    fn follow_ref(
        &mut self,
        key: &str,
        r: &str,
        instance: &Value,
        floor: usize,
        depth: usize,
    ) -> Result<(), TooCostly> {
        let one: [&'s Value; 1];
        let many: Vec<&'s Value>;
        let targets: &[&'s Value] = match self.plain_pointer(key, r) {
            Some(Some(t)) => {
                one = [t];
                &one
            }
            Some(None) => &[],
            None => {
                many = self.targets(key, r)?;
                &many
            }
        };
        for &target in targets {
            let id: *const Value = target;
            let returns = self.stack[floor..].iter().filter(|t| **t == id).count();
            if returns >= self.max_returns {
                continue;
            }
            self.stack.push(id);
            let walked = self.walk(target, instance, floor, depth + 1);
            self.stack.pop();
            walked?;
        }
        Ok(())
    }

    /// Apply the noted member and item keywords to each member or item of the value; each is a
    /// new part of the value, so its `$ref` stack starts afresh.
    fn descend(
        &mut self,
        d: &Descent<'s>,
        instance: &Value,
        depth: usize,
    ) -> Result<(), TooCostly> {
        match instance {
            Value::Object(members) => {
                for (k, v) in members {
                    let below = self.stack.len();
                    if let Some(s) = d.props.and_then(|p| p.get(k)) {
                        self.walk(s, v, below, depth + 1)?;
                    }
                    for s in d.patterns.into_iter().flat_map(|p| p.values()) {
                        self.walk(s, v, below, depth + 1)?;
                    }
                    for s in d.each_property.into_iter().flatten() {
                        self.walk(s, v, below, depth + 1)?;
                    }
                    if let Some(s) = d.names {
                        self.walk(s, &Value::Null, below, depth + 1)?;
                    }
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    let below = self.stack.len();
                    if let Some(s) = d.prefix.and_then(|p| p.get(i)) {
                        self.walk(s, v, below, depth + 1)?;
                    }
                    for s in d.each_item.into_iter().flatten() {
                        self.walk(s, v, below, depth + 1)?;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The usual case, answered without allocating: a `$ref` to `#/…` in a schema with no
    /// embedded resources means one schema (or none). `None` when it is not that case.
    fn plain_pointer(&self, key: &str, r: &str) -> Option<Option<&'s Value>> {
        let pointer = r.strip_prefix('#')?;
        if key == "$recursiveRef"
            || !self.index.resources.is_empty()
            || pointer.contains('%')
            || !(pointer.is_empty() || pointer.starts_with('/'))
        {
            return None;
        }
        Some(self.root.pointer(pointer))
    }

    /// Every schema a `$ref` (or `$dynamicRef`, `$recursiveRef`) may mean.
    fn targets(&mut self, key: &str, r: &str) -> Result<Vec<&'s Value>, TooCostly> {
        let (uri, fragment) = match r.split_once('#') {
            Some((u, f)) => (u, f),
            None => (r, ""),
        };
        let fragment = percent_decode(fragment);
        let mut bases: Vec<&'s Value> = Vec::new();
        if uri.is_empty() {
            bases.push(self.root);
            bases.extend(self.index.resources.iter().copied());
        } else {
            let no_query = uri.split('?').next().unwrap_or(uri);
            let last = no_query.rsplit('/').next().unwrap_or(no_query);
            bases.extend(self.index.ids.get(last).into_iter().flatten().copied());
            // The document's own `$id` may be named.
            bases.push(self.root);
        }
        // Each base looked at is a step, like a visit.
        self.visits += bases.len();
        if self.visits > MAX_VISITS {
            return Err(TooCostly::Visits);
        }
        let mut out: Vec<&'s Value> = Vec::new();
        if fragment.is_empty() || fragment.starts_with('/') {
            for b in &bases {
                if let Some(t) = b.pointer(&fragment) {
                    out.push(t);
                }
            }
        } else {
            out.extend(
                self.index
                    .anchors
                    .get(fragment.as_str())
                    .into_iter()
                    .flatten(),
            );
        }
        if key == "$recursiveRef" {
            out.extend(self.index.recursive.iter().copied());
        }
        // The same schema reached two ways is applied once.
        let mut seen: HashSet<*const Value> = HashSet::with_capacity(out.len());
        out.retain(|t| seen.insert(*t as *const Value));
        Ok(out)
    }
}

/// `%XX` escapes of a URI fragment decoded (invalid ones kept as they are).
fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && b[i + 1].is_ascii_hexdigit()
            && b[i + 2].is_ascii_hexdigit()
        {
            let hex = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
            out.push(hex(b[i + 1]) * 16 + hex(b[i + 2]));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
