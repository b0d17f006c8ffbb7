//! The relay (`docs/gateway.md` "The relay"): `POST`/`DELETE /api/gateways/{name}/mcp` to the
//! gateway's URL and nowhere else, every rule checked before a byte leaves.
//!
//! The outgoing request is built from nothing: the allowed headers are copied by name from the
//! browser's request and nothing else is (no cookie, no `User-Agent`, no `X-Forwarded-*`, not
//! our own token), plus `Authorization: Bearer` from `X-MCP-Gateway-Token` and the gateway's own
//! `Mcp-Session-Id` unsealed from the browser's (`sessions.rs`). The answer is built the same
//! way: the gateway's status, its allowed headers, its session id sealed, and its body — a JSON
//! body read whole
//! up to the cap (so an oversized one is refused rather than cut), a request-scoped SSE stream
//! relayed chunk by chunk as it comes and ended at the cap.

use crate::GatewayState;
use crate::audit::Entry;
use crate::identity::User;
use crate::refusal::{Refusal, Rule};
use crate::sessions::{BadId, MAX_SESSION_ID};
use axum::Extension;
use axum::body::{Body, Bytes};
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use mcpscope_proto::method::Method as McpMethod;
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;

/// 002's allowlist: the inspector's current methods.
pub const ALLOWED_METHODS: [McpMethod; 7] = [
    McpMethod::ServerDiscover,
    McpMethod::Initialize,
    McpMethod::NotificationsInitialized,
    McpMethod::ToolsList,
    McpMethod::ToolsCall,
    McpMethod::PromptsList,
    McpMethod::PromptsGet,
];

/// The browser's header carrying the gateway's bearer token.
pub const GATEWAY_TOKEN_HEADER: &str = "x-mcp-gateway-token";

/// The session header, relayed sealed to the browser and unsealed to the gateway.
const SESSION_HEADER: &str = "mcp-session-id";

/// Request headers relayed by name (and every `Mcp-Param-*`); `Mcp-Session-Id` is not copied
/// but unsealed.
const REQUEST_HEADERS: [&str; 6] = [
    "content-type",
    "accept",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "last-event-id",
];

/// Response headers relayed (and `Mcp-Session-Id`, sealed).
const RESPONSE_HEADERS: [&str; 3] = ["content-type", "mcp-protocol-version", "www-authenticate"];

/// `Mcp-Param-*` headers relayed at most (a tool has a few; a flood is not relayed).
const MAX_PARAM_HEADERS: usize = 64;

/// The longest `Location` quoted in a redirect's refusal.
const MAX_LOCATION: usize = 2048;

/// `POST /api/gateways/{name}/mcp`: one JSON-RPC message.
pub(crate) async fn post(
    State(g): State<Arc<GatewayState>>,
    Extension(user): Extension<User>,
    Path(name): Path<String>,
    req: Request,
) -> Response {
    let started = Instant::now();
    let (parts, body) = req.into_parts();
    let config = g.watched.current();
    let limit = config.limits.request_bytes;
    let (message, body) = match read_message(&parts.headers, body, limit).await {
        Ok(m) => m,
        Err(refusal) => return g.refused(&user, &name, "", None, refusal),
    };
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let params = message.get("params");
    let tool = params
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let arguments = params.and_then(|p| p.get("arguments")).cloned();
    let allowed = ALLOWED_METHODS.iter().any(|m| method.as_str() == *m)
        || config.methods.iter().any(|m| m.name() == method);
    if !allowed {
        let extra: Vec<&str> = config.methods.iter().map(|m| m.name()).collect();
        let refusal = Refusal::new(
            Rule::MethodAllowlist,
            format!(
                "method `{}` is not relayed: only {}{} are{}",
                clip(&method, 100),
                ALLOWED_METHODS.map(McpMethod::name).join(", "),
                if extra.is_empty() {
                    String::new()
                } else {
                    format!(", {}", extra.join(", "))
                },
                if extra.is_empty() {
                    " (the file's `methods` may add ping and completion/complete)"
                } else {
                    ""
                }
            ),
        );
        return g.refused(&user, &name, &method, tool.as_deref(), refusal);
    }
    let exchange = Exchange {
        user: &user,
        gateway: &name,
        method: &method,
        name: tool.as_deref(),
        arguments: arguments.as_ref(),
        started,
    };
    g.relay(exchange, Method::POST, &parts.headers, body).await
}

