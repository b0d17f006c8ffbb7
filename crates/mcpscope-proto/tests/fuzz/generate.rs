//! Strategies: arbitrary JSON, JSON-RPC-shaped messages, and JSON Schemas that are recursive
//! (`$ref`s back into themselves), fanned out, deep, wide and contradictory, with their `$ref`s
//! spelled every way the engine resolves them (`#/…` pointers, `$anchor`, `$id`, `$dynamicRef`);
//! and recursive fan-out paired with a value that follows the recursion, whose cost grows with
//! the value, not the schema.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Short names (so properties, `required` and `$ref`s collide) and any string at all.
pub(crate) fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-d]{0,2}",
        1 => any::<String>(),
        1 => prop::sample::select(vec!["$ref", "properties", "allOf", "$defs", "type", "~1/"])
            .prop_map(str::to_string),
    ]
}

pub(crate) fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z =?/#~]{0,12}",
        1 => any::<String>(),
    ]
}

pub(crate) fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
            .map(Value::Number)),
        text().prop_map(Value::String),
    ]
}

/// Any JSON value, up to 6 levels and a few dozen nodes.
pub(crate) fn json() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Where a `$ref` points: the definitions of [`document`] (so cycles and fan-out happen), the
/// root, places that may or may not exist, outside the document, and garbage.
pub(crate) fn ref_target() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (0..5u8).prop_map(|i| format!("#/$defs/d{i}")),
        2 => Just("#".to_string()),
        1 => Just("#/properties/a".to_string()),
        1 => Just("#/$defs/d0/properties/a".to_string()),
        1 => Just("#/allOf/0".to_string()),
        1 => Just("#/$defs".to_string()),
        1 => Just("https://example.com/s.json".to_string()),
        1 => Just("#/$defs/~2".to_string()),
        1 => any::<String>(),
    ]
}

fn type_name() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "object", "array", "string", "integer", "number", "boolean", "null", "nope",
    ])
}

fn leaf_schema() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(true)),
        Just(json!(false)),
        Just(json!({})),
        type_name().prop_map(|t| json!({"type": t})),
        (type_name(), type_name()).prop_map(|(a, b)| json!({"type": [a, b]})),
        prop::collection::vec(json_leaf(), 0..6).prop_map(|v| json!({"enum": v})),
        json_leaf().prop_map(|v| json!({"const": v})),
        ref_target().prop_map(|r| json!({"$ref": r})),
        (
            0u64..4,
            0u64..40,
            prop::sample::select(vec!["^a+$", "(a+)+$", "(", "[", "\\d{2,}", "^(?=a)"]),
            prop::sample::select(vec!["email", "uri", "date", "date-time", "regex", "x"]),
        )
            .prop_map(|(min, max, pattern, format)| json!({
                "type": "string", "minLength": min, "maxLength": max,
                "pattern": pattern, "format": format
            })),
        (json(), text()).prop_map(|(d, t)| json!({"type": "integer", "default": d, "title": t,
            "minimum": -5, "maximum": 1e300})),
    ]
}

/// A schema: leaves nested up to 8 levels through every keyword the form model reads.
pub(crate) fn schema() -> impl Strategy<Value = Value> {
    leaf_schema().prop_recursive(8, 160, 8, |inner| {
        prop_oneof![
            (
                prop::collection::vec((key(), inner.clone()), 0..8),
                prop::collection::vec(key(), 0..4),
                any::<bool>(),
            )
                .prop_map(|(props, required, closed)| {
                    let props: Map<String, Value> = props.into_iter().collect();
                    json!({"type": "object", "properties": props, "required": required,
                        "additionalProperties": !closed})
                }),
            (inner.clone(), 0u64..3)
                .prop_map(|(items, min)| json!({"type": "array", "items": items, "minItems": min})),
            (
                prop::sample::select(vec!["anyOf", "oneOf", "allOf"]),
                prop::collection::vec(inner.clone(), 0..5),
            )
                .prop_map(|(k, alts)| json!({ k: alts })),
            (inner.clone(), ref_target(), text()).prop_map(|(s, r, title)| match s {
                // A `$ref` with siblings, and annotations on the referring schema.
                Value::Object(mut o) => {
                    o.insert("$ref".into(), json!(r));
                    o.insert("title".into(), json!(title));
                    Value::Object(o)
                }
                other => other,
            }),
        ]
    })
}

