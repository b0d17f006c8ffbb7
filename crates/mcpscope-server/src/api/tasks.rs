//! A server's tasks (the Tasks screen): what the core knows of them, read without touching the
//! wire (`GET`, with `?since=` so a page polling it costs nothing when nothing changed, and
//! `?since=N&changed=true` for only the tasks changed after version N — what a page reads when
//! it hears a `tasks` event), and
//! what a view does with them — run a tool as a task, list, get, fetch the result, cancel —
//! each one request with a history entry. Following a task (`tasks/get` at its poll interval)
//! is the core's (`mcpscope_inspect::tasks`), never the page's.

use super::{app, download};
use crate::error::{ApiError, ApiResult, Json};
use crate::extract::{Path, Query};
use crate::state::AppState;
use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use mcpscope_inspect::tasks::{RunTask, TaskDetail, TasksPage};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The task routes.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/servers/{name}/tasks", get(tasks).post(run))
        .route("/servers/{name}/tasks/list", post(list))
        .route("/servers/{name}/tasks/dismiss", post(dismiss))
        .route("/servers/{name}/tasks/{id}", get(task))
        .route("/servers/{name}/tasks/{id}/get", post(get_task))
        .route(
            "/servers/{name}/tasks/{id}/result",
            get(result).post(fetch_result),
        )
        .route("/servers/{name}/tasks/{id}/cancel", post(cancel))
}

#[derive(Deserialize)]
struct Since {
    since: Option<u64>,
    /// With `since`: only the tasks changed after it.
    #[serde(default)]
    changed: bool,
}

/// Every task the core knows of on `name`, oldest first; `unchanged` when `since` is current;
/// with `changed=true` only those changed after `since` (`delta: true`).
async fn tasks(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Query(q): Query<Since>,
) -> ApiResult<Json<TasksPage>> {
    match (q.since, q.changed) {
        (Some(v), true) => Ok(Json(app(&s).tasks_changed(&name, v))),
        (None, true) => Err(ApiError::usage(
            "changed=true needs since=<the version you hold>",
        )),
        (since, false) => Ok(Json(app(&s).tasks(&name, since))),
    }
}

/// `{tool, arguments?, ttlMs?, requestId?}` read leniently, every wrong field named.
fn run_of(b: &Map<String, Value>) -> ApiResult<RunTask> {
    let tool = match b.get("tool") {
        Some(Value::String(t)) if !t.is_empty() => t.clone(),
        _ => return Err(ApiError::usage("tool is required (the tool's name)")),
    };
    let arguments = match b.get("arguments") {
        None | Some(Value::Null) => json!({}),
        Some(a @ Value::Object(_)) => a.clone(),
        Some(_) => return Err(ApiError::usage("arguments must be a JSON object")),
    };
    let ttl_ms = match b.get("ttlMs") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().ok_or_else(|| {
            ApiError::usage("ttlMs must be a non-negative number of milliseconds or null")
        })?),
    };
    let request_id = match b.get("requestId") {
        None | Some(Value::Null) => None,
        Some(Value::String(r)) => Some(r.clone()),
        Some(_) => return Err(ApiError::usage("requestId must be a string")),
    };
    Ok(RunTask {
        tool,
        arguments,
        ttl_ms,
        request_id,
    })
}

/// Run a tool as a task: `{historyId, result, task}` (`task` null when the server answered at
/// once), or the call's error.
async fn run(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<Map<String, Value>>,
) -> ApiResult<Response> {
    let r = app(&s).run_task(&name, run_of(&b)?).await?;
    Ok(match r.result {
        Ok(result) => axum::Json(json!({
            "historyId": r.history_id,
            "result": result,
            "task": r.task,
        }))
        .into_response(),
        Err(e) => ApiError::from(e).into_response(),
    })
}

/// `tasks/list` where the server has it, else the core's tasks re-read with `tasks/get`.
async fn list(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult<Json<TasksPage>> {
    Ok(Json(app(&s).list_tasks(&name).await?))
}

/// Forget ended tasks (no request): `{taskIds: [..]}` those, `{}` every ended one (Clear
/// History). A task not yet ended is kept.
async fn dismiss(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<Map<String, Value>>,
) -> ApiResult<Json<TasksPage>> {
    let ids = match b.get("taskIds") {
        None | Some(Value::Null) => None,
        Some(Value::Array(a)) => Some(
            a.iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<String>>>()
                .ok_or_else(|| ApiError::usage("taskIds must be an array of task id strings"))?,
        ),
        Some(_) => {
            return Err(ApiError::usage(
                "taskIds must be an array of task id strings",
            ));
        }
    };
    Ok(Json(app(&s).dismiss_tasks(&name, ids.as_deref())))
}

/// One task as the core knows it (no request).
async fn task(
    State(s): State<AppState>,
    Path((name, id)): Path<(String, String)>,
) -> ApiResult<Json<TaskDetail>> {
    Ok(Json(app(&s).task(&name, &id)?))
}

/// `tasks/get` of any id.
async fn get_task(
    State(s): State<AppState>,
    Path((name, id)): Path<(String, String)>,
) -> ApiResult<Json<TaskDetail>> {
    Ok(Json(app(&s).get_task(&name, &id).await?))
}

/// Fetch the result: legacy `tasks/result`, modern `tasks/get`.
async fn fetch_result(
    State(s): State<AppState>,
    Path((name, id)): Path<(String, String)>,
) -> ApiResult<Json<TaskDetail>> {
    Ok(Json(app(&s).task_result(&name, &id).await?))
}

/// The whole result (or error) as a JSON download, however large.
async fn result(
    State(s): State<AppState>,
    Path((name, id)): Path<(String, String)>,
) -> ApiResult<Response> {
    let text = app(&s).task_result_text(&name, &id)?;
    let file: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    Ok(download(
        text.into_bytes(),
        "application/json",
        &format!("task-{file}-result.json"),
    ))
}

/// `tasks/cancel`.
async fn cancel(
    State(s): State<AppState>,
    Path((name, id)): Path<(String, String)>,
) -> ApiResult<Json<TaskDetail>> {
    Ok(Json(app(&s).cancel_task(&name, &id).await?))
}
