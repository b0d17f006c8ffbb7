//! Input schemas: the schema → form model, validation of a value against a schema, of a
//! tool's arguments against the `inputSchema` of the last `tools/list`, and of a call's
//! `structuredContent` (read from its history entry) against the tool's `outputSchema`.
//!
//! `/form` and `/validate` are pure functions of the posted body (no state, no I/O: the rule is
//! `mcpscope_proto::form`'s), so they are a router of their own, [`schema_routes`], that the
//! gateway mode (`mcpscope-gateway`) serves too, behind its own guard: one handler answers both
//! pages.

use super::app;
use crate::error::{ApiError, ApiResult, Json};
use crate::extract::Path;
use crate::state::AppState;
use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::routing::post;
use serde::Deserialize;
use serde_json::{Value, json};

/// The schema routes: the stateless pair and those that read the core (the last `tools/list`,
/// a history entry).
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/servers/{name}/tools/{tool}/validate", post(validate_tool))
        .route("/history/{id}/check-output", post(check_output))
        .merge(schema_routes())
}

/// The largest body `/form` and `/validate` read: axum's default, named here because the gateway
/// mode states the caps of what it serves (`docs/gateway.md`). Over it: 413 `usage`.
pub const SCHEMA_BODY_BYTES: usize = 2 << 20;

/// `POST /form` (`{schema}` → the form model) and `POST /validate` (`{schema, value}` →
/// `{errors}`, 422 when the schema cannot be used), relative to where they are nested (`/api`
/// in both the web UI and the gateway mode). Whatever state the host router has, these ignore
/// it; the host puts its guard around them.
pub fn schema_routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/form", post(form))
        .route("/validate", post(validate))
        .layer(DefaultBodyLimit::max(SCHEMA_BODY_BYTES))
}

#[derive(Deserialize)]
struct OutputSchemaBody {
    schema: Value,
}

/// The result stays where it is (a 3 MB result posted back to `/validate` passed the body
/// limit): only the schema comes in.
async fn check_output(
    State(s): State<AppState>,
    Path(id): Path<i64>,
    Json(b): Json<OutputSchemaBody>,
) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).check_output(id, b.schema).await?))
}

#[derive(Deserialize)]
struct ArgumentsBody {
    #[serde(default)]
    arguments: Value,
}

async fn validate_tool(
    State(s): State<AppState>,
    Path((name, tool)): Path<(String, String)>,
    Json(b): Json<ArgumentsBody>,
) -> ApiResult<Json<Value>> {
    let schema = app(&s).tool_schema(&name, &tool)?;
    let args = if b.arguments.is_null() {
        json!({})
    } else {
        b.arguments
    };
    let errors = mcpscope_proto::form::validate(&schema, &args).map_err(unusable_schema)?;
    Ok(Json(json!({"errors": errors})))
}

#[derive(Deserialize)]
struct SchemaBody {
    schema: Value,
    #[serde(default)]
    value: Value,
}

async fn form(Json(b): Json<SchemaBody>) -> Json<Value> {
    Json(serde_json::to_value(mcpscope_proto::form::form_model(&b.schema)).unwrap_or(Value::Null))
}

async fn validate(Json(b): Json<SchemaBody>) -> ApiResult<Json<Value>> {
    let errors = mcpscope_proto::form::validate(&b.schema, &b.value).map_err(unusable_schema)?;
    Ok(Json(json!({"errors": errors})))
}

/// 422 `usage`: the schema cannot be used (too costly to check, or not a schema).
fn unusable_schema(reason: String) -> ApiError {
    ApiError {
        status: StatusCode::UNPROCESSABLE_ENTITY,
        ..ApiError::usage(reason)
    }
}
