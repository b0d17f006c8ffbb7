//! Discovery: protected resource metadata (RFC 9728) and authorization server metadata (RFC 8414,
//! OpenID Connect Discovery), in the order the MCP specification fixes, with its checks.
//!
//! - PRM: the challenge's `resource_metadata`, else `/.well-known/oauth-protected-resource/<path>`,
//!   else `/.well-known/oauth-protected-resource`. Its `resource` must be this server (same
//!   origin, a path prefix of ours), or nothing is sent anywhere.
//! - AS metadata for issuer `https://as/t1`: `/.well-known/oauth-authorization-server/t1`,
//!   `/.well-known/openid-configuration/t1`, `/t1/.well-known/openid-configuration` (without a
//!   path: the first two at the root). A document whose `issuer` is not exactly the issuer we
//!   built the URL from is discarded.
//! - A server with no PRM at all is a 2025-03-26 server: its origin is the authorization server,
//!   whose metadata is at the root, and whose endpoints default to `/authorize`, `/token` and
//!   `/register` when there is none.

use crate::challenge::split_scopes;
use crate::error::AuthError;
use crate::recorder::Recorder;
use serde_json::{Map, Value};
use url::Url;

/// What the protected resource metadata said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedResource {
    /// Where it was found.
    pub metadata_url: String,
    /// Its `resource`, verbatim: what goes into the `resource` parameter (RFC 8707).
    pub resource: String,
    /// Its authorization servers (issuers), in its order.
    pub authorization_servers: Vec<String>,
    /// Its `scopes_supported`.
    pub scopes_supported: Option<Vec<String>>,
}

/// An authorization server as far as the flow needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthServer {
    /// The validated issuer; `None` for a 2025-03-26 server without metadata.
    pub issuer: Option<String>,
    /// What credentials are stored under: the issuer, or the server's origin without one.
    pub key: String,
    /// Where the metadata came from (`None`: default endpoints).
    pub metadata_url: Option<String>,
    /// `authorization_endpoint`.
    pub authorization_endpoint: String,
    /// `token_endpoint`.
    pub token_endpoint: String,
    /// `registration_endpoint` (RFC 7591).
    pub registration_endpoint: Option<String>,
    /// `revocation_endpoint` (RFC 7009), where tokens are revoked on `--relogin` and Forget.
    pub revocation_endpoint: Option<String>,
    /// `scopes_supported`.
    pub scopes_supported: Option<Vec<String>>,
    /// `code_challenge_methods_supported` (`None`: no metadata at all).
    pub code_challenge_methods: Option<Vec<String>>,
    /// `token_endpoint_auth_methods_supported`.
    pub token_endpoint_auth_methods: Option<Vec<String>>,
    /// `authorization_response_iss_parameter_supported` (RFC 9207).
    pub iss_parameter_supported: bool,
    /// `client_id_metadata_document_supported`.
    pub client_id_metadata_document_supported: bool,
}

/// The PRM URLs to try, in order.
pub fn protected_resource_urls(server_url: &str, from_challenge: Option<&str>) -> Vec<String> {
    let mut out = vec![];
    if let Some(u) = from_challenge {
        out.push(u.to_string());
    }
    if let Ok(u) = Url::parse(server_url) {
        let origin = u.origin().ascii_serialization();
        let path = u.path().trim_end_matches('/');
        if !path.is_empty() {
            out.push(format!(
                "{origin}/.well-known/oauth-protected-resource{path}"
            ));
        }
        out.push(format!("{origin}/.well-known/oauth-protected-resource"));
    }
    out.dedup();
    out
}

/// The authorization server metadata URLs to try for `issuer`, in the specification's order.
pub fn authorization_server_urls(issuer: &str) -> Result<Vec<String>, AuthError> {
    let u = Url::parse(issuer)
        .map_err(|e| AuthError::Discovery(format!("issuer {issuer:?} is not a URL: {e}")))?;
    let origin = u.origin().ascii_serialization();
    let path = u.path().trim_end_matches('/');
    Ok(if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    })
}

/// Is `resource` (from PRM) this server? Same origin, and its path a prefix of ours on a segment
/// boundary (RFC 9728 §3.3, and what MCP SDKs accept): `https://h` and `https://h/mcp` both name
/// `https://h/mcp`; `https://h/mc` and `https://evil/mcp` do not.
pub fn resource_matches(server_url: &str, resource: &str) -> bool {
    let (Ok(s), Ok(r)) = (Url::parse(server_url), Url::parse(resource)) else {
        return false;
    };
    if s.origin() != r.origin() || r.fragment().is_some() {
        return false;
    }
    let sp = s.path().trim_end_matches('/');
    let rp = r.path().trim_end_matches('/');
    sp == rp || sp.starts_with(&format!("{rp}/"))
}