/// `DELETE /api/gateways/{name}/mcp`: ends a legacy session.
pub(crate) async fn delete(
    State(g): State<Arc<GatewayState>>,
    Extension(user): Extension<User>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    let exchange = Exchange {
        user: &user,
        gateway: &name,
        method: "DELETE",
        name: None,
        arguments: None,
        started: Instant::now(),
    };
    g.relay(exchange, Method::DELETE, &headers, Bytes::new())
        .await
}

/// `GET /api/gateways/{name}/mcp`: a standalone stream, which 002 does not relay.
pub(crate) async fn get_stream() -> Response {
    Refusal::new(
        Rule::StandaloneStream,
        "standalone GET streams (subscriptions, server-initiated messages) are not relayed in gateway mode; POST requests get their answers on request-scoped streams",
    )
    .into_response()
}

/// The body, read up to `limit`, as one JSON-RPC request or notification: its parse, and its
/// bytes, which are what the gateway gets (as the browser sent them, not re-serialised).
async fn read_message(
    headers: &HeaderMap,
    body: Body,
    limit: u64,
) -> Result<(Value, Bytes), Refusal> {
    let too_big = || {
        Refusal::new(
            Rule::RequestSize,
            format!("the request body is over {limit} bytes (the file's limits.requestBytes)"),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(too_big());
    }
    let cap = usize::try_from(limit).unwrap_or(usize::MAX);
    let bytes = axum::body::to_bytes(body, cap)
        .await
        .map_err(|_| too_big())?;
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|e| Refusal::new(Rule::JsonRpc, format!("the request body is not JSON: {e}")))?;
    jsonrpc_message(&value).map_err(|why| Refusal::new(Rule::JsonRpc, why))?;
    Ok((value, bytes))
}

/// Why `v` is not one JSON-RPC 2.0 request or notification (a batch, a response, a malformed
/// message are not relayed).
fn jsonrpc_message(v: &Value) -> Result<(), String> {
    let Some(o) = v.as_object() else {
        return Err(if v.is_array() {
            "a JSON-RPC batch is not relayed: send one message per request".into()
        } else {
            "the body is not a JSON-RPC message (an object)".into()
        });
    };
    if o.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err("the message lacks \"jsonrpc\": \"2.0\"".into());
    }
    if o.contains_key("result") || o.contains_key("error") {
        return Err(
            "a JSON-RPC response is not relayed: only requests and notifications go to the gateway"
                .into(),
        );
    }
    if !o.get("method").is_some_and(Value::is_string) {
        return Err("the message has no method".into());
    }
    match o.get("id") {
        None | Some(Value::String(_)) | Some(Value::Number(_)) => {}
        Some(_) => return Err("a request's id must be a string or a number".into()),
    }
    match o.get("params") {
        None | Some(Value::Object(_)) => Ok(()),
        Some(_) => Err("params must be an object".into()),
    }
}

/// `s` cut to `n` characters for a message.
fn clip(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// One exchange being relayed, for the checks, the audit log and the log.
struct Exchange<'a> {
    user: &'a User,
    gateway: &'a str,
    method: &'a str,
    name: Option<&'a str>,
    arguments: Option<&'a Value>,
    started: Instant,
}

