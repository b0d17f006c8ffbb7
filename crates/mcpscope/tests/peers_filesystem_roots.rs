//! A server not built by us uses the configured roots: `@modelcontextprotocol/server-filesystem`
//! (the roots case beside `peers_npm_servers`, which answers it from `--root`) replaces its
//! allowed directories with whatever `roots/list` answers, and asks again on
//! `notifications/roots/list_changed`.
//!
//! - The CLI with `--config`: the entry's `roots` (with their names) are the answer on the wire,
//!   and the server's stderr says it adopted them.
//! - The inspector core, as the web UI runs it: a catalog file with the official Inspector's
//!   `roots` key, server-filesystem started with no directory of its own; its
//!   `list_allowed_directories` tool names the configured root and a file outside it is refused;
//!   the Roots editor's edit sends `list_changed`, the server asks again, and the same connection
//!   now serves only the new root.

use crate::demo_harness::{Run, body, cli};
use crate::peers_support::Peers;
use mcpscope_inspect::roots::Root;
use mcpscope_inspect::{Call, Catalog, FramePage, Inspector, Options};
use mcpscope_store::{HistoryStore, Retention};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

const FILESYSTEM: &str = "@modelcontextprotocol/server-filesystem/dist/index.js";
const ADOPTED: &str = "Updated allowed directories from MCP roots: 1 valid directories";