/// A whole `inputSchema`: a root schema plus `$defs` d0..d4 that the `$ref`s above point into.
pub(crate) fn document() -> impl Strategy<Value = Value> {
    (schema(), prop::collection::vec(schema(), 0..6)).prop_map(|(root, defs)| with_defs(root, defs))
}

fn with_defs(root: Value, defs: Vec<Value>) -> Value {
    let defs: Map<String, Value> = defs
        .into_iter()
        .enumerate()
        .map(|(i, d)| (format!("d{i}"), d))
        .collect();
    match root {
        Value::Object(mut o) => {
            o.insert("$defs".into(), Value::Object(defs));
            Value::Object(o)
        }
        other => json!({"$defs": defs, "allOf": [other]}),
    }
}

/// How a `$ref` to definition `d{i}` is spelled, and what that definition then needs for the
/// `$ref` to resolve. A guard that follows only `#/…` pointers misses the other three (it did:
/// b279af6).
#[derive(Debug, Clone, Copy)]
pub(crate) enum RefStyle {
    /// `"$ref": "#/$defs/d3"`.
    Pointer,
    /// `"$ref": "#n3"` to `"$anchor": "n3"`.
    Anchor,
    /// `"$ref": "d3.json"` to `"$id": "https://example.com/d3.json"`, relative to the root's
    /// `$id`, or the absolute URI.
    Id { absolute: bool },
    /// `"$dynamicRef": "#n3"` to `"$dynamicAnchor": "n3"`.
    Dynamic,
}

/// The root's `$id`, under which the [`RefStyle::Id`] definitions live.
const BASE: &str = "https://example.com/";

impl RefStyle {
    fn any() -> impl Strategy<Value = RefStyle> {
        prop_oneof![
            3 => Just(RefStyle::Pointer),
            2 => Just(RefStyle::Anchor),
            1 => any::<bool>().prop_map(|absolute| RefStyle::Id { absolute }),
            1 => Just(RefStyle::Dynamic),
        ]
    }

    /// The `$ref` (or `$dynamicRef`) to definition `i`.
    fn to(self, i: usize) -> Value {
        match self {
            RefStyle::Pointer => json!({"$ref": format!("#/$defs/d{i}")}),
            RefStyle::Anchor => json!({"$ref": format!("#n{i}")}),
            RefStyle::Id { absolute: false } => json!({"$ref": format!("d{i}.json")}),
            RefStyle::Id { absolute: true } => json!({"$ref": format!("{BASE}d{i}.json")}),
            RefStyle::Dynamic => json!({"$dynamicRef": format!("#n{i}")}),
        }
    }

    /// `body` as definition `i`, named so that [`RefStyle::to`] finds it.
    fn name(self, i: usize, body: Value) -> Value {
        let (key, name) = match self {
            RefStyle::Pointer => return body,
            RefStyle::Anchor => ("$anchor", format!("n{i}")),
            RefStyle::Id { .. } => ("$id", format!("{BASE}d{i}.json")),
            RefStyle::Dynamic => ("$dynamicAnchor", format!("n{i}")),
        };
        match body {
            Value::Object(mut o) => {
                o.insert(key.into(), json!(name));
                Value::Object(o)
            }
            other => json!({key: name, "allOf": [other]}),
        }
    }

    /// The document: `defs` under `$defs`, entered through a `$ref` to `d0`.
    fn document(self, defs: Map<String, Value>) -> Value {
        let mut root = self.to(0);
        root["$defs"] = Value::Object(defs);
        if let RefStyle::Id { .. } = self {
            root["$id"] = json!(format!("{BASE}root.json"));
        }
        root
    }
}

