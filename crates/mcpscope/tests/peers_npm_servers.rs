//! Two popular servers from npm, over stdio, for what the others do not exercise:
//! `@modelcontextprotocol/server-filesystem` takes its allowed directories from the roots we
//! offer (`roots/list`, answered from `--root`), and `@modelcontextprotocol/server-memory` keeps
//! a knowledge graph in a file (pointed at a scratch file with `MEMORY_FILE_PATH`).

use crate::demo_harness::{Run, body, cli};
use crate::peers_support::Peers;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

const FILESYSTEM: &str = "@modelcontextprotocol/server-filesystem/dist/index.js";
const MEMORY: &str = "@modelcontextprotocol/server-memory/dist/index.js";

/// A fresh, empty scratch directory under cargo's directory for integration tests.
fn scratch(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "npm-peers-{}-{}-{name}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    // The servers compare real paths: resolve any symlink in the scratch location up front.
    dir.canonicalize().expect("canonical scratch path")
}

/// `mcpscope --cli <args…> <server>`.
async fn run(label: &str, server: &[String], args: &[&str]) -> Run {
    let mut all: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    all.extend(server.iter().cloned());
    cli(label, &all).await
}

/// A `tools/call` with `--format json --lint`; the result and the run.
async fn call(
    label: &str,
    server: &[String],
    tool: &str,
    args: Value,
    root: Option<&str>,
) -> (Value, Run) {
    let args = args.to_string();
    let mut flags = vec![
        "--method",
        "tools/call",
        "--tool-name",
        tool,
        "--tool-args-json",
        &args,
        "--format",
        "json",
        "--lint",
    ];
    if let Some(root) = root {
        flags.extend(["--root", root]);
    }
    let run = run(label, server, &flags).await;
    // Both servers are lint-clean: a finding would be exit 6.
    assert!(run.code == 0 || run.code == 5, "{}", run.dump());
    assert_eq!(run.json()["lint"], json!([]), "{}", run.dump());
    (run.result(), run)
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// The server's `roots/list` request in a run, and our answer to it if it went out.
fn roots_exchange(run: &Run) -> (Value, Option<Value>) {
    let asked: Vec<Value> = run
        .received()
        .into_iter()
        .filter(|m| m["method"] == "roots/list" && m.get("id").is_some())
        .collect();
    assert_eq!(
        asked.len(),
        1,
        "server-filesystem asks for roots once\n{}",
        run.dump()
    );
    let answer = run
        .sent()
        .into_iter()
        .find(|m| m["id"] == asked[0]["id"] && m.get("method").is_none());
    (asked[0].clone(), answer)
}

/// The server's stderr lines, from the trace.
fn server_stderr(run: &Run) -> Vec<String> {
    run.frames("stderr-line")
        .iter()
        .map(|f| String::from_utf8_lossy(&body(f)).into_owned())
        .collect()
}

#[tokio::test]
async fn filesystem_serves_the_roots_we_offer_and_refuses_outside_them() {
    let Some(peers) = Peers::get("filesystem_serves_the_roots_we_offer_and_refuses_outside_them")
    else {
        return;
    };
    let base = scratch("filesystem");
    let root = base.join("root");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("hello.txt"), "hello from the root\n").unwrap();
    std::fs::create_dir_all(base.join("outside")).unwrap();
    std::fs::write(base.join("outside/secret.txt"), "not for you\n").unwrap();
    let root_uri = format!("file://{}", root.display());
    let root_path = root.display().to_string();
    let hello = root.join("hello.txt").display().to_string();
    let secret = base.join("outside/secret.txt").display().to_string();

    // The root is on its command line too. server-filesystem asks `roots/list` only once
    // `initialized` arrives and serves calls meanwhile, so a call sent right after the handshake
    // (any one-shot client's) races our answer: started without a directory, that call sees no
    // allowed directory at all ("… not in "). With the same directory on both sides every call
    // is served whichever comes first, and the server's own stderr says when our roots took over.
    let server = peers.node_stdio(FILESYSTEM, &[], &[&root_path]);
    let label = "server-filesystem";
    let (listed, read, refused) = tokio::join!(
        call(
            label,
            &server,
            "list_directory",
            json!({"path": root_path}),
            Some(&root_uri)
        ),
        call(
            label,
            &server,
            "read_text_file",
            json!({"path": hello}),
            Some(&root_uri)
        ),
        call(
            label,
            &server,
            "read_text_file",
            json!({"path": secret}),
            Some(&root_uri)
        ),
    );

    listed.1.expect_exit(0);
    let mut entries: Vec<&str> = text(&listed.0).lines().collect();
    entries.sort_unstable();
    assert_eq!(
        entries,
        ["[DIR] sub", "[FILE] hello.txt"],
        "{}",
        listed.1.dump()
    );
    read.1.expect_exit(0);
    assert_eq!(text(&read.0), "hello from the root\n", "{}", read.1.dump());

    // Outside the roots: a tool error (exit 5) that says why, and not a byte of the file.
    refused.1.expect_exit(5);
    assert_eq!(refused.0["isError"], true, "{}", refused.1.dump());
    assert!(
        text(&refused.0).contains("Access denied - path outside allowed directories"),
        "{}",
        refused.1.dump()
    );
    assert!(!refused.1.stdout.contains("not for you"));

    for run in [&listed.1, &read.1, &refused.1] {
        let init = &run.sent_method("initialize")[0];
        assert!(
            init["params"]["capabilities"]["roots"].is_object(),
            "{init}"
        );
        // It asked (its request comes out before the call's result: it sends it on our
        // `initialized`), and what we answered is exactly our --root, which it then adopted —
        // even when the call was served first: the CLI does not close before its answer is out.
        let answer = roots_exchange(run)
            .1
            .unwrap_or_else(|| panic!("our answer to roots/list never went out\n{}", run.dump()));
        assert_eq!(
            answer["result"]["roots"],
            json!([{"uri": root_uri, "name": "root"}]),
            "{}",
            run.dump()
        );
        assert!(
            server_stderr(run)
                .iter()
                .any(|l| l == "Updated allowed directories from MCP roots: 1 valid directories"),
            "{}",
            run.dump()
        );
        let warnings = run.json()["warnings"].to_string();
        assert!(
            !warnings.contains("could not answer") && !warnings.contains("unanswered"),
            "{}",
            run.dump()
        );
    }
}

