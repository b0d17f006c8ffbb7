//! The guards in front of every route. The threat model is CVE-2025-49596: a web page the user
//! happens to visit must not reach a local inspector that can spawn processes.
//!
//! Checked on every request, in this order (each refusal says which rule and what to do):
//!
//! 1. **Host allowlist** (403): a DNS-rebinding page reaches us under its own host name; a
//!    loopback name with our port, or a host named in `ALLOWED_ORIGINS`, is required.
//! 2. **`Sec-Fetch-Site: cross-site`** (403): the browser says another site started the request.
//! 3. **Origin allowlist** (403) when the request carries an `Origin`: only our own page.
//!    On `/api/*`, `Sec-Fetch-Site: same-site` is refused too: a page on another port of this
//!    host (the MCP Apps sandbox, where a server's app runs, or any local dev server) gets our
//!    SameSite cookie, since cookies do not separate ports, and a no-cors GET carries no
//!    `Origin` to refuse it by.
//! 4. **Token** (401) on `/api/*`: `x-mcp-remote-auth: Bearer <token>` or the `mcpscope_token`
//!    cookie, compared in constant time (`subtle`), unless auth was disabled on purpose. Any
//!    `mcpscope_token` cookie may match: cookies do not separate ports, so a page on another
//!    loopback port can toss a second one (`path=/api`, sent first) beside ours. After
//!    [`FREE_GUESSES`] wrong tokens in this process, each further wrong one is answered 429 after
//!    a growing wait (up to a second, one at a time), so a fixed short token cannot be guessed at
//!    thousands per second; the right token is never slowed. A wrong cookie value counts once,
//!    however often the browser sends it: a stale or tossed cookie is not a guess, a new value is.
//! 5. **Content-Type** (415) on `/api/*` writes: a body, or a Content-Type, must be
//!    `application/json`. A cross-origin HTML form can only send `text/plain`, form-encoded or
//!    multipart bodies, so this holds even if the Origin check ever failed.
//!
//! Before all of them, a request with more than one `Host`, `Origin`, `Sec-Fetch-Site` or
//! `x-mcp-remote-auth` is refused (400): the checks read one value, and a second one that a proxy
//! or a later reader might prefer must not slip past them.
//!
//! The token reaches the page only through the launch URL (`/?token=…`, printed for people who
//! copy it), which sets an HttpOnly SameSite=Strict cookie and redirects to `/` so the token
//! leaves the address bar. `GET /` without it serves the page without any token: it is never
//! handed out. The browser mcpscope opens itself gets `/?launch=CODE` instead: a browser's
//! command line is readable by every local user (`/proc/PID/cmdline`), so it carries a
//! single-use code that expires after [`LAUNCH_CODE_TTL`] and is exchanged for the same cookie
//! ([`Security::issue_launch_code`]), never the token.

use crate::error::ApiError;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use subtle::ConstantTimeEq;

/// The cookie that carries the token after the launch URL was opened.
pub const TOKEN_COOKIE: &str = "mcpscope_token";

/// The header that carries the token (the official Inspector's name).
pub const TOKEN_HEADER: &str = "x-mcp-remote-auth";

/// Wrong tokens answered at once; after these, each wrong one waits (see [`Guesses`]).
pub const FREE_GUESSES: u32 = 5;

/// How long a launch code may wait for the browser to open it.
pub(crate) const LAUNCH_CODE_TTL: Duration = Duration::from_secs(30);

/// Launch codes waiting at once; issuing one more forgets the oldest.
const LAUNCH_CODES: usize = 4;

/// The headers the guard reads one value of, so a request must carry at most one of each.
const SINGLE_HEADERS: [&str; 4] = ["host", "origin", "sec-fetch-site", TOKEN_HEADER];

