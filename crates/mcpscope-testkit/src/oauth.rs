//! An OAuth 2.1 authorization server and the MCP server it protects, on one loopback listener,
//! for the cases the conformance suite does not cover: refresh tokens that expire, clients the
//! server revokes, a token endpoint that is too slow, an authorization endpoint that sends the
//! browser to a login page on another host.
//!
//! Written from the specifications (RFC 6749/OAuth 2.1 code flow with PKCE S256, RFC 7591, RFC
//! 8414, RFC 9728, RFC 9207 `iss`), not from mcpscope's client, so a shared misreading shows up
//! as a failing test. Layout, under `http://127.0.0.1:PORT`:
//!
//! | path | what |
//! | --- | --- |
//! | `/mcp` | stateless legacy MCP (`initialize`, `ping`, `tools/list`, `tools/call echo`); Bearer required |
//! | `/.well-known/oauth-protected-resource/mcp` | PRM: resource `…/mcp`, authorization server `…/as` |
//! | `/.well-known/oauth-authorization-server/as` | AS metadata (issuer with a path) |
//! | `/as/register`, `/as/authorize`, `/as/token` | RFC 7591 registration, authorization (approves at once, or shows a consent page), token |
//! | `/as/consent` | the consent page's Approve / Deny ([`OAuthOptions::consent`]) |
//! | `/as/revoke` | RFC 7009 revocation (a refresh token takes its client's access tokens with it) |
//!
//! Access tokens are opaque (`access-N`) unless [`OAuthOptions::jwt_access_tokens`] asks for
//! RFC 9068-shaped JWTs (HS256 with a key only the fixture knows); either way the fixture checks
//! them by lookup, so a client that parses them proves nothing. [`OAuthOptions::tool_scopes`]
//! adds tools that need extra scopes, for step-up on one tool while the others work.

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::task::JoinHandle;

use crate::jsonrpc::{self, INVALID_PARAMS, Incoming, METHOD_NOT_FOUND, call_echo, echo_tool};

/// How the authorization server behaves. [`Default`]: tokens for an hour, refresh tokens that
/// never expire, an instant token endpoint, authorization approved at once, `tools/call` open to
/// any token.
#[derive(Debug, Clone)]
pub struct OAuthOptions {
    /// `expires_in` of access tokens (the server enforces it too).
    pub access_token_ttl: Duration,
    /// Issue refresh tokens (rotated on every use).
    pub refresh_tokens: bool,
    /// How long a refresh token lasts; `None`: until revoked.
    pub refresh_token_ttl: Option<Duration>,
    /// How long the token endpoint waits before answering.
    pub token_delay: Duration,
    /// Instead of approving, the authorization endpoint redirects here (a login page on another
    /// host, as real identity providers do).
    pub authorize_redirect_to: Option<String>,
    /// The scopes `tools/call` needs: a token without them gets `403 insufficient_scope`.
    pub call_scopes: Vec<String>,
    /// `scopes_supported` of the protected resource metadata.
    pub resource_scopes: Vec<String>,
    /// Extra tools (each an echo under another name) and the scopes each needs: a token without
    /// them gets `403 insufficient_scope` for that tool only.
    pub tool_scopes: Vec<(String, Vec<String>)>,
    /// Show a consent page (client, scopes, Approve / Deny) instead of approving at once, as a
    /// real authorization server does for a person in a browser.
    pub consent: bool,
    /// Issue access tokens as signed JWTs (`at+jwt`, RFC 9068 claims) instead of opaque strings.
    pub jwt_access_tokens: bool,
    /// A hostile metadata document: this `authorization_endpoint` instead of `…/as/authorize`
    /// (`file:///etc/passwd`, `javascript:…`, a custom scheme an OS hands to some program).
    pub authorization_endpoint: Option<String>,
    /// The `scope` the `401` challenge names (RFC 6750 §3; the MCP spec says SHOULD); `None`:
    /// none, clients fall back to `scopes_supported`.
    pub challenge_scope: Option<String>,
    // What follows breaks a rule on purpose, one at a time, for `mcpscope check`'s
    // authorization checks (each flaw fails its own check).
    /// A `401` carries `WWW-Authenticate` (false: a bare 401).
    pub www_authenticate: bool,
    /// The challenge names `resource_metadata` (false: clients must find the well-known URI).
    pub resource_metadata_in_challenge: bool,
    /// The protected resource metadata's `resource` instead of the MCP endpoint's URL.
    pub prm_resource: Option<String>,
    /// Publish the protected resource metadata (false: 404, as a server protected another way).
    pub protected_resource_metadata: bool,
    /// `code_challenge_methods_supported` of the metadata (empty: the field is left out).
    pub code_challenge_methods: Vec<String>,
    /// The metadata lists a `registration_endpoint` (RFC 7591).
    pub registration_endpoint: bool,
    /// The MCP endpoint lets any bearer token through, as a server that validates nothing does.
    pub accept_any_token: bool,
}

