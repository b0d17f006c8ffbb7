//! Running the one method asked for on a connected session: whole lists (every page), tool calls
//! (waiting out a task), subscriptions (listening for `--duration`), anything else as sent.

use super::failure::{Failure, exit, failure};
use crate::args::Args;
use crate::observer::CliObserver;
use crate::resolve::coerced_map;
use mcpscope_client::{ClientError, RequestOptions, Session};
use mcpscope_proto::era::Era;
use mcpscope_proto::error_code::ErrorCode;
use mcpscope_proto::method::Method;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// What to print at the end.
pub(super) struct Outcome {
    pub(super) result: Value,
    pub(super) exit: i32,
    pub(super) extra: Map<String, Value>,
    /// A `tools/call` whose tool the server does not list (see `failure::unknown_tool`).
    pub(super) unknown_tool: Option<Failure>,
}

impl Outcome {
    fn ok(result: Value, extra: Map<String, Value>) -> Outcome {
        Outcome {
            result,
            exit: exit::OK,
            extra,
            unknown_tool: None,
        }
    }
}

/// Whether the method collects notifications while it runs (a subscription).
pub(super) fn collects_notifications(method: &str) -> bool {
    method == Method::SubscriptionsListen || method == Method::ResourcesSubscribe
}

/// Run `method` with `params` and say what to print.
pub(super) async fn execute(
    session: &Session,
    args: &Args,
    method: &str,
    params: Map<String, Value>,
    observer: &CliObserver,
) -> Result<Outcome, Failure> {
    use Method as M;
    let fail = |e: ClientError| failure(&e);
    let params_opt = (!params.is_empty()).then(|| Value::Object(params.clone()));
    let known = Method::from_name(method);
    match known {
        Some(M::Initialize) => {
            let info = session
                .server_info()
                .map(|i| serde_json::to_value(i).unwrap_or_default())
                .unwrap_or_default();
            Ok(Outcome::ok(info, Map::new()))
        }
        Some(M::ServerDiscover) if session.era() == Era::Modern => Ok(Outcome::ok(
            session
                .server_info()
                .map(|i| i.handshake_result)
                .unwrap_or_default(),
            Map::new(),
        )),
        Some(m) if m.list_key().is_some() && args.cursor.is_none() && !args.first_page => {
            let key = m.list_key().expect("list");
            let listing = session
                .list_all(method, key, params_opt)
                .await
                .map_err(fail)?;
            let mut result = listing.result;
            let mut extra = Map::new();
            // A list cut short is still a result, but never a silent one.
            if let Some(stop) = &listing.stop {
                observer.on_warning(format!("{method}: {stop}"));
                let mut why = serde_json::to_value(stop).unwrap_or_default();
                why["message"] = json!(stop.to_string());
                extra.insert(
                    "pagination".into(),
                    json!({"pages": listing.pages, "stop": why}),
                );
            }
            if m == M::ToolsList {
                exclude_invalid_tools(session, &mut result, &mut extra, observer);
            }
            Ok(Outcome::ok(result, extra))
        }
        Some(M::ToolsCall) => call_tool(session, args, params).await,
        Some(M::SubscriptionsListen | M::ResourcesSubscribe) => {
            listen(session, args, method, params_opt, observer).await
        }
        _ => {
            let mut result = session.request(method, params_opt).await.map_err(fail)?;
            let mut extra = Map::new();
            if known == Some(M::ToolsList) {
                exclude_invalid_tools(session, &mut result, &mut extra, observer);
            }
            Ok(Outcome::ok(result, extra))
        }
    }
}

/// Modern HTTP clients must leave out tools whose `x-mcp-header` annotations are invalid; we do,
/// and say which and why (the raw list is still in the trace).
fn exclude_invalid_tools(
    session: &Session,
    result: &mut Value,
    extra: &mut Map<String, Value>,
    observer: &CliObserver,
) {
    if !session.mirrors_param_headers() {
        return;
    }
    let excluded = session.excluded_tools();
    if excluded.is_empty() {
        return;
    }
    if let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) {
        tools.retain(|t| {
            let name = t.get("name").and_then(Value::as_str).unwrap_or("");
            !excluded.iter().any(|(n, _)| n == name)
        });
    }
    for (name, reason) in &excluded {
        observer.on_warning(format!("tool {name:?} excluded: {reason}"));
    }
    extra.insert(
        "excludedTools".into(),
        json!(
            excluded
                .iter()
                .map(|(n, r)| json!({"name": n, "reason": r}))
                .collect::<Vec<_>>()
        ),
    );
}

