//! A server's Subscriptions panel (the Resources screen): what the core knows (`GET`, no wire),
//! the modern stream's desired filter (`PUT …/filter` cancels the stream and listens again),
//! Listen again, Cancel stream, the legacy per-URI subscribe / unsubscribe, and "re-read"
//! (`seen`). The stream itself, its states and the rejected notifications are the core's
//! (`mcpscope_inspect::subscriptions`); every change also arrives as a `subscriptions` event.

use super::app;
use crate::error::{ApiError, ApiResult, Json};
use crate::extract::Path;
use crate::state::AppState;
use axum::Router;
use axum::extract::State;
use axum::routing::{get, post, put};
use mcpscope_inspect::subscriptions::{Filter, SubscriptionsView};
use serde_json::{Map, Value};

/// The subscription routes.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/servers/{name}/subscriptions", get(panel))
        .route("/servers/{name}/subscriptions/filter", put(filter))
        .route("/servers/{name}/subscriptions/listen", post(listen))
        .route("/servers/{name}/subscriptions/cancel", post(cancel))
        .route("/servers/{name}/subscriptions/subscribe", post(subscribe))
        .route(
            "/servers/{name}/subscriptions/unsubscribe",
            post(unsubscribe),
        )
        .route("/servers/{name}/subscriptions/seen", post(seen))
}

/// The panel of `name` as the core knows it.
async fn panel(State(s): State<AppState>, Path(name): Path<String>) -> Json<SubscriptionsView> {
    Json(app(&s).subscriptions(&name))
}

/// `{toolsListChanged?, promptsListChanged?, resourcesListChanged?, resourceSubscriptions?}`,
/// every wrong field named.
fn filter_of(b: &Map<String, Value>) -> ApiResult<Filter> {
    let flag = |key: &str| match b.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(v)) => Ok(*v),
        Some(_) => Err(ApiError::usage(format!("{key} must be true or false"))),
    };
    let uris = match b.get("resourceSubscriptions") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|u| u.as_str().filter(|u| !u.is_empty()).map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                ApiError::usage("resourceSubscriptions must be an array of non-empty URI strings")
            })?,
        Some(_) => {
            return Err(ApiError::usage(
                "resourceSubscriptions must be an array of URI strings",
            ));
        }
    };
    Ok(Filter {
        tools_list_changed: flag("toolsListChanged")?,
        prompts_list_changed: flag("promptsListChanged")?,
        resources_list_changed: flag("resourcesListChanged")?,
        resource_subscriptions: uris,
    })
}

/// Modern: listen for this filter from now on (the current stream is replaced).
async fn filter(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<Map<String, Value>>,
) -> ApiResult<Json<SubscriptionsView>> {
    let f = filter_of(&b)?;
    Ok(Json(app(&s).set_subscription_filter(&name, f).await?))
}

/// Modern: open a stream again with the desired filter.
async fn listen(
    State(s): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult<Json<SubscriptionsView>> {
    Ok(Json(app(&s).listen_again(&name).await?))
}

/// Modern: end the current stream as a local abort.
async fn cancel(
    State(s): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult<Json<SubscriptionsView>> {
    Ok(Json(app(&s).cancel_subscription_stream(&name)?))
}

/// `{uri}`, named when missing.
fn uri_of(b: &Map<String, Value>) -> ApiResult<String> {
    match b.get("uri") {
        Some(Value::String(u)) if !u.is_empty() => Ok(u.clone()),
        _ => Err(ApiError::usage("uri is required (the resource's URI)")),
    }
}

/// Legacy: `resources/subscribe {uri}`: `{historyId, result, subscriptions}`, or its error.
async fn subscribe(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<Map<String, Value>>,
) -> ApiResult<Json<Value>> {
    let uri = uri_of(&b)?;
    Ok(Json(app(&s).subscribe_resource(&name, &uri).await?))
}

/// Legacy: `resources/unsubscribe {uri}`.
async fn unsubscribe(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<Map<String, Value>>,
) -> ApiResult<Json<Value>> {
    let uri = uri_of(&b)?;
    Ok(Json(app(&s).unsubscribe_resource(&name, &uri).await?))
}

/// The page re-read `{uri}`: no longer shown as updated.
async fn seen(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<Map<String, Value>>,
) -> ApiResult<Json<SubscriptionsView>> {
    let uri = uri_of(&b)?;
    Ok(Json(app(&s).subscription_seen(&name, &uri)))
}