impl GatewayState {
    /// A refusal before the exchange was even understood: logged, audited, answered.
    fn refused(
        &self,
        user: &User,
        gateway: &str,
        method: &str,
        name: Option<&str>,
        refusal: Refusal,
    ) -> Response {
        let exchange = Exchange {
            user,
            gateway,
            method,
            name,
            arguments: None,
            started: Instant::now(),
        };
        self.refuse(&exchange, refusal)
    }

    fn refuse(&self, x: &Exchange<'_>, refusal: Refusal) -> Response {
        eprintln!(
            "mcpscope gateway: refused {} for user {:?} on gateway {:?}: {}",
            if x.method.is_empty() {
                "a request"
            } else {
                x.method
            },
            x.user.name,
            x.gateway,
            refusal.rule.name()
        );
        self.audit(
            x,
            refusal.error.status.as_u16(),
            format!("refused:{}", refusal.rule.name()),
        );
        refusal.into_response()
    }

    fn audit(&self, x: &Exchange<'_>, status: u16, outcome: String) {
        if let Some(audit) = &self.audit {
            audit.write(&Entry {
                user: &x.user.name,
                gateway: x.gateway,
                method: x.method,
                name: x.name,
                status,
                outcome,
                ms: x.started.elapsed().as_millis() as u64,
                arguments: x.arguments,
            });
        }
    }

    /// The gateway's own session id inside the browser's `Mcp-Session-Id` (none sent: `None`),
    /// or the refusal of one this relay did not seal for this user and gateway under a key it
    /// holds (404: an expired session to any MCP client, which then starts a new one).
    fn unseal(&self, x: &Exchange<'_>, headers: &HeaderMap) -> Result<Option<String>, Refusal> {
        let mut sent = headers.get_all(SESSION_HEADER).iter();
        let Some(sealed) = sent.next() else {
            return Ok(None);
        };
        let raw = if sent.next().is_none() {
            self.sessions
                .unseal(x.gateway, &x.user.name, sealed.as_bytes())
        } else {
            None
        };
        raw.map(Some).ok_or_else(|| {
            Refusal::new(
                Rule::SessionOwner,
                format!(
                    "this Mcp-Session-Id was not issued to you for gateway {:?} by this relay: it is another user's or another gateway's, altered, or sealed under a session key the relay no longer holds (a restart without MCPSCOPE_GATEWAY_SESSION_KEY, a rotated key); reconnect to start a new session",
                    x.gateway
                ),
            )
        })
    }

    /// The gateway's `Mcp-Session-Id` sealed for this user and gateway (none: `None`), or the
    /// refusal of one that cannot be a session id.
    fn seal(
        &self,
        x: &Exchange<'_>,
        answer: &reqwest::Response,
    ) -> Result<Option<HeaderValue>, Refusal> {
        let Some(id) = answer.headers().get(SESSION_HEADER) else {
            return Ok(None);
        };
        let sealed = self
            .sessions
            .seal(x.gateway, &x.user.name, id.as_bytes())
            .map_err(|why| {
                Refusal::new(
                    Rule::SessionId,
                    format!(
                        "gateway {:?} answered with an Mcp-Session-Id that {}; it is not relayed",
                        x.gateway,
                        match why {
                            BadId::TooLong => format!(
                                "is over {MAX_SESSION_ID} bytes, the longest this relay hands on"
                            ),
                            BadId::NotVisibleAscii =>
                                "is empty or not visible ASCII (the spec's rule)".to_string(),
                        }
                    ),
                )
            })?;
        let mut v = HeaderValue::from_str(&sealed).expect("base64url and a dot");
        v.set_sensitive(true);
        Ok(Some(v))
    }

