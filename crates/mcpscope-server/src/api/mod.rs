//! The `/api` routes (`docs/web-api.md`), one file per resource: thin handlers that extract, ask
//! the inspector core (`mcpscope-inspect`), and shape the answer. No handler touches a session, a
//! frame or SQLite.
//!
//! - [`servers`]: the catalog (`/about`, `/servers`, imports);
//! - [`connections`]: a server's connection (connect, disconnect, info, era, log level);
//! - [`requests`]: requests on a connection (`/request`, `/list`, cancel);
//! - [`traffic`]: a server's frames and one frame's body;
//! - [`history`]: history entries, pins, export, saved requests;
//! - [`auth`]: a server's OAuth authorization;
//! - [`interactions`]: the servers' questions waiting for a view's answer;
//! - [`profiles`]: Testing Profiles, each server's active one, a sampling request answered by it;
//! - [`schema`]: the schema → form model and validation;
//! - [`experimental`]: the Experimental panel (a message sent by hand, client capabilities);
//! - [`roots`]: a server's roots (the Roots editor);
//! - [`tasks`]: a server's tasks (run a tool as one, list, get, result, cancel);
//! - [`subscriptions`]: a server's Subscriptions panel (listen filter, cancel, subscribe);
//! - [`apps`]: MCP Apps (a server's app tools, an app's checked UI resource, its bridge frames);
//! - `/events`: the SSE stream of the core's bus (`crate::sse`).

mod apps;
mod auth;
mod connections;
mod experimental;
mod history;
mod interactions;
mod profiles;
mod requests;
mod roots;
mod schema;
mod servers;
mod subscriptions;
mod tasks;
mod traffic;

pub use schema::{SCHEMA_BODY_BYTES, schema_routes};

use crate::error::ApiError;
use crate::state::AppState;
use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use axum::routing::get;
use mcpscope_inspect::Inspector;
use std::sync::Arc;

/// The `/api` router (without the security layer, which `crate::router` adds around all): one
/// router per resource, merged.
pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .merge(servers::router())
        .merge(connections::router())
        .merge(requests::router())
        .merge(traffic::router())
        .merge(history::router())
        .merge(auth::router())
        .merge(interactions::router())
        .merge(profiles::router())
        .merge(schema::router())
        .merge(experimental::router())
        .merge(tasks::router())
        .merge(subscriptions::router())
        .merge(roots::router())
        .merge(apps::router())
        .route("/events", get(crate::sse::events))
        .fallback(api_not_found)
}

async fn api_not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no API route {}; see docs/web-api.md", uri.path()))
}

/// The inspector core behind every handler.
fn app(s: &AppState) -> &Arc<Inspector> {
    &s.inspector
}

/// A response the browser saves as `filename` (exports, a frame's or a result's whole body).
fn download(body: Vec<u8>, content_type: &'static str, filename: &str) -> Response {
    let mut resp = Response::new(Body::from(body));
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{filename}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    resp
}