/// `tools/call` with progress and `--tool-metadata`; a task is waited for and its final result
/// shown, with the task itself beside it.
async fn call_tool(
    session: &Session,
    args: &Args,
    params: Map<String, Value>,
) -> Result<Outcome, Failure> {
    let fail = |e: ClientError| failure(&e);
    let opts = RequestOptions {
        meta: coerced_map(&args.tool_metadata, "--tool-metadata")?,
        progress: true,
        ..Default::default()
    };
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let mut result = session
        .request_with(Method::ToolsCall.name(), Some(Value::Object(params)), &opts)
        .await
        .map_err(fail)?;
    let mut extra = Map::new();
    if let Some(id) = task_id(session.era(), &result) {
        extra.insert("task".into(), result.clone());
        let done = session.await_task(&id).await.map_err(fail)?;
        result = match session.era() {
            Era::Modern => modern_task_result(done, &id, &name)?,
            Era::Legacy => done,
        };
    }
    let is_error = result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Ok(Outcome {
        result,
        exit: if is_error { exit::TOOL_ERROR } else { exit::OK },
        extra,
        unknown_tool: None,
    })
}

/// The id of the task a `tools/call` result created, if it did (each era says so its own way).
fn task_id(era: Era, result: &Value) -> Option<String> {
    let id = match era {
        Era::Modern if mcpscope_proto::era::result_type(result) == "task" => result.get("taskId"),
        Era::Legacy => result.get("task").and_then(|t| t.get("taskId")),
        Era::Modern => None,
    };
    id.and_then(Value::as_str).map(str::to_string)
}

/// The tool's result from a finished modern task (`tasks/get` with a terminal status).
fn modern_task_result(done: Value, id: &str, name: &str) -> Result<Value, Failure> {
    match done.get("status").and_then(Value::as_str) {
        Some("completed") => Ok(done.get("result").cloned().unwrap_or(done)),
        Some("failed") => {
            let err = done.get("error").cloned().unwrap_or_default();
            Err(Failure::new(
                ErrorCode::ToolError,
                format!("task {id} of tool {name} failed: {err}"),
            ))
        }
        _ => Err(Failure::new(
            ErrorCode::ToolError,
            format!(
                "task {id} of tool {name} ended with status {}",
                done.get("status").unwrap_or(&Value::Null)
            ),
        )),
    }
}

/// Whether a server may log about `method` while doing it: not the lists, the handshake, `ping`
/// or a log level change, which answer from what the server already has.
pub(super) fn may_log(method: &str) -> bool {
    !(method.ends_with("/list")
        || method == Method::Ping
        || method == Method::Initialize
        || method == Method::LoggingSetLevel)
}

/// `subscriptions/listen` (modern) or `resources/subscribe` (legacy): collect notifications for
/// `--duration` ms, then end the subscription the era's way.
async fn listen(
    session: &Session,
    args: &Args,
    method: &str,
    params: Option<Value>,
    observer: &CliObserver,
) -> Result<Outcome, Failure> {
    let fail = |e: ClientError| failure(&e);
    let duration = Duration::from_millis(args.duration);
    let result = if method == Method::ResourcesSubscribe {
        let r = session
            .request(method, params.clone())
            .await
            .map_err(fail)?;
        tokio::time::sleep(duration).await;
        let unsubscribe = Method::ResourcesUnsubscribe.name();
        if let Err(e) = session.request(unsubscribe, params).await {
            observer.on_warning(format!("{unsubscribe} failed: {e}"));
        }
        r
    } else {
        let opts = RequestOptions {
            timeout: Some(None),
            ..Default::default()
        };
        let listen = session.request_with(method, params, &opts);
        tokio::select! {
            // On stdio a server ends a subscription with notifications/cancelled: a normal end.
            r = listen => match r {
                Err(ClientError::ServerCancelled { reason, .. }) => {
                    json!({"ended": format!("the server ended the subscription: {reason}")})
                }
                r => r.map_err(fail)?,
            },
            _ = tokio::time::sleep(duration) => {
                session.cancel_all_on_wire(&format!("listened for {} ms (--duration)", args.duration)).await;
                json!({"ended": format!("stopped after {} ms (--duration)", args.duration)})
            }
        }
    };
    let notifications = observer
        .notifications
        .lock()
        .expect("notifications lock")
        .clone();
    let mut extra = Map::new();
    extra.insert("notifications".into(), json!(notifications));
    Ok(Outcome::ok(result, extra))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_methods_that_do_work_wait_for_late_logs() {
        for m in [
            "tools/list",
            "resources/templates/list",
            "ping",
            "initialize",
        ] {
            assert!(!may_log(m), "{m}");
        }
        for m in ["tools/call", "resources/read", "prompts/get", "x/custom"] {
            assert!(may_log(m), "{m}");
        }
    }

    #[test]
    fn a_task_is_named_the_way_its_era_does() {
        let modern = json!({"resultType": "task", "taskId": "t1", "status": "working"});
        assert_eq!(task_id(Era::Modern, &modern).as_deref(), Some("t1"));
        let legacy = json!({"task": {"taskId": "t2", "status": "working"}});
        assert_eq!(task_id(Era::Legacy, &legacy).as_deref(), Some("t2"));
        assert_eq!(task_id(Era::Modern, &legacy), None);
        let failed = json!({"status": "failed", "error": {"code": -1}});
        let f = modern_task_result(failed, "t1", "slow").err().unwrap();
        assert_eq!(f.code, ErrorCode::ToolError);
        assert!(
            f.message.contains("task t1 of tool slow failed"),
            "{}",
            f.message
        );
    }
}