    /// The checks that need the gateway, then the exchange itself.
    async fn relay(
        &self,
        x: Exchange<'_>,
        method: Method,
        headers: &HeaderMap,
        body: Bytes,
    ) -> Response {
        let config = self.watched.current();
        let gateway = config
            .gateways
            .iter()
            .find(|(n, _)| n.0 == x.gateway)
            .map(|(_, g)| g)
            .filter(|g| g.visible_to(&x.user.name, &x.user.groups));
        let Some(gateway) = gateway else {
            return self.refuse(
                &x,
                Refusal::new(
                    Rule::GatewayUnknown,
                    format!(
                        "no gateway {:?} for you (GET /api/gateways lists yours)",
                        clip(x.gateway, 128)
                    ),
                ),
            );
        };
        let url = &gateway.url.0;
        if !self.settings.origin_allowed(url) {
            return self.refuse(
                &x,
                Refusal::new(
                    Rule::AllowedOrigins,
                    format!(
                        "gateway {:?} is at {}, which MCP_PROXY_ALLOWED_ORIGINS does not list",
                        x.gateway,
                        crate::settings::normal_origin(url)
                    ),
                ),
            );
        }
        let token = gateway_token(headers);
        if token.is_some() && url.scheme() != "https" && !self.settings.allow_insecure_auth {
            return self.refuse(
                &x,
                Refusal::new(
                    Rule::BearerOverHttps,
                    format!(
                        "gateway {:?} is plain http://, and a bearer token is only sent over https:// (MCP_PROXY_ALLOW_INSECURE_AUTH=true allows it, for development only)",
                        x.gateway
                    ),
                ),
            );
        }
        let session = match self.unseal(&x, headers) {
            Ok(s) => s,
            Err(refusal) => return self.refuse(&x, refusal),
        };
        let (target, host) = self.upstream.target(url);
        let mut out = outgoing_headers(headers);
        if let Some(id) = session.and_then(|id| HeaderValue::from_str(&id).ok()) {
            out.insert(SESSION_HEADER, id);
        }
        if let Some(h) = host.and_then(|h| HeaderValue::from_str(&h).ok()) {
            out.insert(header::HOST, h);
        }
        if let Some(t) = token {
            out.insert(header::AUTHORIZATION, t);
        }
        let mut request = self
            .upstream
            .client
            .request(method.clone(), target)
            .headers(out);
        if !body.is_empty() {
            request = request.body(body);
        }
        if let Some(t) = self.settings.request_timeout {
            request = request.timeout(t);
        }
        let answer = match request.send().await {
            Ok(a) => a,
            Err(e) => {
                return self.refuse(
                    &x,
                    send_failed(x.gateway, &e, self.settings.request_timeout),
                );
            }
        };
        self.answer(x, answer).await
    }

    /// The gateway's answer, relayed (or refused: a redirect, an oversized JSON body, a session
    /// id that cannot be one).
    async fn answer(&self, x: Exchange<'_>, answer: reqwest::Response) -> Response {
        let status = answer.status();
        if status.is_redirection() {
            let location = answer
                .headers()
                .get(header::LOCATION)
                .map(|v| clip(&String::from_utf8_lossy(v.as_bytes()), MAX_LOCATION))
                .unwrap_or_default();
            return self.refuse(
                &x,
                Refusal::new(
                    Rule::Redirect,
                    format!(
                        "gateway {:?} answered {} redirecting to {location:?}; redirects are never followed (fix the gateway's URL in the file)",
                        x.gateway,
                        status.as_u16()
                    ),
                )
                .with("location", location.clone())
                .with("status", status.as_u16()),
            );
        }
        // Sealed whatever the status: the browser never gets the gateway's id as it came.
        let sealed = match self.seal(&x, &answer) {
            Ok(s) => s,
            Err(refusal) => return self.refuse(&x, refusal),
        };
        let mut headers = HeaderMap::new();
        for name in RESPONSE_HEADERS {
            for v in answer.headers().get_all(name).iter().take(8) {
                headers.append(HeaderName::from_static(name), v.clone());
            }
        }
        if let Some(v) = sealed {
            headers.insert(SESSION_HEADER, v);
        }
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        let is_stream = answer
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.trim_start()
                    .to_ascii_lowercase()
                    .starts_with("text/event-stream")
            });
        let cap = self.watched.current().limits.response_bytes;
        if is_stream {
            self.audit(&x, status.as_u16(), "stream".into());
            let mut resp = Response::new(Body::from_stream(capped(
                answer,
                cap,
                x.gateway.to_string(),
            )));
            *resp.status_mut() = status;
            *resp.headers_mut() = headers;
            return resp;
        }
        let body = match read_capped(answer, cap).await {
            Ok(b) => b,
            Err(BodyError::TooBig) => {
                return self.refuse(
                    &x,
                    Refusal::new(
                        Rule::ResponseSize,
                        format!("gateway {:?} answered more than {cap} bytes (the file's limits.responseBytes)", x.gateway),
                    ),
                );
            }
            Err(BodyError::Failed(e)) => {
                return self.refuse(
                    &x,
                    send_failed(x.gateway, &e, self.settings.request_timeout),
                );
            }
        };
        self.audit(&x, status.as_u16(), outcome(status, &body));
        let mut resp = Response::new(Body::from(body));
        *resp.status_mut() = status;
        *resp.headers_mut() = headers;
        resp
    }
}

