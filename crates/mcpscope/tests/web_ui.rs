//! `mcpscope` with no arguments: the web UI, as a user starts it. The real binary on a free
//! loopback port with its own data directory: the printed URL and token, the seeded catalog with
//! the demo server (launched over stdio as our own executable), a tool call with progress, a pin
//! that survives a restart of the process, the refusals of a non-loopback bind, the read-only
//! `--config` catalog, one web UI per data directory (a second start exits 4 naming the holder and
//! leaves its history alone), the warning for a short fixed token, owner-only files, and HTTPS
//! from `INSPECTOR_TLS_KEY_PATH` / `INSPECTOR_TLS_CERT_PATH` (one alone refused).

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

/// Issue 24's newcomer run: `--port` (clap's nearest flag was `--format`) says that the port is
/// `CLIENT_PORT`, on the terminal and in the JSON error line.
#[tokio::test]
async fn port_as_a_flag_says_the_port_is_client_port() {
    let dir = TempDir::new("port-flag");
    let out = command(&dir.0, &[], &["--no-open", "--port", "7000"])
        .output()
        .await
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let json_line = err.lines().find(|l| l.starts_with('{')).unwrap_or_default();
    assert!(json_line.contains("CLIENT_PORT=7000"), "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("the web UI's port and address")),
        "{err}"
    );
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

/// The lines `mcpscope` wrote to stderr up to its `catalog … history …` line, which follows the
/// URL, so every startup warning is among them.
async fn startup_stderr(ui: &mut Ui) -> Vec<String> {
    let stderr = ui.child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let mut seen = Vec::new();
    loop {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the startup lines within 30 s")
            .expect("read stderr")
            .unwrap_or_else(|| panic!("stderr ended before the catalog line: {seen:?}"));
        let last = line.starts_with("mcpscope: catalog ");
        seen.push(line);
        if last {
            return seen;
        }
    }
}

#[tokio::test]
async fn a_second_web_ui_on_the_same_data_directory_says_who_holds_it_and_leaves_its_history_alone()
{
    let dir = TempDir::new("lock");
    let ui = launch(&dir.0, &[], &["--no-open"]).await;
    let pid = ui.child.id().expect("pid");
    let port = ui.base.rsplit(':').next().unwrap().to_string();
    ui.post(
        "/api/servers/demo/connect",
        json!({"protocolEra": "legacy"}),
    )
    .await;
    // A call that stays in flight while the second start happens.
    let held = ui
        .http
        .post(format!("{}/api/servers/demo/request", ui.base))
        .header("x-mcp-remote-auth", format!("Bearer {}", ui.token))
        .header("content-type", "application/json")
        .body(
            json!({"method": "tools/call", "requestId": "held-1",
                   "params": {"name": "slow", "arguments": {"durationMs": 600000, "steps": 1}}})
            .to_string(),
        )
        .send();
    let held = tokio::spawn(held);
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let id = loop {
        let pending = ui.get("/api/history?status=pending").await;
        if let Some(id) = pending["entries"][0]["id"].as_i64() {
            break id;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no pending entry: {pending}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };

    // The same port: the lock is checked before the port, so the message names the holder.
    // And another port: without the lock it would start and share the directory.
    for port_env in [port.as_str(), "0"] {
        let run = command(&dir.0, &[("CLIENT_PORT", port_env)], &["--no-open"]).output();
        let out = tokio::time::timeout(Duration::from_secs(60), run)
            .await
            .expect("a second web UI on the same data directory exits")
            .expect("run a second mcpscope");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{err}");
        assert!(out.stdout.is_empty(), "no URL printed");
        assert!(
            err.contains(&format!("held by pid {pid} (http://127.0.0.1:{port})")),
            "{err}"
        );
        assert!(err.contains("MCPSCOPE_DATA_DIR"), "{err}");
    }
    let entry = ui.get(&format!("/api/history/{id}")).await;
    assert_eq!(entry["status"], "pending", "{entry}");

    ui.post("/api/requests/held-1/cancel", json!({})).await;
    let _ = tokio::time::timeout(Duration::from_secs(30), held).await;
    assert_eq!(ui.stop().await, 0);
    // The lock went with the process: the next start works.
    let ui = launch(&dir.0, &[], &["--no-open"]).await;
    assert_eq!(ui.stop().await, 0);
}

#[tokio::test]
async fn a_short_fixed_token_is_warned_about() {
    let dir = TempDir::new("short-token");
    let mut ui = launch(
        &dir.0,
        &[("MCP_INSPECTOR_API_TOKEN", "letmein")],
        &["--no-open"],
    )
    .await;
    let lines = startup_stderr(&mut ui).await;
    assert!(
        lines
            .iter()
            .any(|l| l.contains("WARNING: MCP_INSPECTOR_API_TOKEN has 7 characters")),
        "{lines:?}"
    );
    assert_eq!(ui.stop().await, 0);
    let long = "a".repeat(32);
    let mut ui = launch(
        &dir.0,
        &[("MCP_INSPECTOR_API_TOKEN", long.as_str())],
        &["--no-open"],
    )
    .await;
    let lines = startup_stderr(&mut ui).await;
    assert!(
        !lines.iter().any(|l| l.contains("MCP_INSPECTOR_API_TOKEN")),
        "{lines:?}"
    );
    assert_eq!(ui.stop().await, 0);
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).expect("stat").permissions().mode() & 0o777
}

#[cfg(unix)]
#[tokio::test]
async fn the_data_directory_and_every_file_in_it_are_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let parent = TempDir::new("private");
    // A fresh directory is created private.
    let fresh = parent.0.join("new").join("mcpscope");
    let ui = launch(&fresh, &[], &["--no-open"]).await;
    assert_eq!(mode(&fresh), 0o700);
    assert_eq!(ui.stop().await, 0);

    // An existing one that others can read is tightened, and says so.
    let dir = parent.0.join("old");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::copy(fresh.join("mcp.json"), dir.join("mcp.json")).unwrap();
    std::fs::set_permissions(dir.join("mcp.json"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut ui = launch(&dir, &[], &["--no-open"]).await;
    let lines = startup_stderr(&mut ui).await;
    let warning = lines
        .iter()
        .find(|l| l.contains("WARNING") && l.contains("owner-only"))
        .unwrap_or_else(|| panic!("no warning: {lines:?}"));
    assert!(warning.contains("mcp.json (was 644)"), "{warning}");
    assert!(warning.contains("(was 755)"), "{warning}");
    // Writes reach every file SQLite keeps (the WAL and its index) and the catalog.
    ui.post(
        "/api/servers/demo/connect",
        json!({"protocolEra": "legacy"}),
    )
    .await;
    ui.post("/api/servers/demo/request", json!({"method": "tools/list"}))
        .await;
    ui.post(
        "/api/servers",
        json!({"name": "other", "entry": {"command": "true"}}),
    )
    .await;
    for d in [&fresh, &dir] {
        assert_eq!(mode(d), 0o700, "{}", d.display());
        let mut names = Vec::new();
        for entry in std::fs::read_dir(d).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            assert_eq!(mode(&entry.path()), 0o600, "{name} in {}", d.display());
            names.push(name);
        }
        for f in ["mcp.json", "history.sqlite", "mcpscope.lock"] {
            assert!(names.iter().any(|n| n == f), "{f} in {names:?}");
        }
        if d == &dir {
            for f in ["history.sqlite-wal", "history.sqlite-shm"] {
                assert!(names.iter().any(|n| n == f), "{f} in {names:?}");
            }
        }
    }
    assert_eq!(ui.stop().await, 0);
}

/// The MCP Apps sandbox listener started beside the UI: on another port (another origin), its
/// URL in `/api/about`, only `/sandbox`, framed only by the UI; a taken `MCP_SANDBOX_PORT` is a
/// clear exit 4 naming the variable, a bad one exit 1.
#[tokio::test]
async fn the_sandbox_listener_starts_beside_the_ui_on_its_own_origin() {
    let dir = TempDir::new("sandbox");
    let ui = launch(&dir.0, &[], &["--no-open"]).await;
    let about = ui.get("/api/about").await;
    let url = about["sandbox"]["url"]
        .as_str()
        .expect("a sandbox url")
        .to_string();
    let port = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|rest| rest.strip_suffix("/sandbox"))
        .unwrap_or_else(|| panic!("{url}"))
        .to_string();
    assert!(
        !ui.base.ends_with(&format!(":{port}")),
        "{url} vs {}",
        ui.base
    );
    let page = ui.http.get(&url).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        csp.starts_with("frame-ancestors ") && csp.contains(&ui.base),
        "{csp}"
    );
    let api = ui
        .http
        .get(url.replace("/sandbox", "/api/servers"))
        .send()
        .await
        .unwrap();
    assert_eq!(api.status(), 404);

    let other = TempDir::new("sandbox-taken");
    let run = command(
        &other.0,
        &[("MCP_SANDBOX_PORT", port.as_str())],
        &["--no-open"],
    )
    .output();
    let out = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .unwrap()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(err.contains("MCP_SANDBOX_PORT"), "{err}");
    let run = command(&other.0, &[("MCP_SANDBOX_PORT", "many")], &["--no-open"]).output();
    let out = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(ui.stop().await, 0);
}

