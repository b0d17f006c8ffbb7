//! The authorization request and its response: the URL (PKCE S256, `state`, `resource`, scopes),
//! getting the response back — in the browser through the loopback callback, or headlessly from
//! the redirect's `Location` — and the checks before the code is redeemed: `state`, then `iss`
//! (RFC 9207, exact string comparison), then `error`.

use crate::discovery::AuthServer;
use crate::error::AuthError;
use crate::pkce::{Pkce, random_token};
use crate::recorder::{Recorder, Request};
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Html;
use axum::routing::get;
use bytes::Bytes;
use mcpscope_proto::{Direction, Frame, FrameKind, FrameMeta};
use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;
use url::Url;

/// How the authorization response comes back.
#[derive(Clone)]
pub enum LoginMode {
    /// Open the browser (print the URL too) and wait on the loopback callback.
    Browser,
    /// Print the URL only (`--print-auth-url`) and wait on the loopback callback.
    PrintUrl,
    /// Fetch the authorization URL without following its redirect and read `code` and `iss` from
    /// `Location` (`--headless-auth`): for test servers that approve without a person.
    Headless,
    /// Never log in (`--stored-auth-only`).
    Never,
    /// The embedding application runs the login itself (the web UI: the page opens the URL and
    /// the backend's own route receives the callback).
    External(Arc<dyn ExternalLogin>),
}

pub use mcpscope_transport::auth::BoxFuture;

/// What an [`ExternalLogin`] is asked to do: have a person open `url` and bring back the
/// authorization response that arrives at `redirect_uri` carrying `state`.
#[derive(Debug, Clone)]
pub struct LoginRequest {
    /// The authorization URL to open.
    pub url: String,
    /// The `state` parameter: the callback that carries it is this login's.
    pub state: String,
    /// Where the authorization server sends the browser back.
    pub redirect_uri: String,
    /// The scopes requested.
    pub scopes: Vec<String>,
    /// The authorization server's issuer, when its metadata names one.
    pub issuer: Option<String>,
    /// True for a step-up (`403 insufficient_scope`), false for a first login or a re-login.
    pub step_up: bool,
    /// How long the login may take before it is abandoned.
    pub timeout: std::time::Duration,
}

/// The authorization response as it reached the callback.
#[derive(Debug, Clone)]
pub struct CallbackReceived {
    /// The whole callback URL with its query.
    pub url: String,
    /// The callback request's headers.
    pub headers: Vec<(String, String)>,
}

/// A login run by the embedding application ([`LoginMode::External`]).
pub trait ExternalLogin: Send + Sync {
    /// Show `request.url` to a person and resolve with the authorization response, or with why
    /// none came (cancelled, timed out). Resolving late is harmless: the flow stops waiting
    /// after `request.timeout`.
    fn login(&self, request: LoginRequest) -> BoxFuture<'static, Result<CallbackReceived, String>>;
}

/// One authorization request.
pub(crate) struct AuthorizationRequest {
    pub(crate) url: String,
    pub(crate) state: String,
    pub(crate) pkce: Pkce,
    pub(crate) redirect_uri: String,
}

/// Build the authorization URL.
pub(crate) fn build(
    server: &AuthServer,
    client_id: &str,
    redirect_uri: &str,
    scopes: &[String],
    resource: Option<&str>,
) -> Result<AuthorizationRequest, AuthError> {
    let pkce = Pkce::new();
    let state = random_token(24);
    // The server chose this URL and every login mode hands it to a browser or a person: the
    // one rule for opening a server's URL decides here, before any mode sees it.
    let mut url = mcpscope_proto::openable::openable(&server.authorization_endpoint).map_err(|why| {
        AuthError::Authorization(format!(
            "the authorization server's authorization_endpoint {:?} is refused: {why}; mcpscope will not open it, so no login happens (ask the server's operator to fix its metadata)",
            server.authorization_endpoint
        ))
    })?;
    {
        let mut q = url.query_pairs_mut();
        q.append_pair("response_type", "code");
        q.append_pair("client_id", client_id);
        q.append_pair("redirect_uri", redirect_uri);
        q.append_pair("code_challenge", &pkce.challenge);
        q.append_pair("code_challenge_method", "S256");
        q.append_pair("state", &state);
        if !scopes.is_empty() {
            q.append_pair("scope", &scopes.join(" "));
        }
        if let Some(r) = resource {
            q.append_pair("resource", r);
        }
    }
    Ok(AuthorizationRequest {
        url: url.to_string(),
        state,
        pkce,
        redirect_uri: redirect_uri.to_string(),
    })
}

