//! The JSON-RPC classifier on anything: JSON-RPC-shaped values, arbitrary JSON, arbitrary
//! bytes, mangled serializations and brackets nested past the parser's limit.
//!
//! Bounds: classifying keeps at most the method, the id and the error object (never the
//! payload), and an `Invalid` reason is at most 256 bytes plus twice the message; per case
//! 50 ms (long budget).

use crate::generate::{json, json_leaf, key};
use mcpscope_proto::{Classified, RequestId, classify, parse_and_classify};
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// An object with some of the JSON-RPC members, each well-formed or not.
fn message() -> impl Strategy<Value = Value> {
    let member = |name: &'static str, good: BoxedStrategy<Value>| {
        prop::option::weighted(0.6, prop_oneof![3 => good, 1 => json()])
            .prop_map(move |v| (name, v))
    };
    (
        member("jsonrpc", Just(json!("2.0")).boxed()),
        member(
            "id",
            prop_oneof![
                any::<i64>().prop_map(|n| json!(n)),
                key().prop_map(Value::String)
            ]
            .boxed(),
        ),
        member("method", key().prop_map(Value::String).boxed()),
        member(
            "params",
            prop::collection::btree_map(key(), json_leaf(), 0..4)
                .prop_map(|m| json!(m))
                .boxed(),
        ),
        member("result", json().boxed()),
        member(
            "error",
            (any::<i64>(), key())
                .prop_map(|(c, m)| json!({"code": c, "message": m}))
                .boxed(),
        ),
    )
        .prop_map(|members| {
            let (a, b, c, d, e, f) = members;
            let mut o = Map::new();
            for (k, v) in [a, b, c, d, e, f] {
                if let Some(v) = v {
                    o.insert(k.to_string(), v);
                }
            }
            Value::Object(o)
        })
}

fn check(bytes: &[u8], c: &Classified) -> Result<(), TestCaseError> {
    if let Classified::Invalid(reason) = c {
        prop_assert!(
            reason.len() <= 256 + 2 * bytes.len(),
            "{} bytes",
            reason.len()
        );
    }
    Ok(())
}

#[test]
fn classifying_any_value_agrees_with_its_bytes() {
    let values = prop_oneof![3 => message(), 1 => json()];
    mcpscope_fuzz::run(
        "jsonrpc_values",
        3_000,
        Duration::from_millis(50),
        values,
        |v| {
            let c = classify(&v);
            let bytes = serde_json::to_vec(&v).unwrap();
            let (parsed, again) = parse_and_classify(&bytes);
            prop_assert_eq!(parsed.as_ref(), Some(&v));
            prop_assert_eq!(&again, &c);
            check(&bytes, &c)?;
            match &c {
                Classified::Request { id, method } => {
                    prop_assert_eq!(Some(method.as_str()), v["method"].as_str());
                    prop_assert_eq!(&RequestId::from_value(&v["id"]), &Some(id.clone()));
                    prop_assert_eq!(&id.to_value(), &v["id"]);
                }
                Classified::Notification { method } => {
                    prop_assert!(v.get("id").is_none());
                    prop_assert_eq!(Some(method.as_str()), v["method"].as_str());
                }
                Classified::Response { id } => prop_assert_eq!(&id.to_value(), &v["id"]),
                Classified::Batch(n) => prop_assert_eq!(Some(*n), v.as_array().map(Vec::len)),
                Classified::ErrorResponse { .. } | Classified::Invalid(_) => {}
            }
            Ok(())
        },
    );
}

#[test]
fn classifying_any_bytes_never_fails() {
    let bytes = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..200),
        // A message cut short or with one byte changed.
        (message(), any::<prop::sample::Index>(), any::<u8>()).prop_map(|(v, at, b)| {
            let mut bytes = serde_json::to_vec(&v).unwrap();
            let i = at.index(bytes.len());
            if b % 2 == 0 {
                bytes.truncate(i)
            } else {
                bytes[i] = b
            }
            bytes
        }),
        // Nested past serde_json's recursion limit.
        (1usize..5_000, any::<bool>()).prop_map(|(n, obj)| {
            if obj {
                b"{\"a\":".repeat(n)
            } else {
                b"[".repeat(n)
            }
        }),
        (
            message(),
            prop::sample::select(vec![&b"\xEF\xBB\xBF"[..], b"\r", b" ", b"\n"])
        )
            .prop_map(|(v, extra)| [extra, &serde_json::to_vec(&v).unwrap()[..], extra].concat()),
    ];
    mcpscope_fuzz::run(
        "jsonrpc_bytes",
        3_000,
        Duration::from_millis(50),
        bytes,
        |bytes| {
            let (_, c) = parse_and_classify(&bytes);
            check(&bytes, &c)
        },
    );
}
