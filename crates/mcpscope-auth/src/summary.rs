//! [`AuthSummary`]: what an authorization flow established, as views show it — the
//! authorization server, the client, the granted scopes and the token's expiry, never a token.
//!
//! A type rather than a JSON value so the web UI's TypeScript declaration is generated from it
//! (the `ts` feature, turned on by mcpscope-inspect's generator) instead of written by hand.

use serde::Serialize;

/// What the flow established (`--method initialize`'s `auth`, the web API's `AuthView.summary`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AuthSummary {
    /// The authorization server (its credentials key: issuer, or origin without metadata).
    pub issuer: String,
    /// Where the authorization server's metadata was read, when it was.
    pub authorization_server_metadata: Option<String>,
    /// Where the protected resource metadata was read, when it was.
    pub protected_resource_metadata: Option<String>,
    /// The `resource` the grant was requested for.
    pub resource: Option<String>,
    /// The client the grant was issued to, when the flow knows it.
    pub client: Option<ClientSummary>,
    /// Granted scopes, space-separated.
    pub scope: Option<String>,
    /// The scopes requested for this grant.
    pub requested_scope: Option<String>,
    /// `Bearer`.
    pub token_type: String,
    /// When the access token expires (Unix seconds), if the server said.
    pub expires_at: Option<u64>,
    /// A refresh token was issued.
    pub refresh_token: bool,
    /// The credentials profile.
    pub profile: String,
}

/// The client of an [`AuthSummary`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "AuthClientSummary"))]
#[serde(rename_all = "camelCase")]
pub struct ClientSummary {
    /// Its `client_id`.
    pub client_id: String,
    /// How it came to be (`ClientSource::label`).
    #[cfg_attr(
        feature = "ts",
        ts(
            type = "'pre-registered' | 'client ID metadata document' | 'dynamic client registration'"
        )
    )]
    pub registration: &'static str,
    /// `client_secret_basic`, `client_secret_post` or `none`.
    pub token_endpoint_auth_method: String,
}
