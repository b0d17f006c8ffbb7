//! Testing Profiles (sampling answered by a mock model): the profiles themselves, each server's
//! active profile with its Auto-respond and "without stopping" switches, and, for one waiting
//! sampling request, what the active profile answers (the card's pre-fill) or answering it with
//! the profile (the card's Auto-respond button). The strategies, the file they are kept in and
//! the policy that answers by itself are the core's (`mcpscope_inspect::profiles`).

use super::app;
use crate::error::{ApiError, ApiResult, Json};
use crate::extract::Path;
use crate::state::AppState;
use axum::Router;
use axum::extract::State;
use axum::routing::{get, put};
use mcpscope_inspect::InteractionClosed;
use mcpscope_inspect::profiles::{ActiveProfile, Profile, ProfileAnswer, ProfilesView};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The profile routes.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/profiles", get(list))
        .route("/profiles/{name}", put(put_profile).delete(delete_profile))
        .route(
            "/servers/{name}/profile",
            get(active_profile).put(set_active_profile),
        )
        .route(
            "/interactions/{id}/profile",
            get(profile_answer).post(answer_with_profile),
        )
}

/// `body` as a `T`, or `usage` naming the field and the shape (like every refused body).
fn body_of<T: DeserializeOwned>(body: Value, shape: &str) -> ApiResult<T> {
    serde_json::from_value(body).map_err(|e| ApiError::usage(format!("{e}; {shape}")))
}

const PROFILE_SHAPE: &str = "a profile is {\"name\", \"strategy\": {\"kind\": \"fixed\"|\"echo\"|\"reject\"|\"delay\"|\"toolUse\", …}, \"model\", \"stopReason\"}";
const CHOICE_SHAPE: &str =
    "a choice is {\"profile\": name or null, \"autoRespond\": bool, \"withoutStopping\": bool}";

async fn list(State(s): State<AppState>) -> Json<ProfilesView> {
    Json(app(&s).profiles())
}

/// Create or replace `name`; a body `name` other than the path's renames it.
async fn put_profile(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(body): Json<Value>,
) -> ApiResult<Json<Profile>> {
    let profile: Profile = body_of(body, PROFILE_SHAPE)?;
    Ok(Json(app(&s).put_profile(&name, profile).await?))
}

async fn delete_profile(
    State(s): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    app(&s).delete_profile(&name).await?;
    Ok(Json(json!({})))
}

async fn active_profile(
    State(s): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult<Json<ActiveProfile>> {
    Ok(Json(app(&s).active_profile(&name).await?))
}

async fn set_active_profile(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(body): Json<Value>,
) -> ApiResult<Json<ActiveProfile>> {
    let choice: ActiveProfile = body_of(body, CHOICE_SHAPE)?;
    Ok(Json(app(&s).set_active_profile(&name, choice).await?))
}

/// What the server's active profile answers to waiting sampling interaction `id`.
async fn profile_answer(
    State(s): State<AppState>,
    Path(id): Path<u64>,
) -> ApiResult<Json<ProfileAnswer>> {
    Ok(Json(app(&s).profile_answer(id)?))
}

/// Answer waiting sampling interaction `id` with the active profile, now.
async fn answer_with_profile(
    State(s): State<AppState>,
    Path(id): Path<u64>,
) -> ApiResult<Json<InteractionClosed>> {
    Ok(Json(app(&s).answer_with_profile(id)?))
}
