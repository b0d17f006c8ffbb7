//! The 2025-11-25 core tasks, which rmcp 3.11 does not model, served by rewriting raw JSON.
//!
//! rmcp implements only the 2026-07-28 tasks *extension*. For the legacy core it lacks: the
//! `tasks` server capability, `Tool.execution.taskSupport`, `params.task` on `tools/call` (its
//! typed params drop the field), the `{ "task": Task }` result, `tasks/result`, `tasks/list`,
//! and the legacy `Task` shape (`ttl`, `pollInterval`). So the transports run every raw message
//! through this module before rmcp parses it:
//!
//! - inbound, a legacy request (no `io.modelcontextprotocol/protocolVersion` in `_meta`) that is
//!   a task-augmented `tools/call` or a `tasks/*` call is renamed to a private method under
//!   [`METHOD_PREFIX`], which rmcp hands to `on_custom_request` unparsed, so [`handle`] sees the
//!   original params and answers in the legacy shape under the client's own request id;
//! - outbound, the responses to legacy `initialize` and `tools/list` get the capability and the
//!   `execution` member that rmcp's types cannot carry.
//!
//! The client never sees the private names; everything it sees is the 2025-11-25 wire.

use std::{
    sync::{Mutex, MutexGuard, PoisonError},
    time::Duration,
};

use memchr::memmem;
use rmcp::{
    ErrorData as McpError, RoleServer,
    model::{
        CustomNotification, CustomRequest, CustomResult, ErrorCode, ServerNotification, Task,
        TaskPayload,
    },
    service::RequestContext,
    task_manager::{TaskManager, TaskOptions},
};
use serde_json::{Value, json};

use crate::research::research;

/// Private method names the shim gives legacy task requests on their way into rmcp.
pub(crate) const METHOD_PREFIX: &str = "mcpscope-demo/legacy-tasks/";
/// The only revision whose core has tasks.
const TASKS_VERSION: &str = "2025-11-25";
/// The one tool that accepts task augmentation.
const TASK_TOOL: &str = "research";
/// Legacy tasks live this long unless the request asks otherwise.
const DEFAULT_TTL_MS: u64 = 300_000;

/// A response that needs amending once rmcp has produced it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Followup {
    /// Add `capabilities.tasks` to a 2025-11-25 `InitializeResult`.
    Initialize,
    /// Add `execution.taskSupport` to the task-capable tools of a `tools/list` result.
    ToolsList,
}

/// Legacy tasks: rmcp's task runner plus the list `tasks/list` needs (the runner has none).
#[derive(Default)]
pub(crate) struct Store {
    manager: TaskManager,
    ids: Mutex<Vec<String>>,
}

/// A cheap test on raw bytes, so only lines that might need rewriting are parsed twice.
pub(crate) fn may_need_inbound_rewrite(raw: &[u8]) -> bool {
    [
        &b"\"initialize\""[..],
        b"\"tools/list\"",
        b"\"tasks/",
        b"\"task\"",
    ]
    .iter()
    .any(|needle| memmem::find(raw, needle).is_some())
}

/// Renames a legacy task request in place; returns what its response will need.
pub(crate) fn rewrite_inbound(message: &mut Value) -> Option<Followup> {
    let method = message.get("method")?.as_str()?;
    // Only requests have responses to amend or results to shape.
    message.get("id")?;
    let modern = message
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .is_some();
    if modern {
        return None;
    }
    let private = match method {
        "initialize" => return Some(Followup::Initialize),
        "tools/list" => return Some(Followup::ToolsList),
        "tools/call"
            if message
                .pointer("/params/task")
                .is_some_and(Value::is_object) =>
        {
            "tools-call"
        }
        "tasks/get" => "get",
        "tasks/result" => "result",
        "tasks/list" => "list",
        "tasks/cancel" => "cancel",
        _ => return None,
    };
    message["method"] = Value::String(format!("{METHOD_PREFIX}{private}"));
    None
}

/// Amends a result produced by rmcp. `version` is the session's negotiated protocol version,
/// when the caller knows it (the `initialize` result carries its own).
pub(crate) fn rewrite_outbound(result: &mut Value, followup: Followup, version: Option<&str>) {
    match followup {
        Followup::Initialize => {
            if result.get("protocolVersion").and_then(Value::as_str) == Some(TASKS_VERSION)
                && let Some(capabilities) = result
                    .get_mut("capabilities")
                    .and_then(Value::as_object_mut)
            {
                capabilities.insert(
                    "tasks".to_owned(),
                    json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}),
                );
            }
        }
        Followup::ToolsList => {
            if version != Some(TASKS_VERSION) {
                return;
            }
            let tools = result.get_mut("tools").and_then(Value::as_array_mut);
            for tool in tools.into_iter().flatten() {
                if tool.get("name").and_then(Value::as_str) == Some(TASK_TOOL)
                    && let Some(tool) = tool.as_object_mut()
                {
                    tool.insert("execution".to_owned(), json!({"taskSupport": "optional"}));
                }
            }
        }
    }
}