/// The parameters of an authorization response.
#[derive(Debug, Default)]
pub(crate) struct Callback {
    code: Option<String>,
    state: Option<String>,
    iss: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

impl Callback {
    fn from_url(u: &Url) -> Callback {
        let mut c = Callback::default();
        for (k, v) in u.query_pairs() {
            let v = Some(v.into_owned());
            match k.as_ref() {
                "code" => c.code = v,
                "state" => c.state = v,
                "iss" => c.iss = v,
                "error" => c.error = v,
                "error_description" => c.error_description = v,
                _ => {}
            }
        }
        c
    }
}

/// Same place: scheme, host, port and path (the query carries the response).
fn same_endpoint(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
        && a.path() == b.path()
}

/// `--headless-auth`: GET the authorization URL without following its redirect; the redirect to
/// our callback carries the response.
pub(crate) async fn headless(
    rec: &Recorder<'_>,
    req: &AuthorizationRequest,
) -> Result<Callback, AuthError> {
    let a = rec
        .send(Request {
            step: "authorization request (--headless-auth: the redirect is read, not followed)",
            method: "GET",
            url: &req.url,
            headers: vec![],
            body: None,
        })
        .await
        .map_err(AuthError::Authorization)?;
    if (300..400).contains(&a.status)
        && let Some(loc) = a.header("location")
    {
        let callback =
            Url::parse(&req.redirect_uri).map_err(|e| AuthError::Authorization(e.to_string()))?;
        let target = Url::parse(&req.url)
            .and_then(|u| u.join(loc))
            .map_err(|e| {
                AuthError::Authorization(format!(
                    "the authorization endpoint redirected to an invalid Location {loc:?}: {e}"
                ))
            })?;
        if !same_endpoint(&target, &callback) {
            let msg = format!(
                "the authorization endpoint redirected to {target}, not back to the callback {} (a login or consent page on another host?); --headless-auth does not follow it, it only works with authorization servers that approve at once — run without it to log in in the browser",
                req.redirect_uri
            );
            rec.step(msg.clone());
            return Err(AuthError::Authorization(msg));
        }
        return Ok(Callback::from_url(&target));
    }
    if a.ok() {
        return Err(AuthError::Authorization(format!(
            "the authorization endpoint answered HTTP {} (a login or consent page?) instead of redirecting back; --headless-auth only works with authorization servers that approve without a person — run without it to log in in the browser",
            a.status
        )));
    }
    let why = match a.oauth_error() {
        Some((e, d)) => {
            let msg = format!(
                "the authorization endpoint refused the request (HTTP {}, {e}{})",
                a.status,
                d.map(|d| format!(": {d}")).unwrap_or_default()
            );
            if e == "invalid_client" || e == "unauthorized_client" {
                return Err(AuthError::InvalidClient(msg));
            }
            msg
        }
        None => format!(
            "the authorization endpoint answered HTTP {}{}",
            a.status,
            crate::recorder::excerpt(&a.body)
        ),
    };
    Err(AuthError::Authorization(why))
}

type Received = (String, Vec<(String, String)>);

/// The `state` of a callback's query string: the one rule every loopback callback (the CLI's
/// here; the TUI's and the web UI's through the inspector) applies to tell whether a request is
/// the answer to the login it waits for. Only a request carrying that login's `state` ends it;
/// any other (a page on another site, a stale tab) is refused and the login keeps waiting.
pub fn callback_state(query: &str) -> Option<String> {
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v.into_owned())
}

#[derive(Clone)]
struct CallbackState {
    tx: Arc<Mutex<Option<oneshot::Sender<Received>>>>,
    /// The `state` of the one login this listener waits for.
    state: Arc<str>,
}

async fn on_callback(
    State(s): State<CallbackState>,
    uri: Uri,
    headers: HeaderMap,
) -> (StatusCode, Html<&'static str>) {
    if callback_state(uri.query().unwrap_or("")).as_deref() != Some(&*s.state) {
        return (
            StatusCode::BAD_REQUEST,
            Html(
                "<!doctype html><meta charset=utf-8><title>mcpscope</title>\
                 <p>This authorization response does not belong to the login mcpscope is waiting for (its state is not that login's). Nothing was done with it.</p>",
            ),
        );
    }
    let h = headers
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    if let Some(tx) = s.tx.lock().expect("callback lock").take() {
        let _ = tx.send((uri.to_string(), h));
    }
    (
        StatusCode::OK,
        Html(
            "<!doctype html><meta charset=utf-8><title>mcpscope</title>\
             <p>mcpscope received the authorization response. You can close this tab and return to the terminal.</p>",
        ),
    )
}