impl Default for OAuthOptions {
    fn default() -> Self {
        OAuthOptions {
            access_token_ttl: Duration::from_secs(3600),
            refresh_tokens: true,
            refresh_token_ttl: None,
            token_delay: Duration::ZERO,
            authorize_redirect_to: None,
            call_scopes: vec![],
            resource_scopes: vec!["mcp:read".into(), "mcp:write".into()],
            tool_scopes: vec![],
            consent: false,
            jwt_access_tokens: false,
            authorization_endpoint: None,
            challenge_scope: None,
            www_authenticate: true,
            resource_metadata_in_challenge: true,
            prm_resource: None,
            protected_resource_metadata: true,
            code_challenge_methods: vec!["S256".into()],
            registration_endpoint: true,
            accept_any_token: false,
        }
    }
}

/// What reached the fixture, counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OAuthStats {
    /// Dynamic registrations answered.
    pub registrations: u64,
    /// Authorization requests (any outcome).
    pub authorizations: u64,
    /// Codes redeemed.
    pub code_grants: u64,
    /// Refreshes granted.
    pub refresh_grants: u64,
    /// Refreshes refused (expired or unknown refresh token).
    pub refused_refreshes: u64,
    /// Token or authorization requests refused with `invalid_client`.
    pub invalid_client: u64,
    /// MCP requests that carried a valid token.
    pub mcp_authorized: u64,
    /// MCP requests answered 401.
    pub mcp_unauthorized: u64,
    /// Consent pages shown.
    pub consent_pages: u64,
    /// Authorizations a person denied on the consent page.
    pub denied: u64,
    /// Tokens revoked (RFC 7009), by `token_type_hint`: refresh tokens.
    pub revoked_refresh_tokens: u64,
    /// Access tokens revoked.
    pub revoked_access_tokens: u64,
}

struct Code {
    client_id: String,
    challenge: String,
    redirect_uri: String,
    scope: Vec<String>,
}

struct Access {
    scope: Vec<String>,
    expires: Instant,
    client_id: String,
}

struct Refresh {
    client_id: String,
    scope: Vec<String>,
    expires: Option<Instant>,
}

/// An authorization request waiting on the consent page.
struct Consent {
    client_id: String,
    redirect_uri: String,
    challenge: String,
    state: String,
    scope: Vec<String>,
}

#[derive(Default)]
struct Grants {
    clients: HashSet<String>,
    codes: HashMap<String, Code>,
    consents: HashMap<String, Consent>,
    access: HashMap<String, Access>,
    refresh: HashMap<String, Refresh>,
    stats: OAuthStats,
}

struct Shared {
    base: String,
    opts: Mutex<OAuthOptions>,
    grants: Mutex<Grants>,
    next: AtomicU64,
}

impl Shared {
    fn grants(&self) -> std::sync::MutexGuard<'_, Grants> {
        self.grants.lock().unwrap_or_else(PoisonError::into_inner)
    }
    fn opts(&self) -> OAuthOptions {
        self.opts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
    fn fresh(&self, prefix: &str) -> String {
        format!("{prefix}-{}", self.next.fetch_add(1, Ordering::SeqCst) + 1)
    }
    fn issuer(&self) -> String {
        format!("{}/as", self.base)
    }
    fn mcp_url(&self) -> String {
        format!("{}/mcp", self.base)
    }
    fn prm_url(&self) -> String {
        format!("{}/.well-known/oauth-protected-resource/mcp", self.base)
    }
}