/// The server URL as a `resource` value when the server publishes none: no fragment.
pub fn canonical_resource(server_url: &str) -> String {
    match Url::parse(server_url) {
        Ok(mut u) => {
            u.set_fragment(None);
            u.to_string()
        }
        Err(_) => server_url.to_string(),
    }
}

fn strings(m: &Map<String, Value>, key: &str) -> Option<Vec<String>> {
    m.get(key).and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    })
}

const PRM_STEP: &str = "protected resource metadata (RFC 9728)";

/// Find and check the protected resource metadata. `Ok(None)`: the server publishes none at the
/// well-known locations and its challenge named none (a 2025-03-26 server).
pub(crate) async fn protected_resource(
    rec: &Recorder<'_>,
    server_url: &str,
    from_challenge: Option<&str>,
) -> Result<Option<ProtectedResource>, AuthError> {
    let mut tried = vec![];
    for url in protected_resource_urls(server_url, from_challenge) {
        match protected_resource_at(rec, server_url, &url).await? {
            Location::Found(prm) => return Ok(Some(prm)),
            Location::Next(why) => tried.push(why),
        }
    }
    if from_challenge.is_some() {
        return Err(AuthError::Discovery(format!(
            "no protected resource metadata could be read ({})",
            tried.join("; ")
        )));
    }
    rec.step(format!(
        "{PRM_STEP}: none published ({}); treating {server_url} as a 2025-03-26 server whose origin is its authorization server",
        tried.join("; ")
    ));
    Ok(None)
}

/// What one metadata location gave.
enum Location {
    /// A usable document.
    Found(ProtectedResource),
    /// Nothing usable there (unreachable, not 2xx, not a JSON object): why, and on to the next.
    Next(String),
}

/// Read and check the protected resource metadata at `url`. A document that is there but
/// wrong (no authorization server, another resource) ends discovery.
async fn protected_resource_at(
    rec: &Recorder<'_>,
    server_url: &str,
    url: &str,
) -> Result<Location, AuthError> {
    let a = match rec.get_metadata(PRM_STEP, url).await {
        Ok(a) => a,
        Err(e) => return Ok(Location::Next(e)),
    };
    if !a.ok() {
        rec.step(format!(
            "{PRM_STEP}: {url} answered HTTP {}; trying the next location",
            a.status
        ));
        return Ok(Location::Next(format!("{url} answered HTTP {}", a.status)));
    }
    let m = match a.json_object() {
        Ok(m) => m,
        Err(e) => {
            rec.step(format!("{PRM_STEP}: {e}; trying the next location"));
            return Ok(Location::Next(e));
        }
    };
    let servers = strings(&m, "authorization_servers").unwrap_or_default();
    if servers.is_empty() {
        return Err(AuthError::Discovery(format!(
            "the protected resource metadata at {url} lists no authorization_servers, so there is nowhere to authorize"
        )));
    }
    let prm = ProtectedResource {
        metadata_url: url.to_string(),
        resource: checked_resource(rec, server_url, url, &m)?,
        authorization_servers: servers,
        scopes_supported: strings(&m, "scopes_supported"),
    };
    rec.step(format!(
        "{PRM_STEP}: resource {} at {url}; authorization server {}{}",
        prm.resource,
        prm.authorization_servers[0],
        if prm.authorization_servers.len() > 1 {
            format!(" (first of {})", prm.authorization_servers.len())
        } else {
            String::new()
        }
    ));
    Ok(Location::Found(prm))
}

/// The document's `resource`, which must be this server (RFC 9728 §3.3); without one, the
/// server URL (noted: RFC 9728 requires it).
fn checked_resource(
    rec: &Recorder<'_>,
    server_url: &str,
    url: &str,
    m: &Map<String, Value>,
) -> Result<String, AuthError> {
    match m.get("resource").and_then(Value::as_str) {
        Some(r) if !resource_matches(server_url, r) => {
            let msg = format!(
                "the protected resource metadata at {url} names the resource {r:?}, which is not this server ({server_url}); refusing to authorize for it (RFC 9728 §3.3, RFC 8707)"
            );
            rec.step(msg.clone());
            Err(AuthError::Discovery(msg))
        }
        Some(r) => Ok(r.to_string()),
        None => {
            let r = canonical_resource(server_url);
            rec.step(format!(
                "{PRM_STEP}: {url} has no \"resource\" (RFC 9728 requires it); using the server URL {r}"
            ));
            Ok(r)
        }
    }
}