/// What the loopback login needs besides the request.
pub(crate) struct LoopbackOptions<'a> {
    pub(crate) open_browser: bool,
    pub(crate) timeout: Duration,
    pub(crate) notify: &'a (dyn Fn(&str) + Send + Sync),
}

/// Open the browser (or print the URL) and wait for the authorization response on the loopback
/// callback.
pub(crate) async fn loopback(
    rec: &Recorder<'_>,
    req: &AuthorizationRequest,
    opts: LoopbackOptions<'_>,
) -> Result<Callback, AuthError> {
    let callback =
        Url::parse(&req.redirect_uri).map_err(|e| AuthError::Authorization(e.to_string()))?;
    let ip = match callback.host() {
        Some(url::Host::Ipv4(a)) => IpAddr::V4(a),
        Some(url::Host::Ipv6(a)) => IpAddr::V6(a),
        // `localhost` (checked to be loopback when the URL was accepted).
        _ => IpAddr::V4(Ipv4Addr::LOCALHOST),
    };
    let port = callback.port_or_known_default().unwrap_or(80);
    let listener = tokio::net::TcpListener::bind((ip, port))
        .await
        .map_err(|e| {
            AuthError::Authorization(format!(
                "cannot listen on {ip}:{port} for the login callback ({e}): another mcpscope may be waiting for a login; pass --callback-url with another loopback port"
            ))
        })?;
    let (tx, rx) = oneshot::channel();
    let state = CallbackState {
        tx: Arc::new(Mutex::new(Some(tx))),
        state: req.state.as_str().into(),
    };
    let app = Router::new()
        .route(callback.path(), get(on_callback))
        .with_state(state);
    let server = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    rec.step(format!(
        "waiting for the authorization response on {} (up to {} s)",
        req.redirect_uri,
        opts.timeout.as_secs()
    ));
    (opts.notify)(&format!(
        "Authorize mcpscope in your browser; if it does not open, open this URL yourself:\n  {}",
        req.url
    ));
    if opts.open_browser {
        match webbrowser::open(&req.url) {
            Ok(()) => rec.step("opened the authorization URL in the browser"),
            Err(e) => {
                rec.step(format!("could not open a browser: {e}"));
                (opts.notify)(&format!(
                    "(no browser could be opened: {e}; use the URL above, or --print-auth-url)"
                ));
            }
        }
    }
    let got = tokio::time::timeout(opts.timeout, rx).await;
    server.abort();
    let (target, headers) = match got {
        Ok(Ok(r)) => r,
        _ => {
            return Err(AuthError::Authorization(format!(
                "no authorization response arrived at {} within {} s; run again and complete the login in the browser",
                req.redirect_uri,
                opts.timeout.as_secs()
            )));
        }
    };
    let full = callback
        .join(&target)
        .map_err(|e| AuthError::Authorization(e.to_string()))?;
    rec.sink.frame(
        Frame::new(Direction::In, FrameKind::OAuthResponse, Bytes::new()).with_meta(FrameMeta {
            method: Some("GET".into()),
            url: Some(full.to_string()),
            headers,
            note: Some("authorization response (loopback callback from the browser)".into()),
            ..Default::default()
        }),
    );
    Ok(Callback::from_url(&full))
}

/// [`LoginMode::External`]: hand the request to the embedding application and wait for the
/// authorization response it receives.
pub(crate) async fn external(
    rec: &Recorder<'_>,
    req: &AuthorizationRequest,
    login: &dyn ExternalLogin,
    request: LoginRequest,
) -> Result<Callback, AuthError> {
    let timeout = request.timeout;
    rec.step(format!(
        "waiting for the authorization response on {} (the person signs in from the web UI; up to {} s)",
        req.redirect_uri,
        timeout.as_secs()
    ));
    let got = match tokio::time::timeout(timeout, login.login(request)).await {
        Ok(Ok(r)) => r,
        Ok(Err(why)) => {
            rec.step(format!("no authorization response: {why}"));
            return Err(AuthError::Authorization(why));
        }
        Err(_) => {
            let why = format!(
                "no authorization response arrived at {} within {} s",
                req.redirect_uri,
                timeout.as_secs()
            );
            rec.step(why.clone());
            return Err(AuthError::Authorization(why));
        }
    };
    let full = Url::parse(&got.url).map_err(|e| {
        AuthError::Authorization(format!("the callback URL {:?} is not a URL: {e}", got.url))
    })?;
    rec.sink.frame(
        Frame::new(Direction::In, FrameKind::OAuthResponse, Bytes::new()).with_meta(FrameMeta {
            method: Some("GET".into()),
            url: Some(full.to_string()),
            headers: got.headers,
            note: Some("authorization response (callback from the browser)".into()),
            ..Default::default()
        }),
    );
    Ok(Callback::from_url(&full))
}

