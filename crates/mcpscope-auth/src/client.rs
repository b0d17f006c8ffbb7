//! Who the client is at the authorization server, in the MCP specification's order:
//! pre-registered (`--client-id`), a Client ID Metadata Document (`--client-metadata-url`, when
//! the server accepts them), a registration stored from an earlier run, dynamic registration
//! (RFC 7591, with `application_type: native`). And how it authenticates at the token endpoint:
//! the one method the server supports.
//!
//! A registration names the scopes the client will ask for (`scope`, RFC 7591 §2): servers on
//! the official Python SDK and FastMCP refuse an authorization request for a scope the client
//! was not registered with (`invalid_scope: Client was not registered with scope …`).

use crate::credentials::{ClientRegistration, ClientSource, now};
use crate::discovery::AuthServer;
use crate::error::AuthError;
use crate::recorder::{Recorder, Request};
use bytes::Bytes;
use serde_json::{Value, json};

/// What the user configured about the client.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClientConfig {
    pub(crate) client_id: Option<String>,
    pub(crate) client_secret: Option<String>,
    pub(crate) client_metadata_url: Option<String>,
    pub(crate) client_name: String,
    pub(crate) redirect_uri: String,
}

/// The token endpoint authentication method for a client with (or without) a secret, given what
/// the server lists. RFC 8414: an absent list means `client_secret_basic`.
pub(crate) fn auth_method(has_secret: bool, supported: Option<&[String]>) -> String {
    if !has_secret {
        return "none".into();
    }
    let Some(list) = supported else {
        return "client_secret_basic".into();
    };
    for m in ["client_secret_basic", "client_secret_post", "none"] {
        if list.iter().any(|x| x == m) {
            return m.into();
        }
    }
    "client_secret_basic".into()
}

/// The method to ask for when registering: a public client (`none`, PKCE protects the code)
/// unless the server does not accept those.
fn registration_method(supported: Option<&[String]>) -> &'static str {
    match supported {
        None => "none",
        Some(l) if l.iter().any(|m| m == "none") => "none",
        Some(l) if l.iter().any(|m| m == "client_secret_basic") => "client_secret_basic",
        Some(l) if l.iter().any(|m| m == "client_secret_post") => "client_secret_post",
        Some(_) => "none",
    }
}

/// The client to use at `server`; `stored` is a registration kept from an earlier run, `scopes`
/// what the authorization request will ask for (a new registration covers them).
pub(crate) async fn identify(
    rec: &Recorder<'_>,
    cfg: &ClientConfig,
    server: &AuthServer,
    stored: Option<&ClientRegistration>,
    scopes: &[String],
) -> Result<ClientRegistration, AuthError> {
    let methods = server.token_endpoint_auth_methods.as_deref();
    if let Some(id) = &cfg.client_id {
        let method = auth_method(cfg.client_secret.is_some(), methods);
        rec.step(format!(
            "client: pre-registered {id:?} (--client-id), token endpoint authentication {method}"
        ));
        return Ok(ClientRegistration {
            client_id: id.clone(),
            client_secret: cfg.client_secret.clone(),
            token_endpoint_auth_method: method,
            source: ClientSource::PreRegistered,
            redirect_uri: cfg.redirect_uri.clone(),
            registered_at: now(),
        });
    }
    if let Some(url) = &cfg.client_metadata_url {
        if server.client_id_metadata_document_supported {
            rec.step(format!(
                "client: the client ID metadata document {url} is the client id (the server accepts them)"
            ));
            return Ok(ClientRegistration {
                client_id: url.clone(),
                client_secret: None,
                token_endpoint_auth_method: "none".into(),
                source: ClientSource::ClientIdMetadataDocument,
                redirect_uri: cfg.redirect_uri.clone(),
                registered_at: now(),
            });
        }
        rec.step(format!(
            "client: {} does not advertise client_id_metadata_document_supported, so --client-metadata-url {url} cannot be used there; trying dynamic registration",
            server.key
        ));
    }
    if let Some(s) = stored
        && s.redirect_uri == cfg.redirect_uri
    {
        rec.step(format!(
            "client: {:?}, registered with {} earlier (stored), token endpoint authentication {}",
            s.client_id, server.key, s.token_endpoint_auth_method
        ));
        return Ok(s.clone());
    }
    let Some(endpoint) = &server.registration_endpoint else {
        return Err(AuthError::Registration(format!(
            "the authorization server {} offers no dynamic client registration{}; register mcpscope there with the redirect URI {} and pass --client-id (and --client-secret), or --client-metadata-url if it accepts client ID metadata documents",
            server.key,
            if server.client_id_metadata_document_supported {
                " (it does accept client ID metadata documents: pass --client-metadata-url)"
            } else {
                ""
            },
            cfg.redirect_uri
        )));
    };
    register(rec, cfg, server, endpoint, scopes).await
}

