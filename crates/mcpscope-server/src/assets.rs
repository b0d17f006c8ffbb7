//! The SPA, embedded in the binary (`rust-embed`, from `assets/dist/`, which `web/` builds into)
//! so `cargo install` needs no Node. Also the launch URLs: `/?token=…` (printed) and
//! `/?launch=CODE` (the browser mcpscope opens: a single-use code, see `security.rs`) trade
//! themselves for the token's cookie and redirect, so neither stays in the address bar and the
//! page never holds the token.
//!
//! Paths without a file extension are client-side routes and get `index.html`; a missing file
//! with an extension is a plain 404. `/api/*` never falls back to HTML (the router answers those
//! with a JSON 404 before this runs).
//!
//! The gateway mode (`mcpscope gateway`) serves the build's second entry, `gateway.html`, through
//! [`gateway_page`], with the same launch URL and headers. The two pages share one folder but
//! not their files: each serves its own entry and scripts and the files of `web/public/`
//! ([`SHARED_FILES`]), and answers 404 for the other's (the gateway page is useless without
//! gateways, the single-user page has no API in gateway mode). A file of the gateway build is
//! one whose name begins `gateway` ([`is_gateway_file`]).

use crate::AppState;
use crate::security::Security;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;
use std::sync::Arc;

#[derive(RustEmbed)]
#[folder = "assets/dist/"]
struct Spa;

/// What the page may load: only our own origin; inline styles because Mantine sets style
/// attributes; no framing by anyone. With an MCP Apps sandbox listener, `frame-src` adds its
/// origin (and only it): the Apps tab frames the sandbox proxy page from there.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// The files of `web/public/`, which Vite copies into both builds (a unit test keeps this list
/// equal to that folder).
const SHARED_FILES: &[&str] = &["favicon.svg"];

/// A file of the gateway page's build (`gateway.html`, `gateway.js`, `gateway.css`; a chunk or
/// asset that build emits must be named so too).
fn is_gateway_file(name: &str) -> bool {
    name.starts_with("gateway.") || name.starts_with("gateway-")
}

/// The fallback service: launch URL, SPA files, client routes. The gateway page's files are
/// not the web UI's.
pub(crate) async fn spa(
    State(sec): State<Arc<Security>>,
    State(app): State<AppState>,
    req: Request,
) -> Response {
    if let Some(resp) = launch_url(&sec, req.uri()).await {
        return resp;
    }
    let path = req.uri().path();
    let file = path.trim_start_matches('/');
    let (name, is_route) = if file.is_empty() {
        ("index.html".to_string(), true)
    } else if file
        .rsplit('/')
        .next()
        .is_some_and(|last| last.contains('.'))
    {
        (file.to_string(), false)
    } else {
        ("index.html".to_string(), true)
    };
    if is_gateway_file(&name) {
        return (StatusCode::NOT_FOUND, format!("no file {path}")).into_response();
    }
    embedded(&name, is_route, &req, app.sandbox_url.as_deref())
}

/// The gateway mode's page (`mcpscope gateway`, `docs/gateway.md`): `/` and `/gateway.html` are
/// `gateway.html` (the build's second entry), its own files (`gateway.js`, `gateway.css`) and
/// the shared ones (`favicon.svg`) are served, and the launch URL works as for the web UI.
/// Anything else is a 404 — the single-user page's `index.html`, `app.js` and `index.css`
/// included: this mode has no client routes. No MCP Apps sandbox, so no `frame-src`.
pub async fn gateway_page(State(sec): State<Arc<Security>>, req: Request) -> Response {
    if let Some(resp) = launch_url(&sec, req.uri()).await {
        return resp;
    }
    let path = req.uri().path();
    match path.trim_start_matches('/') {
        "" | "gateway.html" => embedded("gateway.html", true, &req, None),
        f if is_gateway_file(f) || SHARED_FILES.contains(&f) => embedded(f, false, &req, None),
        _ => (StatusCode::NOT_FOUND, format!("no page {path}")).into_response(),
    }
}

/// `/?launch=CODE` or `/?token=…`: the answer that trades it for the token's cookie, if the
/// request carries one.
async fn launch_url(sec: &Security, uri: &Uri) -> Option<Response> {
    let path = uri.path();
    if let Some(code) = query_param(uri.query(), "launch") {
        // A 256-bit code is not worth guessing, so a stale one is not counted as a guess: it is
        // a browser that was slow, or a tab restored from an earlier launch.
        return Some(match &sec.token {
            Some(token) if sec.redeem_launch_code(&code) => {
                launch(sec, path, uri.query().unwrap_or(""), token)
            }
            _ => (
                StatusCode::UNAUTHORIZED,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                format!(
                    "This launch link works once, within {} s of being opened, and was already used or has expired. Open the URL mcpscope printed when it started (it carries the token).",
                    crate::security::LAUNCH_CODE_TTL.as_secs()
                ),
            )
                .into_response(),
        });
    }
    let token = query_param(uri.query(), "token")?;
    if !sec.token_matches(&token)
        && let Some(slowed) = sec.wrong_token().await
    {
        return Some(slowed);
    }
    Some(launch(sec, path, uri.query().unwrap_or(""), &token))
}

