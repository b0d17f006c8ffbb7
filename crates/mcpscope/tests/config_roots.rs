//! `--config FILE --server NAME` honours the entry's `roots` (the official Inspector's key, the
//! same the web UI's Roots editor writes): the demo's `list-roots` tool, asked over stdio and
//! Streamable HTTP in both eras, lists exactly the file's roots — what went on the wire is
//! checked in the trace (a legacy `roots/list` response, a modern retry's `inputResponses`).
//! `--root` flags replace the file's roots; a root the spec forbids stops the run before it
//! connects, naming the root and the reason.

use crate::demo_harness::{Era, MCPSCOPE, Run, cli, shared_demo};
use serde_json::{Value, json};

/// A config file holding `entry` as the server `demo`, in a directory of its own.
struct Config {
    dir: std::path::PathBuf,
    path: String,
}

impl Config {
    fn new(label: &str, entry: Value) -> Config {
        let dir = std::env::temp_dir().join(format!(
            "mcpscope-config-roots-{label}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("mcp.json");
        let doc = json!({"mcpServers": {"demo": entry}});
        std::fs::write(&path, doc.to_string()).expect("write the config");
        Config {
            path: path.to_string_lossy().into_owned(),
            dir,
        }
    }

    async fn list_roots(&self, label: &str, extra: &[&str]) -> Run {
        let args: Vec<String> = ["--config", &self.path, "--server", "demo"]
            .iter()
            .chain(&["--method", "tools/call", "--tool-name", "list-roots"])
            .chain(extra)
            .chain(&["--format", "json"])
            .map(|a| a.to_string())
            .collect();
        cli(label, &args).await
    }
}

impl Drop for Config {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The roots our answer carried, as the trace shows it went out.
fn answered_roots(run: &Run, era: Era) -> Value {
    match era {
        Era::Legacy => {
            let asked = run
                .received()
                .into_iter()
                .find(|m| m["method"] == "roots/list")
                .unwrap_or_else(|| panic!("no roots/list\n{}", run.dump()));
            let answer = run
                .sent()
                .into_iter()
                .find(|m| m["id"] == asked["id"] && m.get("method").is_none())
                .unwrap_or_else(|| panic!("no answer\n{}", run.dump()));
            answer["result"]["roots"].clone()
        }
        Era::Modern => {
            let calls = run.sent_method("tools/call");
            assert_eq!(calls.len(), 2, "a round, then the retry\n{}", run.dump());
            calls[1]["params"]["inputResponses"]["answer"]["roots"].clone()
        }
    }
}

fn text(run: &Run) -> String {
    run.result()["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text\n{}", run.dump()))
        .to_owned()
}

const ROOTS: &str =
    r#"[{"uri": "file:///home/user/myproject", "name": "Project"}, {"uri": "file:///etc/myapp"}]"#;

#[tokio::test]
async fn the_config_entrys_roots_are_the_answer_in_both_eras_over_stdio_and_http() {
    let roots: Value = serde_json::from_str(ROOTS).unwrap();
    for era in [Era::Legacy, Era::Modern] {
        let stdio = json!({"command": MCPSCOPE, "args": ["demo-server"],
                           "protocolEra": era.flag(), "roots": roots});
        let http = json!({"type": "streamable-http", "url": format!("{}/mcp", shared_demo()),
                          "protocolEra": era.flag(), "roots": roots});
        for (transport, entry) in [("stdio", stdio), ("http", http)] {
            let label = format!("{}-{transport}", era.flag());
            let config = Config::new(&label, entry);
            let run = config.list_roots(&label, &[]).await;
            run.expect_exit(0);
            assert_eq!(answered_roots(&run, era), roots, "{}", run.dump());
            assert_eq!(
                text(&run),
                "2 roots\nfile:///home/user/myproject (Project)\nfile:///etc/myapp",
                "{}",
                run.dump()
            );
            // --root flags, as on any command line, win over the file.
            let run = config
                .list_roots(&label, &["--root", "file:///tmp/flag"])
                .await;
            run.expect_exit(0);
            assert_eq!(
                answered_roots(&run, era),
                json!([{"uri": "file:///tmp/flag", "name": "flag"}]),
                "{}",
                run.dump()
            );
        }
    }
}

#[tokio::test]
async fn a_root_the_spec_forbids_stops_the_run_before_it_connects() {
    let entry = json!({"command": MCPSCOPE, "args": ["demo-server"],
                       "roots": [{"uri": "file:///ok"}, {"uri": "https://example.com/repo"}]});
    let config = Config::new("bad", entry);
    let run = config.list_roots("bad", &[]).await;
    run.expect_exit(1);
    let error = run.error();
    assert_eq!(error["code"], "usage", "{}", run.dump());
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("roots[1].uri") && message.contains("roots must be file:// URIs"),
        "{}",
        run.dump()
    );
    assert!(run.sent().is_empty(), "nothing was sent\n{}", run.dump());
}
