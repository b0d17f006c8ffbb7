//! The checks of one tool that are not about portability: its definition against the
//! revision's `Tool`, its name, description and annotations, its schemas against their
//! dialect's meta-schema, `x-mcp-header`, and the measure that keeps the walks bounded.

use super::{ToolCx, pointer, quote};
use crate::era::Era;
use crate::lint::{Linter, Revision};
use serde_json::Value;

/// Longest tool name the 2025-11-25 rules allow.
const MAX_NAME: usize = 128;
/// Most meta-schema errors reported per schema (one wrong keyword often makes several).
const MAX_META_ERRORS: usize = 5;
/// Longest message taken from the JSON Schema engine or the `x-mcp-header` rule (they quote
/// the offending value, which is server text).
const MAX_MESSAGE: usize = 400;

/// The tool against the `Tool` definition of the revision's `schema.json`.
pub(super) fn definition(linter: &Linter, revision: Revision, tool: &Value, t: &mut ToolCx) {
    for f in linter.check_definition(revision, "Tool", tool) {
        let code = match f.path.split('/').nth(1) {
            Some("inputSchema") => "invalid-input-schema",
            Some("outputSchema") => "invalid-output-schema",
            Some("name") => "invalid-name",
            Some("annotations") => "invalid-annotations",
            _ => "invalid-tool",
        };
        let revision = match revision {
            Revision::Modern20260728 => "2026-07-28",
            _ => "2025-11-25",
        };
        t.error(
            code,
            &f.path,
            format!("not a valid {revision} Tool: {}", f.message),
        );
    }
}

/// The name rules of 2025-11-25 (kept by 2026-07-28): 1–128 characters of `[A-Za-z0-9_.-]`.
pub(super) fn name(tool: &Value, t: &mut ToolCx) {
    let Some(name) = tool.get("name").and_then(Value::as_str) else {
        return;
    };
    let len = name.chars().count();
    if len == 0 || len > MAX_NAME {
        t.error(
            "name-length",
            "/name",
            format!("the name is {len} characters long; tool names are 1 to {MAX_NAME}"),
        );
    }
    let mut bad: Vec<char> = Vec::new();
    for c in name.chars() {
        let allowed = c.is_ascii_alphanumeric() || "_.-".contains(c);
        if !allowed && !bad.contains(&c) {
            bad.push(c);
            if bad.len() == 5 {
                break;
            }
        }
    }
    if !bad.is_empty() {
        let listed: Vec<String> = bad.iter().map(|c| format!("{c:?}")).collect();
        t.error(
            "name-characters",
            "/name",
            format!(
                "the name has characters outside [A-Za-z0-9_.-]: {}",
                listed.join(", ")
            ),
        );
    }
}

/// A tool without a description: models choose tools by what their descriptions say.
pub(super) fn description(tool: &Value, t: &mut ToolCx) {
    match tool.get("description") {
        None => t.warning(
            "missing-description",
            "",
            "no description: a model picks tools by their descriptions".to_string(),
        ),
        Some(Value::String(s)) if s.trim().is_empty() => t.warning(
            "missing-description",
            "/description",
            "the description is empty: a model picks tools by their descriptions".to_string(),
        ),
        _ => {}
    }
}

/// Hints that contradict each other. `destructiveHint` and `idempotentHint` are meaningful only
/// when `readOnlyHint` is false (schema.ts), so a read-only tool that says it is destructive, or
/// not idempotent, says two things at once.
pub(super) fn annotations(tool: &Value, t: &mut ToolCx) {
    let Some(a) = tool.get("annotations").and_then(Value::as_object) else {
        return;
    };
    if a.get("readOnlyHint") != Some(&Value::Bool(true)) {
        return;
    }
    if a.get("destructiveHint") == Some(&Value::Bool(true)) {
        t.warning(
            "contradicting-annotations",
            "/annotations/destructiveHint",
            "readOnlyHint is true and destructiveHint is true: a read-only tool cannot be destructive (destructiveHint is meaningful only when readOnlyHint is false)".to_string(),
        );
    }
    if a.get("idempotentHint") == Some(&Value::Bool(false)) {
        t.warning(
            "contradicting-annotations",
            "/annotations/idempotentHint",
            "readOnlyHint is true and idempotentHint is false: a read-only tool has no effect to repeat (idempotentHint is meaningful only when readOnlyHint is false)".to_string(),
        );
    }
}

