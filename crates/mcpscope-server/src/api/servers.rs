//! The catalog routes: `/about`, `/servers` (list, add, update, delete) and the imports of an
//! `mcp.json` text or a registry `server.json`.

use super::app;
use crate::error::{ApiError, ApiResult, Json};
use crate::extract::Path;
use crate::state::AppState;
use axum::Router;
use axum::extract::State;
use axum::routing::{get, post, put};
use mcpscope_inspect::{CatalogEntry, RegistryChoice};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The catalog's routes.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/about", get(about))
        .route("/servers", get(list_servers).post(add_server))
        .route("/servers/import", post(import_mcp_json))
        .route("/servers/import/registry", post(preview_registry))
        .route("/servers/import/registry/add", post(add_from_registry))
        .route("/servers/import/registry/verify", post(verify_registry))
        .route("/servers/{name}", put(update_server).delete(delete_server))
}

async fn about(State(s): State<AppState>) -> Json<Value> {
    let catalog = app(&s).catalog_path().await;
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "catalog": catalog.map(|p| p.display().to_string()),
        "history": app(&s).store().path().display().to_string(),
        "auth": s.security.token.is_some(),
        // MCP Apps: where the sandbox page is served (another origin than this page's).
        "sandbox": s.sandbox_url.as_deref().map(|url| json!({"url": url})),
    }))
}

async fn list_servers(State(s): State<AppState>) -> Json<Value> {
    Json(json!({"servers": app(&s).servers().await}))
}

#[derive(Deserialize)]
struct AddServer {
    name: String,
    entry: CatalogEntry,
}

async fn add_server(State(s): State<AppState>, Json(b): Json<AddServer>) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).add_server(&b.name, b.entry).await?))
}

#[derive(Deserialize)]
struct UpdateServer {
    name: Option<String>,
    entry: CatalogEntry,
}

async fn update_server(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<UpdateServer>,
) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).update_server(&name, b.name, b.entry).await?))
}

async fn delete_server(
    State(s): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    app(&s).remove_server(&name).await?;
    Ok(Json(json!({})))
}

#[derive(Deserialize)]
struct Text {
    text: String,
}

async fn import_mcp_json(State(s): State<AppState>, Json(b): Json<Text>) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).import_mcp_json(&b.text).await?))
}

async fn preview_registry(Json(b): Json<Text>) -> ApiResult<Json<Value>> {
    let p = mcpscope_inspect::import::preview_registry(&b.text)?;
    Ok(Json(serde_json::to_value(p).unwrap_or(Value::Null)))
}

#[derive(Deserialize)]
struct Choice {
    package: Option<usize>,
    remote: Option<usize>,
}

impl Choice {
    fn of(&self) -> ApiResult<RegistryChoice> {
        match (self.package, self.remote) {
            (Some(i), None) => Ok(RegistryChoice::Package(i)),
            (None, Some(i)) => Ok(RegistryChoice::Remote(i)),
            _ => Err(ApiError::usage(
                "choose exactly one: {\"package\": index} or {\"remote\": index}",
            )),
        }
    }
}

#[derive(Deserialize)]
struct RegistryVerify {
    text: String,
    choice: Choice,
}

/// The chosen package on its registry and its command on the PATH, or the remote answering:
/// `{checks: [Finding]}`. Asks the network, so only when the user asks.
async fn verify_registry(Json(b): Json<RegistryVerify>) -> ApiResult<Json<Value>> {
    let registries = mcpscope_inspect::catalog::verify::Registries::from_env();
    let checks =
        mcpscope_inspect::catalog::verify::verify_registry(&b.text, b.choice.of()?, &registries)
            .await?;
    Ok(Json(json!({ "checks": checks })))
}

#[derive(Deserialize)]
struct RegistryAdd {
    text: String,
    choice: Choice,
    name: String,
    #[serde(default)]
    env: Map<String, Value>,
}

async fn add_from_registry(
    State(s): State<AppState>,
    Json(b): Json<RegistryAdd>,
) -> ApiResult<Json<Value>> {
    let choice = b.choice.of()?;
    Ok(Json(
        app(&s)
            .add_from_registry(&b.text, choice, &b.name, &b.env)
            .await?,
    ))
}
