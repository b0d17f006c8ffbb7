//! The MCP Apps sandbox listener: a second loopback listener (`MCP_SANDBOX_PORT`, default 6275,
//! the official Inspector's), so an app runs on an origin other than the UI's and can reach
//! neither `/api` nor the token. It serves one thing, `GET /sandbox` — the sandbox-proxy page
//! (`assets/sandbox/proxy.html`, built in), which frames the app's HTML and relays its messages —
//! and 404 for everything else: no API, no SPA, no cookie read or set, no token.
//!
//! The page may be framed only by the UI (`frame-ancestors` lists the UI's own allowed origins,
//! the list its Origin check uses), is never cached, sniffed or given a referrer.

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::get;
use std::future::Future;
use std::sync::Arc;

/// The default port of the sandbox listener (the official Inspector's).
pub const DEFAULT_SANDBOX_PORT: u16 = 6275;

/// The sandbox-proxy page, built in.
pub const SANDBOX_PAGE: &str = include_str!("../assets/sandbox/proxy.html");

/// The sandbox's router: `GET /sandbox` only, framed only by `ui_origins`.
pub fn sandbox_router(ui_origins: &[String]) -> Router {
    let csp = format!("frame-ancestors {}", ui_origins.join(" "));
    let csp = Arc::new(HeaderValue::from_str(&csp).unwrap_or_else(|_| {
        // An origin that cannot be a header value frames nothing rather than everything.
        HeaderValue::from_static("frame-ancestors 'none'")
    }));
    Router::new()
        .route("/sandbox", get(move || page(csp.clone())))
        .fallback(not_found)
}

async fn page(csp: Arc<HeaderValue>) -> Response {
    let mut resp = Response::new(Body::from(SANDBOX_PAGE));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(header::CONTENT_SECURITY_POLICY, (*csp).clone());
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    resp
}

async fn not_found() -> Response {
    let mut resp = Response::new(Body::from(
        "not found: the sandbox listener serves only /sandbox\n",
    ));
    *resp.status_mut() = StatusCode::NOT_FOUND;
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// Serve the sandbox on `listener` until `shutdown` resolves.
pub async fn serve_sandbox(
    listener: tokio::net::TcpListener,
    ui_origins: Vec<String>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, sandbox_router(&ui_origins))
        .with_graceful_shutdown(shutdown)
        .await
}