/// Who may talk to the backend.
#[derive(Debug, Clone)]
pub struct Security {
    /// The per-launch token; `None` when auth is disabled (`DANGEROUSLY_OMIT_AUTH`).
    pub token: Option<String>,
    /// Accepted `Origin` values (`scheme://host:port`, lowercase, no trailing slash).
    pub allowed_origins: Vec<String>,
    /// Accepted `Host` values (`host:port`, lowercase).
    pub allowed_hosts: Vec<String>,
    /// Wrong tokens seen by this process (shared by clones).
    guesses: Arc<Guesses>,
    /// Launch codes not yet used, with when each expires (shared by clones).
    launch_codes: Arc<Mutex<Vec<(String, Instant)>>>,
    /// Served over TLS ([`Self::serve_https`]): origins say `https`, the cookie is `Secure`.
    https: bool,
    /// The origins came from `ALLOWED_ORIGINS`, so they keep the scheme they were given.
    origins_given: bool,
}

/// Wrong-token guesses, counted per process (every client is on loopback, so per address would
/// count nothing). Past [`FREE_GUESSES`], each wrong guess waits 100 ms more than the last, up to
/// a second, and the waits are served one at a time: many parallel guesses cannot share one wait.
#[derive(Debug, Default)]
struct Guesses {
    wrong: AtomicU32,
    queue: tokio::sync::Mutex<()>,
    /// Wrong cookie values already counted (their first [`COOKIE_KEPT`] bytes, the last
    /// [`COOKIES_KEPT`] of them).
    cookies: Mutex<Vec<Vec<u8>>>,
}

/// Wrong cookie values remembered, so a browser resending one is not counted again.
const COOKIES_KEPT: usize = 16;
/// Bytes of each remembered cookie value.
const COOKIE_KEPT: usize = 128;

impl Guesses {
    /// True when one of these wrong cookie values was not seen before (and is now remembered).
    fn new_cookie(&self, values: &[String]) -> bool {
        let mut seen = self
            .cookies
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut new = false;
        for v in values {
            let key = v.as_bytes()[..v.len().min(COOKIE_KEPT)].to_vec();
            if !seen.contains(&key) {
                if seen.len() >= COOKIES_KEPT {
                    seen.remove(0);
                }
                seen.push(key);
                new = true;
            }
        }
        new
    }

    /// Count a wrong guess; true when it was held back (and is to be answered 429).
    async fn wrong(&self) -> bool {
        let n = self.wrong.fetch_add(1, Ordering::Relaxed).saturating_add(1);
        if n <= FREE_GUESSES {
            return false;
        }
        let delay = Duration::from_millis(100)
            .saturating_mul(n - FREE_GUESSES)
            .min(Duration::from_secs(1));
        let _turn = self.queue.lock().await;
        tokio::time::sleep(delay).await;
        true
    }
}

impl Security {
    /// The defaults for a listener on `port`: loopback names only (`127.0.0.1`, `localhost`,
    /// `[::1]`). `origins` (from `ALLOWED_ORIGINS`) replaces the default origin list; the hosts
    /// of those origins are accepted as `Host` too, so a deliberately shared UI keeps working.
    pub fn for_port(port: u16, token: Option<String>, origins: Option<Vec<String>>) -> Security {
        let loopback = ["127.0.0.1", "localhost", "[::1]"];
        let mut allowed_hosts: Vec<String> =
            loopback.iter().map(|h| format!("{h}:{port}")).collect();
        let origins_given = origins.is_some();
        let allowed_origins = match origins {
            Some(list) => {
                let list: Vec<String> = list
                    .iter()
                    .map(|o| normalize_origin(o))
                    .filter(|o| !o.is_empty())
                    .collect();
                for o in &list {
                    if let Some(h) = origin_host(o)
                        && !allowed_hosts.contains(&h)
                    {
                        allowed_hosts.push(h);
                    }
                }
                list
            }
            None => loopback
                .iter()
                .map(|h| format!("http://{h}:{port}"))
                .collect(),
        };
        Security {
            token,
            allowed_origins,
            allowed_hosts,
            guesses: Arc::default(),
            launch_codes: Arc::default(),
            https: false,
            origins_given,
        }
    }

