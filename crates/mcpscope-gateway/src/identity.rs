//! Who is asking (`docs/gateway.md` "Routes"): the guard in front of the page and `/api`.
//!
//! - **Token** (the default): the web UI's model, `mcpscope_server::guard` itself — the Host,
//!   `Sec-Fetch-Site` and Origin checks, `x-mcp-remote-auth: Bearer <token>` or the
//!   `mcpscope_token` cookie on `/api`, JSON bodies only — and one user, `local`.
//! - **Trusted proxy** (`--trusted-proxy`): the authenticating proxy in front (oauth2-proxy, a
//!   platform console) says who the user is in a header. A peer address (from the TCP
//!   connection, never from a forwarded header) outside the trusted list is refused
//!   (`trusted-proxy`), so nobody can reach the pod around the proxy and name themselves; an
//!   `/api` request without the user header is refused (`identity-missing`). A page of another
//!   origin is refused (`origin`): `Sec-Fetch-Site: cross-site`/`same-site`, or an `Origin` that
//!   is neither in `ALLOWED_ORIGINS` nor the request's own `Host`; and an `/api` write must be
//!   JSON, which no cross-origin form can send.
//!
//! The user reaches the handlers as a request extension ([`User`]).

use crate::refusal::{REFUSAL_HEADER, Refusal, Rule};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderName, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use ipnet::IpNet;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// The user of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// The name (`local` in the token model).
    pub name: String,
    /// The groups (none in the token model).
    pub groups: Vec<String>,
}

/// The user header's longest value, and the groups header's.
const MAX_IDENTITY_BYTES: usize = 4096;

/// Groups kept per request.
const MAX_GROUPS: usize = 256;

/// The team model's settings.
#[derive(Debug, Clone)]
pub(crate) struct TrustedProxy {
    /// Addresses and networks the proxy connects from.
    pub trusted: Vec<IpNet>,
    /// The header naming the user.
    pub user_header: HeaderName,
    /// The header listing the user's groups (comma-separated).
    pub groups_header: HeaderName,
    /// `ALLOWED_ORIGINS`: the origins the page is opened from, normalised; `None` = the
    /// request's own `Host`.
    pub page_origins: Option<Vec<String>>,
}

/// Parse `--trusted-proxy` values: addresses (`10.0.0.5`, `::1`) or networks (`10.0.0.0/8`).
pub(crate) fn parse_trusted(values: &[String]) -> Result<Vec<IpNet>, String> {
    values
        .iter()
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(|v| {
            v.parse::<IpNet>()
                .or_else(|_| v.parse::<IpAddr>().map(IpNet::from))
                .map_err(|_| {
                    format!(
                        "--trusted-proxy {v:?}: give an IP address or a network such as 10.0.0.0/8"
                    )
                })
        })
        .collect()
}

impl TrustedProxy {
    fn peer_trusted(&self, peer: IpAddr) -> bool {
        // An IPv4 peer on a dual-stack socket arrives as ::ffff:a.b.c.d.
        let peer = match peer {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(peer),
            v4 => v4,
        };
        self.trusted.iter().any(|net| net.contains(&peer))
    }

    /// The user the proxy named, if it named one well.
    fn user(&self, headers: &HeaderMap) -> Result<User, Refusal> {
        let missing = || {
            Refusal::new(
                Rule::IdentityMissing,
                format!(
                    "the request carries no {} header; it must come through the authenticating proxy, which names the user",
                    self.user_header
                ),
            )
        };
        let mut values = headers.get_all(&self.user_header).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            return Err(missing());
        };
        let name = value.to_str().map_err(|_| missing())?.trim();
        if name.is_empty() || name.len() > MAX_IDENTITY_BYTES {
            return Err(missing());
        }
        let groups = headers
            .get_all(&self.groups_header)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .filter(|v| v.len() <= MAX_IDENTITY_BYTES)
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .filter(|g| !g.is_empty())
            .take(MAX_GROUPS)
            .map(str::to_string)
            .collect();
        Ok(User {
            name: name.to_string(),
            groups,
        })
    }

    /// The refusal of a page of another origin, if this is one.
    fn other_origin(&self, headers: &HeaderMap, is_api: bool) -> Option<Refusal> {
        let site = headers
            .get("sec-fetch-site")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        if site.eq_ignore_ascii_case("cross-site")
            || (is_api && site.eq_ignore_ascii_case("same-site"))
        {
            return Some(Refusal::new(
                Rule::Origin,
                format!(
                    "a page on another site tried to reach the gateway inspector (Sec-Fetch-Site: {site}); only its own page may"
                ),
            ));
        }
        let origin = headers.get(header::ORIGIN)?.to_str().unwrap_or("null");
        let allowed = match &self.page_origins {
            Some(list) => list.iter().any(|o| same_origin(o, origin)),
            None => headers
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .is_some_and(|host| origin_host(origin).is_some_and(|oh| same_host(&oh, host))),
        };
        (!allowed).then(|| {
            Refusal::new(
                Rule::Origin,
                format!("Origin {origin:?} is not this page's; only the gateway inspector's own page may call it (ALLOWED_ORIGINS lists the origins it is opened from)"),
            )
        })
    }
}

/// `host[:port]` of an origin.
fn origin_host(origin: &str) -> Option<String> {
    let u = url::Url::parse(origin).ok()?;
    let host = u.host_str()?.to_ascii_lowercase();
    Some(match u.port() {
        Some(p) => format!("{host}:{p}"),
        None => host,
    })
}