/// Fetch and check the metadata of `issuer` (in the specification's order).
pub(crate) async fn authorization_server(
    rec: &Recorder<'_>,
    issuer: &str,
) -> Result<AuthServer, AuthError> {
    let mut tried = vec![];
    for url in authorization_server_urls(issuer)? {
        let step = if url.contains("openid-configuration") {
            "authorization server metadata (OpenID Connect Discovery)"
        } else {
            "authorization server metadata (RFC 8414)"
        };
        let a = match rec.get_metadata(step, &url).await {
            Ok(a) => a,
            Err(e) => {
                tried.push(e);
                continue;
            }
        };
        if !a.ok() {
            tried.push(format!("{url} answered HTTP {}", a.status));
            continue;
        }
        let m = match a.json_object() {
            Ok(m) => m,
            Err(e) => {
                rec.step(format!("{step}: {e}"));
                tried.push(e);
                continue;
            }
        };
        let said = m.get("issuer").and_then(Value::as_str).unwrap_or("");
        if said != issuer {
            let note = format!(
                "{step} at {url} says issuer {said:?}, not {issuer:?}: discarded (its issuer must be exactly the one the URL was built from)"
            );
            rec.step(note.clone());
            tried.push(note);
            continue;
        }
        return from_metadata(rec, &m, issuer, issuer, &url);
    }
    Err(AuthError::Discovery(format!(
        "no usable metadata for the authorization server {issuer} ({})",
        tried.join("; ")
    )))
}

/// The authorization server of a 2025-03-26 server (no PRM): metadata at the root of the
/// server's origin, else the default endpoints there.
pub(crate) async fn legacy_authorization_server(
    rec: &Recorder<'_>,
    server_url: &str,
) -> Result<AuthServer, AuthError> {
    let base = Url::parse(server_url)
        .map_err(|e| AuthError::Discovery(format!("{server_url} is not a URL: {e}")))?
        .origin()
        .ascii_serialization();
    let url = format!("{base}/.well-known/oauth-authorization-server");
    let step = "authorization server metadata (RFC 8414, 2025-03-26 location)";
    let a = rec
        .get_metadata(step, &url)
        .await
        .map_err(AuthError::Discovery)?;
    if a.ok() {
        let m = a.json_object().map_err(AuthError::Discovery)?;
        let said = m.get("issuer").and_then(Value::as_str).unwrap_or("");
        if said.trim_end_matches('/') != base {
            let note = format!(
                "{step} at {url} says issuer {said:?}, not {base:?}: refusing it (its issuer must be the origin it was found at)"
            );
            rec.step(note.clone());
            return Err(AuthError::Discovery(note));
        }
        return from_metadata(rec, &m, said, &base, &url);
    }
    rec.step(format!(
        "{step}: none at {url} (HTTP {}); using the 2025-03-26 default endpoints {base}/authorize, {base}/token and {base}/register",
        a.status
    ));
    Ok(AuthServer {
        issuer: None,
        key: base.clone(),
        metadata_url: None,
        authorization_endpoint: format!("{base}/authorize"),
        token_endpoint: format!("{base}/token"),
        registration_endpoint: Some(format!("{base}/register")),
        revocation_endpoint: None,
        scopes_supported: None,
        code_challenge_methods: None,
        token_endpoint_auth_methods: None,
        iss_parameter_supported: false,
        client_id_metadata_document_supported: false,
    })
}

fn from_metadata(
    rec: &Recorder<'_>,
    m: &Map<String, Value>,
    issuer: &str,
    key: &str,
    url: &str,
) -> Result<AuthServer, AuthError> {
    let endpoint = |k: &str| -> Result<Option<String>, AuthError> {
        let Some(v) = m.get(k).and_then(Value::as_str) else {
            return Ok(None);
        };
        // Lenient in: a relative endpoint is read against the metadata URL.
        Url::parse(url)
            .and_then(|b| b.join(v))
            .map(|u| Some(u.to_string()))
            .map_err(|e| {
                AuthError::Discovery(format!(
                    "the metadata at {url} has an invalid {k} {v:?}: {e}"
                ))
            })
    };
    let need = |k: &str| -> Result<String, AuthError> {
        endpoint(k)?
            .ok_or_else(|| AuthError::Discovery(format!("the metadata at {url} has no {k}")))
    };
    let s = AuthServer {
        issuer: Some(issuer.to_string()),
        key: key.to_string(),
        metadata_url: Some(url.to_string()),
        authorization_endpoint: need("authorization_endpoint")?,
        token_endpoint: need("token_endpoint")?,
        registration_endpoint: endpoint("registration_endpoint")?,
        revocation_endpoint: endpoint("revocation_endpoint")?,
        scopes_supported: strings(m, "scopes_supported"),
        code_challenge_methods: Some(
            strings(m, "code_challenge_methods_supported").unwrap_or_default(),
        ),
        token_endpoint_auth_methods: strings(m, "token_endpoint_auth_methods_supported"),
        iss_parameter_supported: m
            .get("authorization_response_iss_parameter_supported")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        client_id_metadata_document_supported: m
            .get("client_id_metadata_document_supported")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    };
    rec.step(format!(
        "authorization server {issuer}: metadata at {url}; PKCE methods {}, token endpoint auth {}, registration {}{}{}",
        s.code_challenge_methods
            .as_ref()
            .filter(|v| !v.is_empty())
            .map(|v| v.join(" "))
            .unwrap_or_else(|| "not listed".into()),
        s.token_endpoint_auth_methods
            .as_ref()
            .map(|v| v.join(" "))
            .unwrap_or_else(|| "not listed (client_secret_basic by default)".into()),
        if s.registration_endpoint.is_some() { "offered" } else { "not offered" },
        if s.client_id_metadata_document_supported { ", client ID metadata documents accepted" } else { "" },
        if s.iss_parameter_supported { ", iss in authorization responses" } else { "" },
    ));
    Ok(s)
}