    /// The listener serves HTTPS (`INSPECTOR_TLS_*`): the page's own origins become `https://`
    /// (origins from `ALLOWED_ORIGINS` stay as written), a `Host` without a port means 443, and
    /// the token's cookie is `Secure`. Call before [`Self::allow_host`].
    pub fn serve_https(&mut self) {
        self.https = true;
        if !self.origins_given {
            for o in &mut self.allowed_origins {
                if let Some(rest) = o.strip_prefix("http://") {
                    *o = format!("https://{rest}");
                }
            }
        }
    }

    /// True when the listener serves HTTPS ([`Self::serve_https`]).
    pub fn is_https(&self) -> bool {
        self.https
    }

    /// The `Set-Cookie` value that hands `token` to the page: HttpOnly, SameSite=Strict, and
    /// Secure over HTTPS, so the browser never sends it over plain HTTP.
    pub fn token_cookie(&self, token: &str) -> String {
        let secure = if self.https { "; Secure" } else { "" };
        format!("{TOKEN_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/{secure}")
    }

    /// A fresh single-use code for the browser mcpscope opens (`/?launch=CODE`): redeemed once,
    /// within [`LAUNCH_CODE_TTL`], for the token's cookie.
    pub fn issue_launch_code(&self) -> String {
        let code = new_token();
        let mut codes = self.codes();
        let now = Instant::now();
        codes.retain(|(_, expires)| *expires > now);
        if codes.len() >= LAUNCH_CODES {
            codes.remove(0);
        }
        codes.push((code.clone(), now + LAUNCH_CODE_TTL));
        code
    }

    /// True once for a code [`Self::issue_launch_code`] gave that has not expired; it is then
    /// forgotten. Every waiting code is compared (constant time), so timing says nothing.
    pub(crate) fn redeem_launch_code(&self, candidate: &str) -> bool {
        let mut codes = self.codes();
        let now = Instant::now();
        let hit = codes.iter().fold(None, |hit, (code, expires)| {
            let same = bool::from(code.as_bytes().ct_eq(candidate.as_bytes()));
            if same && *expires > now {
                Some(code.clone())
            } else {
                hit
            }
        });
        codes.retain(|(code, expires)| *expires > now && Some(code) != hit.as_ref());
        hit.is_some()
    }

    fn codes(&self) -> std::sync::MutexGuard<'_, Vec<(String, Instant)>> {
        self.launch_codes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Accept `host` (a bound non-loopback address the user asked for) as a Host and an Origin.
    pub fn allow_host(&mut self, host_port: &str) {
        let h = host_port.to_ascii_lowercase();
        if !self.allowed_hosts.contains(&h) {
            self.allowed_hosts.push(h.clone());
        }
        let scheme = if self.https { "https" } else { "http" };
        let o = format!("{scheme}://{h}");
        if !self.allowed_origins.contains(&o) {
            self.allowed_origins.push(o);
        }
    }

    /// True when `candidate` is the token (constant time).
    pub fn token_matches(&self, candidate: &str) -> bool {
        match &self.token {
            None => true,
            Some(t) => bool::from(t.as_bytes().ct_eq(candidate.as_bytes())),
        }
    }

