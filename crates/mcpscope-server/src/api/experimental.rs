//! The Experimental panel: one JSON-RPC message sent by hand (`/send`, the raw tester) and the
//! client capabilities a server's next connection advertises (`/client-capabilities`).

use super::app;
use crate::error::{ApiError, ApiResult, Json};
use crate::extract::Path;
use crate::state::AppState;
use axum::Router;
use axum::extract::State;
use axum::routing::{get, post};
use mcpscope_inspect::capabilities::AdvertisedCapabilities;
use mcpscope_inspect::{HandSent, SendKind};
use serde_json::{Map, Value};

/// The Experimental panel's routes.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/servers/{name}/send", post(send))
        .route(
            "/servers/{name}/client-capabilities",
            get(capabilities).put(set_capabilities),
        )
}

/// `{kind?, method?, params?, raw?, requestId?, timeoutMs?}` as the core's [`HandSent`].
fn hand_sent(b: &Map<String, Value>) -> ApiResult<HandSent> {
    let text = |k: &str| match b.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ApiError::usage(format!("{k} must be a string"))),
    };
    let kind = match text("kind")?.as_deref() {
        None | Some("request") => SendKind::Request,
        Some("notification") => SendKind::Notification,
        Some(other) => {
            return Err(ApiError::usage(format!(
                "kind must be \"request\" or \"notification\", not {other:?}"
            )));
        }
    };
    let params = match b.get("params") {
        None | Some(Value::Null) => None,
        Some(p @ Value::Object(_)) => Some(p.clone()),
        Some(_) => return Err(ApiError::usage("params must be a JSON object")),
    };
    let raw = text("raw")?;
    if raw.as_deref().is_some_and(str::is_empty) {
        return Err(ApiError::usage("raw is empty: type the message to send"));
    }
    Ok(HandSent {
        kind,
        method: text("method")?.unwrap_or_default(),
        params,
        raw,
        request_id: text("requestId")?,
        timeout: super::requests::timeout_of(b)?,
    })
}

async fn send(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<Map<String, Value>>,
) -> ApiResult<Json<Value>> {
    let m = hand_sent(&b)?;
    Ok(Json(app(&s).send_by_hand(&name, m).await?))
}

async fn capabilities(
    State(s): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).client_capabilities(&name).await?))
}

/// The keys a settings body may have: a misspelt one is refused, not silently ignored.
const SETTINGS_KEYS: &[&str] = &["standard", "experimental", "extensions"];

async fn set_capabilities(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<Map<String, Value>>,
) -> ApiResult<Json<Value>> {
    if let Some(k) = b.keys().find(|k| !SETTINGS_KEYS.contains(&k.as_str())) {
        return Err(ApiError::usage(format!(
            "unknown key {k:?}; a capabilities body has {}",
            SETTINGS_KEYS.join(", ")
        )));
    }
    let settings: AdvertisedCapabilities = serde_json::from_value(Value::Object(b))
        .map_err(|e| ApiError::usage(format!("clientCapabilities: {e}")))?;
    Ok(Json(
        app(&s).set_client_capabilities(&name, settings).await?,
    ))
}