/// The 2025-11-25 `Task` shape (`ttl` and `pollInterval`, not the extension's `…Ms`).
fn legacy_task(task: &Task) -> Value {
    let mut value = json!({
        "taskId": task.task_id,
        "status": task.status,
        "createdAt": task.created_at,
        "lastUpdatedAt": task.last_updated_at,
        "ttl": task.ttl_ms,
    });
    if let Some(message) = &task.status_message {
        value["statusMessage"] = json!(message);
    }
    if let Some(interval) = task.poll_interval_ms {
        value["pollInterval"] = json!(interval);
    }
    value
}

fn task_id(params: &Value) -> Result<String, McpError> {
    params
        .get("taskId")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| McpError::invalid_params("taskId is required", None))
}

impl Store {
    /// The ids of our tasks, in creation order (a poisoned lock is used as is: every critical
    /// section leaves the list whole).
    fn ids(&self) -> MutexGuard<'_, Vec<String>> {
        self.ids.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The current state of one of *our* tasks; unknown ids are `-32602` as the spec says.
    fn get(&self, id: &str) -> Result<rmcp::model::DetailedTask, McpError> {
        if !self.ids().iter().any(|known| known == id) {
            return Err(McpError::invalid_params(
                format!("unknown task {id}"),
                Some(json!({"taskId": id})),
            ));
        }
        self.manager.get_task(id)
    }
}

/// Answers a request the shim renamed to [`METHOD_PREFIX`]`…`.
pub(crate) async fn handle(
    store: &Store,
    request: CustomRequest,
    context: RequestContext<RoleServer>,
) -> Result<CustomResult, McpError> {
    let Some(operation) = request.method.strip_prefix(METHOD_PREFIX) else {
        return Err(McpError::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: {}", request.method),
            None,
        ));
    };
    let params = request.params.unwrap_or(Value::Null);
    let result = match operation {
        "tools-call" => create(store, &params, &context)?,
        "get" => legacy_task(&store.get(&task_id(&params)?)?.task),
        "list" => tasks_list(store),
        "result" => tasks_result(store, &task_id(&params)?, &context).await?,
        "cancel" => tasks_cancel(store, &task_id(&params)?).await?,
        other => {
            return Err(McpError::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("method not found: tasks/{other}"),
                None,
            ));
        }
    };
    Ok(CustomResult::new(result))
}

/// `tasks/list`: every task of ours, in the order they were created.
fn tasks_list(store: &Store) -> Value {
    let ids = store.ids().clone();
    let tasks: Vec<Value> = ids
        .iter()
        .filter_map(|id| store.manager.get_task(id).ok())
        .map(|detailed| legacy_task(&detailed.task))
        .collect();
    json!({"tasks": tasks})
}

/// `tasks/result`: blocks until the task is terminal, then returns what `tools/call` would have
/// returned (or its error), tied to the task by `_meta`.
async fn tasks_result(
    store: &Store,
    id: &str,
    context: &RequestContext<RoleServer>,
) -> Result<Value, McpError> {
    loop {
        let detailed = store.get(id)?;
        match detailed.payload {
            TaskPayload::Completed { result } => {
                let mut result = Value::Object(result);
                // rmcp stores the 2026-07-28 shape; 2025-11-25 results have no resultType.
                if let Some(fields) = result.as_object_mut() {
                    fields.remove("resultType");
                }
                result["_meta"]["io.modelcontextprotocol/related-task"] = json!({"taskId": id});
                return Ok(result);
            }
            TaskPayload::Failed { error } => {
                return Err(
                    serde_json::from_value(Value::Object(error)).unwrap_or_else(|_| {
                        McpError::internal_error(format!("task {id} failed"), None)
                    }),
                );
            }
            TaskPayload::Cancelled => {
                return Err(McpError::invalid_request(
                    format!("task {id} was cancelled before it produced a result"),
                    Some(json!({"taskId": id})),
                ));
            }
            _ => {}
        }
        tokio::select! {
            () = context.ct.cancelled() => {
                return Err(McpError::internal_error("tasks/result was cancelled", None));
            }
            () = tokio::time::sleep(Duration::from_millis(50)) => {}
        }
    }
}

