//! The Streamable HTTP transport: rmcp's `StreamableHttpService` on axum, at `/mcp` on loopback,
//! behind a small middleware that applies the legacy tasks shim (see `legacy_tasks`). The same
//! port also serves the deprecated HTTP+SSE transport at `/sse` (see `sse`).
//!
//! One service answers both eras: with `legacy_session_mode` on, rmcp routes `initialize` and
//! session-bound requests (`Mcp-Session-Id`, GET stream, DELETE) to per-session workers, and
//! every request whose `_meta` carries the 2026-07-28 envelope to a stateless, per-request
//! worker that checks `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*`.

use std::{
    future::Future,
    net::{Ipv4Addr, SocketAddr},
    sync::Arc,
    time::Duration,
};

use anyhow::Context as _;
use axum::{
    body::{Body, Bytes},
    extract::Request,
    middleware::{self, Next},
    response::{IntoResponse, Response},
};
use futures::StreamExt as _;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use serde_json::Value;
use tokio::net::TcpListener;

use crate::{
    legacy_tasks::{self, Followup},
    server::DemoServer,
    shared::Shared,
    sse,
};

/// Same as rmcp's default request-body limit: the middleware must read the body to rewrite it.
const MAX_REQUEST_BODY: usize = 4 * 1024 * 1024;
/// After shutdown is asked for, open streams get this long to finish before we stop waiting.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// Binds `127.0.0.1:port` and serves until the process ends.
pub(crate) async fn serve(port: u16, announce: bool) -> anyhow::Result<()> {
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
        .await
        .with_context(|| format!("cannot listen on 127.0.0.1:{port}"))?;
    if announce {
        let port = listener.local_addr()?.port();
        eprintln!("listening on http://127.0.0.1:{port}/mcp");
        eprintln!(
            "deprecated HTTP+SSE transport on http://127.0.0.1:{port}{}",
            sse::SSE_PATH
        );
    }
    serve_on(listener, std::future::pending()).await
}