/// The allowed headers of the browser's request, by name, and nothing else.
fn outgoing_headers(incoming: &HeaderMap) -> HeaderMap {
    let mut out = HeaderMap::new();
    for name in REQUEST_HEADERS {
        if let Some(v) = incoming.get(name) {
            out.insert(HeaderName::from_static(name), v.clone());
        }
    }
    let params = incoming
        .iter()
        .filter(|(n, _)| n.as_str().starts_with("mcp-param-"))
        .take(MAX_PARAM_HEADERS);
    for (n, v) in params {
        if !out.contains_key(n) {
            out.insert(n.clone(), v.clone());
        }
    }
    out
}

/// `Authorization: Bearer …` from `X-MCP-Gateway-Token` (a pasted "Bearer " is taken off), as
/// a sensitive header value.
fn gateway_token(headers: &HeaderMap) -> Option<HeaderValue> {
    let raw = headers.get(GATEWAY_TOKEN_HEADER)?.to_str().ok()?.trim();
    let token = raw
        .strip_prefix("Bearer ")
        .or_else(|| raw.strip_prefix("bearer "))
        .unwrap_or(raw)
        .trim();
    if token.is_empty() {
        return None;
    }
    let mut v = HeaderValue::from_str(&format!("Bearer {token}")).ok()?;
    v.set_sensitive(true);
    Some(v)
}

/// A failed send as a refusal: `timeout` or `unreachable`. reqwest's message without the URL
/// (a URL is the administrator's, but a message is no place for a query string).
fn send_failed(gateway: &str, e: &reqwest::Error, timeout: Option<std::time::Duration>) -> Refusal {
    if e.is_timeout() {
        let after = timeout
            .map(|t| format!(" within {} ms (MCP_PROXY_REQUEST_TIMEOUT)", t.as_millis()))
            .unwrap_or_default();
        return Refusal::new(
            Rule::Timeout,
            format!("gateway {gateway:?} did not answer{after}"),
        );
    }
    let mut why = String::new();
    let mut source: Option<&dyn std::error::Error> = Some(e);
    while let Some(s) = source {
        let text = s.to_string();
        if !why.contains(&text) {
            if !why.is_empty() {
                why.push_str(": ");
            }
            why.push_str(&text);
        }
        source = s.source();
    }
    let why = match e.url() {
        Some(u) => why.replace(&format!(" for url ({u})"), ""),
        None => why,
    };
    Refusal::new(
        Rule::Unreachable,
        format!("gateway {gateway:?} could not be reached: {why}"),
    )
}

enum BodyError {
    TooBig,
    Failed(reqwest::Error),
}