    /// Why a request is refused before any route sees it, if it is.
    ///
    /// `cross_site_ok` admits `Sec-Fetch-Site: cross-site` — only for the OAuth callback, which
    /// the authorization server's page navigates to by design and which acts only on a `state`
    /// we are waiting for.
    fn refuse(&self, headers: &HeaderMap, cross_site_ok: bool) -> Option<ApiError> {
        if let Some(name) = SINGLE_HEADERS
            .iter()
            .find(|name| headers.get_all(**name).iter().nth(1).is_some())
        {
            return Some(ApiError::usage(format!(
                "the request carries more than one {name} header; mcpscope checks exactly one, so it answers none"
            )));
        }
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .map(|h| normalize_host(h, if self.https { 443 } else { 80 }));
        match host {
            Some(h) if self.allowed_hosts.contains(&h) => {}
            Some(h) => {
                return Some(forbidden(format!(
                    "Host {h:?} is not allowed (DNS rebinding protection); open mcpscope at one of {} or add the origin to ALLOWED_ORIGINS",
                    self.allowed_hosts.join(", ")
                )));
            }
            None => {
                return Some(forbidden(
                    "the request has no Host header; mcpscope only answers requests that name it",
                ));
            }
        }
        if !cross_site_ok
            && headers
                .get("sec-fetch-site")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.eq_ignore_ascii_case("cross-site"))
        {
            return Some(forbidden(
                "a page on another site tried to reach mcpscope (Sec-Fetch-Site: cross-site); only mcpscope's own page may",
            ));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let o = origin.to_str().map(normalize_origin).unwrap_or_default();
            if !self.allowed_origins.contains(&o) {
                return Some(forbidden(format!(
                    "Origin {o:?} is not allowed; only mcpscope's own page may call it (set ALLOWED_ORIGINS to change the list)"
                )));
            }
        }
        None
    }

    /// The token a request presents in the header.
    fn presented_header(headers: &HeaderMap) -> Option<String> {
        let v = headers.get(TOKEN_HEADER)?.to_str().ok()?.trim();
        let token = v
            .strip_prefix("Bearer ")
            .or_else(|| v.strip_prefix("bearer "))
            .unwrap_or(v);
        Some(token.trim().to_string())
    }

    /// True when the request carries the right token, in the header or in any of its
    /// `mcpscope_token` cookies (or auth is off).
    pub fn authenticated(&self, headers: &HeaderMap) -> bool {
        self.token.is_none()
            || Self::presented_header(headers).is_some_and(|t| self.token_matches(&t))
            || cookies(headers, TOKEN_COOKIE).any(|t| self.token_matches(t))
    }

    /// Whether a refused request's token is a guess to count: a wrong header always, wrong
    /// cookies only when one of their values is new (see the module's rule 4).
    fn is_guess(&self, headers: &HeaderMap) -> bool {
        if Self::presented_header(headers).is_some() {
            return true;
        }
        let values: Vec<String> = cookies(headers, TOKEN_COOKIE).map(str::to_string).collect();
        !values.is_empty() && self.guesses.new_cookie(&values)
    }

    /// Count a wrong token (the header, the cookie or the launch URL's). Past [`FREE_GUESSES`]
    /// this waits, then returns the 429 (with `Retry-After`) to answer instead of the usual
    /// refusal.
    pub(crate) async fn wrong_token(&self) -> Option<Response> {
        if !self.guesses.wrong().await {
            return None;
        }
        let e = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "unauthorized",
            format!(
                "the token is wrong, and more than {FREE_GUESSES} wrong tokens were tried since mcpscope started, so each further one waits; open the URL mcpscope printed when it started"
            ),
        );
        let mut resp = e.into_response();
        resp.headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        Some(resp)
    }
}