/// The hostile shapes in bulk: `levels` definitions each with `width` properties referring to
/// the next (or, when `recursive`, to itself and the root), through `properties`, `items`,
/// `allOf` or `anyOf`, the `$ref`s spelled in any [`RefStyle`].
pub(crate) fn fan_out() -> impl Strategy<Value = Value> {
    (
        1usize..14,
        1usize..8,
        any::<bool>(),
        0..4u8,
        RefStyle::any(),
    )
        .prop_map(|(levels, width, recursive, via, style)| {
            let mut defs = Map::new();
            for l in 0..levels {
                let r = style.to(if recursive { l } else { l + 1 });
                let body = match via {
                    0 => {
                        let props: Map<String, Value> =
                            (0..width).map(|i| (format!("p{i}"), r.clone())).collect();
                        json!({"type": "object", "properties": props})
                    }
                    1 => json!({"type": "array", "items": {"allOf": vec![r; width]}}),
                    2 => json!({"allOf": vec![r; width], "properties": {"x": {"$ref": "#"}}}),
                    _ => json!({"anyOf": vec![r; width]}),
                };
                defs.insert(format!("d{l}"), style.name(l, body));
            }
            defs.insert(
                format!("d{levels}"),
                style.name(levels, json!({"type": "string"})),
            );
            style.document(defs)
        })
}

/// A recursive fan-out whose cost is in the value: `cycle` definitions, each descending into
/// the value once (a property, an item, any member) and applying `width` `$ref`s to the next
/// one there (`allOf`, `anyOf` or `oneOf`), and a value that follows them `depth` levels down —
/// `width^depth` steps for the engine, however small the schema. The innermost value is one the
/// definitions refuse half the time, so `anyOf` cannot stop at its first branch.
pub(crate) fn follows_value() -> impl Strategy<Value = (Value, Value)> {
    (
        (1usize..6, 1usize..4, 0usize..36),
        (0..4u8, 0..3u8, any::<bool>(), RefStyle::any()),
    )
        .prop_map(
            |((width, cycle, depth), (via, applicator, valid_leaf, style))| {
                let applicator = ["allOf", "anyOf", "oneOf"][applicator as usize];
                let mut defs = Map::new();
                for i in 0..cycle {
                    let fan = json!({applicator: vec![style.to((i + 1) % cycle); width]});
                    let body = match via {
                        0 => json!({"type": "object", "properties": {"a": fan}}),
                        1 => json!({"type": "array", "items": fan}),
                        2 => json!({"type": "object", "additionalProperties": fan}),
                        _ => json!({"type": "object", "patternProperties": {"^a": fan}}),
                    };
                    defs.insert(format!("d{i}"), style.name(i, body));
                }
                let leaf = match (valid_leaf, via) {
                    (false, _) => json!(1.5),
                    (true, 1) => json!([]),
                    (true, _) => json!({}),
                };
                let value = (0..depth).fold(leaf, |v, _| match via {
                    0 => json!({"a": v}),
                    1 => json!([v]),
                    2 => json!({"k": v}),
                    _ => json!({"ab": v}),
                });
                (style.document(defs), value)
            },
        )
}

/// Wide: up to 3,000 properties (some required, some referring to a shared definition).
pub(crate) fn wide() -> impl Strategy<Value = Value> {
    (1usize..3_000, leaf_schema(), any::<bool>()).prop_map(|(n, shared, all_required)| {
        let props: Map<String, Value> = (0..n)
            .map(|i| {
                let p = if i % 3 == 0 {
                    json!({"$ref": "#/$defs/d0"})
                } else {
                    json!({"type": "string"})
                };
                (format!("p{i}"), p)
            })
            .collect();
        let required: Vec<String> = (0..n)
            .filter(|i| all_required || i % 2 == 0)
            .map(|i| format!("p{i}"))
            .collect();
        json!({"type": "object", "properties": props, "required": required,
            "$defs": {"d0": shared}})
    })
}

/// Deep: up to 120 levels (the JSON parser stops at 128) of one nesting keyword.
pub(crate) fn deep() -> impl Strategy<Value = Value> {
    (1usize..120, 0..4u8, leaf_schema()).prop_map(|(depth, via, leaf)| {
        let mut v = leaf;
        for _ in 0..depth {
            v = match via {
                0 => json!({"properties": {"a": v}}),
                1 => json!({"type": "array", "items": v}),
                2 => json!({"allOf": [v]}),
                _ => json!({"anyOf": [v, {"type": "null"}]}),
            };
        }
        v
    })
}

/// Every shape above.
pub(crate) fn any_schema() -> impl Strategy<Value = Value> {
    prop_oneof![6 => document(), 2 => fan_out(), 1 => wide(), 1 => deep()]
}
