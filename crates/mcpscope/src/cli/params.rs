//! The method's `params`, built from the flags over `--params-json`: each flag the official
//! Inspector has (`--tool-name`, `--tool-arg`, `--uri`, `--prompt-name`, …) fills the field the
//! protocol names, and a method missing what it needs is a usage error saying which flag.

use crate::args::Args;
use crate::resolve::{UsageError, coerced_map, key_value};
use mcpscope_proto::method::Method;
use serde_json::{Map, Value, json};

/// The method's params from the flags (over `--params-json`).
pub(super) fn build_params(args: &Args, method: &str) -> Result<Map<String, Value>, UsageError> {
    let mut p = json_object(args.params_json.as_deref(), "--params-json")?.unwrap_or_default();
    let need = |v: &Option<String>, flag: &str| -> Result<String, UsageError> {
        v.clone()
            .ok_or_else(|| UsageError(format!("{method} needs {flag}")))
    };
    use Method as M;
    match Method::from_name(method) {
        Some(M::ToolsCall) => tool_call(args, &mut p, need(&args.tool_name, "--tool-name"))?,
        Some(M::ResourcesRead | M::ResourcesSubscribe | M::ResourcesUnsubscribe)
            if !p.contains_key("uri") || args.uri.is_some() =>
        {
            p.insert("uri".into(), json!(need(&args.uri, "--uri")?));
        }
        Some(M::PromptsGet) => prompt_get(args, &mut p, need(&args.prompt_name, "--prompt-name"))?,
        Some(M::CompletionComplete) => completion(args, &mut p)?,
        Some(M::LoggingSetLevel) if !p.contains_key("level") || args.log_level.is_some() => {
            p.insert("level".into(), json!(need(&args.log_level, "--log-level")?));
        }
        Some(M::TasksGet | M::TasksResult | M::TasksCancel | M::TasksUpdate)
            if !p.contains_key("taskId") || args.task_id.is_some() =>
        {
            p.insert("taskId".into(), json!(need(&args.task_id, "--task-id")?));
        }
        Some(M::SubscriptionsListen) => listen(args, &mut p)?,
        _ => {}
    }
    if let Some(c) = &args.cursor {
        p.insert("cursor".into(), json!(c));
    }
    Ok(p)
}

/// A flag holding a JSON object (`None` when the flag is absent).
fn json_object(text: Option<&str>, flag: &str) -> Result<Option<Map<String, Value>>, UsageError> {
    match text.map(serde_json::from_str::<Value>) {
        None => Ok(None),
        Some(Ok(Value::Object(m))) => Ok(Some(m)),
        Some(_) => Err(UsageError(format!(
            "{flag} must be a JSON object, got {}",
            text.unwrap_or_default()
        ))),
    }
}

/// `tools/call`: `name`, `arguments` (from `--tool-args-json` or `--tool-arg`), `task`.
/// `name` is the `--tool-name` lookup, needed only when `--params-json` has none.
fn tool_call(
    args: &Args,
    p: &mut Map<String, Value>,
    name: Result<String, UsageError>,
) -> Result<(), UsageError> {
    if !p.contains_key("name") || args.tool_name.is_some() {
        p.insert("name".into(), json!(name?));
    }
    let arguments = match json_object(args.tool_args_json.as_deref(), "--tool-args-json")? {
        Some(m) => Some(m),
        None if !args.tool_args.is_empty() => Some(coerced_map(&args.tool_args, "--tool-arg")?),
        None => None,
    };
    if let Some(a) = arguments {
        p.insert("arguments".into(), Value::Object(a));
    } else if !p.contains_key("arguments") {
        p.insert("arguments".into(), json!({}));
    }
    if args.task && !p.contains_key("task") {
        let mut t = Map::new();
        if let Some(ttl) = args.task_ttl {
            t.insert("ttl".into(), json!(ttl));
        }
        p.insert("task".into(), Value::Object(t));
    }
    Ok(())
}

/// `prompts/get`: `name` and `arguments` (every prompt argument is a string).
fn prompt_get(
    args: &Args,
    p: &mut Map<String, Value>,
    name: Result<String, UsageError>,
) -> Result<(), UsageError> {
    if !p.contains_key("name") || args.prompt_name.is_some() {
        p.insert("name".into(), json!(name?));
    }
    if !args.prompt_args.is_empty() {
        p.insert(
            "arguments".into(),
            Value::Object(string_map(&args.prompt_args, "--prompt-args")?),
        );
    }
    Ok(())
}

/// `NAME=VALUE` flags as a map of strings.
fn string_map(pairs: &[String], flag: &str) -> Result<Map<String, Value>, UsageError> {
    let mut a = Map::new();
    for kv in pairs {
        let (k, v) = key_value(kv, flag)?;
        a.insert(k, json!(v));
    }
    Ok(a)
}

