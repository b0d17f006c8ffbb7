//! `GET /oauth/callback`: the authorization server sends the browser here at the end of a login.
//!
//! The core decides what the response is worth ([`mcpscope_inspect::Inspector::deliver_callback`]:
//! only a `state` a login is waiting for is taken); this route only shows the tab a small page
//! saying so, which closes itself after a success.

use crate::state::AppState;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use mcpscope_inspect::Delivery;

/// `GET /oauth/callback`.
pub(crate) async fn callback(
    State(app): State<AppState>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let query = query.unwrap_or_default();
    let headers = headers
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    match app.inspector.deliver_callback(&query, headers) {
        Delivery::Unknown => page(
            StatusCode::BAD_REQUEST,
            "Authorization response refused",
            "This authorization response does not belong to a login mcpscope is waiting for (its state is unknown or was already used). Nothing was done with it. Start the login again from mcpscope.",
        ),
        Delivery::Gone => page(
            StatusCode::GONE,
            "Login no longer waited for",
            "mcpscope stopped waiting for this login (it timed out or was cancelled). Start it again from mcpscope.",
        ),
        Delivery::Delivered { server } => page(
            StatusCode::OK,
            "Authorization received",
            &format!(
                "mcpscope received the authorization response for {}. You can close this tab and return to mcpscope.",
                html_escape(&server)
            ),
        ),
    }
}

fn html_escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A small page for the callback tab; it closes itself when the browser lets it.
fn page(status: StatusCode, title: &str, text: &str) -> Response {
    let close = if status == StatusCode::OK {
        "<script>setTimeout(function(){window.close()},1500)</script>"
    } else {
        ""
    };
    let body = format!(
        "<!doctype html><html><head><meta charset=utf-8><title>{title} · mcpscope</title>\
         <style>body{{font:15px system-ui,sans-serif;max-width:36em;margin:3em auto;color:#222}}</style></head>\
         <body><h1 id=title>{title}</h1><p id=message>{text}</p><p><a href=\"/\">Open mcpscope</a></p>{close}</body></html>"
    );
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}
