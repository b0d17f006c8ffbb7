//! The web API against real peers nobody on this project wrote (`testenv/peers/*.sh`): what a
//! page shows when the server is not ours. The TypeScript SDK v1 (2025-11-25 only) refuses a
//! 2026-07-28 connect with HTTP 400; the error the page gets says which era to choose.
//!
//! Like the other real-peer tests these fail when `.peers/` is missing, saying what to run, and
//! `MCPSCOPE_SKIP_PEERS=1` skips them on purpose.

use crate::support::{Options, TempDir, http_entry, start};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncBufReadExt as _;

/// A peer started by `testenv/peers/SCRIPT MODE 0`, killed when dropped.
pub(crate) struct Peer {
    /// `http://127.0.0.1:PORT[/mcp]`, as the script printed it.
    pub url: String,
    _child: tokio::process::Child,
}

/// Starts `testenv/peers/{script} {mode} 0` and waits for its `listening on URL` line, or
/// `None` (after a notice) when `MCPSCOPE_SKIP_PEERS=1`.
pub(crate) async fn peer(test: &str, script: &str, mode: &str) -> Option<Peer> {
    launch(test, script, mode, "node22").await
}

/// [`peer`] for a script under `testenv/peers` that needs `needs` (a path under `.peers/`: the
/// Node or the Python venv); panics, saying what to run, when it is not installed.
pub(crate) async fn launch(test: &str, script: &str, mode: &str, needs: &str) -> Option<Peer> {
    if std::env::var("MCPSCOPE_SKIP_PEERS").as_deref() == Ok("1") {
        eprintln!("{test}: skipped, MCPSCOPE_SKIP_PEERS=1 (real-peer tests need .peers/)");
        return None;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap();
    // The same override testenv/lib.sh honours.
    let peers_dir = std::env::var_os("MCPSCOPE_PEERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join(".peers"));
    assert!(
        peers_dir.join(needs).exists(),
        "{test}: this real-peer test needs {}; run `bash testenv/install.sh` once, or set \
         MCPSCOPE_SKIP_PEERS=1 to skip it",
        peers_dir.join(needs).display()
    );
    let path = root.join("testenv/peers").join(script);
    let mut child = tokio::process::Command::new(&path)
        .args([mode, "0"])
        .env("MCPSCOPE_PEERS_DIR", &peers_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", path.display()));
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = Vec::new();
    let url = loop {
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .unwrap_or_else(|_| panic!("{script} {mode} did not start: {seen:?}"))
            .unwrap()
            .unwrap_or_else(|| panic!("{script} {mode} exited: {seen:?}"));
        // `mcpscope-testenv: listening on http://127.0.0.1:PORT/mcp (pid N)`
        if let Some(url) = line
            .split("listening on ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
        {
            break url.to_owned();
        }
        seen.push(line);
    };
    // Keep draining stderr so a chatty peer never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Some(Peer { url, _child: child })
}

/// Issue 24: a 2026-07-28 connect (the Protocol selector) to the TypeScript SDK v1 over
/// Streamable HTTP failed with "answered HTTP 400 … No valid session ID" and nothing else; the
/// CLI alone said to try the other era. The engine now says it, so the card's error (and the
/// answer to connect) carries the advice, as message and as `hint`; Auto still connects.
#[tokio::test]
async fn a_modern_connect_to_a_legacy_only_server_says_to_choose_the_other_era() {
    let test = "a_modern_connect_to_a_legacy_only_server_says_to_choose_the_other_era";
    let Some(v1) = peer(test, "ts-sdk-v1-server.sh", "http").await else {
        return;
    };
    let dir = TempDir::new("era-hint");
    let b = start(
        dir.path(),
        vec![
            ("v1".to_string(), http_entry(&v1.url, "modern")),
            ("v1auto".to_string(), http_entry(&v1.url, "auto")),
        ],
        Options::default(),
    )
    .await;
    let r = b.post("/api/servers/v1/connect", json!({})).await;
    assert_eq!(r.status, 502, "{}", r.text);
    let error = &r.body["error"];
    assert_eq!(error["status"], 400, "{error}");
    let hint = error["hint"].as_str().unwrap_or_default();
    assert!(
        hint.contains("try --protocol-era legacy or auto"),
        "{error}"
    );
    assert!(hint.contains("speaks only 2025-11-25"), "{error}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.ends_with(hint), "{error}");
    // The card keeps the same error for the page.
    let cards = b.get("/api/servers").await.body;
    let card = &cards["servers"][0];
    assert_eq!(card["status"], "failed", "{card}");
    assert_eq!(card["error"]["hint"], json!(hint), "{card}");

    let info = b.ok("/api/servers/v1auto/connect", json!({})).await;
    assert_eq!(info["era"], "legacy", "{info}");
    b.stop().await;
}

/// Issue 24: the resource viewer's Subscribe (and the Subscriptions panel's) sent
/// `resources/subscribe` to a server that does not declare `resources.subscribe` — FastMCP
/// declares resources without it — and History filled with its refusal. The core now refuses
/// first, naming the capability, and nothing goes on the wire.
#[tokio::test]
async fn subscribe_is_refused_for_a_server_without_resources_subscribe() {
    let test = "subscribe_is_refused_for_a_server_without_resources_subscribe";
    let Some(fastmcp) = peer(test, "fastmcp-server.sh", "http").await else {
        return;
    };
    let dir = TempDir::new("no-subscribe");
    let b = start(
        dir.path(),
        vec![("f".to_string(), http_entry(&fastmcp.url, "legacy"))],
        Options::default(),
    )
    .await;
    let info = b.ok("/api/servers/f/connect", json!({})).await;
    assert_eq!(info["era"], "legacy", "{info}");
    assert_ne!(
        info["capabilities"]["resources"]["subscribe"],
        json!(true),
        "FastMCP was expected not to declare resources.subscribe: {info}"
    );
    let r = b
        .post(
            "/api/servers/f/subscriptions/subscribe",
            json!({"uri": "testenv://readme"}),
        )
        .await;
    assert_eq!(r.status, 409, "{}", r.text);
    assert_eq!(r.body["error"]["code"], "conflict", "{}", r.text);
    assert_eq!(r.body["error"]["capability"], "resources.subscribe");
    let message = r.body["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("does not declare the resources.subscribe capability"),
        "{message}"
    );
    let history = b.get("/api/history").await.text;
    assert!(
        !history.contains("resources/subscribe"),
        "nothing was sent: {history}"
    );
    b.stop().await;
}

/// Issue 24: after a cancel, server-everything keeps sending the progress it had under way, and
/// each became a "progress for unknown token" warning (Traffic's banner). Progress for a request
/// we just cancelled is expected: no warning for it (a token we never sent, or of a request
/// answered long ago, still warns: `inbound.rs`).
#[tokio::test]
async fn progress_after_a_cancel_is_no_warning() {
    let test = "progress_after_a_cancel_is_no_warning";
    let Some(everything) = peer(test, "everything.sh", "http").await else {
        return;
    };
    let dir = TempDir::new("cancel-progress");
    let b = start(
        dir.path(),
        vec![(
            "e".to_string(),
            http_entry(&format!("{}/mcp", everything.url), "legacy"),
        )],
        Options::default(),
    )
    .await;
    let events = b.events(None).await;
    b.ok("/api/servers/e/connect", json!({})).await;
    let call = b.spawn_post(
        "/api/servers/e/request",
        json!({"method": "tools/call", "requestId": "long-1", "progress": true,
               "params": {"name": "trigger-long-running-operation",
                          "arguments": {"duration": 6, "steps": 30}}}),
    );
    events
        .wait("progress", |e| {
            e.name == "progress" && e.data["requestId"] == "long-1"
        })
        .await;
    let c = b.ok("/api/requests/long-1/cancel", json!({})).await;
    assert_eq!(c["cancelled"], true, "{c}");
    let _ = call.await;
    // server-everything goes on for the rest of its 6 s: progress frames come after the
    // cancellation (the precondition: else this test could not fail).
    tokio::time::sleep(Duration::from_secs(3)).await;
    let frames = b
        .get("/api/servers/e/frames?after=0&limit=2000&source=jsonrpc")
        .await
        .text;
    let cancel = frames
        .find("notifications/cancelled")
        .expect("the cancellation went out");
    let late = frames[cancel..].matches("notifications/progress").count();
    assert!(late > 0, "no progress after the cancel: {frames}");
    let warnings: Vec<String> = events
        .all()
        .into_iter()
        .filter(|e| e.name == "warning")
        .map(|e| e.data.to_string())
        .collect();
    assert!(
        !warnings.iter().any(|w| w.contains("unknown token")),
        "{late} progress frames; {warnings:#?}"
    );
    b.stop().await;
}
