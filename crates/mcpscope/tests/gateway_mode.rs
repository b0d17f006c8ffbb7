//! `mcpscope gateway` as users start it: the real binary, its file, the URL it prints, and the
//! relay in front of a real MCP server over HTTP (`mcpscope demo-server --http 0`). The relay's
//! rules one by one are `crates/mcpscope-gateway/tests` (against a gateway that records what it
//! received); this pins the wiring: the subcommand, its flags, its exit on a bad file.

use crate::demo_harness::MCPSCOPE;
use crate::misbehaving_support::Scratch;
use serde_json::{Value, json};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt as _, BufReader};

/// A line of `reader` that `pick` accepts, within 20 s.
async fn line_where<R: tokio::io::AsyncRead + Unpin>(
    lines: &mut tokio::io::Lines<BufReader<R>>,
    pick: impl Fn(&str) -> bool,
) -> String {
    loop {
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("the process announces itself")
            .unwrap()
            .expect("the process is still running");
        if pick(&line) {
            return line;
        }
    }
}

#[tokio::test]
async fn gateway_mode_relays_the_demo_server_and_nothing_else() {
    let mut demo = tokio::process::Command::new(MCPSCOPE)
        .args(["demo-server", "--http", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start mcpscope demo-server");
    let mut demo_lines = BufReader::new(demo.stderr.take().unwrap()).lines();
    let line = line_where(&mut demo_lines, |l| l.trim_end().ends_with("/mcp")).await;
    let mcp_url = line.split_whitespace().last().unwrap().to_string();
    let dir = Scratch::new("gateway-mode");
    let file = dir.path("gateways.json");
    std::fs::write(
        &file,
        json!({"gateways": {"demo": {"url": mcp_url}}}).to_string(),
    )
    .unwrap();
    let mut gateway = tokio::process::Command::new(MCPSCOPE)
        .args(["gateway", "--config"])
        .arg(&file)
        .args(["--port", "0"])
        .env_remove("MCP_INSPECTOR_API_TOKEN")
        .env_remove("HOST")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start mcpscope gateway");
    let mut out = BufReader::new(gateway.stdout.take().unwrap()).lines();
    let line = line_where(&mut out, |l| l.starts_with("mcpscope gateway: ")).await;
    let url = url::Url::parse(line.trim_start_matches("mcpscope gateway: ")).unwrap();
    let token = url
        .query_pairs()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.into_owned())
        .expect("a generated token is printed in the URL");
    let base = format!("http://{}:{}", url.host_str().unwrap(), url.port().unwrap());
    let client = reqwest::Client::new();
    let health = client.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    let post = |body: Value, session: Option<String>| {
        let mut r = client
            .post(format!("{base}/api/gateways/demo/mcp"))
            .header("x-mcp-remote-auth", format!("Bearer {token}"))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .body(body.to_string());
        if let Some(s) = session {
            r = r.header("mcp-session-id", s);
        }
        r.send()
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let resp = post(init, None).await.unwrap();
    assert_eq!(resp.status(), 200);
    let session = resp
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    let text = resp.text().await.unwrap();
    assert!(text.contains("\"serverInfo\""), "{text}");
    let inited = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert!(
        post(inited, session.clone())
            .await
            .unwrap()
            .status()
            .is_success()
    );
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let resp = post(list, session.clone()).await.unwrap();
    assert_eq!(resp.status(), 200);
    let text = resp.text().await.unwrap();
    assert!(text.contains("\"tools\""), "{text}");
    // The demo server has resources; the relay does not relay them.
    let read = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/list"});
    let resp = post(read, session).await.unwrap();
    assert_eq!(resp.status(), 403);
    assert_eq!(resp.headers()["x-mcpscope-refusal"], "method-allowlist");
    // No single-user route exists.
    let servers = client
        .get(format!("{base}/api/servers"))
        .header("x-mcp-remote-auth", format!("Bearer {token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(servers.status(), 404);
}

#[tokio::test]
async fn gateway_mode_refuses_a_bad_file_naming_its_line() {
    let dir = Scratch::new("gateway-bad");
    let file = dir.path("gateways.json");
    std::fs::write(
        &file,
        "{\n  \"gateways\": {\n    \"a\": {\"url\": 42}\n  }\n}\n",
    )
    .unwrap();
    let out = tokio::process::Command::new(MCPSCOPE)
        .args(["gateway", "--port", "0", "--config"])
        .arg(&file)
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{}:3:", file.display())),
        "{stderr}"
    );
}
