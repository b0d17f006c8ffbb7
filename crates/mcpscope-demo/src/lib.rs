//! The built-in demo MCP server: every feature of both protocol eras, on stdio, Streamable HTTP
//! or the deprecated HTTP+SSE transport, so newcomers have a server to point mcpscope at and our tests have one that exercises
//! everything.
//!
//! It is built on `rmcp`, an implementation independent of ours, so what our client sees is
//! another SDK's idea of the wire. One handler answers the legacy era (2025-11-25: `initialize`,
//! sessions, server→client requests, `logging/setLevel`, `resources/subscribe`, core tasks) and
//! the modern era (2026-07-28: `server/discover`, per-request `_meta`, `input_required`,
//! `subscriptions/listen`, the tasks extension).
//!
//! ```no_run
//! # async fn run() -> anyhow::Result<()> {
//! // Serve Streamable HTTP on a free loopback port and say where on stderr.
//! mcpscope_demo::serve_http(0, true).await
//! # }
//! ```

mod catalog;
mod http;
mod interaction;
mod legacy_tasks;
mod listen_end;
mod media;
mod research;
mod rounds;
mod server;
mod shared;
mod sse;
mod stdio;

use std::future::Future;

/// Serve over stdio until stdin closes.
///
/// stdout carries protocol messages only; diagnostics, if any, go to stderr.
pub async fn serve_stdio() -> anyhow::Result<()> {
    stdio::serve_process_stdio().await
}

/// Serve Streamable HTTP on `127.0.0.1:port` at path `/mcp`, and the deprecated HTTP+SSE
/// transport at `/sse` (messages POSTed to `/message?sessionId=…`), until the process ends.
///
/// Port 0 picks a free port. Nothing is printed on stdout; when `announce` is true two lines go
/// to stderr once the socket is bound, first `listening on http://127.0.0.1:PORT/mcp`, then
/// `deprecated HTTP+SSE transport on http://127.0.0.1:PORT/sse`.
pub async fn serve_http(port: u16, announce: bool) -> anyhow::Result<()> {
    http::serve(port, announce).await
}

/// The demo over HTTP on a free loopback port, for tests: `url` is its Streamable HTTP endpoint;
/// the server stops when this is dropped.
pub struct LoopbackDemo {
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    _stop: tokio::sync::oneshot::Sender<()>,
}

/// Start the demo on a free loopback port (see [`LoopbackDemo`]); needs a tokio runtime.
pub async fn on_loopback() -> std::io::Result<LoopbackDemo> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve_http_on(listener, async {
        let _ = stopped.await;
    }));
    Ok(LoopbackDemo { url, _stop: stop })
}

/// Serve Streamable HTTP at `/mcp` and HTTP+SSE at `/sse` on an already-bound listener (for
/// tests), returning when `shutdown` resolves.
pub async fn serve_http_on(
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    http::serve_on(listener, shutdown).await
}