/// `tasks/cancel`: a task already terminal is `-32602`; otherwise cancel it and answer with
/// the state it reaches within a second.
async fn tasks_cancel(store: &Store, id: &str) -> Result<Value, McpError> {
    let detailed = store.get(id)?;
    if detailed.task.status.is_terminal() {
        return Err(McpError::invalid_params(
            format!("task {id} is already terminal"),
            Some(json!({"taskId": id})),
        ));
    }
    store.manager.cancel_task(id)?;
    // Cancellation is cooperative; research stops at once, so wait briefly for the
    // terminal state the response should show.
    let mut task = detailed.task;
    for _ in 0..40 {
        task = store.get(id)?.task;
        if task.status.is_terminal() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    Ok(legacy_task(&task))
}

/// A task-augmented `tools/call`: start the work, answer `{ "task": … }` at once.
fn create(
    store: &Store,
    params: &Value,
    context: &RequestContext<RoleServer>,
) -> Result<Value, McpError> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if name != TASK_TOOL {
        // Every other tool has the default taskSupport "forbidden".
        return Err(McpError::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("tool {name} does not support task-augmented calls"),
            Some(json!({"name": name})),
        ));
    }
    let Some(topic) = params
        .pointer("/arguments/topic")
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        return Err(McpError::invalid_params(
            "research needs a string argument \"topic\"",
            None,
        ));
    };
    let ttl = params
        .pointer("/task/ttl")
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_TTL_MS);
    let options = TaskOptions::new()
        .with_ttl_ms(ttl)
        .with_poll_interval_ms(500)
        .with_status_message(format!("researching {topic}"));
    let task = store.manager.spawn(options, move |task| {
        Box::pin(async move {
            let cancelled = task.clone();
            research(&topic, async move { cancelled.cancelled().await }).await
        })
    });
    store.ids().push(task.task_id.clone());
    spawn_status_notifier(store.manager.clone(), task.task_id.clone(), context);
    // rmcp moves `_meta` out of the params into the request's meta.
    let token = params.pointer("/_meta/progressToken").cloned().or_else(|| {
        let t = context.meta.get_progress_token()?;
        serde_json::to_value(t).ok()
    });
    if let Some(token) = token {
        let steps = Progress {
            token,
            topic: params
                .pointer("/arguments/topic")
                .cloned()
                .unwrap_or_default(),
        };
        spawn_progress(store.manager.clone(), task.task_id.clone(), steps, context);
    }
    Ok(json!({
        "task": legacy_task(&task),
        "_meta": {
            "io.modelcontextprotocol/model-immediate-response":
                "The research has started; poll the task for its result."
        }
    }))
}

/// What a task's progress notifications name: the request's token and the topic.
struct Progress {
    token: Value,
    topic: Value,
}

/// Sends `notifications/progress` on the creating request's token while the task works: four
/// steps of the research's two seconds. The token stays valid until the task ends (2025-11-25
/// `progress.mdx`), so a client can draw the task's progress bar.
fn spawn_progress(
    manager: TaskManager,
    id: String,
    p: Progress,
    context: &RequestContext<RoleServer>,
) {
    let peer = context.peer.clone();
    tokio::spawn(async move {
        for step in 1..=4u32 {
            tokio::time::sleep(Duration::from_millis(400)).await;
            let Ok(detailed) = manager.get_task(&id) else {
                return;
            };
            if detailed.task.status.is_terminal() {
                return;
            }
            let topic = p.topic.as_str().unwrap_or("the topic");
            let notification = CustomNotification::new(
                "notifications/progress",
                Some(json!({
                    "progressToken": p.token,
                    "progress": step * 20,
                    "total": 100,
                    "message": format!("researching {topic}: step {step} of 5"),
                })),
            );
            let sent = peer
                .send_notification(ServerNotification::CustomNotification(notification))
                .await;
            if sent.is_err() {
                return;
            }
        }
    });
}

/// Sends the optional `notifications/tasks/status` when the task reaches a terminal state.
fn spawn_status_notifier(manager: TaskManager, id: String, context: &RequestContext<RoleServer>) {
    let peer = context.peer.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let Ok(detailed) = manager.get_task(&id) else {
                return;
            };
            if detailed.task.status.is_terminal() {
                let notification = CustomNotification::new(
                    "notifications/tasks/status",
                    Some(legacy_task(&detailed.task)),
                );
                let _closed_session_is_fine = peer
                    .send_notification(ServerNotification::CustomNotification(notification))
                    .await;
                return;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_task_calls_are_renamed_and_modern_ones_left_alone() {
        let mut legacy = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "research", "arguments": {"topic": "x"}, "task": {"ttl": 1000}}});
        assert_eq!(rewrite_inbound(&mut legacy), None);
        assert_eq!(legacy["method"], "mcpscope-demo/legacy-tasks/tools-call");

        let mut plain = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "research", "arguments": {"topic": "x"}}});
        rewrite_inbound(&mut plain);
        assert_eq!(plain["method"], "tools/call");

        let mut modern = json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/get",
            "params": {"taskId": "t", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}});
        rewrite_inbound(&mut modern);
        assert_eq!(modern["method"], "tasks/get");

        let mut init = json!({"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {}});
        assert_eq!(rewrite_inbound(&mut init), Some(Followup::Initialize));
    }

    #[test]
    fn initialize_gains_the_tasks_capability_only_on_2025_11_25() {
        let mut result = json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}});
        rewrite_outbound(&mut result, Followup::Initialize, None);
        assert_eq!(
            result["capabilities"]["tasks"]["requests"]["tools"]["call"],
            json!({})
        );

        let mut older = json!({"protocolVersion": "2025-06-18", "capabilities": {}});
        rewrite_outbound(&mut older, Followup::Initialize, None);
        assert!(older["capabilities"].get("tasks").is_none());
    }

    #[test]
    fn research_gains_execution_in_tools_list() {
        let mut result = json!({"tools": [{"name": "echo"}, {"name": "research"}]});
        rewrite_outbound(&mut result, Followup::ToolsList, Some("2025-11-25"));
        assert!(result["tools"][0].get("execution").is_none());
        assert_eq!(result["tools"][1]["execution"]["taskSupport"], "optional");
    }
}