#[tokio::test]
async fn memory_keeps_entities_in_its_file() {
    let Some(peers) = Peers::get("memory_keeps_entities_in_its_file") else {
        return;
    };
    let file = scratch("memory").join("memory.jsonl");
    let file_env = file.display().to_string();
    let server = peers.node_stdio(MEMORY, &[("MEMORY_FILE_PATH", &file_env)], &[]);
    let label = "server-memory";
    let entities = json!({"entities": [
        {"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]},
        {"name": "Analytical Engine", "entityType": "machine", "observations": []}
    ]});
    let (created, run_created) =
        call(label, &server, "create_entities", entities.clone(), None).await;
    run_created.expect_exit(0);
    assert_eq!(
        created["structuredContent"],
        entities,
        "{}",
        run_created.dump()
    );
    assert!(file.exists(), "server-memory wrote no {file:?}");

    // A new process reads the graph back from the file: tool and resource agree.
    let (graph, resource) = tokio::join!(
        call(label, &server, "read_graph", json!({}), None),
        run(
            label,
            &server,
            &[
                "--method",
                "resources/read",
                "--uri",
                "memory://knowledge-graph",
                "--format",
                "json",
                "--lint"
            ]
        ),
    );
    graph.1.expect_exit(0);
    assert_eq!(
        graph.0["structuredContent"],
        json!({"entities": entities["entities"], "relations": []}),
        "{}",
        graph.1.dump()
    );
    resource.expect_exit(0);
    let contents = &resource.result()["contents"][0];
    let read: Value = serde_json::from_str(contents["text"].as_str().unwrap_or("null"))
        .unwrap_or_else(|e| panic!("{e}\n{}", resource.dump()));
    assert_eq!(
        read["entities"],
        entities["entities"],
        "{}",
        resource.dump()
    );
}