/// The authorization server and protected MCP server, running on loopback until dropped.
pub struct OAuthFixture {
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl OAuthFixture {
    /// Start on `127.0.0.1` with a free port.
    pub async fn spawn(opts: OAuthOptions) -> crate::Result<OAuthFixture> {
        let listener =
            tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
        Self::spawn_on(listener, opts)
    }

    /// Start on a listener the caller bound (the `mcpscope-testkit oauth` command, a fixed port).
    pub fn spawn_on(
        listener: tokio::net::TcpListener,
        opts: OAuthOptions,
    ) -> crate::Result<OAuthFixture> {
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            base: format!("http://{addr}"),
            opts: Mutex::new(opts),
            grants: Mutex::new(Grants::default()),
            next: AtomicU64::new(0),
        });
        let app = Router::new()
            .route("/mcp", post(mcp))
            .route("/.well-known/oauth-protected-resource/mcp", get(prm))
            .route(
                "/.well-known/oauth-authorization-server/as",
                get(as_metadata),
            )
            .route("/as/register", post(register))
            .route("/as/authorize", get(authorize))
            .route("/as/consent", get(consent))
            .route("/as/token", post(token))
            .route("/as/revoke", post(revoke))
            .with_state(shared.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(OAuthFixture { shared, task })
    }

    /// The protected MCP endpoint.
    pub fn mcp_url(&self) -> String {
        self.shared.mcp_url()
    }

    /// The authorization server's issuer (it has a path: `…/as`).
    pub fn issuer(&self) -> String {
        self.shared.issuer()
    }

    /// What arrived so far.
    pub fn stats(&self) -> OAuthStats {
        self.shared.grants().stats.clone()
    }

    /// Forget every client registered so far, with its tokens: what a server does when an admin
    /// deletes a client or it expires.
    pub fn revoke_clients(&self) {
        let mut g = self.shared.grants();
        g.clients.clear();
        g.access.clear();
        g.refresh.clear();
        g.codes.clear();
    }

    /// Make every refresh token issued so far expired.
    pub fn expire_refresh_tokens(&self) {
        let past = Instant::now() - Duration::from_secs(1);
        for r in self.shared.grants().refresh.values_mut() {
            r.expires = Some(past);
        }
    }

    /// Change the behaviour from now on.
    pub fn set_options(&self, f: impl FnOnce(&mut OAuthOptions)) {
        f(&mut self
            .shared
            .opts
            .lock()
            .unwrap_or_else(PoisonError::into_inner));
    }
}

impl Drop for OAuthFixture {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn json_response(status: StatusCode, body: Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    json_response(
        status,
        json!({"error": error, "error_description": description}),
    )
}

async fn prm(State(s): State<Arc<Shared>>) -> Response {
    let opts = s.opts();
    if !opts.protected_resource_metadata {
        return StatusCode::NOT_FOUND.into_response();
    }
    json_response(
        StatusCode::OK,
        json!({
            "resource": opts.prm_resource.clone().unwrap_or_else(|| s.mcp_url()),
            "authorization_servers": [s.issuer()],
            "scopes_supported": opts.resource_scopes,
            "bearer_methods_supported": ["header"],
        }),
    )
}

async fn as_metadata(State(s): State<Arc<Shared>>) -> Response {
    let i = s.issuer();
    let opts = s.opts();
    let authorize = opts
        .authorization_endpoint
        .clone()
        .unwrap_or_else(|| format!("{i}/authorize"));
    let mut doc = json!({
            "issuer": i,
            "authorization_endpoint": authorize,
            "token_endpoint": format!("{i}/token"),
            "registration_endpoint": format!("{i}/register"),
            "revocation_endpoint": format!("{i}/revoke"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": opts.code_challenge_methods,
            "token_endpoint_auth_methods_supported": ["none"],
            "scopes_supported": ["mcp:read", "mcp:write", "offline_access"],
            "authorization_response_iss_parameter_supported": true,
    });
    if opts.code_challenge_methods.is_empty() {
        doc.as_object_mut()
            .map(|d| d.remove("code_challenge_methods_supported"));
    }
    if !opts.registration_endpoint {
        doc.as_object_mut()
            .map(|d| d.remove("registration_endpoint"));
    }
    json_response(StatusCode::OK, doc)
}

/// `401 invalid_client` (counted) for a client this server does not know (any more).
fn unknown_client(g: &mut Grants, client_id: &str) -> Option<Response> {
    if g.clients.contains(client_id) {
        return None;
    }
    g.stats.invalid_client += 1;
    Some(oauth_error(
        StatusCode::UNAUTHORIZED,
        "invalid_client",
        "unknown or revoked client",
    ))
}

/// RFC 7009: revoke a token of the calling client. Unknown tokens are a success too (§2.2); an
/// unknown client is not. A refresh token takes the client's access tokens with it, as §2.1
/// says a server SHOULD for tokens of the same grant (this fixture has one grant per client).
async fn revoke(State(s): State<Arc<Shared>>, body: Bytes) -> Response {
    let form: HashMap<String, String> = url::form_urlencoded::parse(&body).into_owned().collect();
    let client_id = form.get("client_id").cloned().unwrap_or_default();
    let token = form.get("token").cloned().unwrap_or_default();
    let mut g = s.grants();
    if let Some(refused) = unknown_client(&mut g, &client_id) {
        return refused;
    }
    if token.is_empty() {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "no token");
    }
    if g.refresh
        .get(&token)
        .is_some_and(|r| r.client_id == client_id)
    {
        g.refresh.remove(&token);
        g.access.retain(|_, a| a.client_id != client_id);
        g.stats.revoked_refresh_tokens += 1;
    } else if g
        .access
        .get(&token)
        .is_some_and(|a| a.client_id == client_id)
    {
        g.access.remove(&token);
        g.stats.revoked_access_tokens += 1;
    }
    StatusCode::OK.into_response()
}

async fn register(State(s): State<Arc<Shared>>, body: Bytes) -> Response {
    let Ok(req) = serde_json::from_slice::<Value>(&body) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_client_metadata",
            "the body is not JSON",
        );
    };
    let Some(uris) = req.get("redirect_uris").and_then(Value::as_array) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_redirect_uri",
            "redirect_uris is required",
        );
    };
    let id = s.fresh("client");
    let mut g = s.grants();
    g.clients.insert(id.clone());
    g.stats.registrations += 1;
    json_response(
        StatusCode::CREATED,
        json!({
            "client_id": id,
            "redirect_uris": uris,
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
        }),
    )
}

