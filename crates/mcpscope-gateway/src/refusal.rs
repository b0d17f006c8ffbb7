//! A refusal of the relay or of the identity guard: the web API's error shape (`ApiError`:
//! `{"error": {"code", "message", …}}`) plus the `rule` that refused, repeated in the header
//! `X-Mcpscope-Refusal` so the page tells our refusal from the gateway's own answer (a gateway's
//! 401 is relayed as it came, without the header). Messages never carry a token or a session id.

use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use mcpscope_server::ApiError;

/// The header naming the rule of a refusal.
pub const REFUSAL_HEADER: &str = "x-mcpscope-refusal";

/// A rule of `docs/gateway.md`, by the name the refusal carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    /// The body is over `limits.requestBytes`.
    RequestSize,
    /// The body is not one JSON-RPC request or notification.
    JsonRpc,
    /// The method is not on the allowlist.
    MethodAllowlist,
    /// No such gateway for this user.
    GatewayUnknown,
    /// The gateway's origin is outside `MCP_PROXY_ALLOWED_ORIGINS`.
    AllowedOrigins,
    /// A bearer token for an `http://` gateway.
    BearerOverHttps,
    /// An `Mcp-Session-Id` the relay did not seal for this user and gateway (`sessions.rs`).
    SessionOwner,
    /// The gateway's `Mcp-Session-Id` is not one the relay can hand on (not visible ASCII, or
    /// over 1 KiB).
    SessionId,
    /// The gateway answered a redirect.
    Redirect,
    /// The gateway's JSON body is over `limits.responseBytes`.
    ResponseSize,
    /// The gateway did not answer within `MCP_PROXY_REQUEST_TIMEOUT`.
    Timeout,
    /// The gateway could not be reached.
    Unreachable,
    /// A `GET` (a standalone stream): not relayed.
    StandaloneStream,
    /// A peer that is not a trusted proxy.
    TrustedProxy,
    /// A request without the user header.
    IdentityMissing,
    /// A page of another origin.
    Origin,
}

impl Rule {
    /// The name in `rule` and `X-Mcpscope-Refusal`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Rule::RequestSize => "request-size",
            Rule::JsonRpc => "jsonrpc",
            Rule::MethodAllowlist => "method-allowlist",
            Rule::GatewayUnknown => "gateway-unknown",
            Rule::AllowedOrigins => "allowed-origins",
            Rule::BearerOverHttps => "bearer-over-https",
            Rule::SessionOwner => "session-owner",
            Rule::SessionId => "session-id",
            Rule::Redirect => "redirect",
            Rule::ResponseSize => "response-size",
            Rule::Timeout => "timeout",
            Rule::Unreachable => "unreachable",
            Rule::StandaloneStream => "standalone-stream",
            Rule::TrustedProxy => "trusted-proxy",
            Rule::IdentityMissing => "identity-missing",
            Rule::Origin => "origin",
        }
    }

    /// The status and the error code of the web API's table.
    fn status(self) -> (StatusCode, &'static str) {
        match self {
            Rule::RequestSize => (StatusCode::PAYLOAD_TOO_LARGE, "usage"),
            Rule::JsonRpc => (StatusCode::BAD_REQUEST, "usage"),
            Rule::MethodAllowlist
            | Rule::AllowedOrigins
            | Rule::BearerOverHttps
            | Rule::TrustedProxy
            | Rule::Origin => (StatusCode::FORBIDDEN, "forbidden"),
            // Another user's session, a forged one and one sealed under a key gone look alike
            // without state: each is an expired session to an MCP client, which starts anew.
            Rule::GatewayUnknown | Rule::SessionOwner => (StatusCode::NOT_FOUND, "not_found"),
            Rule::Redirect | Rule::ResponseSize | Rule::SessionId => {
                (StatusCode::BAD_GATEWAY, "protocol_error")
            }
            Rule::Unreachable => (StatusCode::BAD_GATEWAY, "unreachable"),
            Rule::Timeout => (StatusCode::GATEWAY_TIMEOUT, "timeout"),
            Rule::StandaloneStream => (StatusCode::METHOD_NOT_ALLOWED, "usage"),
            Rule::IdentityMissing => (StatusCode::UNAUTHORIZED, "unauthorized"),
        }
    }
}

/// A refusal: the rule, what to say, and extra fields (`location` of a redirect).
#[derive(Debug, Clone)]
pub(crate) struct Refusal {
    /// The rule.
    pub rule: Rule,
    /// The error as the web API shapes it.
    pub error: Box<ApiError>,
}

impl Refusal {
    /// A refusal by `rule` saying `message`.
    pub(crate) fn new(rule: Rule, message: impl Into<String>) -> Refusal {
        let (status, code) = rule.status();
        Refusal {
            rule,
            error: Box::new(ApiError::new(status, code, message).with("rule", rule.name())),
        }
    }

    /// Add a field to the error object.
    pub(crate) fn with(mut self, key: &str, value: impl Into<serde_json::Value>) -> Refusal {
        self.error = Box::new(self.error.with(key, value));
        self
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let mut resp = (*self.error).into_response();
        resp.headers_mut()
            .insert(REFUSAL_HEADER, HeaderValue::from_static(self.rule.name()));
        resp.headers_mut().insert(
            axum::http::header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        );
        resp
    }
}