/// A fresh per-launch token: 256 random bits as 64 hex digits.
pub fn new_token() -> String {
    let mut b = [0u8; 32];
    random_bytes(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Fill `buf` from the kernel's random number generator, through aws-lc (rustls's provider,
/// linked already), which asks with the getrandom system call. Not `rand`: in the statically
/// linked release its getrandom is found through dlsym, which finds nothing in a static binary,
/// so it opens /dev/urandom — absent from the image's empty root filesystem (image-check's
/// chroot run of the gateway panicked on it).
pub fn random_bytes(buf: &mut [u8]) {
    rustls::crypto::aws_lc_rs::default_provider()
        .secure_random
        .fill(buf)
        .expect("the kernel's random number generator");
}

fn forbidden(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::FORBIDDEN, "forbidden", message)
}

/// `host[:port]` lowercase, with the scheme's default port added when the browser left it out.
fn normalize_host(h: &str, default_port: u16) -> String {
    let h = h.trim().to_ascii_lowercase();
    let has_port = match h.rfind(':') {
        Some(i) => !h[i..].contains(']'),
        None => false,
    };
    if has_port {
        h
    } else {
        format!("{h}:{default_port}")
    }
}

/// `scheme://host:port` lowercase without a trailing slash; the default port is made explicit.
fn normalize_origin(o: &str) -> String {
    let o = o.trim().trim_end_matches('/').to_ascii_lowercase();
    match url::Url::parse(&o) {
        Ok(u) if u.host_str().is_some() => {
            let host = u.host_str().unwrap_or_default();
            let host = if host.contains(':') && !host.starts_with('[') {
                format!("[{host}]")
            } else {
                host.to_string()
            };
            match u.port_or_known_default() {
                Some(p) => format!("{}://{host}:{p}", u.scheme()),
                None => format!("{}://{host}", u.scheme()),
            }
        }
        _ => o,
    }
}

fn origin_host(o: &str) -> Option<String> {
    o.split_once("://").map(|(_, rest)| rest.to_string())
}

/// Every value of a cookie in the `Cookie` headers, in order (a browser sends one per path and
/// domain that matches, so there may be several of one name).
fn cookies<'a>(headers: &'a HeaderMap, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .filter(move |(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// Why a write's body is refused: with a body or a Content-Type, it must be `application/json`
/// (parameters such as `charset` allowed). Reads and bodiless writes without one pass.
fn not_json(req: &Request) -> Option<ApiError> {
    use axum::http::Method;
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return None;
    }
    let h = req.headers();
    let has_body = h.contains_key(header::TRANSFER_ENCODING)
        || h.get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim() != "0");
    let content_type = h.get(header::CONTENT_TYPE);
    if !has_body && content_type.is_none() {
        return None;
    }
    let json = content_type
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"));
    (!json).then(|| {
        ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "usage",
            format!(
                "the request body must be JSON with Content-Type: application/json (got {})",
                content_type
                    .and_then(|v| v.to_str().ok())
                    .map(|v| format!("{v:?}"))
                    .unwrap_or_else(|| "no Content-Type".into())
            ),
        )
    })
}

/// The refusal of an `/api` request another page of this host started (rule 3): only our own
/// page (`same-origin`) or no page at all (`none`, or no header: curl, the CLI) may call it.
fn same_site(headers: &HeaderMap) -> Option<ApiError> {
    let site = headers.get("sec-fetch-site")?.to_str().unwrap_or_default();
    site.eq_ignore_ascii_case("same-site").then(|| {
        forbidden(
            "a page on another port of this host tried to reach mcpscope's API (Sec-Fetch-Site: same-site), e.g. an MCP App in the sandbox; only mcpscope's own page may",
        )
    })
}