impl AuthServer {
    /// Refuse an authorization server that does not offer PKCE with S256 (MCP requires it; a
    /// server without metadata is assumed to support it, as 2025-03-26 had nowhere to say so).
    pub fn check_pkce(&self) -> Result<(), AuthError> {
        match &self.code_challenge_methods {
            None => Ok(()),
            Some(m) if m.iter().any(|x| x == "S256") => Ok(()),
            Some(m) if m.is_empty() => Err(AuthError::Discovery(format!(
                "the authorization server {} does not list code_challenge_methods_supported, so PKCE support is unknown; MCP requires PKCE with S256, so mcpscope stops here",
                self.key
            ))),
            Some(m) => Err(AuthError::Discovery(format!(
                "the authorization server {} offers PKCE methods [{}] but not S256; MCP requires S256, so mcpscope stops here",
                self.key,
                m.join(", ")
            ))),
        }
    }

    /// The scopes it supports, if it says.
    pub fn supports_scope(&self, scope: &str) -> bool {
        self.scopes_supported
            .as_ref()
            .is_some_and(|s| s.iter().any(|x| x == scope))
    }
}

/// Scope selection (MCP "Scope Selection Strategy"): the challenge's `scope`, else the PRM's
/// `scopes_supported`, else none (the `scope` parameter is then omitted).
pub fn select_scopes(challenge: Option<&str>, prm: Option<&ProtectedResource>) -> Vec<String> {
    let from_challenge = split_scopes(challenge);
    if !from_challenge.is_empty() {
        return from_challenge;
    }
    prm.and_then(|p| p.scopes_supported.clone())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prm_urls_in_order() {
        assert_eq!(
            protected_resource_urls("http://h:1/mcp", None),
            vec![
                "http://h:1/.well-known/oauth-protected-resource/mcp",
                "http://h:1/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            protected_resource_urls("https://h/", Some("https://h/custom.json")),
            vec![
                "https://h/custom.json",
                "https://h/.well-known/oauth-protected-resource"
            ]
        );
    }

    #[test]
    fn as_urls_with_and_without_path() {
        assert_eq!(
            authorization_server_urls("https://as/tenant1").unwrap(),
            vec![
                "https://as/.well-known/oauth-authorization-server/tenant1",
                "https://as/.well-known/openid-configuration/tenant1",
                "https://as/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            authorization_server_urls("http://localhost:9").unwrap(),
            vec![
                "http://localhost:9/.well-known/oauth-authorization-server",
                "http://localhost:9/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn resource_matching() {
        assert!(resource_matches("http://h:1/mcp", "http://h:1/mcp"));
        assert!(resource_matches("http://h:1/mcp", "http://h:1"));
        assert!(resource_matches("http://h:1/mcp/", "http://h:1/mcp"));
        assert!(resource_matches("http://H:1/mcp", "http://h:1/"));
        assert!(!resource_matches(
            "http://h:1/mcp",
            "https://evil.example.com/mcp"
        ));
        assert!(!resource_matches("http://h:1/mcp", "http://h:2/mcp"));
        assert!(!resource_matches("http://h:1/mcpx", "http://h:1/mcp"));
        assert!(!resource_matches("http://h:1/mcp", "http://h:1/mcp#frag"));
    }

    #[test]
    fn scope_selection() {
        let prm = ProtectedResource {
            metadata_url: String::new(),
            resource: String::new(),
            authorization_servers: vec![],
            scopes_supported: Some(vec!["a".into(), "b".into()]),
        };
        assert_eq!(select_scopes(Some("x y"), Some(&prm)), vec!["x", "y"]);
        assert_eq!(select_scopes(None, Some(&prm)), vec!["a", "b"]);
        assert_eq!(select_scopes(Some(" "), None), Vec::<String>::new());
    }
}