/// One embedded file as a response (ETag, no-cache, the page's CSP on HTML). `is_route`: a
/// missing file means the UI was not built into this binary, rather than a wrong path.
fn embedded(name: &str, is_route: bool, req: &Request, sandbox_url: Option<&str>) -> Response {
    let path = req.uri().path();
    let Some(asset) = Spa::get(name) else {
        return if is_route {
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "the web UI is not built into this binary; build web/ (npm run build) and rebuild mcpscope",
            )
                .into_response()
        } else {
            (StatusCode::NOT_FOUND, format!("no file {path}")).into_response()
        };
    };
    let etag = format!(
        "\"{}\"",
        asset
            .metadata
            .sha256_hash()
            .iter()
            .take(16)
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    );
    if req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == etag)
    {
        return StatusCode::NOT_MODIFIED.into_response();
    }
    let mut resp = Response::new(Body::from(asset.data.into_owned()));
    let h = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(asset.metadata.mimetype()) {
        h.insert(header::CONTENT_TYPE, v);
    }
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    // File names are fixed (not content-hashed), so the browser must revalidate every time.
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if name.ends_with(".html") {
        let csp = page_csp(sandbox_url);
        if let Ok(v) = HeaderValue::from_str(&csp) {
            h.insert(header::CONTENT_SECURITY_POLICY, v);
        } else {
            h.insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CSP),
            );
        }
    }
    resp
}

/// The page's CSP: [`CSP`], plus `frame-src` of the sandbox's origin when there is one.
fn page_csp(sandbox_url: Option<&str>) -> String {
    let origin = sandbox_url
        .and_then(|u| url::Url::parse(u).ok())
        .filter(|u| u.scheme() == "http" || u.scheme() == "https")
        .map(|u| u.origin().ascii_serialization());
    match origin {
        Some(o) => format!("{CSP}; frame-src {o}"),
        None => CSP.to_string(),
    }
}

fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    url::form_urlencoded::parse(query?.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// `/?token=…` (or a redeemed `/?launch=CODE`, with the token it stands for): set the cookie and
/// redirect to the same path without the token or code. The path is
/// kept to one leading slash: `//evil.example/` (or `/\evil.example/`) as a Location would be
/// another site, an open redirect from our own launch URL.
fn launch(sec: &Security, path: &str, query: &str, token: &str) -> Response {
    if !sec.token_matches(token) {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "This link's token is not the one of the running mcpscope (it changes on every launch). Open the URL mcpscope printed when it started.",
        )
            .into_response();
    }
    let rest: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .filter(|(k, _)| k != "token" && k != "launch")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let mut location = format!("/{}", path.trim_start_matches(['/', '\\']));
    if !rest.is_empty() {
        location.push('?');
        location.push_str(
            &url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(rest)
                .finish(),
        );
    }
    let mut resp = StatusCode::SEE_OTHER.into_response();
    let h = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&location) {
        h.insert(header::LOCATION, v);
    }
    if sec.token.is_some()
        && let Ok(v) = HeaderValue::from_str(&sec.token_cookie(token))
    {
        h.insert(header::SET_COOKIE, v);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_may_frame_the_sandbox_origin_and_nothing_else() {
        assert_eq!(page_csp(None), CSP);
        assert_eq!(
            page_csp(Some("http://127.0.0.1:6275/sandbox")),
            format!("{CSP}; frame-src http://127.0.0.1:6275")
        );
        // Not a URL, or not http(s): no frame-src at all (default-src 'self' refuses frames).
        assert_eq!(page_csp(Some("javascript:alert(1)")), CSP);
        assert_eq!(page_csp(Some("no url")), CSP);
    }

    /// `SHARED_FILES` is what Vite copies into both builds: the files of `web/public/`.
    #[test]
    fn the_shared_files_are_web_public() {
        let public = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/public");
        let Ok(dir) = std::fs::read_dir(&public) else {
            return; // a packaged crate has no web/
        };
        let mut names: Vec<String> = dir
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let mut shared: Vec<&str> = SHARED_FILES.to_vec();
        shared.sort_unstable();
        assert_eq!(names, shared);
    }

    /// Every file an entry of the build loads is one its own page serves: the web UI never
    /// refuses a file `index.html` names, the gateway page never one `gateway.html` names.
    #[test]
    fn each_entry_loads_only_files_its_page_serves() {
        for (entry, serves) in [
            (
                "index.html",
                (|f: &str| !is_gateway_file(f)) as fn(&str) -> bool,
            ),
            ("gateway.html", |f: &str| {
                is_gateway_file(f) || SHARED_FILES.contains(&f)
            }),
        ] {
            let Some(page) = Spa::get(entry) else {
                continue; // the build is not embedded (a checkout without dist)
            };
            let html = String::from_utf8_lossy(&page.data).into_owned();
            let loaded: Vec<&str> = html
                .split(['"', '\''])
                .filter_map(|s| s.strip_prefix('/'))
                .filter(|s| s.contains('.') && !s.contains('/'))
                .collect();
            assert!(!loaded.is_empty(), "{entry} loads nothing?");
            for f in loaded {
                assert!(
                    serves(f),
                    "{entry} loads /{f}, which its page does not serve"
                );
                assert!(
                    Spa::get(f).is_some(),
                    "{entry} loads /{f}, not in the build"
                );
            }
        }
    }
}
