//! Token requests: redeeming the authorization code (with the PKCE verifier) and refreshing, both
//! with the `resource` indicator (RFC 8707) and the client's one authentication method.
//!
//! With `client_secret_basic` the body names the client too (`client_id`): RFC 6749 allows the
//! parameter alongside the header, and servers built on the official Python SDK (FastMCP too)
//! read the client from the body only, refusing a Basic-only request `401 invalid_client
//! "Missing client_id"`.

use crate::credentials::{ClientRegistration, Tokens, now};
use crate::discovery::AuthServer;
use crate::error::AuthError;
use crate::recorder::{Answer, Recorder, Request, form};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use serde_json::{Map, Value};

/// What a grant needs besides the client.
#[derive(Clone, Copy)]
pub(crate) enum Grant<'a> {
    /// `authorization_code`.
    Code {
        code: &'a str,
        verifier: &'a str,
        redirect_uri: &'a str,
    },
    /// `refresh_token`.
    Refresh { refresh_token: &'a str },
}

/// Why a token request failed.
#[derive(Debug)]
pub(crate) enum TokenError {
    /// The server answered with an OAuth error (`invalid_grant`, `invalid_client`, …).
    Rejected {
        status: u16,
        error: String,
        description: Option<String>,
    },
    /// Anything else: unreachable, slow, not JSON, no `access_token`.
    Other(String),
}

impl TokenError {
    pub(crate) fn message(&self, what: &str) -> String {
        match self {
            TokenError::Rejected { .. } => format!("the {what} was refused ({})", self.detail()),
            TokenError::Other(m) => m.clone(),
        }
    }

    /// The server's answer in its own words: `HTTP 401, invalid_client: Missing client_id`.
    pub(crate) fn detail(&self) -> String {
        match self {
            TokenError::Rejected {
                status,
                error,
                description,
            } => format!(
                "HTTP {status}, {error}{}",
                description
                    .as_deref()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            ),
            TokenError::Other(m) => m.clone(),
        }
    }

    /// The client itself is no longer accepted (revoked, deleted, secret rotated).
    pub(crate) fn invalid_client(&self) -> bool {
        matches!(self, TokenError::Rejected { error, .. } if error == "invalid_client" || error == "unauthorized_client")
    }

    pub(crate) fn into_flow(self, what: &str) -> AuthError {
        if self.invalid_client() {
            AuthError::InvalidClient(self.message(what))
        } else {
            AuthError::Token(self.message(what))
        }
    }
}

/// `Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 §2.3.1).
pub(crate) fn basic_auth(id: &str, secret: &str) -> String {
    let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    format!(
        "Basic {}",
        B64.encode(format!("{}:{}", enc(id), enc(secret)))
    )
}

/// The headers of a form POST to the token (or revocation) endpoint, with the client
/// authenticated by `method` (RFC 6749 §2.3.1): a Basic header, or `client_secret` added to
/// `pairs`. `client_id` goes in `pairs` whatever the method (see the module doc).
pub(crate) fn authenticate<'a>(
    pairs: &mut Vec<(&'a str, &'a str)>,
    client_id: &'a str,
    secret: Option<&'a str>,
    method: &str,
) -> Vec<(String, String)> {
    let mut headers = vec![
        (
            "Content-Type".to_string(),
            "application/x-www-form-urlencoded".to_string(),
        ),
        ("Accept".to_string(), "application/json".to_string()),
    ];
    let secret = secret.unwrap_or("");
    match method {
        "client_secret_basic" => {
            headers.push(("Authorization".into(), basic_auth(client_id, secret)));
            pairs.push(("client_id", client_id));
        }
        "client_secret_post" => {
            pairs.push(("client_id", client_id));
            pairs.push(("client_secret", secret));
        }
        _ => pairs.push(("client_id", client_id)),
    }
    headers
}

/// The other secret-based method `server` lists, to try once when a client that has not yet
/// obtained a token is refused `invalid_client` with `client`'s: servers that list both do not
/// always accept both (the Python SDK accepts only the one the client registered with).
pub(crate) fn other_method(
    client: &ClientRegistration,
    server: &AuthServer,
) -> Option<&'static str> {
    client.client_secret.as_ref()?;
    let other = match client.token_endpoint_auth_method.as_str() {
        "client_secret_basic" => "client_secret_post",
        "client_secret_post" => "client_secret_basic",
        _ => return None,
    };
    server
        .token_endpoint_auth_methods
        .as_deref()?
        .iter()
        .any(|m| m == other)
        .then_some(other)
}

