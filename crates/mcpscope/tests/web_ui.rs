//! `mcpscope` with no arguments: the web UI, as a user starts it. The real binary on a free
//! loopback port with its own data directory: the printed URL and token, the seeded catalog with
//! the demo server (launched over stdio as our own executable), a tool call with progress, a pin
//! that survives a restart of the process, the refusals of a non-loopback bind, and the
//! read-only `--config` catalog.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const MCPSCOPE: &str = env!("CARGO_BIN_EXE_mcpscope");

/// A fresh directory under the system temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "mcpscope-web-{name}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A running `mcpscope` web UI.
struct Ui {
    child: Child,
    base: String,
    token: String,
    http: reqwest::Client,
}

fn command(data: &Path, extra_env: &[(&str, &str)], args: &[&str]) -> Command {
    let mut c = Command::new(MCPSCOPE);
    c.args(args)
        .env("MCPSCOPE_DATA_DIR", data)
        .env("CLIENT_PORT", "0")
        .env_remove("HOST")
        .env_remove("MCP_INSPECTOR_API_TOKEN")
        .env_remove("DANGEROUSLY_OMIT_AUTH")
        .env_remove("DANGEROUSLY_BIND_ALL_INTERFACES")
        .env_remove("ALLOWED_ORIGINS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    for (k, v) in extra_env {
        c.env(k, v);
    }
    c
}

async fn launch(data: &Path, extra_env: &[(&str, &str)], args: &[&str]) -> Ui {
    let mut child = command(data, extra_env, args)
        .spawn()
        .expect("spawn mcpscope");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("mcpscope prints its URL within 30 s")
        .expect("read stdout")
        .expect("a line");
    let url = line
        .strip_prefix("mcpscope web UI: ")
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_string();
    let (base, token) = match url.split_once("/?token=") {
        Some((b, t)) => (b.to_string(), t.to_string()),
        None => (url.trim_end_matches('/').to_string(), String::new()),
    };
    Ui {
        child,
        base,
        token,
        http: reqwest::Client::new(),
    }
}

impl Ui {
    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut rb = self
            .http
            .request(method, format!("{}{path}", self.base))
            .header("x-mcp-remote-auth", format!("Bearer {}", self.token));
        if let Some(b) = body {
            rb = rb
                .header("content-type", "application/json")
                .body(b.to_string());
        }
        let r = rb.send().await.expect("the web UI answers");
        let status = r.status().as_u16();
        let text = r.text().await.unwrap_or_default();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    async fn post(&self, path: &str, body: Value) -> Value {
        let (status, v) = self.call(reqwest::Method::POST, path, Some(body)).await;
        assert_eq!(status, 200, "POST {path}: {v}");
        v
    }

    async fn get(&self, path: &str) -> Value {
        let (status, v) = self.call(reqwest::Method::GET, path, None).await;
        assert_eq!(status, 200, "GET {path}: {v}");
        v
    }

    /// Ctrl-C, as a user stops it: the demo server it started goes too.
    async fn stop(mut self) -> i32 {
        if let Some(pid) = self.child.id() {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid as i32),
                nix::sys::signal::Signal::SIGINT,
            );
        }
        let status = tokio::time::timeout(Duration::from_secs(20), self.child.wait())
            .await
            .expect("mcpscope exits within 20 s of Ctrl-C")
            .expect("wait");
        status.code().unwrap_or(-1)
    }
}

#[tokio::test]
async fn the_default_command_serves_the_seeded_demo_and_keeps_pins_across_restarts() {
    let dir = TempDir::new("default");
    let ui = launch(&dir.0, &[], &["--no-open"]).await;
    assert_eq!(ui.token.len(), 64, "a 256-bit token in hex");
    assert!(ui.base.starts_with("http://127.0.0.1:"), "{}", ui.base);

    let catalog: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.0.join("mcp.json")).unwrap()).unwrap();
    assert_eq!(catalog["mcpServers"]["demo"]["command"], MCPSCOPE);
    assert_eq!(
        catalog["mcpServers"]["demo"]["args"],
        json!(["demo-server"])
    );

    let (status, _) = ui.call(reqwest::Method::GET, "/api/servers", None).await;
    assert_eq!(status, 200);
    let (unauth, _) = {
        let r = ui
            .http
            .get(format!("{}/api/servers", ui.base))
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), ())
    };
    assert_eq!(unauth, 401);

    let info = ui
        .post(
            "/api/servers/demo/connect",
            json!({"protocolEra": "legacy"}),
        )
        .await;
    assert_eq!(info["transport"], "stdio");
    assert_eq!(info["serverInfo"]["name"], "mcpscope-demo");
    let done = ui
        .post(
            "/api/servers/demo/request",
            json!({"method": "tools/call", "progress": true,
                   "params": {"name": "slow", "arguments": {"durationMs": 300, "steps": 3}}}),
        )
        .await;
    assert_eq!(done["result"]["content"][0]["text"], "done after 3 steps");
    let id = done["historyId"].as_i64().unwrap();
    let entry = ui.get(&format!("/api/history/{id}")).await;
    let progress = entry["children"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "progress")
        .count();
    assert_eq!(progress, 3, "{entry}");
    ui.post(
        &format!("/api/history/{id}/pin"),
        json!({"label": "three steps"}),
    )
    .await;
    assert_eq!(ui.stop().await, 0);

    let ui = launch(&dir.0, &[], &["--no-open"]).await;
    let pinned = ui.get("/api/history?pinned=true").await;
    assert_eq!(pinned["entries"][0]["id"], json!(id));
    assert_eq!(pinned["entries"][0]["label"], "three steps");
    assert_eq!(ui.stop().await, 0);
}

#[tokio::test]
async fn a_wildcard_bind_is_refused_unless_asked_for_loudly() {
    let dir = TempDir::new("bind");
    let out = command(&dir.0, &[("HOST", "0.0.0.0")], &["--no-open"])
        .output()
        .await
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "no URL printed");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("DANGEROUSLY_BIND_ALL_INTERFACES"), "{err}");
    assert!(!dir.0.join("history.sqlite").exists(), "nothing started");
}

#[tokio::test]
async fn a_fixed_token_and_a_read_only_config() {
    let dir = TempDir::new("config");
    let config = dir.0.join("claude.json");
    std::fs::write(
        &config,
        r#"{"mcpServers": {"x": {"command": "node", "args": ["x.js"]}}}"#,
    )
    .unwrap();
    let ui = launch(
        &dir.0,
        &[("MCP_INSPECTOR_API_TOKEN", "fixed-token")],
        &["--no-open", "--config", config.to_str().unwrap()],
    )
    .await;
    assert_eq!(ui.token, "fixed-token");
    let servers = ui.get("/api/servers").await;
    assert_eq!(servers["servers"][0]["name"], "x");
    let (status, body) = ui
        .call(
            reqwest::Method::POST,
            "/api/servers",
            Some(json!({"name": "y", "entry": {"command": "z"}})),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--catalog")
    );
    assert!(
        !dir.0.join("mcp.json").exists(),
        "no catalog seeded beside a --config"
    );
    assert_eq!(ui.stop().await, 0);
}