/// The `scope` of a registration: every scope the authorization server lists (so a later
/// step-up stays within the registration), else the ones about to be requested; `None` when
/// neither is known.
fn registration_scope(server: &AuthServer, requested: &[String]) -> Option<String> {
    let mut all: Vec<String> = server.scopes_supported.clone().unwrap_or_default();
    for s in requested {
        if !all.contains(s) {
            all.push(s.clone());
        }
    }
    (!all.is_empty()).then(|| all.join(" "))
}

/// RFC 7591 dynamic registration.
async fn register(
    rec: &Recorder<'_>,
    cfg: &ClientConfig,
    server: &AuthServer,
    endpoint: &str,
    scopes: &[String],
) -> Result<ClientRegistration, AuthError> {
    // A server-chosen URL like the authorization endpoint: the same rule (no plain http off
    // this machine, no other scheme), so a registration never goes where a login would not.
    if let Err(why) = mcpscope_proto::openable::openable(endpoint) {
        return Err(AuthError::Registration(format!(
            "the authorization server's registration_endpoint {endpoint:?} is refused: {why}; register mcpscope there by hand (redirect URI {}) and pass --client-id",
            cfg.redirect_uri
        )));
    }
    let body = registration_request(cfg, server, scopes);
    let a = rec
        .send(Request {
            step: "dynamic client registration (RFC 7591)",
            method: "POST",
            url: endpoint,
            headers: vec![
                ("Content-Type".into(), "application/json".into()),
                ("Accept".into(), "application/json".into()),
            ],
            body: Some(Bytes::from(serde_json::to_vec(&body).expect("json"))),
        })
        .await
        .map_err(AuthError::Registration)?;
    if !a.ok() {
        let why = match a.oauth_error() {
            Some((e, d)) => format!("{e}{}", d.map(|d| format!(": {d}")).unwrap_or_default()),
            None => format!("HTTP {}{}", a.status, crate::recorder::excerpt(&a.body)),
        };
        return Err(AuthError::Registration(format!(
            "dynamic client registration at {endpoint} was refused ({why}); register mcpscope there by hand (redirect URI {}) and pass --client-id",
            cfg.redirect_uri
        )));
    }
    let m = a.json_object().map_err(AuthError::Registration)?;
    let client = registered_client(cfg, server, endpoint, &m)?;
    rec.step(format!(
        "client: registered as {:?}{}, token endpoint authentication {}",
        client.client_id,
        if client.client_secret.is_some() {
            " with a client secret"
        } else {
            " (public client)"
        },
        client.token_endpoint_auth_method
    ));
    Ok(client)
}

/// The client metadata mcpscope registers with: a native application with a loopback redirect,
/// the authentication method the server lists, and the scopes it may need.
fn registration_request(cfg: &ClientConfig, server: &AuthServer, scopes: &[String]) -> Value {
    let requested = registration_method(server.token_endpoint_auth_methods.as_deref());
    let mut body = json!({
        "client_name": cfg.client_name,
        "redirect_uris": [cfg.redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": requested,
        // A CLI on the user's machine with a loopback redirect is a native application
        // (required by the 2026-07-28 registration rules, harmless before).
        "application_type": "native",
        "software_id": "mcpscope",
        "software_version": env!("CARGO_PKG_VERSION"),
    });
    if let Some(scope) = registration_scope(server, scopes) {
        body["scope"] = Value::String(scope);
    }
    body
}

/// The registration from the server's answer: its `client_id` (required), secret, and method.
fn registered_client(
    cfg: &ClientConfig,
    server: &AuthServer,
    endpoint: &str,
    m: &serde_json::Map<String, Value>,
) -> Result<ClientRegistration, AuthError> {
    let Some(client_id) = m.get("client_id").and_then(Value::as_str) else {
        return Err(AuthError::Registration(format!(
            "the registration answer from {endpoint} has no client_id"
        )));
    };
    let secret = m
        .get("client_secret")
        .and_then(Value::as_str)
        .map(str::to_string);
    // The server's answer decides the method (it may not grant what was asked); else the
    // secret and the metadata do.
    let method = m
        .get("token_endpoint_auth_method")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| {
            auth_method(
                secret.is_some(),
                server.token_endpoint_auth_methods.as_deref(),
            )
        });
    Ok(ClientRegistration {
        client_id: client_id.to_string(),
        client_secret: secret,
        token_endpoint_auth_method: method,
        source: ClientSource::DynamicRegistration,
        redirect_uri: cfg.redirect_uri.clone(),
        registered_at: now(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(l: &[&str]) -> Vec<String> {
        l.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn one_method_the_server_supports() {
        assert_eq!(
            auth_method(false, Some(&v(&["client_secret_basic"]))),
            "none"
        );
        assert_eq!(auth_method(true, None), "client_secret_basic");
        assert_eq!(
            auth_method(true, Some(&v(&["client_secret_post"]))),
            "client_secret_post"
        );
        assert_eq!(
            auth_method(true, Some(&v(&["none", "client_secret_basic"]))),
            "client_secret_basic"
        );
        assert_eq!(
            registration_method(Some(&v(&["client_secret_post"]))),
            "client_secret_post"
        );
        assert_eq!(registration_method(Some(&v(&["none"]))), "none");
    }
}