async fn authorize(
    State(s): State<Arc<Shared>>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let opts = s.opts();
    let get = |k: &str| q.get(k).cloned().unwrap_or_default();
    let client_id = get("client_id");
    {
        let mut g = s.grants();
        g.stats.authorizations += 1;
        // An unknown client must not be redirected anywhere (its redirect URI is unverified).
        if !g.clients.contains(&client_id) {
            g.stats.invalid_client += 1;
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_client",
                "unknown or revoked client",
            );
        }
    }
    if let Some(login) = opts.authorize_redirect_to {
        return redirect(&login);
    }
    let redirect_uri = get("redirect_uri");
    let Ok(mut back) = url::Url::parse(&redirect_uri) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "redirect_uri is not a URL",
        );
    };
    if get("code_challenge_method") != "S256" || get("code_challenge").is_empty() {
        back.query_pairs_mut()
            .append_pair("error", "invalid_request")
            .append_pair("error_description", "PKCE S256 is required")
            .append_pair("state", &get("state"))
            .append_pair("iss", &s.issuer());
        return redirect(back.as_str());
    }
    let request = Consent {
        client_id,
        redirect_uri,
        challenge: get("code_challenge"),
        state: get("state"),
        scope: get("scope")
            .split_whitespace()
            .map(str::to_string)
            .collect(),
    };
    if opts.consent {
        return consent_page(&s, request);
    }
    approve(&s, request)
}

/// Issue a code for `c` and send the browser back to the client.
fn approve(s: &Shared, c: Consent) -> Response {
    let Ok(mut back) = url::Url::parse(&c.redirect_uri) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "redirect_uri is not a URL",
        );
    };
    let code = s.fresh("code");
    s.grants().codes.insert(
        code.clone(),
        Code {
            client_id: c.client_id,
            challenge: c.challenge,
            redirect_uri: c.redirect_uri.clone(),
            scope: c.scope,
        },
    );
    back.query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", &c.state)
        .append_pair("iss", &s.issuer());
    redirect(back.as_str())
}