/// Issue 24 item 23: every local user can read the command line of the browser mcpscope opens
/// (`/proc/PID/cmdline`), so it carries a single-use launch code, never the token. The code is
/// traded once for the token's cookie; a second use is refused. The printed URL keeps the token.
#[tokio::test]
async fn the_browser_gets_a_single_use_launch_code_not_the_token() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("launch-code");
    // Beside the data directory, whose files mcpscope makes 0600 (not executable).
    let bin = TempDir::new("launch-code-browser");
    let opened = bin.0.join("opened.txt");
    let browser = bin.0.join("browser.sh");
    std::fs::write(
        &browser,
        format!("#!/bin/sh\necho \"$1\" >> '{}'\n", opened.display()),
    )
    .unwrap();
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut ui = launch(&dir.0, &[("BROWSER", browser.to_str().unwrap())], &[]).await;
    assert_eq!(ui.token.len(), 64, "the printed URL keeps the token");
    let started = startup_stderr(&mut ui).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let url = loop {
        if let Some(u) = std::fs::read_to_string(&opened)
            .ok()
            .and_then(|t| t.lines().next().map(str::to_string))
        {
            break u;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no browser was opened: {started:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(
        !url.contains(&ui.token),
        "the token is on the browser's command line: {url}"
    );
    assert!(url.starts_with(&format!("{}/?launch=", ui.base)), "{url}");

    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let first = http.get(&url).send().await.unwrap();
    assert_eq!(first.status().as_u16(), 303);
    assert_eq!(first.headers()["location"], "/");
    let cookie = first.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(
        cookie.starts_with(&format!("mcpscope_token={};", ui.token)),
        "{cookie}"
    );
    let api = http
        .get(format!("{}/api/servers", ui.base))
        .header("cookie", cookie.split(';').next().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(api.status().as_u16(), 200, "the cookie the code gave works");
    let again = http.get(&url).send().await.unwrap();
    assert_eq!(again.status().as_u16(), 401, "a launch code works once");
    assert!(again.headers().get("set-cookie").is_none());
    assert!(again.text().await.unwrap().contains("works once"));
    assert_eq!(ui.stop().await, 0);
}

/// A private CA and a certificate for 127.0.0.1 and localhost signed by it, in `dir`, by
/// `testenv/peers/make-test-ca.sh` (openssl): `ca.pem`, `server-key.pem`, `server.pem`.
fn make_pki(dir: &Path) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testenv/peers/make-test-ca.sh");
    let out = std::process::Command::new("bash")
        .arg(&script)
        .arg(dir)
        .output()
        .expect("make-test-ca.sh");
    assert!(
        out.status.success(),
        "make-test-ca.sh: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Issue 25 (HTTPS): `INSPECTOR_TLS_KEY_PATH` and `INSPECTOR_TLS_CERT_PATH` serve the UI and
/// the sandbox over TLS: the printed URL and the sandbox's say https, a client trusting the CA
/// gets the API, the launch URL's cookie is Secure. One variable alone, or a file that is not
/// there, stops the start with the name of what is wrong.
#[tokio::test]
async fn inspector_tls_variables_serve_https_and_a_half_set_pair_is_refused() {
    let pki = TempDir::new("tls-pki");
    make_pki(&pki.0);
    let key = pki.0.join("server-key.pem");
    let cert = pki.0.join("server.pem");
    let (key, cert) = (key.to_str().unwrap(), cert.to_str().unwrap());

    let dir = TempDir::new("tls-half");
    let out = command(&dir.0, &[("INSPECTOR_TLS_KEY_PATH", key)], &["--no-open"])
        .env_remove("INSPECTOR_TLS_CERT_PATH")
        .output()
        .await
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty(), "no URL printed");
    assert!(err.contains("INSPECTOR_TLS_CERT_PATH is not"), "{err}");
    assert!(!dir.0.join("history.sqlite").exists(), "nothing started");
    let missing = pki.0.join("nope.pem");
    let env = [
        ("INSPECTOR_TLS_KEY_PATH", key),
        ("INSPECTOR_TLS_CERT_PATH", missing.to_str().unwrap()),
    ];
    let out = command(&dir.0, &env, &["--no-open"])
        .output()
        .await
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("nope.pem"), "{err}");

    let env = [
        ("INSPECTOR_TLS_KEY_PATH", key),
        ("INSPECTOR_TLS_CERT_PATH", cert),
    ];
    let ui = launch(&dir.0, &env, &["--no-open"]).await;
    assert!(ui.base.starts_with("https://127.0.0.1:"), "{}", ui.base);
    let ca = std::fs::read(pki.0.join("ca.pem")).unwrap();
    let https = reqwest::Client::builder()
        .tls_certs_only(vec![reqwest::Certificate::from_pem(&ca).unwrap()])
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let about = https
        .get(format!("{}/api/about", ui.base))
        .header("x-mcp-remote-auth", format!("Bearer {}", ui.token))
        .send()
        .await
        .expect("the UI answers over HTTPS")
        .text()
        .await
        .unwrap();
    let about: Value = serde_json::from_str(&about).unwrap_or(Value::String(about));
    let sandbox = about["sandbox"]["url"].as_str().unwrap_or_default();
    assert!(sandbox.starts_with("https://127.0.0.1:"), "{about}");
    let page = https
        .get(sandbox)
        .send()
        .await
        .expect("the sandbox over HTTPS");
    assert_eq!(page.status(), 200);
    let launch = https
        .get(format!("{}/?token={}", ui.base, ui.token))
        .send()
        .await
        .unwrap();
    assert_eq!(launch.status(), 303);
    let cookie = launch.headers()["set-cookie"].to_str().unwrap();
    assert!(cookie.contains("; Secure"), "{cookie}");
    assert_eq!(ui.stop().await, 0);
}

/// The web UI stops the same way on SIGTERM as on Ctrl-C, and neither waits for its own event
/// stream (which never ends): with `/api/events` open it exits 0 at once. A request in progress
/// (the demo's `slow` tool) holds the stop for the short grace, and a second Ctrl-C quits at
/// once, 130 as a shell says for SIGINT.
#[tokio::test]
async fn sigterm_or_ctrl_c_stops_at_once_with_the_event_stream_open_and_twice_quits_now() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let dir = TempDir::new("stop");
    let mut ui = launch(&dir.0, &[], &["--no-open"]).await;
    let events = ui
        .http
        .get(format!("{}/api/events", ui.base))
        .header("x-mcp-remote-auth", format!("Bearer {}", ui.token))
        .send()
        .await
        .unwrap();
    assert_eq!(events.status(), 200);
    let pid = Pid::from_raw(ui.child.id().unwrap() as i32);
    kill(pid, Signal::SIGTERM).unwrap();
    let began = std::time::Instant::now();
    let status = tokio::time::timeout(Duration::from_secs(10), ui.child.wait())
        .await
        .expect("the web UI exits after SIGTERM")
        .unwrap();
    assert_eq!(status.code(), Some(0));
    // The grace is 5 s: the event stream did not hold the stop.
    assert!(
        began.elapsed() < Duration::from_secs(4),
        "{:?}",
        began.elapsed()
    );
    drop(events);

    let mut ui = launch(&dir.0, &[], &["--no-open"]).await;
    ui.post(
        "/api/servers/demo/connect",
        json!({"protocolEra": "legacy"}),
    )
    .await;
    let call = {
        let rb = ui
            .http
            .post(format!("{}/api/servers/demo/request", ui.base))
            .header("x-mcp-remote-auth", format!("Bearer {}", ui.token))
            .header("content-type", "application/json")
            .body(
                json!({"method": "tools/call",
                       "params": {"name": "slow", "arguments": {"durationMs": 60000, "steps": 60}}})
                .to_string(),
            );
        tokio::spawn(rb.send())
    };
    // The call is in progress once its history entry is pending.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while ui.get("/api/history?status=pending").await["entries"]
        .as_array()
        .is_none_or(|e| e.is_empty())
    {
        assert!(std::time::Instant::now() < deadline, "the call never began");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut stderr = BufReader::new(ui.child.stderr.take().unwrap()).lines();
    let pid = Pid::from_raw(ui.child.id().unwrap() as i32);
    kill(pid, Signal::SIGINT).unwrap();
    // After a second, a line says what the stop waits for and how to quit now.
    let hint = loop {
        let line = tokio::time::timeout(Duration::from_secs(4), stderr.next_line())
            .await
            .expect("a line saying the stop waits, within 4 s")
            .unwrap()
            .expect("stderr still open: the first Ctrl-C waits for the call in progress");
        if line.starts_with("mcpscope: stopping:") {
            break line;
        }
    };
    assert!(
        hint.contains("5s") && hint.contains("Ctrl-C again quits at once"),
        "{hint}"
    );
    assert!(
        ui.child.try_wait().unwrap().is_none(),
        "the first Ctrl-C waits for the call in progress"
    );
    kill(pid, Signal::SIGINT).unwrap();
    let status = tokio::time::timeout(Duration::from_secs(2), ui.child.wait())
        .await
        .expect("a second Ctrl-C quits at once")
        .unwrap();
    assert_eq!(status.code(), Some(130));
    call.abort();
}
