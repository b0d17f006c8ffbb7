//! The MCP Apps sandbox listener: a second loopback listener (`MCP_SANDBOX_PORT`, default 6275,
//! the official Inspector's), so an app runs on an origin other than the UI's and can reach
//! neither `/api` nor the token. It serves one thing, `GET /sandbox` — the sandbox-proxy page
//! (`assets/sandbox/proxy.html`, built in), which frames the app's HTML and relays its messages —
//! and 404 for everything else: no API, no SPA, no cookie read or set, no token.
//!
//! The page may be framed only by the UI (`frame-ancestors` lists the UI's own allowed origins,
//! the list its Origin check uses), is never cached, sniffed or given a referrer.
//!
//! It also carries the app's own CSP (`?csp=`, which the UI takes from the checked resource), as a
//! second policy: the app is a `srcdoc` frame with `allow-same-origin`, so it is same-origin with
//! this page and could call `parent.fetch(…)` under this page's policy instead of its own. The
//! `srcdoc` document inherits this page's policies too, so the app's CSP holds both ways. Without
//! a usable `?csp=` the page gets the spec's default, the strictest an app may have.

use axum::Router;
use axum::body::Body;
use axum::extract::RawQuery;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::get;
use mcpscope_inspect::apps::csp::DEFAULT_CSP;
use std::future::Future;
use std::sync::Arc;

/// The default port of the sandbox listener (the official Inspector's).
pub const DEFAULT_SANDBOX_PORT: u16 = 6275;

/// The sandbox-proxy page, built in.
pub const SANDBOX_PAGE: &str = include_str!("../assets/sandbox/proxy.html");

/// Longest app CSP taken from `?csp=` (the backend's are far shorter).
const MAX_APP_CSP: usize = 8 * 1024;

/// The sandbox's router: `GET /sandbox` only, framed only by `ui_origins`.
pub fn sandbox_router(ui_origins: &[String]) -> Router {
    let ancestors = Arc::new(frame_ancestors(ui_origins));
    Router::new()
        .route(
            "/sandbox",
            get(move |RawQuery(q): RawQuery| page(ancestors.clone(), q)),
        )
        .fallback(not_found)
}

/// `frame-ancestors` of the UI's origins. An IPv6 literal (`http://[::1]:6274`) is left out: a
/// CSP host-source has no syntax for one, and Chromium rejects it with a console error.
fn frame_ancestors(ui_origins: &[String]) -> HeaderValue {
    let sources: Vec<&str> = ui_origins
        .iter()
        .map(String::as_str)
        .filter(|o| !o.contains('['))
        .collect();
    let csp = if sources.is_empty() {
        "frame-ancestors 'none'".to_string()
    } else {
        format!("frame-ancestors {}", sources.join(" "))
    };
    HeaderValue::from_str(&csp).unwrap_or_else(|_| {
        // An origin that cannot be a header value frames nothing rather than everything.
        HeaderValue::from_static("frame-ancestors 'none'")
    })
}

/// The app's CSP from the query (`?csp=`), else the spec's default. A second policy can only
/// restrict what the first allows, so a hostile `?csp=` loosens nothing; one that is too long,
/// not a header value, or several policies at once (a comma) is not taken.
fn app_policy(query: Option<&str>) -> HeaderValue {
    let given = url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .find(|(k, _)| k == "csp")
        .map(|(_, v)| v.into_owned())
        .filter(|c| !c.trim().is_empty() && c.len() <= MAX_APP_CSP && !c.contains(','));
    given
        .and_then(|c| HeaderValue::from_str(&c).ok())
        .unwrap_or_else(|| HeaderValue::from_static(DEFAULT_CSP))
}

async fn page(ancestors: Arc<HeaderValue>, query: Option<String>) -> Response {
    let mut resp = Response::new(Body::from(SANDBOX_PAGE));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(header::CONTENT_SECURITY_POLICY, (*ancestors).clone());
    h.append(
        header::CONTENT_SECURITY_POLICY,
        app_policy(query.as_deref()),
    );
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

/// Serve the sandbox on `listener` until `shutdown` resolves, with the UI's listener options
/// (its TLS too: an https page may only frame an https sandbox).
pub async fn serve_sandbox(
    listener: tokio::net::TcpListener,
    ui_origins: Vec<String>,
    opts: crate::ListenOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    crate::serve_router(listener, sandbox_router(&ui_origins), opts, shutdown)
        .await
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_ancestors_leaves_out_what_chromium_cannot_parse() {
        let origins = [
            "http://127.0.0.1:6274".to_string(),
            "http://localhost:6274".to_string(),
            "http://[::1]:6274".to_string(),
        ];
        assert_eq!(
            frame_ancestors(&origins),
            "frame-ancestors http://127.0.0.1:6274 http://localhost:6274"
        );
        assert_eq!(
            frame_ancestors(&origins[2..]),
            "frame-ancestors 'none'",
            "nothing left frames nothing, not everything"
        );
    }

    #[test]
    fn the_app_policy_is_the_given_one_or_the_default() {
        let csp = "default-src 'none'; connect-src 'self' https://api.example.com";
        let q = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("host", "http://127.0.0.1:6274")
            .append_pair("csp", csp)
            .finish();
        assert_eq!(app_policy(Some(&q)), csp);
        assert_eq!(app_policy(None), DEFAULT_CSP);
        assert_eq!(app_policy(Some("csp=")), DEFAULT_CSP);
        assert_eq!(app_policy(Some("csp=a%0d%0aSet-Cookie:x")), DEFAULT_CSP);
        assert_eq!(app_policy(Some("csp=default-src%20*,%20x")), DEFAULT_CSP);
        let long = format!("csp={}", "a".repeat(MAX_APP_CSP + 1));
        assert_eq!(app_policy(Some(&long)), DEFAULT_CSP);
    }
}