/// Text for HTML: the five characters that could end an element or an attribute.
fn html_escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The consent page: who asks, for which scopes, and two plain links (no script, no form
/// state), so a person — or a browser test — decides with one click.
fn consent_page(s: &Shared, c: Consent) -> Response {
    let tx = s.fresh("consent");
    let scopes: String = if c.scope.is_empty() {
        "<li><em>no scope requested</em></li>".into()
    } else {
        c.scope
            .iter()
            .map(|x| {
                format!(
                    "<li><code data-scope=\"{0}\">{0}</code></li>",
                    html_escape(x)
                )
            })
            .collect()
    };
    let page = format!(
        "<!doctype html><html><head><meta charset=utf-8><title>Authorize {client} · mcpscope-testkit</title>\
         <style>body{{font:15px system-ui,sans-serif;max-width:34em;margin:3em auto;color:#222}}\
         a.b{{display:inline-block;padding:.5em 1.2em;margin-right:.6em;border-radius:6px;text-decoration:none;border:1px solid #888;color:#222}}\
         a#approve{{background:#2b6cb0;color:#fff;border-color:#2b6cb0}}</style></head><body>\
         <h1>Authorize access</h1><p>The client <code id=client>{client}</code> asks for access to \
         <code>{resource}</code> with these scopes:</p><ul id=scopes>{scopes}</ul>\
         <p>Signed in as <b>testkit-user</b> at <code>{issuer}</code>.</p>\
         <p><a class=b id=approve href=\"/as/consent?tx={tx}&amp;decision=approve\">Approve</a>\
         <a class=b id=deny href=\"/as/consent?tx={tx}&amp;decision=deny\">Deny</a></p></body></html>",
        client = html_escape(&c.client_id),
        resource = html_escape(&s.mcp_url()),
        issuer = html_escape(&s.issuer()),
    );
    {
        let mut g = s.grants();
        g.stats.consent_pages += 1;
        g.consents.insert(tx, c);
    }
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        page,
    )
        .into_response()
}

async fn consent(
    State(s): State<Arc<Shared>>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let tx = q.get("tx").cloned().unwrap_or_default();
    let Some(c) = s.grants().consents.remove(&tx) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "unknown or already decided consent",
        );
    };
    if q.get("decision").map(String::as_str) == Some("approve") {
        return approve(&s, c);
    }
    s.grants().stats.denied += 1;
    let Ok(mut back) = url::Url::parse(&c.redirect_uri) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "redirect_uri is not a URL",
        );
    };
    back.query_pairs_mut()
        .append_pair("error", "access_denied")
        .append_pair("error_description", "the user denied the request")
        .append_pair("state", &c.state)
        .append_pair("iss", &s.issuer());
    redirect(back.as_str())
}

fn redirect(to: &str) -> Response {
    let mut r = StatusCode::FOUND.into_response();
    if let Ok(v) = HeaderValue::from_str(to) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

/// The token endpoint: an authorization code (PKCE and `resource` checked) or a refresh token
/// (rotated) redeemed for an access token.
async fn token(State(s): State<Arc<Shared>>, body: Bytes) -> Response {
    let opts = s.opts();
    tokio::time::sleep(opts.token_delay).await;
    let form: HashMap<String, String> = url::form_urlencoded::parse(&body).into_owned().collect();
    let client_id = field(&form, "client_id");
    let mut g = s.grants();
    if let Some(refused) = unknown_client(&mut g, &client_id) {
        return refused;
    }
    let scope = match field(&form, "grant_type").as_str() {
        "authorization_code" => redeem_code(&s, &mut g, &form, &client_id),
        "refresh_token" => redeem_refresh(&mut g, &form, &client_id),
        other => Err(Box::new(oauth_error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            &format!("grant_type {other:?}"),
        ))),
    };
    match scope {
        Ok(scope) => issue(&s, &mut g, &opts, client_id, scope),
        Err(refused) => *refused,
    }
}

/// A form field, empty when absent.
fn field(form: &HashMap<String, String>, k: &str) -> String {
    form.get(k).cloned().unwrap_or_default()
}

/// `authorization_code`: the code is used up; its client, redirect URI and PKCE verifier must
/// match, and `resource` must be the MCP server. The code's scope on success.
fn redeem_code(
    s: &Shared,
    g: &mut Grants,
    form: &HashMap<String, String>,
    client_id: &str,
) -> Result<Vec<String>, Box<Response>> {
    let Some(code) = g.codes.remove(&field(form, "code")) else {
        return Err(Box::new(oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_grant",
            "unknown code",
        )));
    };
    let verifier = field(form, "code_verifier");
    let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(Sha256::digest(verifier.as_bytes()));
    if code.client_id != client_id
        || code.redirect_uri != field(form, "redirect_uri")
        || computed != code.challenge
    {
        return Err(Box::new(oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_grant",
            "client, redirect_uri or code_verifier does not match the code",
        )));
    }
    if field(form, "resource") != s.mcp_url() {
        return Err(Box::new(oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_target",
            "resource must be the protected MCP server",
        )));
    }
    g.stats.code_grants += 1;
    Ok(code.scope)
}