/// `completion/complete`: `ref` (a prompt or a resource template), `argument`, `context`.
fn completion(args: &Args, p: &mut Map<String, Value>) -> Result<(), UsageError> {
    let reference = match (&args.prompt_name, &args.uri) {
        (Some(n), _) => json!({"type": "ref/prompt", "name": n}),
        (None, Some(u)) => json!({"type": "ref/resource", "uri": u}),
        (None, None) if p.contains_key("ref") => p["ref"].clone(),
        _ => {
            return Err(UsageError(format!(
                "{} needs --prompt-name or --uri (a resource template)",
                Method::CompletionComplete
            )));
        }
    };
    p.insert("ref".into(), reference);
    if let Some(ca) = &args.complete_arg {
        let (name, value) = key_value(ca, "--complete-arg")?;
        p.insert("argument".into(), json!({"name": name, "value": value}));
    } else if !p.contains_key("argument") {
        return Err(UsageError(format!(
            "{} needs --complete-arg NAME=PARTIAL-VALUE",
            Method::CompletionComplete
        )));
    }
    if !args.context_args.is_empty() {
        let a = string_map(&args.context_args, "--context-arg")?;
        p.insert("context".into(), json!({"arguments": a}));
    }
    Ok(())
}

/// `subscriptions/listen`: the `notifications` filter from `--listen` and `--uri`.
fn listen(args: &Args, p: &mut Map<String, Value>) -> Result<(), UsageError> {
    let mut n = match p.remove("notifications") {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    for kind in &args.listen {
        let key = match kind.trim() {
            "tools" => "toolsListChanged",
            "prompts" => "promptsListChanged",
            "resources" => "resourcesListChanged",
            other => {
                return Err(UsageError(format!(
                    "--listen takes tools, prompts, resources; got {other:?}"
                )));
            }
        };
        n.insert(key.into(), json!(true));
    }
    if let Some(u) = &args.uri {
        n.insert("resourceSubscriptions".into(), json!([u]));
    }
    p.insert("notifications".into(), Value::Object(n));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::coerce;
    use clap::Parser;

    fn params(argv: &[&str]) -> Result<Map<String, Value>, UsageError> {
        let args = Args::parse_from(std::iter::once("mcpscope").chain(argv.iter().copied()));
        build_params(&args, args.method.as_deref().unwrap())
    }

    #[test]
    fn tool_call_params() {
        let p = params(&[
            "--method",
            "tools/call",
            "--tool-name",
            "add",
            "--tool-arg",
            "a=1",
            "--tool-arg",
            "b=x",
        ])
        .unwrap();
        assert_eq!(
            Value::Object(p),
            json!({"name": "add", "arguments": {"a": 1, "b": "x"}})
        );
        assert!(
            params(&["--method", "tools/call"])
                .err()
                .unwrap()
                .0
                .contains("--tool-name")
        );
        // --params-json may carry the name instead of the flag.
        let p = params(&[
            "--method",
            "tools/call",
            "--params-json",
            r#"{"name": "echo"}"#,
        ])
        .unwrap();
        assert_eq!(Value::Object(p), json!({"name": "echo", "arguments": {}}));
        assert!(
            params(&["--method", "tools/call", "--params-json", "[1]"])
                .err()
                .unwrap()
                .0
                .contains("--params-json must be a JSON object, got [1]")
        );
    }

    #[test]
    fn prompt_and_completion_params() {
        let p = params(&[
            "--method",
            "prompts/get",
            "--prompt-name",
            "review",
            "--prompt-args",
            "pr=42",
        ])
        .unwrap();
        assert_eq!(
            Value::Object(p),
            json!({"name": "review", "arguments": {"pr": "42"}})
        );
        let p = params(&[
            "--method",
            "completion/complete",
            "--prompt-name",
            "review",
            "--complete-arg",
            "style=co",
        ])
        .unwrap();
        assert_eq!(p["ref"], json!({"type": "ref/prompt", "name": "review"}));
        assert_eq!(p["argument"], json!({"name": "style", "value": "co"}));
        let e = params(&["--method", "completion/complete"]).err().unwrap();
        assert!(
            e.0.contains("completion/complete needs --prompt-name"),
            "{}",
            e.0
        );
    }

    #[test]
    fn task_and_listen_params() {
        let p = params(&["--method", "tasks/result", "--task-id", "t1"]).unwrap();
        assert_eq!(Value::Object(p), json!({"taskId": "t1"}));
        let p = params(&["--method", "subscriptions/listen", "--listen", "tools"]).unwrap();
        assert_eq!(p["notifications"], json!({"toolsListChanged": true}));
    }

    #[test]
    fn coerce_keeps_strings() {
        assert_eq!(coerce("a b"), json!("a b"));
    }
}
