//! A server's connection: connect (with an era for this connection), disconnect, its
//! `ServerInfo`, the era setting and the log level.

use super::app;
use crate::error::{ApiResult, Json};
use crate::extract::{OptionalJson, Path};
use crate::state::AppState;
use axum::Router;
use axum::extract::State;
use axum::routing::{get, post, put};
use serde::Deserialize;
use serde_json::{Value, json};

/// The connection routes.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/servers/{name}/connect", post(connect))
        .route("/servers/{name}/disconnect", post(disconnect))
        .route("/servers/{name}/info", get(info))
        .route("/servers/{name}/protocol-era", put(protocol_era))
        .route("/servers/{name}/log-level", put(log_level))
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ConnectBody {
    protocol_era: Option<String>,
}

async fn connect(
    State(s): State<AppState>,
    Path(name): Path<String>,
    OptionalJson(b): OptionalJson<ConnectBody>,
) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).connect(&name, b.protocol_era).await?))
}

async fn disconnect(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult<Json<Value>> {
    app(&s).disconnect(&name).await?;
    Ok(Json(json!({})))
}

async fn info(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).server_info(&name)?))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EraBody {
    protocol_era: String,
}

async fn protocol_era(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<EraBody>,
) -> ApiResult<Json<Value>> {
    Ok(Json(
        app(&s).set_protocol_era(&name, &b.protocol_era).await?,
    ))
}

#[derive(Deserialize)]
struct LevelBody {
    level: String,
}

/// The core chooses how a level reaches the server (`logging/setLevel` in the legacy era,
/// `_meta` on every request in the modern one).
async fn log_level(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<LevelBody>,
) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).set_log_level(&name, &b.level).await?))
}
