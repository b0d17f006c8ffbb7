//! mcpscope-auth: OAuth 2.1 for protected MCP servers (both revisions' authorization rules),
//! written on reqwest so that every step is a recorded exchange.
//!
//! [`OAuthProvider`] plugs into the HTTP transports through their
//! [`AuthProvider`](mcpscope_transport::AuthProvider) hook. On a `401` it discovers the protected
//! resource metadata (RFC 9728) and the authorization server metadata (RFC 8414 / OpenID
//! Discovery), refuses what the specification says to refuse (a resource that is not this server,
//! an issuer that does not match, no PKCE S256, a missing or wrong `iss`), identifies the client
//! (pre-registered, Client ID Metadata Document, dynamic registration), runs the authorization
//! code flow with PKCE and the `resource` indicator — in the browser over a loopback callback, or
//! headlessly against test servers that approve at once — and redeems the code with the one
//! client authentication method the server supports. Tokens are refreshed, re-used from the
//! secret store ([`mcpscope_store`]) keyed by profile, server and issuer, and stepped up on
//! `403 insufficient_scope` with the union of scopes, a bounded number of times.
//!
//! A failed step is an [`AuthError`] naming the step (discovery, registration, authorization,
//! token request, …) with the message a person reads.
//!
//! Every HTTP exchange becomes an `OAuthRequest`/`OAuthResponse` frame, and every decision an
//! `OAuthStep` frame, in the event stream of the connection that needed authorization.
//!
//! ```no_run
//! # fn f() -> Result<(), Box<dyn std::error::Error>> {
//! use mcpscope_auth::{AuthConfig, LoginMode, OAuthProvider};
//! use mcpscope_store::{LazySecretStore, SecretStoreConfig};
//! use std::sync::Arc;
//! let mut cfg = AuthConfig::new("https://mcp.example.com/mcp");
//! cfg.login = LoginMode::PrintUrl;
//! let store = Arc::new(LazySecretStore::new(SecretStoreConfig::from_env()?));
//! let provider = Arc::new(OAuthProvider::new(cfg, store)?);
//! // Put `provider` into `TransportOptions::auth`; the transports do the rest.
//! # Ok(()) }
//! ```

mod authorize;
pub mod challenge;
mod client;
pub mod credentials;
pub mod discovery;
mod error;
mod flow;
pub mod pkce;
mod recorder;
mod revoke;
mod summary;
mod token;

pub use authorize::{
    BoxFuture, CallbackReceived, ExternalLogin, LoginMode, LoginRequest, callback_state,
    validate_callback_url,
};
pub use credentials::{
    ClientRegistration, ClientSource, CredentialStore, GrantDescription, Record, Tokens,
    stored_grants,
};
pub use error::AuthError;
pub use flow::{AuthConfig, DEFAULT_CALLBACK_URL, OAuthProvider};
pub use summary::{AuthSummary, ClientSummary};