/// `refresh_token`: the token is used up (rotation); it must be unexpired and the client's.
/// Its scope on success.
fn redeem_refresh(
    g: &mut Grants,
    form: &HashMap<String, String>,
    client_id: &str,
) -> Result<Vec<String>, Box<Response>> {
    let Some(r) = g.refresh.remove(&field(form, "refresh_token")) else {
        g.stats.refused_refreshes += 1;
        return Err(Box::new(oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_grant",
            "unknown refresh token",
        )));
    };
    if r.expires.is_some_and(|e| e <= Instant::now()) {
        g.stats.refused_refreshes += 1;
        return Err(Box::new(oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_grant",
            "the refresh token has expired",
        )));
    }
    if r.client_id != client_id {
        return Err(Box::new(oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_grant",
            "the refresh token belongs to another client",
        )));
    }
    g.stats.refresh_grants += 1;
    Ok(r.scope)
}

/// Issue an access token (a JWT when configured) and, when configured, a refresh token, and
/// answer with them.
fn issue(
    s: &Shared,
    g: &mut Grants,
    opts: &OAuthOptions,
    client_id: String,
    scope: Vec<String>,
) -> Response {
    let access = if opts.jwt_access_tokens {
        jwt_access_token(s, &client_id, &scope, opts.access_token_ttl)
    } else {
        s.fresh("access")
    };
    g.access.insert(
        access.clone(),
        Access {
            scope: scope.clone(),
            expires: Instant::now() + opts.access_token_ttl,
            client_id: client_id.clone(),
        },
    );
    let mut answer = json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": opts.access_token_ttl.as_secs(),
        "scope": scope.join(" "),
    });
    if opts.refresh_tokens {
        let refresh = s.fresh("refresh");
        g.refresh.insert(
            refresh.clone(),
            Refresh {
                client_id,
                scope,
                expires: opts.refresh_token_ttl.map(|t| Instant::now() + t),
            },
        );
        answer["refresh_token"] = json!(refresh);
    }
    json_response(StatusCode::OK, answer)
}

/// The key access-token JWTs are signed with. Fixed and public: the fixture checks tokens by
/// lookup, the signature only makes them look like what real servers issue.
const JWT_KEY: &[u8] = b"mcpscope-testkit-not-a-secret";

/// HMAC-SHA256 (RFC 2104), for the HS256 signature.
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

/// An RFC 9068 access token: `at+jwt`, HS256, issuer, audience (the MCP server), subject,
/// client, scope, issued-at, expiry and a unique id.
fn jwt_access_token(s: &Shared, client_id: &str, scope: &[String], ttl: Duration) -> String {
    let b64 = |v: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let header = json!({"alg": "HS256", "typ": "at+jwt", "kid": "testkit-1"});
    let claims = json!({
        "iss": s.issuer(),
        "sub": "testkit-user",
        "aud": s.mcp_url(),
        "client_id": client_id,
        "scope": scope.join(" "),
        "iat": now,
        "exp": now + ttl.as_secs(),
        "jti": s.fresh("jti"),
    });
    let signing_input = format!(
        "{}.{}",
        b64(header.to_string().as_bytes()),
        b64(claims.to_string().as_bytes())
    );
    let signature = hmac_sha256(JWT_KEY, signing_input.as_bytes());
    format!("{signing_input}.{}", b64(&signature))
}

