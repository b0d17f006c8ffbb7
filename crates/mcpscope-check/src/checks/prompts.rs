//! Prompts: a listed prompt fetched with its required arguments filled (`prompts-get`), and an
//! unknown prompt's error (`prompts-unknown-prompt-error`).

use super::Lists;
use crate::run::{Cx, Failure};
use mcpscope_proto::era::INVALID_PARAMS;
use serde_json::{Map, Value, json};

/// Run the prompt checks.
pub(crate) async fn run(cx: &Cx, lists: &Lists) {
    if !cx.has("prompts") {
        for id in ["prompts-get", "prompts-unknown-prompt-error"] {
            cx.skip(id, "the server does not declare the prompts capability");
        }
        return;
    }
    if let Some(why) = lists.unserved_note("prompts") {
        for id in ["prompts-get", "prompts-unknown-prompt-error"] {
            cx.skip(id, why.clone());
        }
        return;
    }
    get_listed(cx, &lists.prompts).await;
    unknown_prompt(cx).await;
}

/// The arguments of a prompt: each required one set to a plain word (prompt arguments are strings).
fn arguments(prompt: &Value) -> Value {
    let mut args = Map::new();
    for a in prompt
        .get("arguments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if a.get("required") == Some(&Value::Bool(true))
            && let Some(name) = a.get("name").and_then(Value::as_str)
        {
            args.insert(name.to_string(), json!("mcpscope"));
        }
    }
    Value::Object(args)
}

async fn get_listed(cx: &Cx, prompts: &[Value]) {
    let Some(prompt) = prompts.first() else {
        cx.skip("prompts-get", "prompts/list returned no prompts");
        return;
    };
    let name = prompt["name"].as_str().unwrap_or_default();
    let asked = cx
        .ask(
            "prompts/get",
            json!({"name": name, "arguments": arguments(prompt)}),
        )
        .await;
    match &asked.answer {
        Ok(r) if r.get("messages").is_some_and(Value::is_array) => cx.pass(
            "prompts-get",
            format!(
                "{name}: {} messages",
                r["messages"].as_array().map_or(0, Vec::len)
            ),
        ),
        Ok(_) => cx.broken(
            "prompts-get",
            format!("{name}: the result has no messages array"),
            Some(&asked),
        ),
        Err(f) => cx.broken(
            "prompts-get",
            format!("{name} (a listed prompt, required arguments given): {f}"),
            Some(&asked),
        ),
    }
}

async fn unknown_prompt(cx: &Cx) {
    let asked = cx
        .ask(
            "prompts/get",
            json!({"name": "mcpscope-check-no-such-prompt"}),
        )
        .await;
    match &asked.answer {
        Err(Failure::Rpc(e)) if e.code == INVALID_PARAMS => {
            cx.pass("prompts-unknown-prompt-error", "refused with -32602")
        }
        Ok(_) => cx.broken(
            "prompts-unknown-prompt-error",
            "an unknown prompt was answered with a result",
            Some(&asked),
        ),
        Err(f) => cx.broken(
            "prompts-unknown-prompt-error",
            format!("an unknown prompt got {f}, not -32602"),
            Some(&asked),
        ),
    }
}