/// A JSON (or other non-stream) body, whole, or `TooBig` past `cap`.
async fn read_capped(answer: reqwest::Response, cap: u64) -> Result<Bytes, BodyError> {
    if answer.content_length().is_some_and(|n| n > cap) {
        return Err(BodyError::TooBig);
    }
    let mut stream = answer.bytes_stream();
    let mut body = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(BodyError::Failed)?;
        if (body.len() + chunk.len()) as u64 > cap {
            return Err(BodyError::TooBig);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(body))
}

/// An SSE body relayed chunk by chunk, ended at `cap` bytes (or when the gateway's stream fails
/// or the timeout ends it: the browser sees the stream end, as a gateway that hung up).
fn capped(
    answer: reqwest::Response,
    cap: u64,
    gateway: String,
) -> impl futures::Stream<Item = Result<Bytes, std::io::Error>> + Send {
    futures::stream::unfold(
        (answer.bytes_stream().boxed(), cap, gateway),
        move |(mut stream, left, gateway)| async move {
            if left == 0 {
                return None;
            }
            match stream.next().await {
                Some(Ok(mut chunk)) => {
                    let left = if chunk.len() as u64 > left {
                        eprintln!(
                            "mcpscope gateway: the stream of gateway {gateway:?} passed limits.responseBytes ({cap} bytes) and was ended there"
                        );
                        chunk.truncate(left as usize);
                        0
                    } else {
                        left - chunk.len() as u64
                    };
                    Some((Ok(chunk), (stream, left, gateway)))
                }
                Some(Err(e)) => {
                    eprintln!(
                        "mcpscope gateway: the stream of gateway {gateway:?} ended early: {}",
                        if e.is_timeout() {
                            "MCP_PROXY_REQUEST_TIMEOUT passed".to_string()
                        } else {
                            e.without_url().to_string()
                        }
                    );
                    None
                }
                None => None,
            }
        },
    )
}

/// The audit outcome of a whole body.
fn outcome(status: StatusCode, body: &[u8]) -> String {
    if !status.is_success() {
        return "http-error".into();
    }
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return "ok".into();
    };
    if v.get("error").is_some() {
        return "rpc-error".into();
    }
    let result = v.get("result");
    if result
        .and_then(|r| r.get("isError"))
        .and_then(Value::as_bool)
        == Some(true)
    {
        return "tool-error".into();
    }
    if result
        .and_then(|r| r.get("resultType"))
        .and_then(Value::as_str)
        == Some("input_required")
    {
        return "input-required".into();
    }
    "ok".into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_single_requests_and_notifications_pass() {
        assert!(
            jsonrpc_message(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).is_ok()
        );
        assert!(
            jsonrpc_message(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                .is_ok()
        );
        assert!(jsonrpc_message(&json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])).is_err());
        assert!(jsonrpc_message(&json!({"jsonrpc": "2.0", "id": 1, "result": {}})).is_err());
        assert!(jsonrpc_message(&json!({"id": 1, "method": "ping"})).is_err());
        assert!(jsonrpc_message(&json!({"jsonrpc": "2.0", "id": null, "method": "ping"})).is_err());
    }

    #[test]
    fn only_the_listed_headers_go_out() {
        let mut h = HeaderMap::new();
        for (k, v) in [
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
            ("mcp-param-region", "eu"),
            ("cookie", "session=1"),
            ("authorization", "Bearer ours"),
            ("x-mcp-remote-auth", "Bearer ours"),
            ("x-forwarded-for", "10.0.0.1"),
            ("user-agent", "Mozilla"),
            (GATEWAY_TOKEN_HEADER, "Bearer theirs"),
        ] {
            h.insert(HeaderName::from_static(k), HeaderValue::from_static(v));
        }
        let out = outgoing_headers(&h);
        let mut names: Vec<&str> = out.keys().map(HeaderName::as_str).collect();
        names.sort();
        assert_eq!(names, ["accept", "content-type", "mcp-param-region"]);
        assert_eq!(gateway_token(&h).unwrap(), "Bearer theirs");
    }
}
