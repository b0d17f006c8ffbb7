//! A server's OAuth authorization: its view, the access token, Re-authorize (with more
//! scopes), cancelling a pending login, and Forget. The `/oauth/callback` route is
//! `crate::callback`.

use super::app;
use crate::error::{ApiResult, Json};
use crate::extract::{OptionalJson, Path};
use crate::state::AppState;
use axum::Router;
use axum::extract::State;
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::Value;

/// The authorization routes.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/servers/{name}/auth",
            get(auth_view).post(reauthorize).delete(forget_auth),
        )
        .route("/servers/{name}/auth/token", get(auth_token))
        .route("/servers/{name}/auth/cancel", post(cancel_login))
}

async fn auth_view(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).auth_view(&name).await?))
}

async fn auth_token(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).auth_token(&name).await?))
}

#[derive(Deserialize, Default)]
struct ReauthorizeBody {
    #[serde(default)]
    scopes: Vec<String>,
}

async fn reauthorize(
    State(s): State<AppState>,
    Path(name): Path<String>,
    OptionalJson(b): OptionalJson<ReauthorizeBody>,
) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).reauthorize(&name, b.scopes).await?))
}

async fn cancel_login(
    State(s): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).cancel_login(&name).await?))
}

async fn forget_auth(
    State(s): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).forget_auth(&name).await?))
}