/// Check the response and return the code: `state` first (it must be ours), then `iss` (RFC
/// 9207) before anything else is believed, then `error`.
pub(crate) fn check(
    rec: &Recorder<'_>,
    cb: &Callback,
    req: &AuthorizationRequest,
    server: &AuthServer,
) -> Result<String, AuthError> {
    if cb.state.as_deref() != Some(req.state.as_str()) {
        return Err(AuthError::Authorization(format!(
            "the authorization response carries state {:?}, not the one sent: it does not belong to this login (possible cross-site request forgery), so it was refused",
            cb.state.as_deref().unwrap_or("(none)")
        )));
    }
    match (&cb.iss, &server.issuer) {
        (Some(iss), Some(expected)) if iss != expected => {
            // Mix-up protection: nothing else in this response is trustworthy, so its error
            // fields (if any) are not shown either.
            let msg = format!(
                "the authorization response says it comes from issuer {iss:?}, but the request went to {expected:?} (RFC 9207; compared exactly, without URL normalization); the code was not redeemed"
            );
            rec.step(msg.clone());
            return Err(AuthError::Authorization(msg));
        }
        (None, Some(expected)) if server.iss_parameter_supported => {
            let msg = format!(
                "the authorization server {expected} advertises authorization_response_iss_parameter_supported, but its response has no iss (RFC 9207); the code was not redeemed"
            );
            rec.step(msg.clone());
            return Err(AuthError::Authorization(msg));
        }
        (Some(iss), None) => rec.step(format!(
            "the authorization response names issuer {iss:?}; without metadata there is no recorded issuer to compare it with"
        )),
        (Some(_), Some(_)) => rec.step("iss matches the recorded issuer (RFC 9207)"),
        (None, _) => {}
    }
    if let Some(e) = &cb.error {
        let msg = format!(
            "the authorization server refused the authorization: {e}{}",
            cb.error_description
                .as_deref()
                .map(|d| format!(": {d}"))
                .unwrap_or_default()
        );
        return Err(if e == "invalid_client" || e == "unauthorized_client" {
            AuthError::InvalidClient(msg)
        } else {
            AuthError::Authorization(msg)
        });
    }
    cb.code.clone().ok_or_else(|| {
        AuthError::Authorization(
            "the authorization response has neither a code nor an error".into(),
        )
    })
}

/// Accept a `--callback-url`: `http` on a loopback host (127.0.0.0/8, `[::1]`, `localhost`) with
/// a path. Anything else would send the authorization code off this machine.
pub fn validate_callback_url(s: &str) -> Result<Url, AuthError> {
    let u = Url::parse(s)
        .map_err(|e| AuthError::Config(format!("--callback-url {s:?} is not a URL: {e}")))?;
    if u.scheme() != "http" {
        return Err(AuthError::Config(format!(
            "--callback-url {s} must be http:// on a loopback address (the login lands on a listener of this process)"
        )));
    }
    let loopback = match u.host() {
        Some(url::Host::Ipv4(a)) => a.is_loopback(),
        Some(url::Host::Ipv6(a)) => a.is_loopback(),
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        None => false,
    };
    if !loopback {
        return Err(AuthError::Config(format!(
            "--callback-url {s} is not a loopback address: the authorization code must not leave this machine; use http://127.0.0.1:PORT/PATH"
        )));
    }
    if u.fragment().is_some() || u.query().is_some() {
        return Err(AuthError::Config(format!(
            "--callback-url {s} must not have a query or fragment"
        )));
    }
    Ok(u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callback_urls() {
        assert!(validate_callback_url("http://127.0.0.1:6276/oauth/callback").is_ok());
        assert!(validate_callback_url("http://localhost:1/cb").is_ok());
        assert!(validate_callback_url("http://[::1]:1/cb").is_ok());
        assert!(validate_callback_url("http://127.8.0.1:1/cb").is_ok());
        for bad in [
            "https://127.0.0.1:1/cb",
            "http://example.com/cb",
            "http://10.0.0.1/cb",
            "http://127.0.0.1:1/cb?x=1",
            "not a url",
        ] {
            assert!(validate_callback_url(bad).is_err(), "{bad}");
        }
    }
}