/// The same host, with `:80`/`:443` taken as no port (a proxy may or may not write them).
fn same_host(a: &str, b: &str) -> bool {
    let bare = |h: &str| {
        let h = h.trim().to_ascii_lowercase();
        h.strip_suffix(":80")
            .or_else(|| h.strip_suffix(":443"))
            .map(str::to_string)
            .unwrap_or(h)
    };
    bare(a) == bare(b)
}

fn same_origin(a: &str, b: &str) -> bool {
    let norm = |o: &str| {
        url::Url::parse(o.trim())
            .ok()
            .map(|u| crate::settings::normal_origin(&u))
    };
    norm(a).is_some() && norm(a) == norm(b)
}

/// The trusted-proxy guard (see the module docs).
pub(crate) async fn proxy_guard(
    State(proxy): State<Arc<TrustedProxy>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    mut req: Request,
    next: Next,
) -> Response {
    if !proxy.peer_trusted(peer.ip()) {
        return Refusal::new(
            Rule::TrustedProxy,
            format!(
                "this request did not come through the authenticating proxy (it came from {}, which is not a --trusted-proxy)",
                peer.ip()
            ),
        )
        .into_response();
    }
    let path = req.uri().path();
    let is_api = path == "/api" || path.starts_with("/api/");
    if let Some(refusal) = proxy.other_origin(req.headers(), is_api) {
        return refusal.into_response();
    }
    if is_api {
        match proxy.user(req.headers()) {
            Ok(user) => {
                req.extensions_mut().insert(user);
            }
            Err(refusal) => return refusal.into_response(),
        }
        if let Some(refusal) = not_json(&req) {
            return refusal.into_response();
        }
    }
    next.run(req).await
}

/// The token model's user, once `mcpscope_server::guard` let the request through.
pub(crate) async fn local_user(mut req: Request, next: Next) -> Response {
    req.extensions_mut().insert(User {
        name: "local".into(),
        groups: Vec::new(),
    });
    let mut resp = next.run(req).await;
    resp.extensions_mut().insert(PassedGuard);
    resp
}

/// Marks a response that came from behind the token guard (see [`mark_token_refusals`]).
#[derive(Clone, Copy)]
struct PassedGuard;

/// Names the token guard's own refusals (`mcpscope_server::guard`: no or a wrong token, a
/// cross-site page, a write that is not JSON) with `X-Mcpscope-Refusal: token`, so the page never
/// mistakes our 401 for the gateway asking for a bearer token and opens the wrong dialog. A
/// response from behind the guard (the gateway's own 401 included) is left as it is.
pub(crate) async fn mark_token_refusals(req: Request, next: Next) -> Response {
    let mut resp = next.run(req).await;
    if resp.extensions().get::<PassedGuard>().is_none()
        && resp.status().is_client_error()
        && !resp.headers().contains_key(REFUSAL_HEADER)
    {
        resp.headers_mut().insert(
            REFUSAL_HEADER,
            axum::http::HeaderValue::from_static("token"),
        );
    }
    resp
}

/// A write whose body is not JSON (a cross-origin form's `text/plain`, say).
fn not_json(req: &Request) -> Option<Refusal> {
    use axum::http::Method;
    if matches!(
        *req.method(),
        Method::GET | Method::HEAD | Method::OPTIONS | Method::DELETE
    ) {
        return None;
    }
    let json = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|e| e.trim().eq_ignore_ascii_case("application/json"));
    (!json).then(|| {
        Refusal::new(
            Rule::JsonRpc,
            "the request body must be JSON with Content-Type: application/json",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trusted_proxies_are_addresses_or_networks() {
        let nets = parse_trusted(&["10.0.0.0/8, 127.0.0.1".into(), "::1".into()]).unwrap();
        let p = TrustedProxy {
            trusted: nets,
            user_header: HeaderName::from_static("x-forwarded-user"),
            groups_header: HeaderName::from_static("x-forwarded-groups"),
            page_origins: None,
        };
        assert!(p.peer_trusted("10.1.2.3".parse().unwrap()));
        assert!(p.peer_trusted("127.0.0.1".parse().unwrap()));
        assert!(p.peer_trusted("::ffff:127.0.0.1".parse().unwrap()));
        assert!(!p.peer_trusted("127.0.0.2".parse().unwrap()));
        assert!(!p.peer_trusted("192.168.1.1".parse().unwrap()));
        assert!(parse_trusted(&["10.0.0.0/33".into()]).is_err());
        assert!(parse_trusted(&["proxy.local".into()]).is_err());
    }

    #[test]
    fn the_origin_must_be_the_pages_own() {
        let p = TrustedProxy {
            trusted: vec![],
            user_header: HeaderName::from_static("x-forwarded-user"),
            groups_header: HeaderName::from_static("x-forwarded-groups"),
            page_origins: None,
        };
        let h = |pairs: &[(&'static str, &str)]| {
            let mut m = HeaderMap::new();
            for (k, v) in pairs {
                m.append(*k, v.parse().unwrap());
            }
            m
        };
        let own = h(&[
            ("host", "inspector.example.com"),
            ("origin", "https://inspector.example.com"),
        ]);
        assert!(p.other_origin(&own, true).is_none());
        let evil = h(&[
            ("host", "inspector.example.com"),
            ("origin", "https://evil.example"),
        ]);
        assert!(p.other_origin(&evil, true).is_some());
        let cross = h(&[
            ("host", "inspector.example.com"),
            ("sec-fetch-site", "cross-site"),
        ]);
        assert!(p.other_origin(&cross, true).is_some());
        assert!(p.other_origin(&h(&[("host", "x")]), true).is_none(), "curl");
    }
}