/// Serves on an already-bound listener until `shutdown` resolves.
pub(crate) async fn serve_on(
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let shared = Shared::new();
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let sse_routes = sse::router(shared.clone(), stop_rx.clone());
    let shared_for_drops = shared.clone();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(true)
        // The server only listens on loopback; a browser page from anywhere else must not be
        // able to drive it (DNS rebinding is already stopped by rmcp's Host check).
        .with_allowed_origins(["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]);
    let cancel = config.cancellation_token.clone();
    let service = StreamableHttpService::new(
        move || Ok(DemoServer::new(shared.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new()
        .route_service("/mcp", service)
        .route_layer(middleware::from_fn(legacy_tasks_shim))
        .route_layer(middleware::from_fn_with_state(
            shared_for_drops,
            crate::listen_end::drop_on_demand,
        ))
        .merge(sse_routes);

    let signal = async move {
        shutdown.await;
        // Ends rmcp's sessions and SSE streams, and our HTTP+SSE streams, which graceful
        // shutdown would wait for.
        cancel.cancel();
        let _ = stop_tx.send(true);
    };
    // Without TCP_NODELAY the response event that follows a priming SSE event waits for the
    // client's delayed ACK (about 40 ms per request on Linux).
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let server = axum::serve(listener, router).with_graceful_shutdown(signal);
    let mut stop_rx = stop_rx;
    let watchdog = async move {
        let _ = stop_rx.wait_for(|stopped| *stopped).await;
        tokio::time::sleep(SHUTDOWN_GRACE).await;
    };
    tokio::select! {
        result = server.into_future() => result.context("HTTP server failed")?,
        () = watchdog => {}
    }
    Ok(())
}

/// Rewrites legacy task requests on the way in and amends legacy `initialize` / `tools/list`
/// responses on the way out; everything else passes through untouched.
async fn legacy_tasks_shim(request: Request, next: Next) -> Response {
    if request.method() != http::Method::POST {
        return next.run(request).await;
    }
    let (mut parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_REQUEST_BODY).await else {
        return (
            http::StatusCode::PAYLOAD_TOO_LARGE,
            "Payload Too Large: the request body exceeds 4 MiB",
        )
            .into_response();
    };
    if let Some(refusal) = removed_in_modern(&parts.headers, &bytes) {
        return refusal;
    }
    let mut followup = None;
    let mut body = bytes.clone();
    if legacy_tasks::may_need_inbound_rewrite(&bytes)
        && let Ok(mut message) = serde_json::from_slice::<Value>(&bytes)
    {
        let before = message.get("method").cloned();
        followup = legacy_tasks::rewrite_inbound(&mut message);
        if message.get("method") != before.as_ref()
            && let Ok(rewritten) = serde_json::to_vec(&message)
        {
            body = Bytes::from(rewritten);
            parts.headers.insert(
                http::header::CONTENT_LENGTH,
                http::HeaderValue::from(body.len()),
            );
        }
    }
    // Legacy clients repeat the negotiated version on every request after initialize.
    let version = parts
        .headers
        .get("mcp-protocol-version")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let response = next.run(Request::from_parts(parts, Body::from(body))).await;
    match followup {
        Some(followup) => amend_response(response, followup, version),
        None => response,
    }
}

/// A 2026-07-28 request (its `MCP-Protocol-Version`) for `resources/subscribe` or
/// `resources/unsubscribe`, which that revision removed: 404 and -32601, as for any method the
/// server does not implement. rmcp's header check would refuse it first with -32020 for a missing
/// `Mcp-Name` — a header the spec requires only of `tools/call`, `resources/read` and
/// `prompts/get` (found by `mcpscope check`'s removed-methods-not-found).
fn removed_in_modern(headers: &http::HeaderMap, bytes: &[u8]) -> Option<Response> {
    let modern = headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("2026"));
    if !modern {
        return None;
    }
    let message: Value = serde_json::from_slice(bytes).ok()?;
    let method = message.get("method")?.as_str()?;
    if !matches!(method, "resources/subscribe" | "resources/unsubscribe") {
        return None;
    }
    let id = message.get("id")?.clone();
    let body = serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601,
        "message": format!("Method not found: {method} (removed in 2026-07-28; use subscriptions/listen)")}});
    Some(
        (
            http::StatusCode::NOT_FOUND,
            [(http::header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response(),
    )
}

/// Amends the JSON-RPC result inside a JSON or SSE response, line by line as it streams, so an
/// SSE stream that stays open is never buffered whole.
fn amend_response(response: Response, followup: Followup, version: Option<String>) -> Response {
    let (mut parts, body) = response.into_parts();
    parts.headers.remove(http::header::CONTENT_LENGTH);
    let amend = move |line: &[u8]| -> Option<Vec<u8>> {
        let (prefix, json) = match line.strip_prefix(b"data:") {
            Some(rest) => (&b"data: "[..], rest.strip_prefix(b" ").unwrap_or(rest)),
            None => (&b""[..], line),
        };
        let mut message: Value = serde_json::from_slice(json).ok()?;
        let result = message.get_mut("result")?;
        legacy_tasks::rewrite_outbound(result, followup, version.as_deref());
        let mut out = prefix.to_vec();
        out.extend_from_slice(&serde_json::to_vec(&message).ok()?);
        Some(out)
    };
    let stream = futures::stream::unfold(
        (body.into_data_stream(), Vec::<u8>::new(), false),
        move |(mut inner, mut pending, mut done)| {
            let amend = amend.clone();
            async move {
                loop {
                    if let Some(end) = pending.iter().position(|byte| *byte == b'\n') {
                        let line: Vec<u8> = pending.drain(..=end).collect();
                        let content = line.strip_suffix(b"\n").unwrap_or(&line);
                        let content = content.strip_suffix(b"\r").unwrap_or(content);
                        let out = match amend(content) {
                            Some(mut amended) => {
                                amended.push(b'\n');
                                amended
                            }
                            None => line,
                        };
                        return Some((
                            Ok::<_, axum::Error>(Bytes::from(out)),
                            (inner, pending, done),
                        ));
                    }
                    if done {
                        if pending.is_empty() {
                            return None;
                        }
                        let rest = std::mem::take(&mut pending);
                        let out = amend(&rest).unwrap_or(rest);
                        return Some((Ok(Bytes::from(out)), (inner, pending, done)));
                    }
                    match inner.next().await {
                        Some(Ok(chunk)) => pending.extend_from_slice(&chunk),
                        Some(Err(error)) => return Some((Err(error), (inner, pending, true))),
                        None => done = true,
                    }
                }
            }
        },
    );
    Response::from_parts(parts, Body::from_stream(stream))
}