/// The middleware: duplicate guarded headers, Host, Sec-Fetch-Site and Origin on every request;
/// the token and the Content-Type rule on `/api/*`. Public for the gateway mode
/// (`mcpscope-gateway`), whose token model is this one.
pub async fn guard(State(sec): State<Arc<Security>>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    let callback = path == "/oauth/callback" && req.method() == axum::http::Method::GET;
    if let Some(refusal) = sec.refuse(req.headers(), callback) {
        return refusal.into_response();
    }
    let is_api = path == "/api" || path.starts_with("/api/");
    if is_api && let Some(refusal) = same_site(req.headers()) {
        return refusal.into_response();
    }
    if is_api && !sec.authenticated(req.headers()) {
        let presented = Security::presented_header(req.headers()).is_some()
            || cookies(req.headers(), TOKEN_COOKIE).next().is_some();
        if sec.is_guess(req.headers())
            && let Some(slowed) = sec.wrong_token().await
        {
            return slowed;
        }
        let message = if presented {
            "the token is wrong; open the URL mcpscope printed when it started (it carries this launch's token)"
        } else {
            "no token; open the URL mcpscope printed when it started (it carries this launch's token), or send x-mcp-remote-auth: Bearer <token>"
        };
        return ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message).into_response();
    }
    if is_api && let Some(refusal) = not_json(&req) {
        return refusal.into_response();
    }
    let mut resp = next.run(req).await;
    // Nothing of ours may be framed by another page or sniffed into another type.
    let h = resp.headers_mut();
    h.insert("x-frame-options", header::HeaderValue::from_static("DENY"));
    h.insert(
        "x-content-type-options",
        header::HeaderValue::from_static("nosniff"),
    );
    h.insert(
        "referrer-policy",
        header::HeaderValue::from_static("no-referrer"),
    );
    resp
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn loopback_hosts_and_origins_pass_and_others_do_not() {
        let s = Security::for_port(6274, Some("t".into()), None);
        assert!(
            s.refuse(&headers(&[("host", "127.0.0.1:6274")]), false)
                .is_none()
        );
        assert!(
            s.refuse(&headers(&[("host", "LOCALHOST:6274")]), false)
                .is_none()
        );
        assert!(
            s.refuse(&headers(&[("host", "[::1]:6274")]), false)
                .is_none()
        );
        assert!(
            s.refuse(&headers(&[("host", "evil.example:6274")]), false)
                .is_some()
        );
        assert!(
            s.refuse(&headers(&[("host", "localhost")]), false)
                .is_some()
        );
        assert!(s.refuse(&headers(&[]), false).is_some());
        let ok = [
            ("host", "localhost:6274"),
            ("origin", "http://localhost:6274"),
        ];
        assert!(s.refuse(&headers(&ok), false).is_none());
        let bad = [
            ("host", "localhost:6274"),
            ("origin", "http://localhost:3000"),
        ];
        assert!(s.refuse(&headers(&bad), false).is_some());
        let null = [("host", "localhost:6274"), ("origin", "null")];
        assert!(s.refuse(&headers(&null), false).is_some());
        let cross = [("host", "localhost:6274"), ("sec-fetch-site", "cross-site")];
        assert!(s.refuse(&headers(&cross), false).is_some());
        // Only the OAuth callback admits a cross-site navigation (the authorization server's page).
        assert!(s.refuse(&headers(&cross), true).is_none());
    }

    #[test]
    fn the_api_refuses_a_same_site_page_such_as_the_apps_sandbox() {
        assert!(same_site(&headers(&[("sec-fetch-site", "same-site")])).is_some());
        assert!(same_site(&headers(&[("sec-fetch-site", "Same-Site")])).is_some());
        assert!(same_site(&headers(&[("sec-fetch-site", "same-origin")])).is_none());
        assert!(same_site(&headers(&[("sec-fetch-site", "none")])).is_none());
        assert!(same_site(&headers(&[])).is_none());
    }

    #[test]
    fn allowed_origins_replace_the_defaults_and_add_their_hosts() {
        let s = Security::for_port(
            6274,
            None,
            Some(vec![
                "https://inspector.lan/".into(),
                "http://box:8080".into(),
            ]),
        );
        assert_eq!(
            s.allowed_origins,
            vec!["https://inspector.lan:443", "http://box:8080"]
        );
        assert!(s.allowed_hosts.contains(&"inspector.lan:443".to_string()));
        let o = [("host", "box:8080"), ("origin", "http://box:8080")];
        assert!(s.refuse(&headers(&o), false).is_none());
        let default_gone = [
            ("host", "localhost:6274"),
            ("origin", "http://localhost:6274"),
        ];
        assert!(s.refuse(&headers(&default_gone), false).is_some());
    }

    #[test]
    fn over_https_the_pages_origins_say_https_and_the_cookie_is_secure() {
        let mut s = Security::for_port(6274, Some("t".into()), None);
        assert!(!s.token_cookie("t").contains("Secure"));
        s.serve_https();
        s.allow_host("box.lan:6274");
        let ours = [
            ("host", "localhost:6274"),
            ("origin", "https://localhost:6274"),
        ];
        assert!(s.refuse(&headers(&ours), false).is_none());
        let lan = [("host", "box.lan:6274"), ("origin", "https://box.lan:6274")];
        assert!(s.refuse(&headers(&lan), false).is_none());
        let plain = [
            ("host", "localhost:6274"),
            ("origin", "http://localhost:6274"),
        ];
        assert!(s.refuse(&headers(&plain), false).is_some());
        assert_eq!(
            s.token_cookie("t"),
            "mcpscope_token=t; HttpOnly; SameSite=Strict; Path=/; Secure"
        );
        // A Host without a port is the scheme's default: 443.
        let mut on_443 = Security::for_port(443, None, None);
        on_443.serve_https();
        assert!(
            on_443
                .refuse(&headers(&[("host", "localhost")]), false)
                .is_none()
        );
        // Origins the user listed in ALLOWED_ORIGINS keep the scheme they were given.
        let mut given = Security::for_port(1, None, Some(vec!["http://dev.lan:8080".into()]));
        given.serve_https();
        assert_eq!(given.allowed_origins, ["http://dev.lan:8080"]);
    }

    #[test]
    fn a_stale_or_tossed_cookie_is_one_guess_however_often_it_is_sent() {
        let s = Security::for_port(1, Some("abc".into()), None);
        let stale = headers(&[("cookie", "mcpscope_token=x; mcpscope_token=old")]);
        assert!(s.is_guess(&stale), "new values count");
        for _ in 0..50 {
            assert!(!s.is_guess(&stale), "the browser resending them does not");
        }
        assert!(s.is_guess(&headers(&[("cookie", "mcpscope_token=y")])));
        assert!(
            s.is_guess(&headers(&[(TOKEN_HEADER, "Bearer x")])),
            "a header always counts"
        );
        assert!(!s.is_guess(&headers(&[])));
    }

    #[test]
    fn a_launch_code_works_once_and_not_after_it_expired() {
        let s = Security::for_port(1, Some("abc".into()), None);
        let code = s.issue_launch_code();
        assert_ne!(code, "abc");
        assert!(
            !s.redeem_launch_code("abc"),
            "the token is not a launch code"
        );
        assert!(
            s.clone().redeem_launch_code(&code),
            "clones share the codes"
        );
        assert!(!s.redeem_launch_code(&code), "used up");
        let late = s.issue_launch_code();
        s.codes()[0].1 = Instant::now() - Duration::from_millis(1);
        assert!(!s.redeem_launch_code(&late), "expired");
        let kept: Vec<String> = (0..LAUNCH_CODES + 2)
            .map(|_| s.issue_launch_code())
            .collect();
        assert_eq!(s.codes().len(), LAUNCH_CODES, "bounded");
        assert!(s.redeem_launch_code(kept.last().unwrap()));
    }

    #[test]
    fn the_token_comes_from_the_header_or_the_cookie() {
        let s = Security::for_port(1, Some("abc".into()), None);
        assert!(s.authenticated(&headers(&[(TOKEN_HEADER, "Bearer abc")])));
        assert!(!s.authenticated(&headers(&[(TOKEN_HEADER, "Bearer abd")])));
        assert!(s.authenticated(&headers(&[("cookie", "a=1; mcpscope_token=abc")])));
        assert!(!s.authenticated(&headers(&[("cookie", "mcpscope_token=ab")])));
        // Another loopback port's page tossed a cookie of our name, sent before ours.
        let tossed = [("cookie", "mcpscope_token=x; a=1; mcpscope_token=abc")];
        assert!(s.authenticated(&headers(&tossed)));
        let tossed = [
            ("cookie", "mcpscope_token=x"),
            ("cookie", "mcpscope_token=abc"),
        ];
        assert!(s.authenticated(&headers(&tossed)));
        assert!(!s.authenticated(&headers(&[])));
        let open = Security::for_port(1, None, None);
        assert!(open.authenticated(&headers(&[])));
    }
}