/// Make one token request. `scope` and `resource` go on the request; the answer's scope (else the
/// requested one) is what the grant records.
pub(crate) async fn request(
    rec: &Recorder<'_>,
    server: &AuthServer,
    client: &ClientRegistration,
    grant: Grant<'_>,
    requested_scope: Option<&str>,
    resource: Option<&str>,
) -> Result<Tokens, TokenError> {
    let (step, mut pairs) = grant.form();
    if let Some(r) = resource {
        pairs.push(("resource", r));
    }
    let headers = authenticate(
        &mut pairs,
        &client.client_id,
        client.client_secret.as_deref(),
        &client.token_endpoint_auth_method,
    );
    let a = rec
        .send(Request {
            step,
            method: "POST",
            url: &server.token_endpoint,
            headers,
            body: Some(form(&pairs)),
        })
        .await
        .map_err(TokenError::Other)?;
    if !a.ok() {
        return Err(refusal(&a, server));
    }
    let m = a.json_object().map_err(TokenError::Other)?;
    let issued = Issued {
        server,
        client,
        requested_scope,
        resource,
    };
    issued.tokens(&m)
}

impl<'a> Grant<'a> {
    /// The flow step's name and the grant's form parameters.
    fn form(&self) -> (&'static str, Vec<(&'static str, &'a str)>) {
        match *self {
            Grant::Code {
                code,
                verifier,
                redirect_uri,
            } => (
                "token request (authorization code)",
                vec![
                    ("grant_type", "authorization_code"),
                    ("code", code),
                    ("redirect_uri", redirect_uri),
                    ("code_verifier", verifier),
                ],
            ),
            Grant::Refresh { refresh_token } => (
                "token request (refresh)",
                vec![
                    ("grant_type", "refresh_token"),
                    ("refresh_token", refresh_token),
                ],
            ),
        }
    }
}

/// A non-2xx answer: the OAuth error it names, else the status and an excerpt of the body.
fn refusal(a: &Answer, server: &AuthServer) -> TokenError {
    match a.oauth_error() {
        Some((error, description)) => TokenError::Rejected {
            status: a.status,
            error,
            description,
        },
        None => TokenError::Other(format!(
            "the token endpoint {} answered HTTP {}{}",
            server.token_endpoint,
            a.status,
            crate::recorder::excerpt(&a.body)
        )),
    }
}

/// What a successful token answer is recorded with besides the answer itself.
struct Issued<'a> {
    server: &'a AuthServer,
    client: &'a ClientRegistration,
    requested_scope: Option<&'a str>,
    resource: Option<&'a str>,
}

impl Issued<'_> {
    /// The grant from a token answer: a Bearer `access_token` is required; `expires_in` is read
    /// leniently; the answer's `scope`, else the requested one.
    fn tokens(&self, m: &Map<String, Value>) -> Result<Tokens, TokenError> {
        let server = self.server;
        let Some(access_token) = m.get("access_token").and_then(Value::as_str) else {
            return Err(TokenError::Other(format!(
                "the token endpoint {} answered without an access_token",
                server.token_endpoint
            )));
        };
        let token_type = m
            .get("token_type")
            .and_then(Value::as_str)
            .unwrap_or("Bearer");
        if !token_type.eq_ignore_ascii_case("bearer") {
            return Err(TokenError::Other(format!(
                "the token endpoint issued a {token_type:?} token; mcpscope sends Bearer tokens only (DPoP is not implemented)"
            )));
        }
        // Lenient in: some servers send expires_in as a string.
        let expires_in = m.get("expires_in").and_then(|v| {
            v.as_u64()
                .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        });
        Ok(Tokens {
            access_token: access_token.to_string(),
            token_type: "Bearer".into(),
            refresh_token: m
                .get("refresh_token")
                .and_then(Value::as_str)
                .map(str::to_string),
            expires_at: expires_in.map(|s| now() + s),
            scope: m
                .get("scope")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| self.requested_scope.map(str::to_string)),
            requested_scope: self.requested_scope.map(str::to_string),
            issuer: server.key.clone(),
            resource: self.resource.map(str::to_string),
            obtained_at: now(),
            client_id: Some(self.client.client_id.clone()),
            client_auth_method: Some(self.client.token_endpoint_auth_method.clone()),
            revocation_endpoint: server.revocation_endpoint.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_auth_encodes_per_rfc6749() {
        assert_eq!(
            basic_auth("pre-registered-client", "pre-registered-secret"),
            format!(
                "Basic {}",
                B64.encode("pre-registered-client:pre-registered-secret")
            )
        );
        // ':' in an id would otherwise split in the wrong place.
        assert_eq!(
            basic_auth("a:b", "s p"),
            format!("Basic {}", B64.encode("a%3Ab:s+p"))
        );
    }
}