fn challenge(s: &Shared, status: StatusCode, params: &str) -> Response {
    let mut r = (
        status,
        [(header::CONTENT_TYPE, "text/plain")],
        "authorization needed",
    )
        .into_response();
    let opts = s.opts();
    if !opts.www_authenticate {
        return r;
    }
    let mut value = format!("Bearer {params}");
    if status == StatusCode::UNAUTHORIZED
        && let Some(scope) = &opts.challenge_scope
    {
        value.push_str(&format!(r#"scope="{scope}", "#));
    }
    if opts.resource_metadata_in_challenge {
        value.push_str(&format!(r#"resource_metadata="{}""#, s.prm_url()));
    }
    let value = value.trim_end_matches([' ', ',']).to_string();
    if let Ok(v) = HeaderValue::from_str(&value) {
        r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    r
}

/// The protected MCP server: a valid bearer token first (else `401`), then, on `tools/call`,
/// every scope the call needs (else `403 insufficient_scope`), then a small legacy server.
async fn mcp(State(s): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let opts = s.opts();
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_string);
    let granted = match granted_scope(&s, token.as_deref()) {
        Ok(scope) => scope,
        // The flaw: any token is taken, with every scope the calls could need.
        Err(_) if token.is_some() && opts.accept_any_token => {
            let mut all = opts.call_scopes.clone();
            all.extend(opts.tool_scopes.iter().flat_map(|(_, s)| s.clone()));
            all
        }
        Err(refused) => return *refused,
    };
    let Incoming::Request { id, method, params } = jsonrpc::classify(&body) else {
        return StatusCode::ACCEPTED.into_response();
    };
    let tool = params.get("name").and_then(Value::as_str).unwrap_or("");
    let extra = opts
        .tool_scopes
        .iter()
        .find(|(name, _)| name == tool)
        .map(|(_, scopes)| scopes.clone());
    let mut needed = if method == "tools/call" {
        opts.call_scopes.clone()
    } else {
        vec![]
    };
    if method == "tools/call" {
        needed.extend(extra.clone().unwrap_or_default());
    }
    if !needed.iter().all(|c| granted.contains(c)) {
        // The challenge names every scope this request needs (RFC 6750 §3.1), so a
        // client that steps up with it is authorized at once.
        let p = format!(
            r#"error="insufficient_scope", scope="{}", error_description="{} needs {}", "#,
            needed.join(" "),
            if tool.is_empty() {
                "this request"
            } else {
                tool
            },
            needed.join(" ")
        );
        return challenge(&s, StatusCode::FORBIDDEN, &p);
    }
    let answer = match method.as_str() {
        "initialize" => jsonrpc::result(
            &id,
            jsonrpc::initialize_result(
                crate::LEGACY_PROTOCOL_VERSION,
                json!({"tools": {}}),
                "mcpscope-testkit-oauth",
            ),
        ),
        "ping" => jsonrpc::result(&id, json!({})),
        "tools/list" => jsonrpc::result(&id, json!({"tools": listed_tools(&opts)})),
        "tools/call" if tool == "echo" || extra.is_some() => {
            jsonrpc::result(&id, call_echo(&params))
        }
        "tools/call" => jsonrpc::error(&id, INVALID_PARAMS, "Unknown tool", None),
        _ => jsonrpc::error(&id, METHOD_NOT_FOUND, "Method not found", None),
    };
    json_response(StatusCode::OK, answer)
}

/// The scope of a valid (known, unexpired, of a still-registered client) bearer token; else
/// the `401` challenge, `invalid_token` when a token was sent.
fn granted_scope(s: &Shared, token: Option<&str>) -> Result<Vec<String>, Box<Response>> {
    let mut g = s.grants();
    let valid = token.and_then(|t| {
        g.access
            .get(t)
            .filter(|a| a.expires > Instant::now() && g.clients.contains(&a.client_id))
            .map(|a| a.scope.clone())
    });
    match valid {
        Some(scope) => {
            g.stats.mcp_authorized += 1;
            Ok(scope)
        }
        None => {
            g.stats.mcp_unauthorized += 1;
            drop(g);
            let params = if token.is_some() {
                r#"error="invalid_token", error_description="unknown, expired or revoked token", "#
            } else {
                ""
            };
            Err(Box::new(challenge(s, StatusCode::UNAUTHORIZED, params)))
        }
    }
}

/// `echo`, and one echo per scoped tool of the options, named for the scope it needs.
fn listed_tools(opts: &OAuthOptions) -> Vec<Value> {
    let mut tools = vec![echo_tool()];
    for (name, scopes) in &opts.tool_scopes {
        let mut t = echo_tool();
        t["name"] = json!(name);
        t["description"] = json!(format!(
            "Returns its `text` argument; needs the scope {}.",
            scopes.join(" ")
        ));
        tools.push(t);
    }
    tools
}
