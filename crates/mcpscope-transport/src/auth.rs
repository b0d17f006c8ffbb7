//! The hook through which an authorization provider takes part in the HTTP transports.
//!
//! The transports know nothing about OAuth. They ask an [`AuthProvider`] for the `Authorization`
//! header before each request, and hand it every `401`/`403` answer that carries a challenge;
//! when the provider says it has new credentials, the request is sent once more. Whatever HTTP
//! exchanges the provider makes on the way (metadata discovery, registration, token requests)
//! it records through the [`FrameSink`] it is given, so they land in the same ordered event
//! stream as the MCP traffic that caused them. The OAuth implementation is `mcpscope-auth`; tests
//! can plug in anything that implements the trait.

use mcpscope_proto::Frame;
use std::future::Future;
use std::pin::Pin;

/// A boxed future, as trait objects need.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Where an auth provider records what it sends and receives: the event stream of the
/// connection whose request it is acting for.
pub trait FrameSink: Send + Sync {
    /// A fresh HTTP exchange number (shared with the transport's own exchanges, so numbers in a
    /// trace are unique and ordered).
    fn next_exchange(&self) -> u64;
    /// Record one frame.
    fn frame(&self, frame: Frame);
}

/// A `401` or `403` answer that carried (or, for `401`, may lack) a `WWW-Authenticate` challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthChallenge {
    /// The URL that answered (after redirects).
    pub url: String,
    /// `401` or `403`.
    pub status: u16,
    /// The `WWW-Authenticate` header, verbatim.
    pub www_authenticate: Option<String>,
    /// The `Authorization` header the refused request carried, if any: a provider serving
    /// several requests at once uses it to tell "my current token was refused" from "that
    /// request went out before I got a new one".
    pub sent_authorization: Option<String>,
}

/// Supplies `Authorization` headers to the HTTP transports and answers their challenges.
pub trait AuthProvider: Send + Sync + 'static {
    /// The `Authorization` header value for the next request (`Bearer …`), or `None` to send
    /// none. May refresh an expired token first, recording the exchange through `sink`.
    fn authorization<'a>(&'a self, sink: &'a dyn FrameSink) -> BoxFuture<'a, Option<String>>;

    /// The server refused a request with `challenge`. Run whatever it takes (discovery,
    /// registration, authorization, refresh, step-up) and return `Ok(())` when the request should
    /// be sent once more with a new [`AuthProvider::authorization`], or `Err(reason)` when it
    /// cannot be authorized — the reason says what failed and what the user can do.
    fn on_challenge<'a>(
        &'a self,
        challenge: AuthChallenge,
        sink: &'a dyn FrameSink,
    ) -> BoxFuture<'a, Result<(), String>>;

    /// A request that carried `sent_authorization` succeeded (2xx): bounded retry counters such
    /// as the step-up limit start over.
    fn on_success(&self, _sent_authorization: &str) {}

    /// True while the provider is authorizing (discovery, a refresh, a login that may wait on a
    /// person in a browser). The engine does not count that time against its connect and request
    /// timeouts: the server is not the one being slow, and every OAuth request has a timeout of
    /// its own.
    fn authorizing(&self) -> bool {
        false
    }
}

impl std::fmt::Debug for dyn AuthProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AuthProvider")
    }
}

/// True when the user already set an `Authorization` header (`--header`): their credentials win
/// and the provider stays out of the way.
pub(crate) fn user_sets_authorization(headers: &[(String, String)]) -> bool {
    headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("authorization"))
}
