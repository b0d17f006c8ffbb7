//! Utilities: `logging/setLevel` accepted when logging is declared (`logging-set-level`,
//! 2025-11-25: the 2026 revision moved the level into each request's `_meta`), and a completion
//! of a listed prompt's argument or a template's variable shaped as the spec says
//! (`completion-complete`).

use super::Lists;
use crate::run::Cx;
use mcpscope_proto::era::Era;
use serde_json::{Value, json};

/// Most values a completion result may carry.
const MAX_COMPLETION_VALUES: usize = 100;

/// Run the utility checks.
pub(crate) async fn run(cx: &Cx, lists: &Lists) {
    if cx.era == Era::Legacy {
        set_level(cx).await;
    }
    complete(cx, lists).await;
}

async fn set_level(cx: &Cx) {
    if !cx.has("logging") {
        cx.skip(
            "logging-set-level",
            "the server does not declare the logging capability",
        );
        return;
    }
    let asked = cx.ask("logging/setLevel", json!({"level": "debug"})).await;
    match &asked.answer {
        Ok(_) => cx.pass("logging-set-level", "logging/setLevel debug accepted"),
        Err(f) => cx.broken(
            "logging-set-level",
            format!("logging is declared, logging/setLevel: {f}"),
            Some(&asked),
        ),
    }
}

/// A reference to complete: a listed prompt with an argument, else a template with a variable.
fn reference(lists: &Lists) -> Option<Value> {
    let prompt = lists.prompts.iter().find_map(|p| {
        let arg = p.get("arguments")?.as_array()?.first()?.get("name")?.as_str()?;
        Some(json!({"ref": {"type": "ref/prompt", "name": p.get("name")?}, "argument": {"name": arg, "value": ""}}))
    });
    prompt.or_else(|| {
        lists.templates.iter().find_map(|t| {
            let template = t.get("uriTemplate")?.as_str()?;
            let var = template.split('{').nth(1)?.split('}').next()?;
            let var = var.trim_start_matches(['+', '#', '/', '?', '&', '.', ';']).split([',', '*', ':']).next()?;
            Some(json!({"ref": {"type": "ref/resource", "uri": template}, "argument": {"name": var, "value": ""}}))
        })
    })
}

async fn complete(cx: &Cx, lists: &Lists) {
    if !cx.has("completions") {
        cx.skip(
            "completion-complete",
            "the server does not declare the completions capability",
        );
        return;
    }
    let Some(params) = reference(lists) else {
        cx.skip(
            "completion-complete",
            "no listed prompt argument or template variable to complete",
        );
        return;
    };
    let asked = cx.ask("completion/complete", params).await;
    let result = match &asked.answer {
        Ok(r) => r,
        Err(f) => {
            cx.broken(
                "completion-complete",
                format!("completions are declared, completion/complete: {f}"),
                Some(&asked),
            );
            return;
        }
    };
    match result
        .pointer("/completion/values")
        .and_then(Value::as_array)
    {
        Some(v) if v.len() > MAX_COMPLETION_VALUES => cx.broken(
            "completion-complete",
            format!(
                "{} values, more than the {MAX_COMPLETION_VALUES} a result may carry",
                v.len()
            ),
            Some(&asked),
        ),
        Some(v) if v.iter().all(Value::is_string) => {
            cx.pass("completion-complete", format!("{} values", v.len()))
        }
        _ => cx.broken(
            "completion-complete",
            "the result has no completion.values array of strings",
            Some(&asked),
        ),
    }
}
