//! Requests on a connection: any method (`/request`), a list with its pages (`/list`), and
//! cancelling one by the id its page chose.

use super::app;
use crate::error::{ApiError, ApiResult, Json, is_ordinary_outcome};
use crate::extract::Path;
use crate::state::AppState;
use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use mcpscope_inspect::{Call, CallOutcome, Pages};
use serde_json::{Map, Value, json};
use std::time::Duration;

/// The request routes.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/servers/{name}/request", post(request))
        .route("/servers/{name}/list", post(list))
        .route("/requests/{request_id}/cancel", post(cancel))
}

/// Read `timeoutMs`: absent → the server's default; `null` or 0 → none; a number → that.
pub(super) fn timeout_of(b: &Map<String, Value>) -> ApiResult<Option<Option<Duration>>> {
    match b.get("timeoutMs") {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(None)),
        Some(v) => match v.as_u64() {
            Some(0) => Ok(Some(None)),
            Some(ms) => Ok(Some(Some(Duration::from_millis(ms)))),
            None => Err(ApiError::usage(
                "timeoutMs must be a non-negative number of milliseconds or null",
            )),
        },
    }
}

fn string_field(b: &Map<String, Value>, k: &str) -> ApiResult<Option<String>> {
    match b.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ApiError::usage(format!("{k} must be a string"))),
    }
}

fn call_of(b: &Map<String, Value>) -> ApiResult<Call> {
    let method = string_field(b, "method")?
        .filter(|m| !m.is_empty())
        .ok_or_else(|| ApiError::usage("method is required (e.g. \"tools/call\")"))?;
    let params = match b.get("params") {
        None | Some(Value::Null) => None,
        Some(p @ Value::Object(_)) => Some(p.clone()),
        Some(_) => return Err(ApiError::usage("params must be a JSON object")),
    };
    let meta = match b.get("meta") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err(ApiError::usage("meta must be a JSON object")),
    };
    Ok(Call {
        method,
        params,
        request_id: string_field(b, "requestId")?,
        progress: b.get("progress").and_then(Value::as_bool).unwrap_or(false),
        meta,
        timeout: timeout_of(b)?,
        pages: None,
        app: origin_of(b)?,
    })
}

/// `origin: {"app": "<tool>"}`: the request is an MCP App's, proxied by the page that hosts it
/// (the core applies the apps' visibility rules to it).
fn origin_of(b: &Map<String, Value>) -> ApiResult<Option<String>> {
    let usage = || ApiError::usage("origin must be {\"app\": \"<the app's tool name>\"}");
    match b.get("origin") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(o)) => match o.get("app") {
            Some(Value::String(t)) if !t.is_empty() => Ok(Some(t.clone())),
            _ => Err(usage()),
        },
        Some(_) => Err(usage()),
    }
}

/// `{historyId, result}`; an ordinary end (a JSON-RPC error, a cancel) is `{historyId, error}`
/// with 200; any other failure the error's own status.
fn outcome_response(out: CallOutcome, extra: Option<Value>) -> Response {
    match out.result {
        Ok(result) => {
            let mut v = json!({"historyId": out.history_id, "result": result});
            if let Some(Value::Object(m)) = extra {
                for (k, x) in m {
                    v[k] = x;
                }
            }
            axum::Json(v).into_response()
        }
        Err(e) if is_ordinary_outcome(e.code) => {
            let error = ApiError::from(e).body();
            axum::Json(json!({"historyId": out.history_id, "error": error})).into_response()
        }
        Err(e) => ApiError::from(e).into_response(),
    }
}

async fn request(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<Map<String, Value>>,
) -> ApiResult<Response> {
    let c = call_of(&b)?;
    let out = app(&s).call(&name, c).await?;
    Ok(outcome_response(out, None))
}

async fn list(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<Map<String, Value>>,
) -> ApiResult<Response> {
    let c = call_of(&b)?;
    let key = string_field(&b, "key")?;
    let pages = match b.get("cursor") {
        Some(Value::String(cursor)) => Pages::After(cursor.clone()),
        Some(Value::Null) | None => {
            if b.get("allPages").and_then(Value::as_bool).unwrap_or(true) {
                Pages::All { key }
            } else {
                Pages::First
            }
        }
        Some(_) => return Err(ApiError::usage("cursor must be a string")),
    };
    let c = c.with_pages(pages);
    let out = app(&s).call(&name, c).await?;
    let mut extra = Map::new();
    if let Some(ex) = &out.excluded_tools {
        let ex: Vec<Value> = ex
            .iter()
            .map(|(n, r)| json!({"name": n, "reason": r}))
            .collect();
        extra.insert("excludedTools".into(), Value::Array(ex));
    }
    // The tools' quality findings (the sidebar's badges), beside the result: never in it.
    if let Some(lint) = &out.tool_lint {
        extra.insert(
            "lint".into(),
            serde_json::to_value(lint).unwrap_or(Value::Null),
        );
    }
    // A walk that stopped early (a repeated cursor, the page limit) says why, as the CLI does.
    if let Some(p) = &out.pagination {
        extra.insert("pagination".into(), p.clone());
    }
    Ok(outcome_response(out, Some(Value::Object(extra))))
}

async fn cancel(State(s): State<AppState>, Path(request_id): Path<String>) -> Json<Value> {
    Json(json!({"cancelled": app(&s).cancel(&request_id)}))
}
