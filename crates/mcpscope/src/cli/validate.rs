//! `tools/call`'s arguments checked against the tool's `inputSchema` before they are sent, as the
//! web UI's Validate does (`mcpscope_proto::form::validate`, one validator for every view): a
//! mistyped or missing argument is named with the rule it breaks, exit 1 (`usage`), instead of
//! whatever the server makes of it. `--no-validate` sends the arguments anyway (to see how a
//! server handles a bad call).
//!
//! The schema comes from `tools/list` (every page), asked just before the call: one more
//! exchange per call. When the server declares no `tools` capability, cannot list its tools
//! within 5 s, does not list this one, or its schema cannot be used, nothing is checked and the
//! call goes out as given: the server still validates, and an unknown tool is
//! named after the call (`failure::unknown_tool`).

use super::apps::list_tools;
use super::failure::Failure;
use mcpscope_client::Session;
use mcpscope_proto::error_code::ErrorCode;
use mcpscope_proto::form::{self, FieldError};
use serde_json::{Map, Value, json};
use std::time::Duration;

/// How long the schema's `tools/list` may take before the call goes out unchecked.
const LIST_WAIT: Duration = Duration::from_secs(5);

/// Most violations named in the message (all are in the error's `fieldErrors`).
const NAMED: usize = 5;

/// Check `params.arguments` of a `tools/call` against the listed tool's `inputSchema`.
pub(super) async fn check_arguments(
    session: &Session,
    params: &Map<String, Value>,
) -> Result<(), Failure> {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Ok(());
    };
    let declares_tools = session
        .server_info()
        .is_some_and(|i| i.capabilities.get("tools").is_some());
    if !declares_tools {
        return Ok(());
    }
    // A server slow to list (or that never answers tools/list) must not hold the call up for a
    // whole request timeout: past this, the call goes out unchecked.
    let Ok(Ok(tools)) = tokio::time::timeout(LIST_WAIT, list_tools(session)).await else {
        return Ok(());
    };
    let Some(schema) = tools
        .iter()
        .find(|t| t["name"] == name)
        .and_then(|t| t.get("inputSchema"))
    else {
        return Ok(());
    };
    let arguments = params
        .get("arguments")
        .cloned()
        .unwrap_or_else(|| json!({}));
    match form::validate(schema, &arguments) {
        Ok(errors) if !errors.is_empty() => Err(violation(name, &errors)),
        // Valid, or a schema we cannot validate with: the server decides.
        _ => Ok(()),
    }
}

/// The usage failure naming each bad argument and the rule it breaks.
fn violation(tool: &str, errors: &[FieldError]) -> Failure {
    let named: Vec<String> = errors.iter().take(NAMED).map(describe).collect();
    let more = match errors.len().saturating_sub(NAMED) {
        0 => String::new(),
        n => format!(" (and {n} more)"),
    };
    let mut message = format!(
        "the arguments do not match the inputSchema of tool {tool:?}: {}{more}",
        named.join("; ")
    );
    if errors
        .iter()
        .any(|e| e.message.contains("is not of type \"string\""))
    {
        // `--tool-arg` reads a value as JSON when it parses: `id=123` is a number.
        message.push_str(
            "; a --tool-arg value is read as JSON when it parses, so give a string that looks like a number or true/false in quotes (--tool-arg 'id=\"123\"')",
        );
    }
    message.push_str("; fix the arguments, or pass --no-validate to send them anyway");
    let mut f = Failure::new(ErrorCode::Usage, message);
    f.extra.insert("tool".into(), json!(tool));
    f.extra.insert("fieldErrors".into(), json!(errors));
    f
}

/// `argument "a": "x" is not of type "number"`; a missing argument is the object's error.
fn describe(e: &FieldError) -> String {
    let path = e.path.trim_start_matches('/');
    if path.is_empty() {
        return e.message.clone();
    }
    let argument = path.replace("~1", "/").replace("~0", "~");
    format!("argument {argument:?}: {}", e.message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_violation_names_its_argument_and_rule() {
        let schema = json!({"type": "object", "required": ["a", "b"],
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}, "id": {"type": "string"}}});
        let errors = form::validate(&schema, &json!({"a": "x", "id": 12})).unwrap();
        let f = violation("add", &errors);
        assert_eq!(f.code, ErrorCode::Usage);
        assert_eq!(f.exit(), 1);
        assert!(
            f.message
                .contains(r#"argument "a": "x" is not of type "number""#),
            "{}",
            f.message
        );
        assert!(
            f.message.contains(r#""b" is a required property"#),
            "{}",
            f.message
        );
        assert!(
            f.message
                .contains(r#"argument "id": 12 is not of type "string""#),
            "{}",
            f.message
        );
        assert!(f.message.contains("in quotes") && f.message.contains("--no-validate"));
        assert_eq!(f.extra["fieldErrors"].as_array().map(Vec::len), Some(3));
    }
}
