//! A server's roots (the Roots editor in Server Info): `GET` what `roots/list` is answered with
//! now, `PUT` a new list (saved in the catalog entry's `roots`; on a connected legacy session the
//! core sends `notifications/roots/list_changed`).

use super::app;
use crate::error::{ApiError, ApiResult, Json};
use crate::extract::Path;
use crate::state::AppState;
use axum::Router;
use axum::extract::State;
use axum::routing::get;
use mcpscope_inspect::roots::Root;
use serde_json::{Map, Value};

/// The roots routes.
pub(super) fn router() -> Router<AppState> {
    Router::new().route("/servers/{name}/roots", get(roots).put(set_roots))
}

async fn roots(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).roots(&name).await?))
}

/// `{"roots": [{uri, name?}, …]}` as the core's roots; a body of another shape is refused with
/// the field it got wrong.
fn roots_of(b: Map<String, Value>) -> ApiResult<Vec<Root>> {
    if let Some(k) = b.keys().find(|k| k.as_str() != "roots") {
        return Err(ApiError::usage(format!(
            "unknown key {k:?}; a roots body is {{\"roots\": [{{\"uri\", \"name\"}}, …]}}"
        )));
    }
    let Some(Value::Array(list)) = b.get("roots") else {
        return Err(ApiError::usage(
            "roots must be an array of {uri, name} ([] for none)",
        ));
    };
    list.iter()
        .enumerate()
        .map(|(i, r)| {
            serde_json::from_value::<Root>(r.clone())
                .map_err(|e| ApiError::usage(format!("roots[{i}]: {e}")))
        })
        .collect()
}

async fn set_roots(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<Map<String, Value>>,
) -> ApiResult<Json<Value>> {
    let roots = roots_of(b)?;
    Ok(Json(app(&s).set_roots(&name, roots).await?))
}
