//! Tools: the definitions linted (`tools-input-schemas-valid`, `mcpscope_proto::tool_lint`: the
//! same rules as the quality badges and `--strict`), an unknown tool's error
//! (`tools-unknown-tool-error`), and `structuredContent` checked against `outputSchema` for the
//! calls the check may make (`tool-output-schema-conformant`): tools that need no arguments and
//! say they are read-only, or every such tool with `--call-tools`.

use super::Lists;
use crate::run::{Cx, Failure};
use mcpscope_proto::era::INVALID_PARAMS;
use mcpscope_proto::tool_lint::{self, Severity};
use serde_json::{Value, json};

/// Most tools called for `tool-output-schema-conformant` in one era.
const MAX_CALLS: usize = 20;

/// Run the tool checks.
pub(crate) async fn run(cx: &Cx, lists: &Lists) {
    if !cx.has("tools") {
        for id in [
            "tools-input-schemas-valid",
            "tools-unknown-tool-error",
            "tool-output-schema-conformant",
        ] {
            cx.skip(id, "the server does not declare the tools capability");
        }
        return;
    }
    if let Some(why) = lists.unserved_note("tools") {
        for id in [
            "tools-input-schemas-valid",
            "tools-unknown-tool-error",
            "tool-output-schema-conformant",
        ] {
            cx.skip(id, why.clone());
        }
        return;
    }
    definitions(cx, &lists.tools);
    unknown_tool(cx).await;
    output_schemas(cx, &lists.tools).await;
}

fn definitions(cx: &Cx, tools: &[Value]) {
    if tools.is_empty() {
        cx.skip("tools-input-schemas-valid", "tools/list returned no tools");
        return;
    }
    let lint = tool_lint::lint_tools(cx.rec.linter(), cx.era, tools);
    let first = |sev: Severity| {
        lint.findings
            .iter()
            .filter(|f| f.severity == sev)
            .take(3)
            .map(|f| format!("{} {}: {}", f.tool, f.pointer, f.message))
            .collect::<Vec<_>>()
            .join("; ")
    };
    // The definitions as listed (the tool lint itself is `mcpscope check`'s and the web UI's).
    let reproduce = Some(cx.cli_command("--method tools/list"));
    if lint.errors > 0 {
        cx.add(
            crate::verdict::Verdict::broken(
                "tools-input-schemas-valid",
                cx.version(),
                format!(
                    "{} errors in {} tools: {}",
                    lint.errors,
                    tools.len(),
                    first(Severity::Error)
                ),
            )
            .with_reproduce(reproduce),
        );
    } else if lint.warnings > 0 {
        cx.add(
            crate::verdict::Verdict::new(
                "tools-input-schemas-valid",
                cx.version(),
                crate::verdict::Outcome::Warn,
                format!(
                    "valid; {} quality or portability warnings: {}",
                    lint.warnings,
                    first(Severity::Warning)
                ),
            )
            .with_reproduce(reproduce),
        );
    } else {
        cx.pass(
            "tools-input-schemas-valid",
            format!("{} tool definitions valid", tools.len()),
        );
    }
}

async fn unknown_tool(cx: &Cx) {
    let asked = cx
        .ask(
            "tools/call",
            json!({"name": "mcpscope-check-no-such-tool", "arguments": {}}),
        )
        .await;
    match &asked.answer {
        Err(Failure::Rpc(e)) if e.code == INVALID_PARAMS => {
            cx.pass("tools-unknown-tool-error", "refused with -32602")
        }
        Ok(r) if r.get("isError") == Some(&Value::Bool(true)) => cx.broken(
            "tools-unknown-tool-error",
            "an unknown tool was answered with a result (isError) instead of the protocol error -32602",
            Some(&asked),
        ),
        Ok(_) => cx.broken(
            "tools-unknown-tool-error",
            "an unknown tool was answered with a successful result",
            Some(&asked),
        ),
        Err(f) => cx.broken("tools-unknown-tool-error", format!("an unknown tool got {f}, not -32602"), Some(&asked)),
    }
}

/// Whether a tool can be called without arguments.
fn needs_no_arguments(tool: &Value) -> bool {
    tool.pointer("/inputSchema/required")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
}

async fn output_schemas(cx: &Cx, tools: &[Value]) {
    let with_schema: Vec<&Value> = tools
        .iter()
        .filter(|t| t.get("outputSchema").is_some_and(Value::is_object))
        .collect();
    if with_schema.is_empty() {
        cx.skip(
            "tool-output-schema-conformant",
            "no tool declares an outputSchema",
        );
        return;
    }
    let callable: Vec<&Value> = with_schema
        .iter()
        .copied()
        .filter(|t| needs_no_arguments(t))
        .filter(|t| {
            cx.opts.call_tools || t.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true))
        })
        .take(MAX_CALLS)
        .collect();
    if callable.is_empty() {
        cx.skip(
            "tool-output-schema-conformant",
            format!(
                "{} tools declare an outputSchema; none is read-only and callable without arguments (--call-tools calls every tool that needs none)",
                with_schema.len()
            ),
        );
        return;
    }
    let mut checked = Vec::new();
    for tool in callable {
        let name = tool["name"].as_str().unwrap_or_default();
        // Bounded: a tool that works for a minute must not take the run's --timeout with it.
        let asked = super::conduct::ask_call(cx, json!({"name": name, "arguments": {}})).await;
        let result = match &asked.answer {
            Ok(r) => r,
            Err(_) => continue,
        };
        // An input_required result is a round, not the tool's result (checks/conduct.rs judges
        // the rounds).
        let round = result.get("resultType").and_then(Value::as_str) == Some("input_required");
        if round || result.get("isError") == Some(&Value::Bool(true)) {
            continue;
        }
        match conforms(&tool["outputSchema"], result.get("structuredContent")) {
            Ok(()) => checked.push(name.to_string()),
            Err(why) => {
                cx.broken(
                    "tool-output-schema-conformant",
                    format!("{name}: {why}"),
                    Some(&asked),
                );
                return;
            }
        }
    }
    if checked.is_empty() {
        cx.skip(
            "tool-output-schema-conformant",
            "no call made ended in a structured result (each was an error, isError, or an input_required round)",
        );
    } else {
        cx.pass(
            "tool-output-schema-conformant",
            format!(
                "structuredContent matches outputSchema: {}",
                checked.join(", ")
            ),
        );
    }
}

/// `structured` is present and valid against `schema` (JSON Schema 2020-12, no remote `$ref`).
fn conforms(schema: &Value, structured: Option<&Value>) -> Result<(), String> {
    let Some(value) = structured else {
        return Err(
            "the tool declares an outputSchema but its result has no structuredContent".into(),
        );
    };
    let validator = jsonschema::draft202012::options()
        .build(schema)
        .map_err(|e| format!("its outputSchema does not compile: {e}"))?;
    let errors: Vec<String> = validator
        .iter_errors(value)
        .take(3)
        .map(|e| {
            format!(
                "{}: {}",
                e.instance_path(),
                crate::verdict::cut(&e.to_string(), 200)
            )
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "structuredContent does not match outputSchema: {}",
            errors.join("; ")
        ))
    }
}
