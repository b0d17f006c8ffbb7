//! MCP Apps (`docs/web-api.md`, "MCP Apps"): a server's app tools from its last `tools/list`,
//! one app's UI resource read and checked by the core, and the app's `postMessage` traffic
//! reported by the page that hosts it (recorded as frames of source `app`). Requests an app makes
//! go through `/request` with `origin` (`requests.rs`).

use super::app;
use crate::error::{ApiError, ApiResult, Json};
use crate::extract::Path;
use crate::state::AppState;
use axum::Router;
use axum::extract::State;
use axum::routing::{get, post};
use mcpscope_inspect::apps::{AppDirection, AppMessage};
use serde::Deserialize;
use serde_json::{Value, json};

/// The apps routes.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/servers/{name}/apps", get(list))
        .route("/servers/{name}/apps/frames", post(frame))
        .route("/servers/{name}/apps/{tool}/resource", post(resource))
}

async fn list(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult<Json<Value>> {
    let apps = app(&s).apps(&name)?;
    Ok(Json(serde_json::to_value(apps).unwrap_or(Value::Null)))
}

async fn resource(
    State(s): State<AppState>,
    Path((name, tool)): Path<(String, String)>,
) -> ApiResult<Json<Value>> {
    let read = app(&s).read_app(&name, &tool).await?;
    Ok(Json(serde_json::to_value(read).unwrap_or(Value::Null)))
}

/// `POST …/apps/frames`: one `postMessage` the page saw.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FrameBody {
    app: String,
    instance: String,
    direction: String,
    message: String,
    #[serde(default)]
    history_id: Option<i64>,
    #[serde(default)]
    note: Option<String>,
}

async fn frame(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<FrameBody>,
) -> ApiResult<Json<Value>> {
    let direction = match b.direction.as_str() {
        "toApp" => AppDirection::ToApp,
        "fromApp" => AppDirection::FromApp,
        other => {
            return Err(ApiError::usage(format!(
                "direction must be \"toApp\" or \"fromApp\", not {other:?}"
            )));
        }
    };
    let m = AppMessage {
        app: b.app,
        instance: b.instance,
        direction,
        message: b.message,
        history_id: b.history_id,
        note: b.note,
    };
    let seq = app(&s).record_app_frame(&name, m).await?;
    Ok(Json(json!({"seq": seq, "dropped": seq.is_none()})))
}
