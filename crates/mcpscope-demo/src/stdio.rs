//! The stdio transport: rmcp's line transport behind two small pumps that apply the legacy tasks
//! shim (see `legacy_tasks`) to each newline-delimited message.
//!
//! The same pumps carry each connection of the deprecated HTTP+SSE transport (see `sse`), which
//! is line-shaped too: one message per POST in, one message per SSE event out.
//!
//! stdout carries protocol messages only; nothing else in this crate prints there.

use std::{
    collections::HashMap,
    io::BufRead as _,
    sync::{Arc, Mutex},
};

use rmcp::{ServiceExt as _, service::ServerInitializeError};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream},
    sync::mpsc,
};

use crate::{
    legacy_tasks::{self, Followup},
    server::{DemoServer, REMOVED_PING},
    shared::{Shared, lock},
};

/// The first revision without `ping`.
const MODERN_VERSION: &str = "2026-07-28";

/// Lines longer than this are never `initialize` or `tools/list` results, so the outbound pump
/// forwards them untouched instead of parsing (the `big` tool sends 100 MB lines).
const MAX_REWRITTEN_LINE: usize = 4 * 1024 * 1024;
/// Lines read ahead from stdin before the reader thread waits for rmcp to catch up.
pub(crate) const STDIN_QUEUE: usize = 64;
/// Buffer between the pumps and rmcp.
pub(crate) const PIPE_CAPACITY: usize = 256 * 1024;

/// What the inbound pump tells the outbound one.
#[derive(Default)]
struct ShimState {
    /// Responses to amend, by the request id's JSON text.
    pending: HashMap<String, Followup>,
    /// The version `initialize` negotiated, once known.
    version: Option<String>,
}

/// Serves the demo on this process's stdin and stdout until stdin reaches end of file.
pub(crate) async fn serve_process_stdio() -> anyhow::Result<()> {
    serve(Shared::new(), stdin_lines(), tokio::io::stdout()).await
}

/// Reads stdin on a plain thread. Tokio's stdin also blocks a thread, but the runtime waits for
/// that thread at shutdown, so a server whose session ended while stdin stayed open would hang
/// until the client closed it; a detached std thread does not hold the process.
fn stdin_lines() -> mpsc::Receiver<std::io::Result<Vec<u8>>> {
    let (tx, rx) = mpsc::channel(STDIN_QUEUE);
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        loop {
            let mut line = Vec::new();
            match stdin.read_until(b'\n', &mut line) {
                Ok(0) => break,
                Ok(_) => {
                    if tx.blocking_send(Ok(line)).is_err() {
                        break;
                    }
                }
                Err(error) => {
                    let _ = tx.blocking_send(Err(error));
                    break;
                }
            }
        }
    });
    rx
}

/// Serves one session of the demo over `input` lines (each ending in a newline) until the
/// channel closes, writing newline-delimited messages to `output`.
pub(crate) async fn serve(
    shared: Arc<Shared>,
    input: mpsc::Receiver<std::io::Result<Vec<u8>>>,
    output: impl AsyncWrite + Unpin + Send + 'static,
) -> anyhow::Result<()> {
    let state = Arc::new(Mutex::new(ShimState::default()));
    let (to_rmcp, rmcp_reads) = tokio::io::duplex(PIPE_CAPACITY);
    let (rmcp_writes, from_rmcp) = tokio::io::duplex(PIPE_CAPACITY);
    let inbound = tokio::spawn(pump_in(input, to_rmcp, state.clone()));
    let outbound = tokio::spawn(pump_out(from_rmcp, output, state));

    let server = DemoServer::new(shared);
    let outcome = match server.serve((rmcp_reads, rmcp_writes)).await {
        Ok(running) => running
            .waiting()
            .await
            .map(drop)
            .map_err(anyhow::Error::from),
        // stdin closed before any lifecycle began: a normal, silent end.
        Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        // rmcp ends a connection whose first message is not a request (a stray notification or
        // response); report it as an error rather than exit as if all went well.
        Err(error) => Err(anyhow::anyhow!(
            "the demo server could not start an MCP session: {error}"
        )),
    };
    // rmcp has dropped its writer, so the outbound pump sees end of file once it has flushed.
    outbound.await??;
    inbound.abort();
    outcome
}

/// rmcp answers `ping` with `{}` until a lifecycle has started, even when the request carries
/// the 2026-07-28 envelope; but that revision removed `ping`, and `{}` lacks the `resultType`
/// every modern result must have. Renamed, the request reaches the handler, which answers
/// `-32601` as rmcp's HTTP transport already does for a modern `ping`.
fn rename_modern_ping(message: &mut Value) {
    let modern = message
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str)
        .is_some_and(|version| version >= MODERN_VERSION);
    if modern && message.get("id").is_some() && message.get("method") == Some(&json!("ping")) {
        message["method"] = json!(REMOVED_PING);
    }
}

/// The JSON text of a message's id, used as a map key.
fn id_key(message: &Value) -> Option<String> {
    message.get("id").map(Value::to_string)
}

async fn pump_in(
    mut input: mpsc::Receiver<std::io::Result<Vec<u8>>>,
    mut to_rmcp: DuplexStream,
    state: Arc<Mutex<ShimState>>,
) -> std::io::Result<()> {
    while let Some(line) = input.recv().await {
        let line = line?;
        let may_be_ping = memchr::memmem::find(&line, b"\"ping\"").is_some();
        if (may_be_ping || legacy_tasks::may_need_inbound_rewrite(&line))
            && let Ok(mut message) = serde_json::from_slice::<Value>(&line)
        {
            let before = message.get("method").cloned();
            rename_modern_ping(&mut message);
            let followup = legacy_tasks::rewrite_inbound(&mut message);
            if let (Some(followup), Some(id)) = (followup, id_key(&message)) {
                lock(&state).pending.insert(id, followup);
            }
            if message.get("method") != before.as_ref() {
                let mut rewritten = serde_json::to_vec(&message)?;
                rewritten.push(b'\n');
                to_rmcp.write_all(&rewritten).await?;
                continue;
            }
        }
        to_rmcp.write_all(&line).await?;
    }
    // Shutting the pipe down is how rmcp learns that stdin closed.
    to_rmcp.shutdown().await
}

async fn pump_out(
    from_rmcp: DuplexStream,
    mut output: impl AsyncWrite + Unpin,
    state: Arc<Mutex<ShimState>>,
) -> std::io::Result<()> {
    let mut from_rmcp = BufReader::new(from_rmcp);
    let mut line = Vec::new();
    loop {
        line.clear();
        if from_rmcp.read_until(b'\n', &mut line).await? == 0 {
            break;
        }
        let waiting = !lock(&state).pending.is_empty();
        if waiting
            && line.len() <= MAX_REWRITTEN_LINE
            && let Some(rewritten) = amend(&line, &state)
        {
            output.write_all(&rewritten).await?;
        } else {
            output.write_all(&line).await?;
        }
        output.flush().await?;
    }
    output.flush().await
}

/// The amended line, when `line` is a response the shim is waiting for.
fn amend(line: &[u8], state: &Mutex<ShimState>) -> Option<Vec<u8>> {
    let mut message: Value = serde_json::from_slice(line).ok()?;
    let id = id_key(&message)?;
    let mut state = lock(state);
    let followup = state.pending.remove(&id)?;
    let result = message.get_mut("result")?;
    if followup == Followup::Initialize {
        state.version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned);
    }
    legacy_tasks::rewrite_outbound(result, followup, state.version.as_deref());
    let mut rewritten = serde_json::to_vec(&message).ok()?;
    rewritten.push(b'\n');
    Some(rewritten)
}
