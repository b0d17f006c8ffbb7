//! One catalog parser for every view: the same odd `mcp.json` — VS Code's `settings.json` dialect
//! (`{"mcp": {"servers": …}}`) with comments, trailing commas, a number in `args`, an env value
//! kept in the secret store (`{"secretRef"}`) and one written by hand as `{"secret"}` — gives the
//! same entry through `mcpscope --cli --config FILE --server NAME` and through the web UI started
//! with `--config FILE`: the same process with the same environment, its secret values resolved
//! and redacted alike.

use crate::misbehaving_support::{DEADLINE, MCPSCOPE, Scratch, testkit};
use mcpscope_testkit::StdioMode;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};

const STORED: &str = "sk-live-dialect-stored-91af";
const HAND_WRITTEN: &str = "sk-live-dialect-plain-3c07";

/// The environment both views get: the secret store is a file in `dir`.
fn secret_env(dir: &Path) -> [(&'static str, String); 2] {
    [
        ("MCPSCOPE_SECRET_STORE", "file".into()),
        (
            "MCPSCOPE_SECRET_FILE",
            dir.join("secrets.enc").display().to_string(),
        ),
    ]
}

/// The odd file, with its secretRef's value in the store. The server prints its environment on
/// stderr as it starts, then runs the testkit's well-behaved stdio server.
fn odd_config(dir: &Path) -> std::path::PathBuf {
    let store = mcpscope_store::open_secret_store(&mcpscope_store::SecretStoreConfig::file(
        dir.join("secrets.enc"),
        None,
    ))
    .expect("secret store");
    store
        .set("catalog-value/dialect", STORED)
        .expect("store the value");
    let mut args = vec![
        json!("-c"),
        json!("echo \"env API_KEY=$API_KEY TOKEN=$TOKEN PORT=$0\" >&2; exec \"$@\""),
        // A number, as hand-written configs have them: `$0` of the script.
        json!(7001),
        json!(testkit()),
    ];
    args.extend(
        StdioMode::SlowStart { delay_ms: 0 }
            .args()
            .into_iter()
            .map(Value::from),
    );
    let args: Vec<String> = args.iter().map(Value::to_string).collect();
    let text = format!(
        r#"{{
  // VS Code's settings.json: comments and trailing commas are allowed here.
  "editor.tabSize": 2,
  "mcp": {{
    "servers": {{
      "echoer": {{
        "type": "stdio",
        "command": "sh",
        "args": [{}],
        "env": {{
          "API_KEY": {{"secretRef": "catalog-value/dialect"}},
          "TOKEN": {{"secret": "{HAND_WRITTEN}"}}, /* written by hand */
        }},
      }},
    }},
  }},
}}"#,
        args.join(", ")
    );
    let path = dir.join("settings.json");
    std::fs::write(&path, text).expect("write the config");
    path
}

/// The line the server printed, from the CLI's `--show-stderr`.
fn cli_line(dir: &Path, config: &Path) -> String {
    let out = std::process::Command::new(MCPSCOPE)
        .args(["--cli", "--config"])
        .arg(config)
        .args([
            "--server",
            "echoer",
            "--show-stderr",
            "--method",
            "tools/list",
        ])
        .envs(secret_env(dir))
        .env_remove("MCPSCOPE_SECRET_PASSPHRASE")
        .stdin(Stdio::null())
        .output()
        .expect("run mcpscope --cli");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{err}");
    err.lines()
        .find_map(|l| l.split_once("server stderr: ").map(|(_, t)| t.to_string()))
        .filter(|t| t.starts_with("env "))
        .unwrap_or_else(|| panic!("no server stderr line:\n{err}"))
}

/// A web UI over `config` (read-only), its base URL and token.
async fn web_ui(dir: &Path, config: &Path) -> (tokio::process::Child, String, String) {
    let mut child = tokio::process::Command::new(MCPSCOPE)
        .args(["--no-open", "--config"])
        .arg(config)
        .envs(secret_env(dir))
        .env("MCPSCOPE_DATA_DIR", dir.join("data"))
        .env("CLIENT_PORT", "0")
        .env_remove("HOST")
        .env_remove("MCP_INSPECTOR_API_TOKEN")
        .env_remove("DANGEROUSLY_OMIT_AUTH")
        .env_remove("MCPSCOPE_SECRET_PASSPHRASE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the web UI");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("the web UI prints its URL within 30 s")
        .expect("read stdout")
        .expect("a line");
    let url = line
        .strip_prefix("mcpscope web UI: ")
        .unwrap_or_else(|| panic!("unexpected first line: {line}"));
    let (base, token) = url.split_once("/?token=").expect("a token in the URL");
    (child, base.to_string(), token.to_string())
}

async fn api(base: &str, token: &str, method: reqwest::Method, path: &str) -> Value {
    let r = reqwest::Client::new()
        .request(method, format!("{base}{path}"))
        .header("x-mcp-remote-auth", format!("Bearer {token}"))
        .send()
        .await
        .expect("the web UI answers");
    let status = r.status().as_u16();
    let text = r.text().await.expect("a body");
    let v: Value = serde_json::from_str(&text).unwrap_or(Value::String(text));
    assert_eq!(status, 200, "{path}: {v}");
    v
}

#[tokio::test]
async fn an_odd_vs_code_file_gives_the_same_entry_in_the_cli_and_the_web_ui() {
    let scratch = Scratch::new("catalog-dialects");
    let dir = scratch.path("");
    let config = odd_config(&dir);

    let from_cli = cli_line(&dir, &config);
    assert_eq!(
        from_cli, "env API_KEY=«secret API_KEY» TOKEN=«secret TOKEN» PORT=7001",
        "the CLI resolved both secret values (and redacted them) and took the number as text"
    );

    let (mut child, base, token) = web_ui(&dir, &config).await;
    let servers = api(&base, &token, reqwest::Method::GET, "/api/servers").await;
    let card = servers["servers"]
        .as_array()
        .and_then(|s| s.iter().find(|c| c["name"] == "echoer"))
        .unwrap_or_else(|| panic!("no echoer card: {servers}"))
        .clone();
    assert_eq!(card["transport"], "stdio");
    assert_eq!(card["entry"]["args"][2], "7001", "{card}");
    assert_eq!(
        card["entry"]["env"]["API_KEY"],
        json!({"secretRef": "catalog-value/dialect"}),
        "the card shows the reference, never the value"
    );
    api(
        &base,
        &token,
        reqwest::Method::POST,
        "/api/servers/echoer/connect",
    )
    .await;
    // The stderr line is read beside the handshake; wait for it, not for a fixed time.
    let started = Instant::now();
    let from_web = loop {
        let frames = api(
            &base,
            &token,
            reqwest::Method::GET,
            "/api/servers/echoer/frames?source=stderr",
        )
        .await;
        let line = frames["frames"].as_array().and_then(|f| {
            f.iter()
                .filter_map(|f| f["text"].as_str())
                .find(|t| t.starts_with("env "))
                .map(|t| t.trim_end().to_string())
        });
        if let Some(line) = line {
            break line;
        }
        assert!(started.elapsed() < DEADLINE, "no stderr frame: {frames}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(
        from_web, from_cli,
        "the web UI started the same process with the same environment"
    );
    let _ = child.start_kill();
    let _ = child.wait().await;
}
