//! The schema → form model and the validator on recursive, fanned-out, deep, wide and
//! contradictory schemas, and the validator on values that follow a recursive fan-out down.
//!
//! Bounds: at most `MAX_NODES` fields and options; the form's JSON at most `MAX_TEXT_BYTES`
//! plus 512 bytes a node; the field tree at most 27 levels deep; per case (long budget, release
//! build) 200 ms for the form and 2 s for validating two values.

use crate::generate::{any_schema, follows_value, json};
use mcpscope_proto::form::{
    Field, FieldKind, MAX_NODES, MAX_TEXT_BYTES, form_model, initial_value, validate,
};
use proptest::prelude::*;
use std::time::Duration;

fn nodes(f: &Field) -> usize {
    1 + match &f.kind {
        FieldKind::Object { fields, .. } => fields.iter().map(nodes).sum(),
        FieldKind::Array { items, .. } => nodes(items),
        FieldKind::Enum { options, .. } => options.len(),
        _ => 0,
    }
}

fn depth(f: &Field) -> usize {
    1 + match &f.kind {
        FieldKind::Object { fields, .. } => fields.iter().map(depth).max().unwrap_or(0),
        FieldKind::Array { items, .. } => depth(items),
        _ => 0,
    }
}

#[test]
fn form_model_is_bounded_for_any_schema() {
    mcpscope_fuzz::run(
        "form_model",
        600,
        Duration::from_millis(200),
        any_schema(),
        |schema| {
            let f = form_model(&schema);
            let n = nodes(&f);
            prop_assert!(n <= MAX_NODES, "{n} nodes");
            prop_assert!(depth(&f) <= 27, "{} levels", depth(&f));
            let size = serde_json::to_vec(&f).unwrap().len();
            prop_assert!(
                size <= MAX_TEXT_BYTES + 512 * n,
                "{size} bytes for {n} nodes"
            );
            prop_assert_eq!(&form_model(&schema), &f, "not deterministic");
            let _ = initial_value(&f);
            Ok(())
        },
    );
}

#[test]
fn validation_answers_for_any_schema_and_value() {
    // Arbitrary values mostly; a value that follows a recursive fan-out in a quarter of the
    // cases (the shape that hung the validator before b279af6: its cost is in the value).
    let cases = prop_oneof![3 => (any_schema(), json()), 1 => follows_value()];
    mcpscope_fuzz::run(
        "validate",
        300,
        Duration::from_secs(2),
        cases,
        |(schema, value)| {
            let f = form_model(&schema);
            if let Ok(errors) = validate(&schema, &value) {
                prop_assert!(errors.len() <= 1_000_000);
            }
            if let Some(initial) = initial_value(&f) {
                let _ = validate(&schema, &initial);
            }
            Ok(())
        },
    );
}