/// How big a schema is: its JSON values and, roughly, its bytes written as JSON.
pub(super) struct Size {
    pub nodes: usize,
    pub bytes: usize,
    /// More than the node bound: counting stopped there.
    pub over: bool,
}

/// Measure `v`, stopping after `max_nodes` values (iterative: the value may be deep).
pub(super) fn measure(v: &Value, max_nodes: usize) -> Size {
    let mut size = Size {
        nodes: 0,
        bytes: 0,
        over: false,
    };
    let mut todo = vec![v];
    while let Some(v) = todo.pop() {
        size.nodes += 1;
        if size.nodes > max_nodes {
            size.over = true;
            break;
        }
        size.bytes += match v {
            Value::Null | Value::Bool(_) => 5,
            Value::Number(_) => 8,
            Value::String(s) => s.len() + 2,
            Value::Array(a) => {
                todo.extend(a.iter());
                2 + a.len()
            }
            Value::Object(o) => {
                todo.extend(o.values());
                2 + o.keys().map(|k| k.len() + 4).sum::<usize>()
            }
        };
    }
    size
}

/// The schema against the meta-schema of its dialect (`$schema`, else 2020-12, the default of
/// both revisions). A dialect the JSON Schema engine does not bundle is not checked (and never
/// fetched): a warning says so, as clients cannot be expected to know it either.
pub(super) fn meta_schema(key: &str, schema: &Value, t: &mut ToolCx) {
    let validator = match dialect(schema) {
        Ok(v) => v,
        Err(uri) => {
            t.warning(
                "unknown-dialect",
                &format!("/{key}/$schema"),
                format!(
                    "$schema is {:?}, a dialect clients cannot be expected to know (2020-12 is the default); the schema is not checked against it",
                    quote(&uri)
                ),
            );
            return;
        }
    };
    let code = if key == "inputSchema" {
        "invalid-input-schema"
    } else {
        "invalid-output-schema"
    };
    for e in validator.iter_errors(schema).take(MAX_META_ERRORS) {
        let at = format!("/{key}{}", e.instance_path());
        // The `Tool` definition may have said it already (a property that is not an object).
        if t.findings.iter().any(|f| f.pointer == at) {
            continue;
        }
        let message = crate::form::shorten(&e.to_string(), MAX_MESSAGE);
        t.error(
            code,
            &at,
            format!("{key} is not valid JSON Schema: {message}"),
        );
    }
}

/// The meta-schema validator for the schema's dialect, or the `$schema` we do not know.
fn dialect(schema: &Value) -> Result<jsonschema::meta::MetaValidator<'static>, String> {
    let Some(uri) = schema.get("$schema") else {
        return Ok(jsonschema::draft202012::meta::validator());
    };
    let Some(uri) = uri.as_str() else {
        // Not a string: the meta-schema reports it.
        return Ok(jsonschema::draft202012::meta::validator());
    };
    let plain = uri.trim_end_matches('#').replacen("http://", "https://", 1);
    Ok(match plain.as_str() {
        "https://json-schema.org/draft/2020-12/schema" => {
            jsonschema::draft202012::meta::validator()
        }
        "https://json-schema.org/draft/2019-09/schema" => {
            jsonschema::draft201909::meta::validator()
        }
        "https://json-schema.org/draft-07/schema" => jsonschema::draft7::meta::validator(),
        "https://json-schema.org/draft-06/schema" => jsonschema::draft6::meta::validator(),
        "https://json-schema.org/draft-04/schema" => jsonschema::draft4::meta::validator(),
        _ => return Err(uri.to_string()),
    })
}

/// `x-mcp-header` annotations, by the rule's owner ([`crate::headers::param_headers`]). The
/// annotation is the 2026-07-28 revision's: a modern client must exclude a tool whose
/// annotation is invalid (an error there); a legacy connection ignores it (a warning, for a
/// server that serves both eras the same list).
pub(super) fn x_mcp_header(era: Era, schema: &Value, t: &mut ToolCx) {
    let Err(reason) = crate::headers::param_headers(schema) else {
        return;
    };
    let reason = crate::form::shorten(&reason, MAX_MESSAGE);
    let at = pointer(&["inputSchema"]);
    match era {
        Era::Modern => t.error(
            "invalid-x-mcp-header",
            &at,
            format!("{reason}: a 2026-07-28 client must leave this tool out of its tools"),
        ),
        Era::Legacy => t.warning(
            "invalid-x-mcp-header",
            &at,
            format!(
                "{reason}: ignored on this 2025-11-25 connection, but a 2026-07-28 client must leave this tool out"
            ),
        ),
    }
}