/// A fresh scratch directory (canonical: the server compares real paths), removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("peers-roots-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        Scratch(dir.canonicalize().expect("canonical scratch path"))
    }

    /// A directory under it holding one file, `<name>.txt`.
    fn dir_with_file(&self, name: &str) -> PathBuf {
        let d = self.0.join(name);
        std::fs::create_dir_all(&d).expect("mkdir");
        std::fs::write(d.join(format!("{name}.txt")), format!("in {name}\n")).expect("write");
        d
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

/// The catalog entry running server-filesystem with `dirs` on its command line.
fn entry(peers: &Peers, dirs: &[&str], roots: Value) -> Value {
    // `node_stdio` gives CLI arguments: `-- node script dirs…`.
    let cmd = peers.node_stdio(FILESYSTEM, &[], dirs);
    let at = cmd.iter().position(|a| a == "--").expect("--") + 1;
    json!({"command": cmd[at], "args": cmd[at + 1..], "protocolEra": "legacy", "roots": roots})
}

fn write_config(scratch: &Scratch, entry: Value) -> PathBuf {
    let path = scratch.0.join("mcp.json");
    let doc = json!({"mcpServers": {"fs": entry}});
    std::fs::write(&path, doc.to_string()).expect("write mcp.json");
    path
}

/// Our answer to the server's one `roots/list` in a CLI run.
fn answered(run: &Run) -> Value {
    let asked = run
        .received()
        .into_iter()
        .find(|m| m["method"] == "roots/list" && m.get("id").is_some())
        .unwrap_or_else(|| panic!("server-filesystem did not ask\n{}", run.dump()));
    run.sent()
        .into_iter()
        .find(|m| m["id"] == asked["id"] && m.get("method").is_none())
        .unwrap_or_else(|| panic!("our answer never went out\n{}", run.dump()))["result"]["roots"]
        .clone()
}

#[tokio::test]
async fn filesystem_is_answered_from_the_config_files_roots() {
    let Some(peers) = Peers::get("filesystem_is_answered_from_the_config_files_roots") else {
        return;
    };
    let scratch = Scratch::new("cli");
    let root = scratch.dir_with_file("project");
    let root_path = root.display().to_string();
    // The directory is on its command line too: a one-shot call can be served before the
    // server has our roots (see peers_npm_servers), and must not fail for that.
    let roots = json!([{"uri": uri(&root), "name": "Configured project"}]);
    let config = write_config(&scratch, entry(&peers, &[&root_path], roots.clone()));
    let args: Vec<String> = [
        "--config",
        &config.display().to_string(),
        "--server",
        "fs",
        "--method",
        "tools/call",
        "--tool-name",
        "list_directory",
        "--tool-args-json",
        &json!({"path": root_path}).to_string(),
        "--format",
        "json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let run = cli("server-filesystem --config", &args).await;
    run.expect_exit(0);
    assert_eq!(answered(&run), roots, "the file's roots, names and all");
    let stderr: Vec<String> = run
        .frames("stderr-line")
        .iter()
        .map(|f| String::from_utf8_lossy(&body(f)).into_owned())
        .collect();
    assert!(stderr.iter().any(|l| l == ADOPTED), "{}", run.dump());
}

/// The server's stderr lines so far, from the traffic.
async fn stderr_lines(app: &Inspector) -> Vec<String> {
    let q = FramePage {
        after: Some(0),
        limit: Some(10_000),
        sources: vec!["stderr".into()],
        ..Default::default()
    };
    let frames = app.frames("fs", q).await.expect("frames");
    frames
        .iter()
        .filter_map(|f| serde_json::from_str::<Value>(f).ok())
        .filter_map(|f| f["text"].as_str().map(|t| t.trim_end().to_string()))
        .collect()
}

/// Wait until the server's stderr says it adopted roots `times` times.
async fn adopted(app: &Inspector, times: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let lines = stderr_lines(app).await;
        if lines.iter().filter(|l| *l == ADOPTED).count() >= times {
            return;
        }
        assert!(Instant::now() < deadline, "never adopted: {lines:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `tool` on server-filesystem with `arguments`: its text and whether it is an error.
async fn call(app: &Arc<Inspector>, tool: &str, arguments: Value) -> (String, bool) {
    let c = Call {
        method: "tools/call".into(),
        params: Some(json!({"name": tool, "arguments": arguments})),
        ..Default::default()
    };
    let result = app
        .call("fs", c)
        .await
        .expect("call")
        .result
        .expect("result");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    (text.to_string(), result["isError"] == true)
}

#[tokio::test]
async fn filesystem_serves_the_configured_root_and_follows_an_edit_on_the_same_connection() {
    let Some(peers) = Peers::get(
        "filesystem_serves_the_configured_root_and_follows_an_edit_on_the_same_connection",
    ) else {
        return;
    };
    let scratch = Scratch::new("core");
    let first = scratch.dir_with_file("first");
    let second = scratch.dir_with_file("second");
    // No directory of its own: it waits for our roots.
    let roots = json!([{"uri": uri(&first), "name": "First"}]);
    let catalog =
        Catalog::load(&write_config(&scratch, entry(&peers, &[], roots)), false).expect("catalog");
    let store = HistoryStore::open(&scratch.0.join("history.sqlite"), Retention::default())
        .expect("history");
    let options = Options {
        ping_interval: None,
        secrets: Some(mcpscope_store::SecretStoreConfig::file(
            scratch.0.join("secrets.enc"),
            None,
        )),
        ..Options::default()
    };
    let app = Inspector::new(catalog, store, options);
    app.connect("fs", None)
        .await
        .expect("connect server-filesystem");
    adopted(&app, 1).await;
    let (allowed, _) = call(&app, "list_allowed_directories", json!({})).await;
    assert_eq!(
        allowed,
        format!("Allowed directories:\n{}", first.display())
    );
    let in_second = second.join("second.txt").display().to_string();
    let (text, refused) = call(&app, "read_text_file", json!({"path": in_second})).await;
    assert!(refused && text.contains("Access denied"), "{text}");

    let edit = vec![Root {
        uri: uri(&second),
        name: Some("Second".into()),
    }];
    let saved = app.set_roots("fs", edit).await.expect("set roots");
    assert_eq!(saved["listChangedSent"], true, "{saved}");
    adopted(&app, 2).await;
    let (allowed, _) = call(&app, "list_allowed_directories", json!({})).await;
    assert_eq!(
        allowed,
        format!("Allowed directories:\n{}", second.display())
    );
    let (text, refused) = call(&app, "read_text_file", json!({"path": in_second})).await;
    assert!(!refused, "{text}");
    assert_eq!(text, "in second\n");
    app.shutdown().await;
}
