//! The history: entries (searched, exported, one in detail, its whole result), pins, clearing,
//! and saved requests.

use super::{app, download};
use crate::error::{ApiResult, Json};
use crate::extract::{OptionalJson, Path, Query};
use crate::state::AppState;
use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::{delete, get, post};
use mcpscope_inspect::HistoryFilter;
use serde::Deserialize;
use serde_json::{Value, json};

/// The history and saved-request routes.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/history", get(history).delete(clear_history))
        .route("/history/export", get(export_history))
        .route("/history/{id}", get(history_entry))
        .route("/history/{id}/result", get(history_result))
        .route("/history/{id}/pin", post(pin).delete(unpin))
        .route("/saved", get(saved).post(save))
        .route("/saved/{id}", delete(delete_saved))
}

#[derive(Deserialize, Default)]
struct HistoryParams {
    q: Option<String>,
    server: Option<String>,
    method: Option<String>,
    status: Option<String>,
    from: Option<String>,
    to: Option<String>,
    pinned: Option<String>,
    limit: Option<usize>,
    before: Option<i64>,
}

impl HistoryParams {
    /// The query string's names (`q`) as the core's filter, which checks them.
    fn filter(self) -> HistoryFilter {
        HistoryFilter {
            text: self.q,
            server: self.server,
            method: self.method,
            status: self.status,
            from: self.from,
            to: self.to,
            pinned: self.pinned,
            limit: self.limit,
            before: self.before,
        }
    }
}

async fn history(
    State(s): State<AppState>,
    Query(p): Query<HistoryParams>,
) -> ApiResult<Json<Value>> {
    let q = p.filter().page()?;
    let page = app(&s).history(q).await?;
    Ok(Json(json!({
        "entries": page.entries,
        "nextBefore": page.next_before,
    })))
}

async fn export_history(
    State(s): State<AppState>,
    Query(p): Query<HistoryParams>,
) -> ApiResult<Response> {
    let q = p.filter().export()?;
    let doc = app(&s).export_history(q).await?;
    let body = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    Ok(download(body, "application/json", "mcpscope-history.json"))
}

async fn history_entry(State(s): State<AppState>, Path(id): Path<i64>) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).history_entry(id).await?))
}

async fn history_result(State(s): State<AppState>, Path(id): Path<i64>) -> ApiResult<Response> {
    let text = app(&s).history_result(id).await?;
    Ok(download(
        text.into_bytes(),
        "application/json",
        &format!("result-{id}.json"),
    ))
}

#[derive(Deserialize, Default)]
struct PinBody {
    label: Option<String>,
}

async fn pin(
    State(s): State<AppState>,
    Path(id): Path<i64>,
    OptionalJson(b): OptionalJson<PinBody>,
) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).pin(id, b.label).await?))
}

async fn unpin(State(s): State<AppState>, Path(id): Path<i64>) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).unpin(id).await?))
}

#[derive(Deserialize)]
struct ClearParams {
    server: Option<String>,
}

async fn clear_history(
    State(s): State<AppState>,
    Query(p): Query<ClearParams>,
) -> ApiResult<Json<Value>> {
    let n = app(&s).clear_history(p.server).await?;
    Ok(Json(json!({"deleted": n})))
}

async fn saved(State(s): State<AppState>) -> ApiResult<Json<Value>> {
    Ok(Json(json!({"saved": app(&s).saved().await?})))
}

#[derive(Deserialize)]
struct SaveBody {
    name: String,
    server: String,
    method: String,
    #[serde(default)]
    params: Value,
}

async fn save(State(s): State<AppState>, Json(b): Json<SaveBody>) -> ApiResult<Json<Value>> {
    Ok(Json(
        app(&s).save(b.name, b.server, b.method, b.params).await?,
    ))
}

async fn delete_saved(State(s): State<AppState>, Path(id): Path<i64>) -> ApiResult<Json<Value>> {
    app(&s).delete_saved(id).await?;
    Ok(Json(json!({})))
}
